#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Run the series' selftests (tools/testing/selftests/zswap) in a VM booted
# on the patched kernel: lib/selftests.sh [--vm qemu|um] [--tree DIR]
#                        [--kernel series|stock] [--targets "zswap cgroup"]
#                        [--tests "COLLECTION[:TEST] ..."] [--result FILE]
#                        [--debug kasan|kcsan]
# (VM=, KERNEL=, TARGETS=, TESTS= and DEBUG= in the environment do the same.)
#
# - Guest kernel: lib/guest.config + the selftests' config fragment, then
#   olddefconfig; every option of the fragment must survive (named if not).
#   Built with ccache in a build directory of its own per source tree
#   (kbuild's O= belongs to one tree): build/guest-ARCH for build/linux,
#   DIR/guest-ARCH for a tree DIR/linux elsewhere (the unpatched kernel's
#   build/stock/linux, the mutation gate's build/mutants/linux), and
#   build/guest-ARCH-NAME for any other tree build/NAME.
# - --kernel stock boots pristine 7.3.4 (lib/guest.sh stock_tree) with the
#   selftests of --tree: the cases that pin the series' behaviour must fail.
# - The selftests (--targets, default "zswap") are built and installed on
#   the host (build/kselftest[-NAME]); the guest sees the host root
#   read-only over 9p, copies the installed tests to an ext4 scratch
#   partition (upstream's page-cache memcg tests need a real filesystem in
#   their working directory, not 9p or tmpfs) and runs run_kselftest.sh
#   there. --tests narrows the run (run_kselftest.sh collections or
#   collection:test); by default every zswap test runs, and of upstream's
#   cgroup collection test_zswap and test_memcontrol.
# - VM: virtme-ng (vng) on QEMU x86_64, TCG unless KVM boots our kernel
#   (lib/vm.sh). One virtio disk: /dev/vda1 is the swap device, /dev/vda2
#   a raw partition on the same disk for the IO-contention sibling,
#   /dev/vda3 the ext4 scratch (ZSWAP_SCRATCH, also where the swapfile
#   case puts its swap file).
# - VM=um: a User Mode Linux guest instead (arch/um defconfig + the
#   fragment), the host root over hostfs (read-only), the same disk image
#   as a ubd device (/dev/ubda1..3). Boots in seconds but is less
#   faithful (no virtio, no real block queue): a fast path, not the
#   reference.
# - The guest reaches the host's files at fixed paths of its own, whatever
#   the checkout's path: the VM files (guest.sh) at /tmp/zswap-vm, the
#   installed selftests at /tmp/zswap-kst, the output directory at
#   /tmp/zswap-out (vng: --rodir/--rwdir; UML: hostfs mounts), and vng
#   starts the guest in / rather than in the host's working directory. A
#   checkout under a directory the guest's init covers with a tmpfs (/tmp
#   in the UML guest; /run, /var/tmp... under vng) works too.
# - A guest that does not finish within GUEST_TIMEOUT seconds is killed
#   and reported with the last 50 lines of its console.
# - A skipped case (or a program skipped as a whole) counts as a failure
#   unless lib/expected-skips lists it for this VM: the guest is made to
#   provide what the tests need.
# - --debug KIND (lib/stress.sh, make stress): the debug guest. The kernel
#   gets lib/debug.config and lib/debug-KIND.config on top (every option
#   must survive olddefconfig) and builds in GDIR-debug-KIND, its VM files
#   in VMDIR-debug-KIND, so the normal guest is left alone. The guest runs
#   the programs one at a time (run_kselftest.sh -t each, its timeout
#   DEBUG_SLOWDOWN times the zswap settings' (5 for KASAN, 7 for KCSAN
#   unless set), and the tests' own bounds on time too: ZSWAP_SLOWDOWN in
#   the guest), marks each in the kernel log
#   and saves dmesg after each (dmesg -c) to the output directory's
#   dmesg/; kmemleak is scanned and cleared before the first program and
#   scanned again after the last, its report saved. lib/reports.py then
#   scans the console, the dmesg files and the kmemleak report: each
#   kernel report (BUG, WARNING, KASAN, KCSAN, lockdep, hung task,
#   kmemleak...) is printed with the program it followed and counts as a
#   failed case. QEMU only.
# - GUEST_CMDLINE adds kernel arguments to the guest's command line (QEMU
#   only; words without spaces, e.g. GUEST_CMDLINE=lockdep.prove_locking=0).
# --result FILE gets "PASSED FAILED SKIPPED" counted from the TAP output
# (an unexpected skip is counted as failed, not skipped); --failed FILE
# the names of the failed cases, one a line (a program that failed as a
# whole under its own name). Neither is written when no TAP came back.
set -euo pipefail
. "$(dirname "$0")/common.sh"
. "$ROOT/lib/vm.sh"
. "$ROOT/lib/guest.sh"

