#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The benchmark (issue 6): lib/bench.sh [--profile quick|standard]
#                                      [--rounds N] [--arms 'A B C']
#                                      [--scenarios 'mild heavy']
#                                      [--results DIR]
#        lib/bench.sh --summary RESULTS_DIR    (tables and figures again)
# (PROFILE=... in the environment does the same as --profile; SERIES_REV
# names the commit of build/linux that arm C runs, default branch series.)
#
# Arms: A stock 7.3.4, zswap shrinker off; B stock, shrinker on; C the
# series (branch `series` of build/linux), shrinker on. Scenarios: the IO
# sibling is one synchronous O_DIRECT random writer (mild) or keeps 16
# writes in flight (heavy). Each round runs every scenario and arm, each
# arm in a freshly booted guest, in an order rotated per round.
#
# The guest (QEMU under TCG, virtme-ng, 1G, 2 CPUs) sees one virtio-blk
# disk throttled by QEMU at BENCH_IOPS IOPS and BENCH_BPS bytes/s: its
# partition 1 is the swap device, partition 2 the sibling's raw target.
# iocost runs on the disk with a linear model equal to that throttle and a
# fixed vrate (see docs/results.md). The workload is bench/cachebench in a
# cgroup under memory.max; lib/bench-guest.sh is the guest side.
#
# --results DIR adds the runs to DIR (e.g. the arms of one round run as
# two invocations) instead of a new directory.
#
# Output: build/bench/results/<timestamp>/<round>-<scenario>-<arm>/ (raw
# kernel files, run.json), summary.md and figures there; the summary and
# figures are copied to docs/bench-latest.md and docs/figures/.
set -euo pipefail
. "$(dirname "$0")/common.sh"
. "$ROOT/lib/vm.sh"
. "$ROOT/lib/guest.sh"

BENCH=$BUILD/bench
PY=/usr/bin/python3			# Debian's, not a pyenv shim
GUEST_MEM=1G
GUEST_CPUS=${GUEST_CPUS:-2}		# the guest's vCPUs (env, for one-off rows)
BENCH_IOPS=1000				# the disk throttle, and iocost's model
BENCH_BPS=16777216
ALL_ARMS="A B C"
ALL_SCENARIOS="mild heavy"

profile=${PROFILE:-quick} rounds="" arms=$ALL_ARMS scenarios=$ALL_SCENARIOS summary_only="" results=""

usage() {
	die "usage: lib/bench.sh [--profile quick|standard] [--rounds N] [--arms 'A B C'] [--scenarios 'mild heavy'] [--results DIR] | --summary DIR"
}

parse_args() {
	while [ $# -gt 0 ]; do
		[ $# -ge 2 ] || usage
		case $1 in
		--profile) profile=$2 ;;
		--rounds) rounds=$2 ;;
		--arms) arms=$2 ;;
		--scenarios) scenarios=$2 ;;
		--summary) summary_only=$2 ;;
		--results) results=$2 ;;
		*) usage ;;
		esac
		shift 2
	done
}

# set_profile: the sizes and times of a profile. The cap and working set
# are those of the setup in the brief (96M cap, 192M working set) in both;
# quick bounds the populate phase at 45 s (the stock shrinker needs longer,
# so its populate rate, not its populate time, is the figure there) and
# fits six boots in about 20 minutes.
set_profile() {
	case $profile in
	quick)
		ROUNDS=1 DURATION=10 POPULATE_TIMEOUT=45 GUEST_TIMEOUT=300 ;;
	standard)
		ROUNDS=3 DURATION=60 POPULATE_TIMEOUT=400 GUEST_TIMEOUT=720 ;;
	*) die "PROFILE=$profile is not a profile: use quick or standard" ;;
	esac
	MEM_MAX=96M WSS_MB=192 THREADS=4 DEADLINE_MS=10
	ROUNDS=${rounds:-$ROUNDS}
	case $ROUNDS in ''|0|*[!0-9]*) die "--rounds $ROUNDS: a positive number, please" ;; esac
}

