#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The debug guest (make stress, issue 31): every zswap selftest on the
# series' tip built with lib/debug.config and a sanitizer, every kernel
# report a failure.
#
#   lib/stress.sh [--debug kasan|kcsan|all] [--result FILE]
#   lib/stress.sh --self-test
#
# --debug (DEBUG= in the environment; kasan by default) picks the
# configuration: lib/debug-kasan.config (KASAN) or lib/debug-kcsan.config
# (KCSAN; the two exclude each other), all runs both in turn. Each is a
# run of lib/selftests.sh --debug KIND: its own build and VM directories
# (build/guest-x86_64-debug-KIND, build/vm-debug-KIND), the programs one
# at a time with dmesg saved after each, kmemleak scanned at the end, and
# lib/reports.py over the console, the dmesg saves and the kmemleak
# report. Each configuration's figures are printed (cases, kernel reports
# by kind, time), then one line "N passed, N failed, N skipped"; --result
# FILE gets "PASSED FAILED SKIPPED". Exits non-zero on any failure.
#
# The debug kernel under TCG is several times slower than the normal
# guest: GUEST_TIMEOUT defaults to 10800 s here, GUEST_MEM to 1536M (KASAN
# keeps an eighth of memory as shadow), and each program's runner timeout
# is DEBUG_SLOWDOWN (5 for KASAN, 7 for KCSAN) times the zswap settings'
# (lib/selftests.sh); the guest exports it as ZSWAP_SLOWDOWN, by which the
# tests scale their own bounds on time (zswap_util.h). GUEST_CMDLINE adds
# kernel arguments (e.g. lockdep.prove_locking=0, to tell lockdep's cost
# from the rest).
#
# --self-test feeds the scanner logs with planted reports and checks that
# it finds exactly them; it needs no kernel.
set -euo pipefail
. "$(dirname "$0")/common.sh"

debug=${DEBUG:-kasan} result="" self_test=0
export GUEST_TIMEOUT=${GUEST_TIMEOUT:-10800}
export GUEST_MEM=${GUEST_MEM:-1536M}
while [ $# -gt 0 ]; do
	case $1 in
	--debug) debug=$2; shift 2 ;;
	--result) result=$2; shift 2 ;;
	--self-test) self_test=1; shift ;;
	*) die "lib/stress.sh: unknown option '$1' (see the header of lib/stress.sh)" ;;
	esac
done

# kinds_of DEBUG: the configurations DEBUG names.
kinds_of() {
	case $1 in
	kasan|kcsan) echo "$1" ;;
	all) echo kasan kcsan ;;
	*) die "DEBUG=$1 is not a debug configuration: use kasan (default), kcsan or all" ;;
	esac
}

# need_kcsan_compiler: KCSAN needs gcc's -fsanitize=thread with
# tsan-distinguish-volatile (HAVE_KCSAN_COMPILER); say so before a build
# whose fragment check would only name CONFIG_KCSAN.
need_kcsan_compiler() {
	echo 'int x;' | gcc -fsanitize=thread --param tsan-distinguish-volatile=1 \
		-x c -c -o /dev/null - 2>/dev/null ||
		die "KCSAN needs a compiler with -fsanitize=thread and --param tsan-distinguish-volatile=1 (gcc 11 or later); $(gcc --version | head -n1) has not"
}

# run_config KIND: one configuration's run; its counts in
# build/stress-KIND.counts, its failed cases and reports in
# build/stress-KIND.failed, its time in seconds in build/stress-KIND.secs.
run_config() {
	local kind=$1 t0 rc=0
	local counts=$BUILD/stress-$kind.counts names=$BUILD/stress-$kind.failed
	rm -f "$counts" "$names" "$BUILD/vm-debug-$kind/out/reports.counts"
	printf '\n=== stress: %s\n' "$kind"
	t0=$(date +%s)
	"$ROOT/lib/selftests.sh" --debug "$kind" --result "$counts" --failed "$names" || rc=$?
	echo $(($(date +%s) - t0)) >"$BUILD/stress-$kind.secs"
	return "$rc"
}

# figures KIND RC: the configuration's line of the summary; a run that
# failed without counting a failure (no TAP, no report) counts one.
figures() {
	local kind=$1 rc=$2 p=0 f=0 s=0 reports="0" secs
	[ ! -s "$BUILD/stress-$kind.counts" ] || read -r p f s <"$BUILD/stress-$kind.counts"
	[ "$rc" -eq 0 ] || [ "$f" -gt 0 ] || f=1
	[ ! -s "$BUILD/vm-debug-$kind/out/reports.counts" ] ||
		reports=$(cat "$BUILD/vm-debug-$kind/out/reports.counts")
	secs=$(cat "$BUILD/stress-$kind.secs")
	printf '  %-6s %3d passed, %3d failed, %3d skipped; kernel reports: %s; %d min %02d s\n' \
		"$kind" "$p" "$f" "$s" "$reports" $((secs / 60)) $((secs % 60))
	[ ! -s "$BUILD/stress-$kind.failed" ] || sed 's/^/           failed: /' "$BUILD/stress-$kind.failed"
	echo "$p $f $s" >>"$BUILD/stress.totals"
}