tree=$TREE result="" failed_list="" vm=${VM:-qemu} kernel=${KERNEL:-series}
targets=${TARGETS:-zswap} tests=${TESTS:-} debug=${DEBUG:-}
DEBUG_SLOWDOWN=${DEBUG_SLOWDOWN:-}
GUEST_TIMEOUT=${GUEST_TIMEOUT:-2400}
GUEST_MEM=${GUEST_MEM:-1G}
GUEST_CPUS=${GUEST_CPUS:-2}
while [ $# -gt 0 ]; do
	case $1 in
	--tree) tree=$2; shift 2 ;;
	--vm) vm=$2; shift 2 ;;
	--kernel) kernel=$2; shift 2 ;;
	--targets) targets=$2; shift 2 ;;
	--tests) tests=$2; shift 2 ;;
	--result) result=$2; shift 2 ;;
	--failed) failed_list=$2; shift 2 ;;
	--debug) debug=$2; shift 2 ;;
	*) die "lib/selftests.sh: unknown option '$1' (see the header of lib/selftests.sh)" ;;
	esac
done
case $vm in
qemu|um) ;;
*) die "VM=$vm is not supported: use qemu (default) or um" ;;
esac
case $kernel in
series|stock) ;;
*) die "KERNEL=$kernel is not understood: use series (default) or stock" ;;
esac
case $debug in
'') ;;
kasan|kcsan) [ "$vm" = qemu ] || die "the debug guest (--debug $debug) runs in QEMU only, not VM=$vm" ;;
*) die "DEBUG=$debug is not a debug configuration: use kasan or kcsan (lib/debug-KIND.config)" ;;
esac
# How much slower the debug kernel runs than the normal one, by default:
# test_iocost_sibling's fills took 4.5x (KASAN) and 6.0x (KCSAN) as long
# as in the normal guest, with lockdep on (docs/testing.md, 2026-12-07).
if [ -z "$DEBUG_SLOWDOWN" ]; then
	case $debug in
	kcsan) DEBUG_SLOWDOWN=7 ;;
	*) DEBUG_SLOWDOWN=5 ;;
	esac
fi
case $DEBUG_SLOWDOWN in ''|*[!0-9]*|0|0*|???*) die "DEBUG_SLOWDOWN=$DEBUG_SLOWDOWN: a whole factor from 1 to 99, please" ;; esac
case ${GUEST_CMDLINE:-} in *[!A-Za-z0-9_.,=:\ -]*) die "GUEST_CMDLINE=$GUEST_CMDLINE: kernel arguments (letters, digits, _.,=:-) separated by spaces, please" ;; esac
[ -z "${GUEST_CMDLINE:-}" ] || [ "$vm" = qemu ] || die "GUEST_CMDLINE is for the QEMU guest, not VM=$vm"
case $GUEST_TIMEOUT in ''|*[!0-9]*) die "GUEST_TIMEOUT=$GUEST_TIMEOUT: a number of seconds, please" ;; esac
case " $targets " in *" zswap "*) ;; *) die "TARGETS=\"$targets\" must include zswap" ;; esac
[ -d "$tree/.git" ] || [ -f "$tree/.git" ] || die "--tree $tree is not a kernel work tree"
tree=$(cd "$tree" && pwd)