check_lists() {
	local a s
	for a in $arms; do
		case " $ALL_ARMS " in *" $a "*) ;; *) die "arm '$a' is not one of: $ALL_ARMS" ;; esac
	done
	for s in $scenarios; do
		case " $ALL_SCENARIOS " in *" $s "*) ;; *) die "scenario '$s' is not one of: $ALL_SCENARIOS" ;; esac
	done
	[ -n "$arms" ] && [ -n "$scenarios" ] || die "no arm or no scenario to run"
}

# export_rev REV DIR STAMP: DIR holds build/linux's commit REV (git
# archive reads build/linux, never changes it), re-exported only when STAMP
# names another commit; prints DIR.
export_rev() {
	local rev=$1 src=$2 stamp=$3
	if [ "$(cat "$stamp" 2>/dev/null)" != "$rev" ]; then
		log "exporting $rev to ${src#"$ROOT"/}"
		rm -rf "$src" && mkdir -p "$src"
		git -C "$TREE" archive "$rev" | tar -x -C "$src"
		echo "$rev" >"$stamp"
	fi
	echo "$src"
}

# series_src: the series' sources as of branch `series` (or SERIES_REV,
# any commit of build/linux: a design choice's before/after rows compare
# two commits), exported so that the benchmark builds a fixed commit while
# build/linux is being worked on. The path stays the same, so ccache
# serves unchanged files.
series_src() {
	local rev want=${SERIES_REV:-$SERIES_BRANCH}
	rev=$(git -C "$TREE" rev-parse --verify -q "$want^{commit}") ||
		die "SERIES_REV=$want is not a commit of build/linux (run make tree first?)"
	export_rev "$rev" "$BENCH/src-series" "$BENCH/src-series.rev"
}

# fragment: the guest options: the series' selftest fragment, always as
# of branch `series` (a SERIES_REV before the selftests has none, and
# every arm must get the same .config), plus lib/bench.config; the stock
# kernel gets the same file.
fragment() {
	local f=$BENCH/fragment.config zcfg=$BENCH/selftests.config
	git -C "$TREE" show "$SERIES_BRANCH:tools/testing/selftests/zswap/config" >"$zcfg" ||
		die "branch $SERIES_BRANCH has no tools/testing/selftests/zswap/config"
	grep -h '^CONFIG_' "$zcfg" "$ROOT/lib/bench.config" | sort -u >"$f.new"
	if cmp -s "$f.new" "$f"; then
		rm "$f.new"
	else
		mv "$f.new" "$f"
	fi
	echo "$f"
}

# stock_src: pristine 7.3.4 (the base tag), exported like the series.
# Not lib/guest.sh's stock_tree (build/stock/linux) on purpose: ccache
# (CCACHE_BASEDIR=build) keys on paths relative to the build directory, and
# build/bench/linux seen from build/bench/guest-stock is the same ../linux
# as the selftests' stock tree seen from its build (build/stock/linux from
# build/stock/guest-x86_64), so the two stock builds share their objects.
stock_src() {
	local rev
	rev=$(git -C "$TREE" rev-parse --verify -q "$BASE_TAG^{commit}") ||
		die "build/linux has no $BASE_TAG: run make tree first"
	export_rev "$rev" "$BENCH/linux" "$BENCH/stock.rev"
}

# build_kernels: the guest kernels of the arms to run (one when only C,
# or only A and B, are asked for).
build_kernels() {
	local src frag stock
	src=$(series_src)
	frag=$(fragment)
	case " $arms " in *" C "*)
		guest_kernel "$src" "$BENCH/guest-series" x86_64 "$ROOT/lib/guest.config" "$frag" ;;
	esac
	case " $arms " in *" A "*|*" B "*)
		stock=$(stock_src)
		guest_kernel "$stock" "$BENCH/guest-stock" x86_64 "$ROOT/lib/guest.config" "$frag" ;;
	esac
}

build_workload() {
	run_logged "$LOGS/bench-cachebench.log" "cachebench build" \
		make -C "$ROOT/bench" O="$BENCH" "$BENCH/cachebench"
}

# make_disk IMG: the same layout as the selftest guest: swap, then the
# sibling's raw partition. One per arm (sparse, removed after the run),
# so each starts alike.
make_disk() {
	rm -f "$1"
	truncate -s 1536M "$1"
	printf 'label: dos\n,768M,S\n,,L\n' | sfdisk -q "$1" >/dev/null
}