# plant_logs DIR: a console, dmesg saves and a kmemleak report with known
# reports: one KASAN report and one WARNING after zswap:test_batch (in its
# dmesg save and again on the console), a BUG whose Oops line belongs to
# it and one kmemleak object: 4 reports. A test program's own "WARNING:"
# on the console (no timestamp) is not the kernel's.
plant_logs() {
	local d=$1
	mkdir -p "$d/dmesg"
	printf '%s\n' '[    1.000000] Linux version 7.3.4' >"$d/dmesg/00-boot.dmesg"
	cat >"$d/dmesg/01-zswap:test_batch.dmesg" <<'LOG'
[   10.000000] stress: begin zswap:test_batch
[   11.000000] ==================================================================
[   11.000001] BUG: KASAN: slab-use-after-free in zswap_writeback_entry+0x1a/0x2b0
[   11.000002] Read of size 8 at addr ffff888012345678 by task kworker/u8:1/42
[   11.000003] Call Trace:
[   11.000004]  <TASK>
[   11.000005]  dump_stack_lvl+0x5d/0x80
[   11.000006]  print_report+0xc1/0x5e0
[   11.000007]  kasan_report+0xb1/0xe0
[   11.000008]  zswap_writeback_entry+0x1a/0x2b0
[   11.000009]  </TASK>
[   11.000010] ==================================================================
[   12.000000] zswap: some ordinary line
[   13.000000] WARNING: CPU: 1 PID: 42 at mm/zswap.c:1234 shrink_worker+0x99/0x120
[   13.000001] Modules linked in:
[   13.000002] ---[ end trace 0000000000000000 ]---
[   14.000000] stress: end zswap:test_batch
LOG
	cat >"$d/dmesg/02-kmemleak.dmesg" <<'LOG'
[   20.000000] BUG: kernel NULL pointer dereference, address: 0000000000000008
[   20.000001] #PF: supervisor read access in kernel mode
[   20.000002] Oops: Oops: 0000 [#1] PREEMPT SMP KASAN
LOG
	{
		echo 'guest: kernel 7.3.4'
		echo '# WARNING: a test program may print this; it is not a kernel report'
		cat "$d/dmesg/01-zswap:test_batch.dmesg"
	} >"$d/console.log"
	printf '%s\n' 'unreferenced object 0xffff888001234500 (size 64):' \
		'  comm "test_batch", pid 42, jiffies 4294937296' \
		'  backtrace (crc 0):' '    kmalloc_trace+0x25/0x30' >"$d/kmemleak.log"
}

# self_test: the scanner must find exactly the planted reports, each
# after its program, and nothing in a clean log.
self_test() {
	local d want got
	d=$(mktemp -d)
	trap 'rm -rf "$d"' RETURN
	plant_logs "$d"
	if python3 "$ROOT/lib/reports.py" --console "$d/console.log" --dmesg-dir "$d/dmesg" \
		--kmemleak "$d/kmemleak.log" --counts "$d/counts" --names "$d/names"; then
		echo "self-test FAILED: the scanner exited 0 on a log with reports" >&2
		return 1
	fi
	want='4 kasan:1 bug:1 warning:1 kmemleak:1'
	got=$(cat "$d/counts")
	[ "$got" = "$want" ] || { echo "self-test FAILED: counted '$got', planted '$want'" >&2; return 1; }
	want=$(printf '%s\n' report:kasan:zswap:test_batch report:warning:zswap:test_batch \
		report:bug:kmemleak 'report:kmemleak:kmemleak scan at the end')
	got=$(cat "$d/names")
	[ "$got" = "$want" ] || { printf 'self-test FAILED: attributed\n%s\nplanted\n%s\n' "$got" "$want" >&2; return 1; }
	rm -f "$d/dmesg/01-zswap:test_batch.dmesg" "$d/dmesg/02-kmemleak.dmesg" "$d/kmemleak.log"
	grep -v -e KASAN -e WARNING: "$d/console.log" >"$d/clean.log" || true
	python3 "$ROOT/lib/reports.py" --console "$d/clean.log" --dmesg-dir "$d/dmesg" --counts "$d/counts" >/dev/null ||
		{ echo "self-test FAILED: reports found in a clean log: $(cat "$d/counts")" >&2; return 1; }
	echo "self-test passed: 4 planted reports found (KASAN, WARNING, BUG with its Oops, kmemleak), each once, none in a clean log"
}

if [ "$self_test" = 1 ]; then
	self_test
	exit
fi
kinds=$(kinds_of "$debug")
case " $kinds " in *" kcsan "*) need_kcsan_compiler ;; esac
[ -d "$TREE/.git" ] || die "build/linux is missing: run make tree first"
log "stress: $kinds on branch $SERIES_BRANCH at $(git -C "$TREE" rev-parse --short HEAD) (GUEST_TIMEOUT=${GUEST_TIMEOUT}s, GUEST_MEM=$GUEST_MEM)"
rm -f "$BUILD/stress.totals"
rcs=()
for kind in $kinds; do
	rc=0
	run_config "$kind" || rc=$?
	rcs+=("$kind:$rc")
done
printf '\n=== make stress summary (%s at %s)\n' "$BASE_KVER + series" "$(git -C "$TREE" rev-parse --short HEAD)"
for kr in "${rcs[@]}"; do
	figures "${kr%%:*}" "${kr#*:}"
done
read -r passed failed skipped < <(awk '{ p += $1; f += $2; s += $3 } END { print p + 0, f + 0, s + 0 }' "$BUILD/stress.totals")
[ -z "$result" ] || echo "$passed $failed $skipped" >"$result"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