# guest_dir KTREE ARCH: where KTREE's guest kernel is built (kbuild's O=
# is tied to one tree). A tree DIR/linux builds in DIR/guest-ARCH, so
# that every such pair sees its sources as ../linux and ccache
# (CCACHE_BASEDIR=build) reuses the objects the trees share; another tree
# build/NAME builds in build/guest-ARCH-NAME.
guest_dir() {
	local ktree=$1 arch=$2
	if [ "${ktree##*/}" = linux ]; then
		echo "${ktree%/*}/guest-$arch"
	else
		echo "$BUILD/guest-$arch-${ktree##*/}"
	fi
}

# The selftests and the VM files follow the tree of the selftests:
# nothing for build/linux, "-NAME" for another tree (NAME is the tree's
# directory, or its parent's for a tree DIR/linux, so that two such trees
# do not share them), "-stock" added for the unpatched kernel.
tree_name() {
	local t=${1%/}

	[ "${t##*/}" != linux ] || t=${t%/linux}
	echo "${t##*/}"
}
tsuffix=""
[ "$(cd "$tree" && pwd -P)" = "$(cd "$TREE" 2>/dev/null && pwd -P)" ] ||
	tsuffix=-$(tree_name "$tree")
if [ "$kernel" = stock ]; then
	ktree=$(stock_tree)
else
	ktree=$tree
fi

KST_SRC=$tree/tools/testing/selftests
FRAGMENT=$KST_SRC/zswap/config
if [ "$vm" = um ]; then
	GARCH=um
	GBASE=$ktree/arch/um/configs/x86_64_defconfig
	SWAP_DEV=/dev/ubda1 SIBLING_DEV=/dev/ubda2 SCRATCH_DEV=/dev/ubda3
else
	GARCH=x86_64
	GBASE=$ROOT/lib/guest.config
	SWAP_DEV=/dev/vda1 SIBLING_DEV=/dev/vda2 SCRATCH_DEV=/dev/vda3
fi
GDIR=$(guest_dir "$ktree" "$GARCH")
KST_OUT=$BUILD/kselftest$tsuffix
KST_BUILD=$BUILD/kselftest-build$tsuffix
VMDIR=$BUILD/vm$tsuffix
if [ "$kernel" = stock ]; then VMDIR=$VMDIR-stock; fi
FRAGMENTS=("$FRAGMENT")
GUEST_APPEND=""
if [ -n "$debug" ]; then
	GDIR=$GDIR-debug-$debug VMDIR=$VMDIR-debug-$debug
	FRAGMENTS+=("$ROOT/lib/debug.config" "$ROOT/lib/debug-$debug.config")
	# a log buffer that holds a program's reports until its dmesg save
	GUEST_APPEND=log_buf_len=8M
	# every KASAN report, not only the first
	[ "$debug" != kasan ] || GUEST_APPEND="$GUEST_APPEND kasan_multi_shot"
fi
GUEST_APPEND="$GUEST_APPEND ${GUEST_CMDLINE:-}"
CONSOLE=$LOGS/guest-console${VMDIR#"$BUILD"/vm}.log

# The run_kselftest.sh selection: every zswap test; of the cgroup
# collection only the memcg/zswap programs (the rest time CPU and freezer
# behaviour, which a TCG guest cannot hold to their bounds).
if [ -z "$tests" ]; then
	for t in $targets; do
		case $t in
		cgroup) tests="$tests cgroup:test_zswap cgroup:test_memcontrol" ;;
		*) tests="$tests $t" ;;
		esac
	done
