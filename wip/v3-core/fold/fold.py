#!/usr/bin/env python3
# Tree filter: turn a commit of the v2 series into its v3 form.
# Run in the root of a checked-out commit's tree (git filter-branch
# --tree-filter). Hunks come from hunks.json (made by mkhunks.py): for each
# file, the v2 tip (after the rename) -> v3 tip text replacements.
import json, os, re, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
LOG = open(os.path.join(HERE, 'fold.log'), 'a')
commit = os.environ.get('GIT_COMMIT', '?')[:7]


def rd(p):
    return open(p).read() if os.path.exists(p) else None


def wr(p, s):
    os.makedirs(os.path.dirname(p) or '.', exist_ok=True)
    open(p, 'w').write(s)


def base(path):
    return subprocess.run(['git', 'show', 'v7.3.4-base:' + path], capture_output=True,
                          text=True, check=True).stdout


def rename(s):
    return s.replace('ZSWAP_WALK_THROTTLE', 'ZSWAP_WALK_PACE')


hunks = json.load(open(os.path.join(HERE, 'hunks.json')))
blkh = rd('block/blk-cgroup.h') or ''
incblk = rd('include/linux/blk-cgroup.h') or ''
has_p2 = 'blk_opf_issue_as_root' in blkh
has_pred = 'blkcg_io_controlled' in incblk

# the block side: old patch 2 becomes the pay helper; the predicate keeps its commit
if has_p2 or has_pred:
    src = os.path.join(HERE, 'final' if has_pred else 'p2')
    for root, _, files in os.walk(src):
        for f in files:
            full = os.path.join(root, f)
            rel = os.path.relpath(full, src)
            if rel == 'MAINTAINERS':
                continue
            wr(rel, open(full).read())
    if not has_pred:
        for rel in ['block/blk-iocost.c', 'block/blk-iolatency.c', 'block/blk-throttle.h']:
            wr(rel, base(rel))

# the throttled swap IO context goes: swap IO is as stock
for rel in ['include/linux/blk_types.h', 'mm/page_io.c', 'include/linux/swap_ops.h']:
    if os.path.exists(rel):
        b = base(rel)
        if rd(rel) != b:
            wr(rel, b)

zc = rd('mm/zswap.c') or ''
internal = rd('mm/zswap_internal.h') or ''
stage5 = 'zswap_wb_run(' in zc
has_controlled = 'bool controlled;' in internal
swapfile = rd('mm/swapfile.c') or ''

# the worker's pay helper, from patch 5 on; after the gate, hunks.json places it
if stage5 and 'swap_io_controlled' not in swapfile and 'swap_pay_io_delay' not in swapfile:
    final = open(os.path.join(HERE, 'final-swapfile.c')).read()
    a = final.index('\n/**\n * swap_pay_io_delay')
    b = final.index('#endif\n', a)
    pay = final[a:b]
    anchor = '\tspin_unlock(&swap_avail_lock);\n}\n#endif\n\nstatic int __init swapfile_init'
    assert swapfile.count(anchor) == 1
    swapfile = swapfile.replace(anchor, '\tspin_unlock(&swap_avail_lock);\n}\n' + pay +
                                '#endif\n\nstatic int __init swapfile_init')
    wr('mm/swapfile.c', swapfile)
    sh = rd('mm/swap.h')
    anchor = 'void folio_put_swap(struct folio *folio, struct page *page);\n'
    assert sh.count(anchor) == 1
    sh = sh.replace(anchor, anchor + '''
#if defined(CONFIG_MEMCG) && defined(CONFIG_BLK_CGROUP)
u64 swap_pay_io_delay(struct mem_cgroup *memcg, int type);
#else
static inline u64 swap_pay_io_delay(struct mem_cgroup *memcg, int type)
{
	return 0;
}
#endif
''')
    wr('mm/swap.h', sh)

for rel, hs in hunks.items():
    s = rd(rel)
    if s is None:
        continue
    s = rename(s)
    for i, h in enumerate(hs):
        old, new, need = h['old'], h['new'], h.get('need', '')
        if need == 'stage5' and not stage5:
            continue
        if need == 'controlled' and not has_controlled:
            continue
        if new in s and old not in s:
            continue
        n = s.count(old)
        if n == 1:
            s = s.replace(old, new)
            LOG.write('%s %s hunk %d applied\n' % (commit, rel, i))
        else:
            LOG.write('%s %s hunk %d NOT applied (%d)\n' % (commit, rel, i, n))
    wr(rel, s)