arm_gdir() {
	case $1 in
	A|B) echo "$BENCH/guest-stock" ;;
	C) echo "$BENCH/guest-series" ;;
	esac
}

# arm_commit ARM: the commit its kernel was built from (the export's).
arm_commit() {
	case $1 in
	A|B) cat "$BENCH/stock.rev" ;;
	C) cat "$BENCH/src-series.rev" ;;
	esac
}

arm_shrinker() {
	case $1 in
	A) echo N ;;
	B|C) echo Y ;;
	esac
}

scenario_depth() {
	case $1 in
	mild) echo 1 ;;
	heavy) echo 16 ;;
	esac
}

# write_params RUNDIR ROUND SCENARIO ARM: what the guest script reads.
# iocost: a linear model of the throttle (random and sequential IOs cost
# the same, 1/BENCH_IOPS s; a byte costs 1/BENCH_BPS s) and a vrate fixed
# at 100%, so the budget is the throttle's capacity, not a guess that
# latency targets would tune under TCG's noisy timing.
write_params() {
	local dir=$1 round=$2 scen=$3 arm=$4
	cat >"$dir/params.env" <<EOF
BENCH_ROUND=$round
BENCH_SCENARIO=$scen
BENCH_ARM=$arm
BENCH_KERNEL_COMMIT=$(arm_commit "$arm")
BENCH_SHRINKER=$(arm_shrinker "$arm")
BENCH_MEM_MAX=$MEM_MAX
BENCH_SIBLING_DEPTH=$(scenario_depth "$scen")
BENCH_SIBLING_WEIGHT=1000
BENCH_SIBLING_WARMUP=5
BENCH_ZSWAP_COMPRESSOR=zstd
BENCH_ZSWAP_MAX_POOL_PERCENT=20
BENCH_IOCOST_MODEL="rbps=$BENCH_BPS rseqiops=$BENCH_IOPS rrandiops=$BENCH_IOPS wbps=$BENCH_BPS wseqiops=$BENCH_IOPS wrandiops=$BENCH_IOPS"
BENCH_IOCOST_QOS="rpct=0 rlat=0 wpct=0 wlat=0 min=100 max=100"
BENCH_WORKLOAD_TIMEOUT=$((POPULATE_TIMEOUT + DURATION + 60))
BENCH_WORKLOAD_CMD="$BENCH/cachebench --size-mb $WSS_MB --threads $THREADS --duration $DURATION --deadline-ms $DEADLINE_MS --populate-timeout $POPULATE_TIMEOUT --seed $round"
EOF
}

# guest_cmd RUNDIR ARM: the vng command line (one word per line).
guest_cmd() {
	local dir=$1 bz accel=--disable-kvm
	bz=$(guest_image "$(arm_gdir "$2")" x86_64)
	kvm_usable "$bz" && accel=""
	printf '%s\n' vng --run "$bz" $accel --memory "$GUEST_MEM" --cpus "$GUEST_CPUS" \
		--verbose --rwdir=/tmp/bench-out="$dir" \
		"--qemu-opts=-drive file=$dir/disk.img,if=none,id=benchdisk,format=raw,throttling.iops-total=$BENCH_IOPS,throttling.bps-total=$BENCH_BPS -device virtio-blk-pci,drive=benchdisk" \
		--exec "$ROOT/lib/bench-guest.sh /tmp/bench-out"
}

# vm_run_timed CONSOLE TIMEOUT CMD...: run a guest with its console in
# CONSOLE; kill it after TIMEOUT seconds. Returns 124 on a timeout (the
# last 50 console lines are printed), else the command's status.
vm_run_timed() {
	local console=$1 limit=$2 rc=0
	shift 2
	timeout --kill-after=15 "$limit" "$@" </dev/null >"$console" 2>&1 || rc=$?
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		echo "error: the guest did not finish within ${limit}s; last 50 lines of its console:" >&2
		tail -n 50 "$console" | sed 's/^/  | /' >&2
		return 124
	fi
	return "$rc"
}