fi
# zswap_timeout: the zswap programs' timeout (their settings file), s.
zswap_timeout() {
	sed -n 's/^timeout=//p' "$tree/tools/testing/selftests/zswap/settings"
}
select_args="" timeout_args=""
# Upstream's cgroup programs have no settings file, so kselftest's default
# of 45 s per program applies: too short for test_zswap on a TCG guest.
# With the cgroup target, every program gets the zswap settings' timeout.
case " $targets " in
*" cgroup "*) timeout_args=" -o $(zswap_timeout)" ;;
esac
# The debug kernel is several times slower: each program gets that many
# times the zswap settings' timeout (the runner's, not the tests' bounds).
[ -z "$debug" ] || timeout_args=" -o $((DEBUG_SLOWDOWN * $(zswap_timeout)))"
for t in $tests; do
	case " $targets " in
	*" ${t%%:*} "*) ;;
	*) die "TESTS: '$t' is not COLLECTION or COLLECTION:PROGRAM with COLLECTION one of: $targets (e.g. zswap:test_batch)" ;;
	esac
	case $t in *:*)
		[ -e "$KST_SRC/${t%%:*}/${t#*:}.c" ] || [ -e "$KST_SRC/${t%%:*}/${t#*:}" ] ||
			die "TESTS: no program ${t#*:} in $KST_SRC/${t%%:*}" ;;
	esac
	case $t in
	*:*) select_args="$select_args -t $t" ;;
	*) select_args="$select_args -c $t" ;;
	esac
done

[ -f "$FRAGMENT" ] || die "$FRAGMENT is missing: the series has no zswap selftests at this commit"

build_selftests() {
	log "building the selftests ($targets) of ${tree#"$ROOT"/} on the host"
	rm -rf "$KST_OUT"
	run_logged "$LOGS/kselftest-build$tsuffix.log" "selftests build" \
		make -C "$KST_SRC" TARGETS="$targets" O="$KST_BUILD" \
		INSTALL_PATH="$KST_OUT" install
}

# make_disk: one disk, three partitions: swap, the sibling's raw target
# and the ext4 scratch (made in the guest).
make_disk() {
	mkdir -p "$VMDIR"
	rm -f "$VMDIR/disk.img"
	truncate -s 2G "$VMDIR/disk.img"
	printf 'label: dos\n,768M,S\n,512M,L\n,,L\n' | sfdisk -q "$VMDIR/disk.img" >/dev/null
}

# selected_programs: the COLLECTION:PROGRAM entries of the installed
# kselftest-list.txt that --tests (or --targets) selects, in its order.
selected_programs() {
	local entry sel
	while IFS= read -r entry; do
		for sel in $tests; do
			case $sel in
			*:*) [ "$entry" = "$sel" ] ;;
			*) [ "${entry%%:*}" = "$sel" ] ;;
			esac && { echo "$entry"; break; }
		done
	done <"$KST_OUT/kselftest-list.txt"
}

# Where the guest sees the host's directories (see the header): fixed
# guest paths, so that the checkout's own path never matters in the guest.
G_VMDIR=/tmp/zswap-vm G_KST=/tmp/zswap-kst G_OUT=/tmp/zswap-out

# guest_slowdown: ZSWAP_SLOWDOWN for the guest, DEBUG_SLOWDOWN on the
# debug kernel, 1 otherwise.
guest_slowdown() {
	if [ -n "$debug" ]; then echo "$DEBUG_SLOWDOWN"; else echo 1; fi
}

