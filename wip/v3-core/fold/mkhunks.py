#!/usr/bin/env python3
# hunks.json: v2 tip (renamed) -> v3 tip replacements, per file, each made
# unique in the v2 tip by growing its context.
import difflib, json, subprocess, sys

V2, V3, TREE = sys.argv[1], sys.argv[2], sys.argv[3]
FILES = ['mm/zswap.c', 'mm/zswap_internal.h', 'mm/tests/zswap_kunit.c',
         'mm/swap.h', 'mm/swapfile.c']


def show(rev, path):
    return subprocess.run(['git', '-C', TREE, 'show', '%s:%s' % (rev, path)],
                          capture_output=True, text=True, check=True).stdout


out = {}
for f in FILES:
    a = show(V2, f).replace('ZSWAP_WALK_THROTTLE', 'ZSWAP_WALK_PACE')
    b = show(V3, f)
    al, bl = a.splitlines(True), b.splitlines(True)
    sm = difflib.SequenceMatcher(None, al, bl, autojunk=False)
    hs = []
    cur = a
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op == 'equal':
            continue
        ctx = 2
        while True:
            pre = ''.join(bl[max(0, j1 - ctx):j1])
            post = ''.join(al[i2:i2 + ctx])
            old = pre + ''.join(al[i1:i2]) + post
            if cur.count(old) == 1 or ctx > 12:
                break
            ctx += 1
        new = pre + ''.join(bl[j1:j2]) + post
        if cur.count(old) != 1:
            print('%s: hunk not unique/applicable at tip:\n%s' % (f, old[:200]))
        cur = cur.replace(old, new, 1)
        h = {'old': old, 'new': new}
        if 'controlled' in new and 'controlled' not in old:
            h['need'] = 'controlled'
        hs.append(h)
    if cur != b:
        print('%s: hunks do not reproduce the v3 tip' % f)
    out[f] = hs
json.dump(out, open('hunks.json', 'w'), indent=1)
print({k: len(v) for k, v in out.items()})