# run_arm RESULTS ROUND SCENARIO ARM N TOTAL: boot, run, parse, one line.
run_arm() {
	local res=$1 round=$2 scen=$3 arm=$4 n=$5 total=$6 dir t0 rc=0 cmd
	dir=$res/$round-$scen-$arm
	mkdir -p "$dir"
	write_params "$dir" "$round" "$scen" "$arm"
	make_disk "$dir/disk.img"
	mapfile -t cmd < <(guest_cmd "$dir" "$arm")
	printf '%s\n' "${cmd[@]}" >"$dir/command"
	t0=$(date +%s)
	vm_run_timed "$dir/console.log" "$GUEST_TIMEOUT" "${cmd[@]}" || rc=$?
	echo "$rc" >"$dir/vm.rc"
	rm -f "$dir/disk.img"
	echo $(($(date +%s) - t0)) >"$dir/wall_s"
	"$PY" "$ROOT/bench/summary.py" parse "$dir" >/dev/null
	printf '[%d/%d] round %d %-5s arm %s (%ss): %s\n' "$n" "$total" "$round" "$scen" "$arm" \
		"$(cat "$dir/wall_s")" "$("$PY" "$ROOT/bench/summary.py" line "$dir")" >&2
}

# rotate N WORDS...: WORDS rotated left by N.
rotate() {
	local n=$1
	shift
	local -a w=("$@")
	local i
	for ((i = 0; i < ${#w[@]}; i++)); do
		printf '%s ' "${w[(i + n) % ${#w[@]}]}"
	done
}

write_meta() {
	local res=$1
	{
		echo "command=lib/bench.sh $BENCH_ARGS"
		echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
		echo "profile=$profile rounds=$ROUNDS duration_s=$DURATION populate_timeout_s=$POPULATE_TIMEOUT"
		echo "mem_max=$MEM_MAX wss_mb=$WSS_MB threads=$THREADS deadline_ms=$DEADLINE_MS"
		echo "guest=qemu TCG (vng), mem $GUEST_MEM, $GUEST_CPUS CPUs"
		echo "disk_throttle=iops-total=$BENCH_IOPS bps-total=$BENCH_BPS"
		echo "series_commit=$(cat "$BENCH/src-series.rev") (exported; each run's params.env has its kernel's commit)"
		echo "stock_commit=$(git -C "$TREE" rev-parse "$BASE_TAG^{commit}")"
		echo "qemu=$(qemu-system-x86_64 --version | head -n1)"
		echo "vng=$(vng --version 2>&1 | head -n1)"
		echo "fio=$(fio --version)"
		echo "host_kernel=$(uname -r) host_cpus=$(nproc)"
	} >"$res/meta.txt"
}

run_all() {
	local res=$1 round scen arm n=0 total nscen narms
	nscen=$(wc -w <<<"$scenarios") narms=$(wc -w <<<"$arms")
	total=$((ROUNDS * nscen * narms))
	for ((round = 1; round <= ROUNDS; round++)); do
		for scen in $(rotate $((round - 1)) $scenarios); do
			for arm in $(rotate $((round - 1)) $arms); do
				n=$((n + 1))
				run_arm "$res" "$round" "$scen" "$arm" "$n" "$total"
			done
		done
	done
}

summarize() {
	local res=$1
	"$PY" "$ROOT/bench/summary.py" summary "$res"
	mkdir -p "$ROOT/docs/figures"
	cp "$res/summary.md" "$ROOT/docs/bench-latest.md"
	cp "$res"/figures/*.png "$ROOT/docs/figures/"
	log "summary: ${res#"$ROOT"/}/summary.md (copied to docs/bench-latest.md, figures to docs/figures/)"
}

main() {
	local res t0
	BENCH_ARGS="$*"
	parse_args "$@"
	if [ -n "$summary_only" ]; then
		[ -d "$summary_only" ] || die "--summary $summary_only: no such results directory"
		summarize "$(cd "$summary_only" && pwd)"
		return
	fi
	set_profile
	check_lists
	"$ROOT/lib/deps.sh" build vm bench
	t0=$(date +%s)
	build_kernels
	build_workload
	res=${results:-$BENCH/results/$(date -u +%Y%m%d-%H%M%S)}
	mkdir -p "$res"
	res=$(cd "$res" && pwd)
	write_meta "$res"
	log "benchmark ($profile): $ROUNDS round(s) x scenarios [$scenarios] x arms [$arms] -> ${res#"$ROOT"/}"
	run_all "$res"
	summarize "$res"
	log "benchmark done in $(($(date +%s) - t0)) s"
}

main "$@"