write_guest_script() {
	local run
	run=$(guest_run_commands)
	cat >"$VMDIR/guest.sh" <<GUEST
#!/bin/sh
# Runs inside the guest (root, host root read-only). The host's VM files,
# installed selftests and output directory are mounted at $G_VMDIR,
# $G_KST and $G_OUT.
mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug
mkswap -q $SWAP_DEV >/dev/null && swapon $SWAP_DEV || { echo "guest: no swap on $SWAP_DEV"; exit 2; }
export ZSWAP_SIBLING_DEV=$SIBLING_DEV
# How much slower than a production kernel this one runs: the tests
# scale their bounds on time by it (zswap_util.h, zs_slowdown()).
export ZSWAP_SLOWDOWN=$(guest_slowdown)
# The ext4 scratch: upstream's memcg page-cache tests make O_TMPFILE files
# in their working directory, and the swapfile case needs a filesystem
# that can hold a swap file. The tests run from a copy there.
mkdir -p /tmp/scratch
mkfs.ext4 -q -F $SCRATCH_DEV && mount -t ext4 $SCRATCH_DEV /tmp/scratch ||
	{ echo "guest: no ext4 scratch on $SCRATCH_DEV"; exit 2; }
mkdir -p /tmp/scratch/tmp && cp -a $G_KST /tmp/scratch/kselftest ||
	{ echo "guest: cannot copy the selftests to the scratch"; exit 2; }
export ZSWAP_SCRATCH=/tmp/scratch/tmp
# test_memcontrol's socket case needs the loopback interface.
ip link set lo up 2>/dev/null
echo "guest: kernel \$(uname -r), \$(nproc) CPUs, swap: \$(tail -n +2 /proc/swaps | tr -s ' ')"
# The TAP goes to a host directory shared read-write, away from the
# console, where kernel messages would interleave with it.
# Each program's own TAP goes to its per-test log there too (-p).
mkdir -p $G_OUT/logs
cd /tmp/scratch/kselftest && { $run
} 2>&1 |
	tee $G_OUT/tap.log
GUEST
	chmod +x "$VMDIR/guest.sh"
	# UML has no vng: its init mounts what vng would, runs guest.sh, and
	# powers off through sysrq (the host's poweroff is systemd's). Its
	# tmpfs on /tmp hides whatever the host has there, the checkout
	# included; hostfs mounts take host paths, so the host's directories
	# are mounted again on top of it. The init script itself is open
	# already and keeps running.
	cat >"$VMDIR/guest-um-init.sh" <<GUEST
#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mount -t cgroup2 cgroup2 /sys/fs/cgroup
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mkdir -p $G_VMDIR $G_KST $G_OUT
mount -r -t hostfs hostfs $G_VMDIR -o "$VMDIR" &&
	mount -r -t hostfs hostfs $G_KST -o "$KST_OUT" &&
	mount -t hostfs hostfs $G_OUT -o "$VMDIR/out" ||
	echo "guest: cannot mount the host's directories"
export PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/tmp
$G_VMDIR/guest.sh
echo o > /proc/sysrq-trigger
GUEST
	chmod +x "$VMDIR/guest-um-init.sh"
}

# guest_run_commands: the guest script's run, ending with the line
# run_guest waits for. Normally one run_kselftest.sh of the selection; in
# the debug guest (see the header) one program at a time, each marked in
# the kernel log and followed by its dmesg, kmemleak scanned around them.
guest_run_commands() {
	if [ -z "$debug" ]; then
		echo "./run_kselftest.sh -p $G_OUT/logs$timeout_args$select_args; echo \"guest: run_kselftest.sh exited \$?\";"
		return
	fi
	local progs
	progs=$(selected_programs | tr '\n' ' ')
	[ -n "$progs" ] || die "no installed program matches the selection:$select_args"
	cat <<RUN

	kml=/sys/kernel/debug/kmemleak n=0 rc=0
	mkdir -p $G_OUT/dmesg
	echo "guest: hung task timeout \$(cat /proc/sys/kernel/hung_task_timeout_secs 2>&1) s"
	# only the leaks of this run: what boot left is scanned and cleared
	if [ -w \$kml ]; then echo scan >\$kml && echo clear >\$kml; fi
	dmesg -c >$G_OUT/dmesg/00-boot.dmesg
	for t in $progs; do
		n=\$((n + 1))
		echo "stress: begin \$t" >/dev/kmsg
		./run_kselftest.sh -p $G_OUT/logs$timeout_args -t \$t || rc=\$?
		echo "stress: end \$t" >/dev/kmsg
		dmesg -c >$G_OUT/dmesg/\$(printf %02d \$n)-\$t.dmesg
	done
	echo "stress: kmemleak scan" >/dev/kmsg
	# two scans: an object must stay unreferenced through both
	{ echo scan >\$kml && sleep 6 && echo scan >\$kml && cat \$kml >$G_OUT/kmemleak.log; } 2>$G_OUT/kmemleak.err ||
		echo "guest: kmemleak did not scan: \$(cat $G_OUT/kmemleak.err) \$(grep -h 'kmemleak:' $G_OUT/dmesg/*.dmesg | grep -v 'initialized' | head -n 3)"
	dmesg -c >$G_OUT/dmesg/\$(printf %02d \$((n + 1)))-kmemleak.dmesg
	echo "guest: run_kselftest.sh exited \$rc"
RUN
}

