#!/usr/bin/env python3
# Rewrite the commits BASE..TIP of the kernel tree through fold.py, touching
# only the files fold.py cares about; prints the new tip. Messages of the
# commits named in msgs/<old-subject-prefix>.txt are replaced.
import os, shutil, subprocess, sys, tempfile

TREE, BASE, TIP = sys.argv[1:4]
HERE = os.path.dirname(os.path.abspath(__file__))
FILES = ['block/Kconfig', 'block/Makefile', 'block/blk-cgroup.c', 'block/blk-cgroup.h',
         'block/blk-iocost.c', 'block/blk-iolatency.c', 'block/blk-throttle.h',
         'block/tests/blk_cgroup_kunit.c', 'include/linux/blk-cgroup.h',
         'include/linux/blk_types.h', 'mm/page_io.c', 'include/linux/swap_ops.h',
         'mm/zswap.c', 'mm/zswap_internal.h', 'mm/tests/zswap_kunit.c', 'mm/swap.h',
         'mm/swapfile.c']


def git(*a, inp=None, env=None):
    e = dict(os.environ)
    if env:
        e.update(env)
    return subprocess.run(['git', '-C', TREE] + list(a), input=inp, capture_output=True,
                          text=True, check=True, env=e).stdout


commits = git('rev-list', '--reverse', '%s..%s' % (BASE, TIP)).split()
parent = git('rev-parse', BASE).strip()
open(os.path.join(HERE, 'fold.log'), 'w').close()
for c in commits:
    tmp = tempfile.mkdtemp()
    present = set()
    for f in FILES:
        try:
            s = git('show', '%s:%s' % (c, f))
        except subprocess.CalledProcessError:
            continue
        present.add(f)
        os.makedirs(os.path.join(tmp, os.path.dirname(f)), exist_ok=True)
        open(os.path.join(tmp, f), 'w').write(s)
    subprocess.run([sys.executable, os.path.join(HERE, 'fold.py')], cwd=tmp, check=True,
                   env=dict(os.environ, GIT_COMMIT=c, GIT_DIR=os.path.join(TREE, '.git')
                            if os.path.isdir(os.path.join(TREE, '.git')) else
                            git('rev-parse', '--git-dir').strip()))
    idx = os.path.join(tmp, '.index')
    env = {'GIT_INDEX_FILE': idx}
    git('read-tree', c, env=env)
    for f in FILES:
        p = os.path.join(tmp, f)
        if not os.path.exists(p):
            continue
        sha = git('hash-object', '-w', p).strip()
        git('update-index', '--add', '--cacheinfo', '100644,%s,%s' % (sha, f), env=env)
    tree = git('write-tree', env=env).strip()
    shutil.rmtree(tmp)
    subj = git('log', '-1', '--format=%s', c).strip()
    msg = git('log', '-1', '--format=%B', c)
    for name in os.listdir(os.path.join(HERE, 'msgs')):
        if subj.startswith(open(os.path.join(HERE, 'msgs', name)).readline().strip()):
            msg = ''.join(open(os.path.join(HERE, 'msgs', name)).readlines()[1:])
    fmt = git('log', '-1', '--format=%an%n%ae%n%aI%n%cn%n%ce%n%cI', c).split('\n')
    env = {'GIT_AUTHOR_NAME': fmt[0], 'GIT_AUTHOR_EMAIL': fmt[1], 'GIT_AUTHOR_DATE': fmt[2],
           'GIT_COMMITTER_NAME': fmt[3], 'GIT_COMMITTER_EMAIL': fmt[4],
           'GIT_COMMITTER_DATE': fmt[5]}
    parent = git('commit-tree', tree, '-p', parent, inp=msg, env=env).strip()
print(parent)