# guest_cmd: the command line that boots the guest and runs guest.sh.
guest_cmd() {
	if [ "$vm" = um ]; then
		echo "$GDIR/linux" mem="$GUEST_MEM" ubd0="$VMDIR/disk.img" \
			root=/dev/root rootfstype=hostfs rootflags=/ ro \
			init="$VMDIR/guest-um-init.sh" con=null con0=null,fd:1
		return
	fi
	local accel=--disable-kvm append="" a
	kvm_usable "$GDIR/arch/x86/boot/bzImage" && accel=""
	for a in $GUEST_APPEND; do append="$append --append $a"; done
	echo vng --run "$GDIR/arch/x86/boot/bzImage" $accel"$append" --memory "$GUEST_MEM" \
		--cpus "$GUEST_CPUS" --disk "$VMDIR/disk.img" --verbose \
		--rodir="$G_VMDIR=$VMDIR" --rodir="$G_KST=$KST_OUT" \
		--rwdir="$G_OUT=$VMDIR/out" --cwd / --exec "$G_VMDIR/guest.sh"
}

run_guest() {
	local console=$CONSOLE rc=0 cmd
	rm -rf "$VMDIR/out" && mkdir -p "$VMDIR/out"
	cmd=$(guest_cmd)
	log "booting the $vm guest ($GUEST_MEM, timeout ${GUEST_TIMEOUT}s): $cmd"
	# shellcheck disable=SC2086
	timeout --kill-after=15 "$GUEST_TIMEOUT" $cmd </dev/null >"$console" 2>&1 || rc=$?
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		echo "error: the guest did not finish within ${GUEST_TIMEOUT}s; last 50 lines of its console:" >&2
		tail -n 50 "$console" >&2
		return 1
	fi
	if ! grep -q '^guest: run_kselftest.sh exited' "$VMDIR/out/tap.log" 2>/dev/null; then
		echo "error: the guest stopped before the selftests ended (exit $rc); last 50 lines of its console:" >&2
		tail -n 50 "$console" >&2
		return 1
	fi
	return 0
}

# count_tap: print the TAP, count the test cases, fail on any failure.
# The runner's lines (one per program) are in tap.log, each program's own
# cases in logs/PROGRAM. A program that failed without a failed case of
# its own (a crash, the runner's timeout) counts as one failure; one that
# skipped as a whole (its environment check) as one skip, named after the
# program. A skip that lib/expected-skips does not list for this VM
# counts as a failure.
count_tap() {
	python3 - "$VMDIR/out" "${result:-/dev/null}" "$vm${debug:+-debug}" "$ROOT/lib/expected-skips" \
		"${failed_list:-/dev/null}" <<'PY'
import fnmatch, os, re, sys
out, result, where, listfile, failed_list = sys.argv[1:6]
expected = []
for ln in open(listfile):
    body, _, reason = ln.partition("#")
    f = body.split()
    if len(f) == 2 and f[0] == where:
        expected.append((f[1], reason.strip()))
passed = failed = skipped = 0
unexpected = []
names = []
def skip(name, why):
    global skipped, failed
    for pat, reason in expected:
        if fnmatch.fnmatchcase(name, pat):
            print(f"    (expected skip under {where}: {reason})")
            skipped += 1
            return True
    print(f"    (UNEXPECTED skip under {where}: counted as a failure)")
    unexpected.append(why if why.startswith(name) else f"{name}: {why}")
    names.append(name)
    failed += 1
    return False
case = re.compile(r'^(?:# )?(not ok|ok) \d+ (.*)$')
for ln in open(os.path.join(out, "tap.log"), errors="replace").read().splitlines():
    print(ln)
    m = re.match(r'^(not ok|ok) \d+ selftests: [^:]+: (\S+)(.*)$', ln)
    if not m:
        continue
    prog, own, own_failed = m.group(2), 0, 0
    try:
        lines = open(os.path.join(out, "logs", prog), errors="replace").read().splitlines()
    except OSError:
        lines = []
    for inner in lines:
        print("    " + inner)
        c = case.match(inner)
        if not c:
            continue
        own += 1
        d = re.match(r'^(.*?)\s*#\s*SKIP\b:?\s*(.*)$', c.group(2), re.I)
        if d:
            # "ok N # SKIP name: why" (zswap) or "ok N name # SKIP why"
            name, why = d.group(1).strip(), d.group(2)
            if not name:
                name = re.split(r'[:\s]', why, maxsplit=1)[0]
            own_failed += not skip(name, why)
        elif c.group(1) == "ok":
            passed += 1
        else:
            failed += 1
            own_failed += 1
            names.append(re.split(r'\s+#', c.group(2), maxsplit=1)[0].strip())
    if not own and re.search(r'#\s*SKIP', m.group(3), re.I):
        whole = [l for l in lines if re.match(r'^(?:# )?1\.\.0\b', l)]
        skip(prog, whole[0] if whole else "the whole program skipped")
    elif m.group(1) == "not ok" and own_failed == 0:
        failed += 1
        names.append(prog)
if passed + failed + skipped == 0:
    print("error: the selftests printed no result", file=sys.stderr)
    sys.exit(1)
for u in unexpected:
    print(f"error: unexpected skip under {where} (lib/expected-skips does not list it): {u}",
          file=sys.stderr)
print(f"selftests: {passed} passed, {failed} failed, {skipped} skipped", file=sys.stderr)
open(result, "w").write(f"{passed} {failed} {skipped}\n")
open(failed_list, "w").write("".join(n + "\n" for n in names))
sys.exit(1 if failed else 0)
PY
}

# scan_reports: the debug guest's kernel reports (lib/reports.py over the
# console, the dmesg saves and the kmemleak report), each one a failed
# case in --result and a line report:KIND:PROGRAM in --failed. A run
# whose kmemleak report did not come back counts one failure more.
scan_reports() {
	local out=$VMDIR/out n=0 p=0 f=0 s=0 rc=0
	local args=(--console "$CONSOLE" --counts "$out/reports.counts" --names "$out/reports.names")
	[ ! -d "$out/dmesg" ] || args+=(--dmesg-dir "$out/dmesg")
	[ ! -f "$out/kmemleak.log" ] || args+=(--kmemleak "$out/kmemleak.log")
	python3 "$ROOT/lib/reports.py" "${args[@]}" || rc=1
	read -r n _ <"$out/reports.counts"
	if [ ! -f "$out/kmemleak.log" ]; then
		echo "error: no kmemleak report came back (see the console): counted as a failure" >&2
		echo "report:kmemleak-not-scanned:end" >>"$out/reports.names"
		n=$((n + 1)) rc=1
	fi
	if [ -n "$result" ]; then
		[ ! -s "$result" ] || read -r p f s <"$result"
		echo "$p $((f + n)) $s" >"$result"
	fi
	[ -z "$failed_list" ] || cat "$out/reports.names" >>"$failed_list"
	return "$rc"
}

if [ "$vm" = um ]; then
	"$ROOT/lib/deps.sh" build
	# the disk image (sfdisk) and, from the host root, the guest's
	# scratch (mkfs.ext4) and loopback (ip): the vm group has them
	command -v sfdisk >/dev/null && command -v mkfs.ext4 >/dev/null &&
		command -v ip >/dev/null || "$ROOT/lib/deps.sh" vm
else
	"$ROOT/lib/deps.sh" build vm
fi
log "guest: $kernel kernel of ${ktree#"$ROOT"/} in ${GDIR#"$ROOT"/}, selftests of ${tree#"$ROOT"/}, VM files in ${VMDIR#"$ROOT"/}"
guest_kernel "$ktree" "$GDIR" "$GARCH" "$GBASE" "${FRAGMENTS[@]}"
build_selftests
make_disk
write_guest_script
if [ -z "$debug" ]; then
	run_guest
	count_tap
	exit
fi
# The debug guest: its reports are read even when it hung or crashed.
rc=0
[ -z "$result" ] || rm -f "$result"
if run_guest; then count_tap || rc=1; else rc=1; fi
scan_reports || rc=1
exit "$rc"
