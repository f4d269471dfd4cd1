#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The benchmark (issue 6): lib/bench.sh [--profile quick|standard]
#                                      [--rounds N] [--arms 'A B C']
#                                      [--scenarios 'open mild heavy']
#                                      [--workloads 'cache compile oltp']
#                                      [--results DIR] [--row NAME=REV]...
#        lib/bench.sh --summary RESULTS_DIR    (tables and figures again)
# (PROFILE=... in the environment does the same as --profile; SERIES_REV
# names the commit of build/linux that arm C runs, default branch series;
# WORKLOADS=... does the same as --workloads; SIBLING_WEIGHT, 1-10000,
# is the sibling's io.weight, default 1000 against the workload's 100;
# BENCH_BUILD_ONLY=1 builds the arms' kernels and the workload and stops,
# e.g. niced while the host is busy, so that the runs start at once later;
# BENCH_PREBUILT=1 builds nothing and refuses an arm whose kernel was not
# built from its commit. lib/bench-oom.sh sets the cell of its OOM
# matrix in the environment: BENCH_IOPS and BENCH_BPS (the disk throttle
# and iocost's model; both 0: an unthrottled disk, scenario bare only),
# SIB_OPEN_IOPS (the open sibling's rate),
# CACHE_MEM_MAX, CACHE_WSS_MB, CACHE_THREADS (the cache workload's cap,
# working set and threads), CACHE_MEMCGS (that many instances, each in
# its own memcg under CACHE_MEM_MAX) and ZSWAP_MAX_POOL_PERCENT.)
#
# Arms: A stock 7.3.4, zswap shrinker off; B stock, shrinker on; C the
# series (branch `series` of build/linux), shrinker on. --row NAME=REV
# adds an arm NAME, shrinker on, running commit REV of build/linux (a
# design-choice row, lib/bench-rows.sh); with rows the arms default to
# the rows.
# Scenarios: none runs no sibling; bare runs no sibling and no IO
# controller at all (iocost off, no io.max, no io.latency: the
# no-controller rows of issue 34, item 2); otherwise the IO
# sibling is an open-loop O_DIRECT random writer at a fixed SIB_OPEN_IOPS
# with iocost's latency targets on (open: its own IOPS and p99 latency
# are a metric that may regress), one synchronous writer (mild) or keeps
# 16 writes in flight (heavy); mild and heavy run at a fixed vrate. The
# standard profile runs open and heavy. Each round runs every scenario
# and arm, each arm in a freshly booted guest, the (scenario, arm) pairs
# of a round and workload in a random order (seeded per results
# directory: order.txt).
#
# The guest (QEMU under TCG, virtme-ng, 1G, 2 CPUs) sees one virtio-blk
# disk throttled by QEMU at BENCH_IOPS IOPS and BENCH_BPS bytes/s: its
# partition 1 is the swap device, partition 2 the sibling's raw target.
# iocost runs on the disk with a linear model equal to that throttle and a
# fixed vrate (see docs/results.md). The workload runs in a cgroup under
# memory.max: bench/cachebench (cache), bench/compile.sh compiling a
# slice of the stock kernel's mm/ (compile), or MariaDB with sysbench's
# OLTP read-write load (oltp, bench/oltp.sh; its database is on a second
# disk, see oltp_seed); lib/bench-guest.sh is the guest side.
#
# A run that finished (its wall_s written) is not run again: the same
# command with --results DIR goes on where an interrupted one stopped,
# as long as arm C's kernel is the same (series.rev there: a series that
# differs in selftests or Documentation only is accepted), and each row's
# (row-NAME.rev).
# --results DIR adds the runs to DIR (e.g. the arms of one round run as
# two invocations) instead of a new directory.
#
# Output: build/bench/results/<timestamp>/<round>-<scenario>-<arm>[-compile]/
# (raw kernel files, run.json, the kernel asked for and its .config, the
# host's load), summary.md and figures there; after a full
# standard run (see full_run) and after --summary, the summary and figures
# are copied to docs/bench-latest.md and docs/figures/.
set -euo pipefail
. "$(dirname "$0")/common.sh"
. "$ROOT/lib/vm.sh"
. "$ROOT/lib/guest.sh"

BENCH=$BUILD/bench
PY=/usr/bin/python3			# Debian's, not a pyenv shim
GUEST_MEM=1G
GUEST_CPUS=${GUEST_CPUS:-2}		# the guest's vCPUs (env, for one-off rows)
SIBLING_WEIGHT=${SIBLING_WEIGHT:-1000}	# the sibling's io.weight (env, ditto)
BENCH_IOPS=${BENCH_IOPS:-1000}		# the disk throttle, and iocost's model
# A run is valid only while the host was not busy with something else
# (issue 16): the highest 1-minute load average sampled on the host during
# the run must stay at or under the host's CPUs plus 1.5. The guest's two
# TCG vCPU threads alone hold the load near 2 (QEMU's I/O threads add a
# little); a foreign job that keeps one more CPU busy for a minute (a
# kernel build, a VM test) pushes it over. Override with HOST_LOAD_MAX.
HOST_LOAD_MAX=${HOST_LOAD_MAX:-$(awk -v n="$(nproc)" 'BEGIN { print n + 1.5 }')}
HOST_LOAD_EVERY=10			# seconds between host load samples
BENCH_BPS=${BENCH_BPS:-16777216}
# BENCH_IOPS=0 and BENCH_BPS=0 together: a disk QEMU does not throttle
# (the no-controller rows of issue 34 on an unthrottled device); scenario
# bare only, since iocost's model is the throttle (check_device).
ALL_ARMS="A B C"
ALL_SCENARIOS="none bare open mild heavy"
STANDARD_SCENARIOS="open heavy"
# The open-loop sibling: fio at a fixed rate, Poisson arrivals, up to 64
# in flight, so that a slow disk makes its latency grow instead of its
# rate fall (40% of the disk's throttle, 1000 IOPS).
SIB_OPEN_IOPS=${SIB_OPEN_IOPS:-400}
SIB_OPEN_DEPTH=64
# iocost's latency targets in the open scenario: p95 of reads and writes
# within 50 ms (the throttled disk serves 1000 IOPS; TCG adds noise), vrate
# free between 25% and 100% of the model.
QOS_TARGETS="rpct=95 rlat=50000 wpct=95 wlat=50000 min=25 max=100"
QOS_FIXED="rpct=0 rlat=0 wpct=0 wlat=0 min=100 max=100"
ALL_WORKLOADS="cache compile oltp"
STANDARD_WORKLOADS="cache oltp"		# compile on request (--workloads)
# The compile workload's slice: two mm/ objects compiled side by side,
# cc1 peaks of 96 and 101 MB, 2.1 and 2.3 s natively here, about 35 s each
# under TCG without a cap; under the 96M cap arm C takes 1.5-2 min for both,
# the stock shrinker 3-4.5 min (docs/results.md).
COMPILE_OBJS="mm/compaction.o mm/rmap.o"
COMPILE_JOBS=2
SLICE=$BENCH/compile-slice
# The OLTP workload: MariaDB under a 256M cap with a 512M buffer pool
# over sysbench's 8 tables of 200k rows (22,221 16 KiB pages, 347 MiB, in the
# buffer pool after the populate scan), so the part over the cap (about
# 100M) lives in zswap or on the swap device once the
# populate scan has read it in. Transactions over 1 s miss the deadline
# (sysbench's p99 is about 30 ms natively here, 10-20x that under TCG).
OLTP_MEM_MAX=256M
OLTP_POOL_MB=512
OLTP_TABLES=8
OLTP_ROWS=200000
OLTP_DEADLINE_MS=1000
OLTP_SEED=$BENCH/oltp-seed.img

profile=${PROFILE:-quick} rounds="" arms="" scenarios="" summary_only="" results=""
workloads=${WORKLOADS:-}
declare -A ROW_REV=()	# row arm -> its commit (--row)
row_names=""

usage() {
	die "usage: lib/bench.sh [--profile quick|standard] [--rounds N] [--arms 'A B C'] [--scenarios 'open mild heavy'] [--workloads 'cache compile oltp'] [--results DIR] [--row NAME=REV]... | --summary DIR"
}

parse_args() {
	while [ $# -gt 0 ]; do
		[ $# -ge 2 ] || usage
		case $1 in
		--profile) profile=$2 ;;
		--rounds) rounds=$2 ;;
		--arms) arms=$2 ;;
		--scenarios) scenarios=$2 ;;
		--workloads) workloads=$2 ;;
		--summary) summary_only=$2 ;;
		--results) results=$2 ;;
		--row) add_row "$2" ;;
		*) usage ;;
		esac
		shift 2
	done
	arms=${arms:-${row_names:-$ALL_ARMS}}
}

# add_row NAME=REV: a row arm (--row); REV must be a commit of build/linux.
add_row() {
	local name=${1%%=*} rev=${1#*=} full
	[[ $1 == *=* ]] && [[ $name =~ ^[a-z0-9][a-z0-9.-]*$ ]] ||
		die "--row $1: NAME=REV, NAME in lower case letters, digits, '.' and '-'"
	[ -z "${ROW_REV[$name]:-}" ] || die "--row $name: given twice"
	full=$(git -C "$TREE" rev-parse --verify -q "$rev^{commit}") ||
		die "--row $1: $rev is not a commit of build/linux"
	ROW_REV[$name]=$full
	row_names+="${row_names:+ }$name"
}

# is_row ARM: ARM is a --row arm.
is_row() {
	[ -n "${ROW_REV[$1]:-}" ]
}

# set_profile: the sizes and times of a profile. The cap and working set
# are those of the setup in the brief (96M cap, 192M working set) in both;
# quick bounds the populate phase at 45 s (the stock shrinker needs longer,
# so its populate rate, not its populate time, is the figure there) and
# fits six boots in about 20 minutes, so it runs the cache workload only.
# The compile workload has the same cap: two cc1 of 90-100 MB each; it
# stops at COMPILE_TIMEOUT and reports what it compiled, so a build time
# at the timeout is a lower bound.
set_profile() {
	case $profile in
	quick)
		ROUNDS=1 DURATION=10 POPULATE_TIMEOUT=45 COMPILE_TIMEOUT=240
		workloads=${workloads:-cache} ;;
	standard)
		ROUNDS=5 DURATION=60 POPULATE_TIMEOUT=400 COMPILE_TIMEOUT=360
		workloads=${workloads:-$STANDARD_WORKLOADS} ;;
	oom)	# lib/bench-oom.sh: the outcome, not the speed, is the figure
		ROUNDS=1 DURATION=30 POPULATE_TIMEOUT=180 COMPILE_TIMEOUT=240
		workloads=${workloads:-cache} ;;
	*) die "PROFILE=$profile is not a profile: use quick, standard or oom" ;;
	esac
	MEM_MAX=${CACHE_MEM_MAX:-96M} WSS_MB=${CACHE_WSS_MB:-192} THREADS=${CACHE_THREADS:-4}
	MEMCGS=${CACHE_MEMCGS:-1} MAX_POOL_PERCENT=${ZSWAP_MAX_POOL_PERCENT:-20}
	DEADLINE_MS=10
	scenarios=${scenarios:-$STANDARD_SCENARIOS}
	ROUNDS=${rounds:-$ROUNDS}
	case $ROUNDS in ''|0|*[!0-9]*) die "--rounds $ROUNDS: a positive number, please" ;; esac
	[[ $SIBLING_WEIGHT =~ ^[1-9][0-9]{0,4}$ ]] && [ "$SIBLING_WEIGHT" -le 10000 ] ||
		die "SIBLING_WEIGHT=$SIBLING_WEIGHT: an io.weight from 1 to 10000, please"
	[[ $MEMCGS =~ ^[1-9][0-9]?$ ]] || die "CACHE_MEMCGS=$MEMCGS: 1 to 99 memcgs, please"
	[ "$MEMCGS" = 1 ] || [ "$workloads" = cache ] ||
		die "CACHE_MEMCGS=$MEMCGS: several memcgs run the cache workload only"
}

# workload_timeout WORKLOAD: how long the guest lets it run (s).
workload_timeout() {
	case $1 in
	cache) echo $((POPULATE_TIMEOUT + DURATION + 60)) ;;
	compile) echo $((COMPILE_TIMEOUT + 60)) ;;
	oltp) echo $((POPULATE_TIMEOUT + DURATION + 180)) ;;	# + server start
	esac
}

# workload_mem_max WORKLOAD: the workload cgroup's memory.max.
workload_mem_max() {
	case $1 in
	oltp) echo "$OLTP_MEM_MAX" ;;
	*) echo "$MEM_MAX" ;;
	esac
}

# workload_cmd WORKLOAD ROUND: its command line in the guest (the guest
# adds --timeline FILE).
workload_cmd() {
	case $1 in
	cache) echo "$BENCH/cachebench --size-mb $WSS_MB --threads $THREADS --duration $DURATION --deadline-ms $DEADLINE_MS --populate-timeout $POPULATE_TIMEOUT --seed $2" ;;
	compile) echo "$ROOT/bench/compile.sh --slice $SLICE --jobs $COMPILE_JOBS --timeout $COMPILE_TIMEOUT" ;;
	oltp) echo "$ROOT/bench/oltp.sh --device /dev/vdb --buffer-pool-mb $OLTP_POOL_MB --tables $OLTP_TABLES --rows $OLTP_ROWS --threads $THREADS --duration $DURATION --deadline-ms $OLTP_DEADLINE_MS --populate-timeout $POPULATE_TIMEOUT" ;;
	esac
}

# want WORD LIST: true when LIST (words) has WORD.
want() {
	case " $2 " in *" $1 "*) return 0 ;; esac
	return 1
}

check_lists() {
	local a s w
	for a in $arms; do
		want "$a" "$ALL_ARMS $row_names" || die "arm '$a' is not one of: $ALL_ARMS $row_names"
	done
	for s in $scenarios; do
		want "$s" "$ALL_SCENARIOS" || die "scenario '$s' is not one of: $ALL_SCENARIOS"
	done
	for w in $workloads; do
		want "$w" "$ALL_WORKLOADS" || die "workload '$w' is not one of: $ALL_WORKLOADS"
	done
	[ -n "$arms" ] && [ -n "$scenarios" ] && [ -n "$workloads" ] ||
		die "no arm, scenario or workload to run"
	check_device
}

# check_device: BENCH_IOPS and BENCH_BPS are both positive, or both 0 (an
# unthrottled disk) with every scenario bare.
check_device() {
	local s
	[[ $BENCH_IOPS =~ ^[0-9]+$ && $BENCH_BPS =~ ^[0-9]+$ ]] ||
		die "BENCH_IOPS=$BENCH_IOPS BENCH_BPS=$BENCH_BPS: whole numbers, please"
	if [ "$BENCH_IOPS" -gt 0 ] && [ "$BENCH_BPS" -gt 0 ]; then
		return 0
	fi
	[ "$BENCH_IOPS" = 0 ] && [ "$BENCH_BPS" = 0 ] ||
		die "BENCH_IOPS=$BENCH_IOPS BENCH_BPS=$BENCH_BPS: both positive, or both 0 for an unthrottled disk"
	for s in $scenarios; do
		[ "$s" = bare ] ||
			die "scenario '$s' with an unthrottled disk (BENCH_IOPS=0): iocost's model is the throttle; use scenario bare"
	done
}

# disk_throttle: QEMU's throttling options for the bench disks ("" for an
# unthrottled disk).
disk_throttle() {
	[ "$BENCH_IOPS" = 0 ] ||
		echo ",throttling.iops-total=$BENCH_IOPS,throttling.bps-total=$BENCH_BPS"
}

# export_rev REV DIR STAMP: DIR holds build/linux's commit REV (git
# archive reads build/linux, never changes it); prints DIR. When STAMP
# names another commit, only the files that differ between the two are
# rewritten, and every file written gets the current time (tar -m): git
# archive would give it the commit's time, which is older than the
# objects of a later build when REV is an earlier commit, and kbuild
# would then keep the objects of the commit exported before.
export_rev() {
	local rev=$1 src=$2 stamp=$3 old
	old=$(cat "$stamp" 2>/dev/null || true)
	[ "$old" = "$rev" ] && { echo "$src"; return; }
	if [ -n "$old" ] && [ -d "$src" ] && git -C "$TREE" cat-file -e "$old^{commit}" 2>/dev/null; then
		log "updating ${src#"$ROOT"/} from ${old:0:12} to ${rev:0:12}"
		git -C "$TREE" diff --no-renames --name-only -z --diff-filter=D "$old" "$rev" |
			(cd "$src" && xargs -0 -r rm -f --)
		# A rev with the same tree (a rebase) changes no file: no archive.
		if ! git -C "$TREE" diff --quiet --no-renames --diff-filter=d "$old" "$rev"; then
			git -C "$TREE" diff --no-renames --name-only -z --diff-filter=d "$old" "$rev" |
				xargs -0 git -C "$TREE" archive "$rev" -- | tar -x -i -m -C "$src"
		fi
	else
		log "exporting $rev to ${src#"$ROOT"/}"
		rm -rf "$src" && mkdir -p "$src"
		git -C "$TREE" archive "$rev" | tar -x -m -C "$src"
	fi
	echo "$rev" >"$stamp"
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
	mkdir -p "$BENCH"
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
# or only A and B, are asked for; the stock build also when the compile
# workload needs its slice).
build_kernels() {
	local src frag stock
	frag=$(fragment)
	if want C "$arms"; then
		src=$(series_src)
		guest_kernel "$src" "$BENCH/guest-series" x86_64 "$ROOT/lib/guest.config" "$frag"
		cp "$BENCH/src-series.rev" "$BENCH/guest-series/built.rev"
	fi
	if want A "$arms" || want B "$arms" || want compile "$workloads"; then
		stock=$(stock_src)
		guest_kernel "$stock" "$BENCH/guest-stock" x86_64 "$ROOT/lib/guest.config" "$frag"
		cp "$BENCH/stock.rev" "$BENCH/guest-stock/built.rev"
	fi
	build_rows "$frag"
}

# build_rows FRAGMENT: the kernel of each row arm to run, in its own
# guest directory, all of them before the first run: the rows share one
# source export (build/bench/src-rows; ccache keys on its relative path,
# so the first row's build is cold, the others' are not), which therefore
# moves from commit to commit here, and never between runs.
build_rows() {
	local row src
	for row in $arms; do
		is_row "$row" || continue
		src=$(export_rev "${ROW_REV[$row]}" "$BENCH/src-rows" "$BENCH/src-rows.rev")
		guest_kernel "$src" "$(arm_gdir "$row")" x86_64 "$ROOT/lib/guest.config" "$1"
		echo "${ROW_REV[$row]}" >"$(arm_gdir "$row")/built.rev"
	done
}

# check_built: BENCH_PREBUILT: each arm's kernel is built, from the
# commit the arm runs (built.rev, written after each build above).
check_built() {
	local arm gdir want
	for arm in $arms; do
		gdir=$(arm_gdir "$arm")
		case $arm in
		A|B) want=$(git -C "$TREE" rev-parse --verify -q "$BASE_TAG^{commit}") ;;
		C) want=$(git -C "$TREE" rev-parse --verify -q "${SERIES_REV:-$SERIES_BRANCH}^{commit}") ;;
		*) want=${ROW_REV[$arm]} ;;
		esac
		[ -f "$(guest_image "$gdir" x86_64)" ] && [ -n "$want" ] &&
			[ "$(cat "$gdir/built.rev" 2>/dev/null)" = "$want" ] &&
			[ "$(arm_commit "$arm")" = "$want" ] ||
			die "BENCH_PREBUILT: arm $arm's kernel (${gdir#"$ROOT"/}) is not built from ${want:0:12}: build it first (BENCH_BUILD_ONLY=1)"
	done
}

# make_slice: the compile workload's input, preprocessed from the stock
# build (the same for every arm), remade when the stock commit or the
# object list changes.
make_slice() {
	local stamp key
	want compile "$workloads" || return 0
	stamp=$SLICE/.stamp
	key="$(cat "$BENCH/stock.rev") $COMPILE_OBJS"
	[ "$(cat "$stamp" 2>/dev/null)" = "$key" ] && return 0
	rm -rf "$SLICE"
	# shellcheck disable=SC2086 # the object list is words
	run_logged "$LOGS/bench-slice.log" "compile slice" \
		"$PY" "$ROOT/bench/slice.py" "$BENCH/guest-stock" "$SLICE" $COMPILE_OBJS
	echo "$key" >"$stamp"
}

# oltp_seed: the OLTP database as an ext4 image (bench/oltp-seed.sh),
# remade when the table sizes, the scripts or the MariaDB or sysbench
# versions change.
# Each run gets a copy as a second virtio disk, throttled like the first
# but without the sibling: the contention measured is the swap device's,
# and under TCG a shared disk would leave the populate scan at a tenth of
# the throttle for minutes.
oltp_seed() {
	local key
	want oltp "$workloads" || return 0
	key="$OLTP_TABLES $OLTP_ROWS $(dpkg-query -W -f='${Version} ' mariadb-server-core sysbench)"
	key+=$(cat "$ROOT/bench/oltp-seed.sh" "$ROOT/bench/mariadb.sh" | sha256sum | cut -c1-16)
	[ -f "$OLTP_SEED" ] && [ "$(cat "$OLTP_SEED.key" 2>/dev/null)" = "$key" ] && return 0
	log "preparing the OLTP database ($OLTP_TABLES x $OLTP_ROWS rows, about 1 min)"
	rm -f "$OLTP_SEED.key"
	run_logged "$LOGS/bench-oltp-seed.log" "OLTP database" "$ROOT/bench/oltp-seed.sh" \
		--out "$OLTP_SEED" --tables "$OLTP_TABLES" --rows "$OLTP_ROWS"
	echo "$key" >"$OLTP_SEED.key"
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
	*) echo "$BENCH/guest-row-$1" ;;
	esac
}

# arm_commit ARM: the commit its kernel was built from (the export's).
arm_commit() {
	case $1 in
	A|B) cat "$BENCH/stock.rev" ;;
	C) cat "$BENCH/src-series.rev" ;;
	*) echo "${ROW_REV[$1]}" ;;	# built by build_rows() in every invocation
	esac
}

arm_shrinker() {
	case $1 in
	A) echo N ;;
	*) echo Y ;;
	esac
}

scenario_depth() {
	case $1 in
	none|bare) echo 0 ;;
	open) echo "$SIB_OPEN_DEPTH" ;;
	mild) echo 1 ;;
	heavy) echo 16 ;;
	esac
}

# scenario_rate SCENARIO: the sibling's fixed rate (IOPS), 0 for none.
scenario_rate() {
	case $1 in
	open) echo "$SIB_OPEN_IOPS" ;;
	*) echo 0 ;;
	esac
}

scenario_qos() {
	case $1 in
	open) echo "$QOS_TARGETS" ;;
	*) echo "$QOS_FIXED" ;;
	esac
}

# write_params RUNDIR ROUND SCENARIO ARM WORKLOAD: what the guest script
# reads.
# iocost: a linear model of the throttle (random and sequential IOs cost
# the same, 1/BENCH_IOPS s; a byte costs 1/BENCH_BPS s). In mild and
# heavy the vrate is fixed at 100%, so the budget is the throttle's
# capacity, not a guess that latency targets would tune under TCG's noisy
# timing; open turns the latency targets on (scenario_qos).
write_params() {
	local dir=$1 round=$2 scen=$3 arm=$4 wl=$5
	cat >"$dir/params.env" <<EOF
BENCH_ROUND=$round
BENCH_SCENARIO=$scen
BENCH_ARM=$arm
BENCH_WORKLOAD=$wl
BENCH_KERNEL_COMMIT=$(arm_commit "$arm")
BENCH_SHRINKER=$(arm_shrinker "$arm")
BENCH_MEM_MAX=$(workload_mem_max "$wl")
BENCH_SIBLING_DEPTH=$(scenario_depth "$scen")
BENCH_SIBLING_RATE=$(scenario_rate "$scen")
BENCH_SIBLING_WEIGHT=$SIBLING_WEIGHT
BENCH_SIBLING_WARMUP=5
BENCH_ZSWAP_COMPRESSOR=zstd
BENCH_ZSWAP_MAX_POOL_PERCENT=$MAX_POOL_PERCENT
BENCH_MEMCGS=$MEMCGS
BENCH_IOCOST_MODEL="rbps=$BENCH_BPS rseqiops=$BENCH_IOPS rrandiops=$BENCH_IOPS wbps=$BENCH_BPS wseqiops=$BENCH_IOPS wrandiops=$BENCH_IOPS"
BENCH_IOCOST_QOS="$(scenario_qos "$scen")"
BENCH_WORKLOAD_TIMEOUT=$(workload_timeout "$wl")
BENCH_HOST_LOAD_MAX=$HOST_LOAD_MAX
BENCH_WORKLOAD_CMD="$(workload_cmd "$wl" "$round")"
EOF
}

# guest_cmd RUNDIR ARM: the vng command line (one word per line).
guest_cmd() {
	local dir=$1 bz accel=--disable-kvm thr disks
	bz=$(guest_image "$(arm_gdir "$2")" x86_64)
	kvm_usable "$bz" && accel=""
	thr="format=raw$(disk_throttle)"
	disks="-drive file=$dir/disk.img,if=none,id=benchdisk,$thr -device virtio-blk-pci,drive=benchdisk"
	[ -f "$dir/data.img" ] &&
		disks+=" -drive file=$dir/data.img,if=none,id=datadisk,$thr -device virtio-blk-pci,drive=datadisk"
	printf '%s\n' vng --run "$bz" $accel --memory "$GUEST_MEM" --cpus "$GUEST_CPUS" \
		--verbose --rwdir=/tmp/bench-out="$dir" "--qemu-opts=$disks" \
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

# run_dir RESULTS ROUND SCENARIO ARM WORKLOAD: a run's directory (the
# cache workload's without a suffix, as before there was a second one).
run_dir() {
	local sfx=""
	[ "$5" = cache ] || sfx=-$5
	echo "$1/$2-$3-$4$sfx"
}

# record_kernel RUNDIR ARM: what the guest should boot: the image's
# release, version string and build ID (image.txt; bench/summary.py
# compares them with what the guest reports, kernel.txt and
# kernel-notes) and the arm's .config, archived with the data
# (kernel.config.gz; its sha256 in image.txt).
record_kernel() {
	local dir=$1 gdir
	gdir=$(arm_gdir "$2")
	{
		"$PY" "$ROOT/bench/summary.py" image "$(guest_image "$gdir" x86_64)" "$gdir/vmlinux"
		echo "commit=$(arm_commit "$2")"
		echo "config_sha256=$(sha256sum <"$gdir/.config" | cut -d' ' -f1)"
	} >"$dir/image.txt"
	gzip -9c "$gdir/.config" >"$dir/kernel.config.gz"
}

# host_load FILE: every HOST_LOAD_EVERY seconds, "epoch" and the host's
# /proc/loadavg, until killed; the first line is the run's start.
host_load() {
	while :; do
		echo "$(date +%s) $(cat /proc/loadavg)"
		sleep "$HOST_LOAD_EVERY"
	done >"$1"
}

# run_arm RESULTS ROUND SCENARIO ARM WORKLOAD N TOTAL: boot, run, parse,
# one line. The guest gets the workload's time plus 200 s for boot, setup
# and the sibling's warm-up.
run_arm() {
	local res=$1 round=$2 scen=$3 arm=$4 wl=$5 n=$6 total=$7 dir t0 rc=0 cmd load_pid
	dir=$(run_dir "$res" "$round" "$scen" "$arm" "$wl")
	mkdir -p "$dir"
	write_params "$dir" "$round" "$scen" "$arm" "$wl"
	record_kernel "$dir" "$arm"
	make_disk "$dir/disk.img"
	[ "$wl" = oltp ] && cp --sparse=always "$OLTP_SEED" "$dir/data.img"
	mapfile -t cmd < <(guest_cmd "$dir" "$arm")
	printf '%s\n' "${cmd[@]}" >"$dir/command"
	t0=$(date +%s)
	host_load "$dir/host-load.txt" &
	load_pid=$!
	vm_run_timed "$dir/console.log" $(($(workload_timeout "$wl") + 200)) "${cmd[@]}" || rc=$?
	kill "$load_pid" 2>/dev/null || true
	wait "$load_pid" 2>/dev/null || true
	echo "$(date +%s) $(cat /proc/loadavg)" >>"$dir/host-load.txt"	# the end
	echo "$rc" >"$dir/vm.rc"
	rm -f "$dir/disk.img" "$dir/data.img"
	echo $(($(date +%s) - t0)) >"$dir/wall_s"
	"$PY" "$ROOT/bench/summary.py" parse "$dir" >/dev/null
	printf '[%d/%d] round %d %-7s %-5s arm %s (%ss): %s\n' "$n" "$total" "$round" "$wl" "$scen" \
		"$arm" "$(cat "$dir/wall_s")" "$("$PY" "$ROOT/bench/summary.py" line "$dir")" >&2
}

# results_seed RES: the seed of RES's run order, made once (RES/seed).
results_seed() {
	[ -s "$1/seed" ] || od -An -N4 -tu4 /dev/urandom | tr -d ' ' >"$1/seed"
	cat "$1/seed"
}

# round_order SEED ROUND WL: the "scenario arm" pairs of ROUND and WL, one
# a line, in the random order SEED gives them (the same on every call).
# WL's name, not its place in --workloads, goes into the seed, so that an
# invocation naming other workloads resumes a directory in the same order.
round_order() {
	local seed=$1 round=$2 wl=$3 scen arm
	for scen in $scenarios; do
		for arm in $arms; do
			echo "$scen $arm"
		done
	done | awk -v seed="$seed" -v round="$round" -v wl="$wl" '
		BEGIN { n = 0; for (i = 1; i <= length(wl); i++) n = n * 31 + index("abcdefghijklmnopqrstuvwxyz", substr(wl, i, 1)); srand((seed + round * 7919 + n) % 2147483647) }
		{ printf "%.9f\t%s\n", rand(), $0 }' | sort -k1,1 | cut -f2-
}

# run_done DIR: the run in DIR finished (what failed is in its files).
run_done() {
	[ -s "$1/wall_s" ]
}

# kernel_digest REV: a digest of REV's tree outside selftests and
# Documentation. It names a kernel by content, so a results directory
# made on another machine (where 'make tree' made other commits of the
# same patches) can be resumed here.
kernel_digest() {
	git -C "$TREE" ls-tree -r "$1" |
		grep -v -P '\t(tools/testing|Documentation)/' | sha256sum | cut -d' ' -f1
}

# same_kernel RES ARM FILE: RES holds runs of one kernel of ARM only:
# the commit in RES/FILE, or one whose tree has the same kernel_digest
# (it differs in selftests or Documentation only, or is the same series
# applied on another machine). FILE.digest keeps that digest, so the
# commit itself need not be in this tree.
same_kernel() {
	local res=$1 arm=$2 file=$1/$3 want have
	have=$(arm_commit "$arm")
	[ -s "$file" ] || echo "$have" >"$file"
	want=$(cat "$file")
	if [ ! -s "$file.digest" ]; then
		git -C "$TREE" cat-file -e "$want^{commit}" 2>/dev/null ||
			die "$res has arm $arm at $want, which this tree lacks, and no $file.digest: use a new results directory"
		kernel_digest "$want" >"$file.digest"
	fi
	[ "$(kernel_digest "$have")" = "$(cat "$file.digest")" ] ||
		die "$res has arm $arm at $want, it is now at $have, a different kernel: use a new results directory"
	[ "$want" = "$have" ] ||
		log "arm $arm at $have: the kernel of $want (selftests or Documentation aside)"
}

# same_series RES: arm C and every row arm of this invocation run the
# kernels RES's runs ran (series.rev, row-NAME.rev).
same_series() {
	local arm
	want C "$arms" && same_kernel "$1" C series.rev
	for arm in $arms; do
		is_row "$arm" && same_kernel "$1" "$arm" "row-$arm.rev"
	done
	return 0
}

# meta_rows RES: a "row NAME=REV subject" line for each row arm that
# RES/meta.txt does not list yet.
meta_rows() {
	local arm
	for arm in $row_names; do
		grep -q "^row $arm=" "$1/meta.txt" 2>/dev/null ||
			echo "row $arm=${ROW_REV[$arm]} $(git -C "$TREE" log -1 --format=%s "${ROW_REV[$arm]}")"
	done
}

write_meta() {
	local res=$1
	{
		echo "command=lib/bench.sh $BENCH_ARGS"
		echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
		echo "profile=$profile rounds=$ROUNDS duration_s=$DURATION populate_timeout_s=$POPULATE_TIMEOUT"
		echo "workloads=$workloads"
		echo "cache: mem_max=$MEM_MAX wss_mb=$WSS_MB threads=$THREADS deadline_ms=$DEADLINE_MS memcgs=$MEMCGS (each under mem_max, wss_mb each) zswap max_pool_percent=$MAX_POOL_PERCENT"
		echo "oltp: mem_max=$OLTP_MEM_MAX buffer_pool_mb=$OLTP_POOL_MB tables=$OLTP_TABLES rows=$OLTP_ROWS threads=$THREADS deadline_ms=$OLTP_DEADLINE_MS mariadb=$(dpkg-query -W -f='${Version}' mariadb-server-core 2>/dev/null) sysbench=$(dpkg-query -W -f='${Version}' sysbench 2>/dev/null)"
		echo "compile: mem_max=$MEM_MAX jobs=$COMPILE_JOBS objects=$COMPILE_OBJS (of the stock build) timeout_s=$COMPILE_TIMEOUT gcc=$(gcc -dumpfullversion)"
		echo "guest=qemu TCG (vng), mem $GUEST_MEM, $GUEST_CPUS CPUs"
		if [ "$BENCH_IOPS" = 0 ]; then
			echo "disk_throttle=none"
		else
			echo "disk_throttle=iops-total=$BENCH_IOPS bps-total=$BENCH_BPS"
		fi
		echo "io.weight: workload 100, sibling $SIBLING_WEIGHT"
		echo "scenarios=$scenarios open: sibling at ${SIB_OPEN_IOPS} IOPS, depth ${SIB_OPEN_DEPTH}, io.cost.qos $QOS_TARGETS; mild, heavy: io.cost.qos $QOS_FIXED"
		echo "series_commit=$(cat "$BENCH/src-series.rev" 2>/dev/null) (exported; each run's params.env has its kernel's commit)"
		meta_rows "$res"
		echo "stock_commit=$(git -C "$TREE" rev-parse "$BASE_TAG^{commit}")"
		echo "qemu=$(qemu-system-x86_64 --version | head -n1)"
		echo "vng=$(vng --version 2>&1 | head -n1)"
		echo "fio=$(fio --version)"
		echo "host_kernel=$(uname -r) host_cpus=$(nproc) host_load_max=$HOST_LOAD_MAX"
	} >"$res/meta.txt"
}

run_all() {
	local res=$1 round wl scen arm n=0 total seed dir
	total=$((ROUNDS * $(wc -w <<<"$workloads") * $(wc -w <<<"$scenarios") * $(wc -w <<<"$arms")))
	seed=$(results_seed "$res")
	for ((round = 1; round <= ROUNDS; round++)); do
		for wl in $workloads; do
			while read -r scen arm; do
				n=$((n + 1))
				dir=$(run_dir "$res" "$round" "$scen" "$arm" "$wl")
				grep -qx "$round $wl $scen $arm" "$res/order.txt" 2>/dev/null ||
					echo "$round $wl $scen $arm" >>"$res/order.txt"
				if run_done "$dir"; then
					printf '[%d/%d] round %d %-7s %-5s arm %s: done before\n' \
						"$n" "$total" "$round" "$wl" "$scen" "$arm" >&2
					continue
				fi
				rm -rf "$dir"		# an interrupted run starts afresh
				run_arm "$res" "$round" "$scen" "$arm" "$wl" "$n" "$total"
			done < <(round_order "$seed" "$round" "$wl")
		done
	done
}

# full_run: true for the run docs/ quotes: the standard profile with every
# arm, scenario and workload, branch series, the default guest. Other runs
# (rows, smoke runs) keep their summary in their results directory only.
full_run() {
	[ "$profile" = standard ] && [ -z "${SERIES_REV:-}" ] && [ "$GUEST_CPUS" = 2 ] &&
		[ -z "$row_names" ] &&
		[ "$(echo $arms)" = "$ALL_ARMS" ] && [ "$(echo $scenarios)" = "$STANDARD_SCENARIOS" ] &&
		[ "$(echo $workloads)" = "$STANDARD_WORKLOADS" ]
}

# summarize RESULTS [docs]: tables and figures in RESULTS; with "docs",
# copied to docs/bench-latest.md and docs/figures/ too.
summarize() {
	local res=$1
	"$PY" "$ROOT/bench/summary.py" summary "$res"
	if [ "${2:-}" != docs ]; then
		log "summary: ${res#"$ROOT"/}/summary.md"
		return
	fi
	mkdir -p "$ROOT/docs/figures"
	cp "$res/summary.md" "$ROOT/docs/bench-latest.md"
	cp "$res"/figures/*.png "$ROOT/docs/figures/"
	log "summary: ${res#"$ROOT"/}/summary.md (copied to docs/bench-latest.md, figures to docs/figures/)"
}

# check_space: a cold run writes two source snapshots (1.8 GiB each) and two
# guest builds (0.5 GiB each) under build/bench, and with rows a third
# snapshot and a guest build per row;
# every run adds a disk image and its results (under 100 MiB).
check_space() {
	local need=1024 arm
	[ -d "$BENCH/guest-series" ] || need=$((need + 5120))
	[ -z "$row_names" ] || [ -d "$BENCH/src-rows" ] || need=$((need + 2048))
	for arm in $row_names; do
		[ -d "$(arm_gdir "$arm")" ] || need=$((need + 600))
	done
	# the seed (its datadir and image at once, the first time), a run's copy
	want oltp "$workloads" && need=$((need + 2048))
	need_space "$BUILD" "$need" "make bench" || exit 1
}

main() {
	local res t0
	BENCH_ARGS="$*"
	parse_args "$@"
	if [ -n "$summary_only" ]; then
		[ -d "$summary_only" ] || die "--summary $summary_only: no such results directory"
		"$ROOT/lib/deps.sh" bench		# gnuplot
		summarize "$(cd "$summary_only" && pwd)" docs
		return
	fi
	set_profile
	check_lists
	check_space
	"$ROOT/lib/deps.sh" build vm bench $(want oltp "$workloads" && echo oltp)
	t0=$(date +%s)
	if [ -n "${BENCH_PREBUILT:-}" ]; then
		check_built
	else
		build_kernels
	fi
	build_workload
	if [ -n "${BENCH_BUILD_ONLY:-}" ]; then
		log "kernels and workload built (BENCH_BUILD_ONLY): no run"
		return
	fi
	make_slice
	oltp_seed
	res=${results:-$BENCH/results/$(date -u +%Y%m%d-%H%M%S)}
	mkdir -p "$res"
	res=$(cd "$res" && pwd)
	same_series "$res"
	if [ -f "$res/meta.txt" ]; then
		echo "resumed=$(date -u +%Y-%m-%dT%H:%M:%SZ) command=lib/bench.sh $BENCH_ARGS" >>"$res/meta.txt"
		meta_rows "$res" >>"$res/meta.txt"
	else
		write_meta "$res"
	fi
	log "benchmark ($profile): $ROUNDS round(s) x workloads [$workloads] x scenarios [$scenarios] x arms [$arms] -> ${res#"$ROOT"/}"
	run_all "$res"
	if full_run; then
		summarize "$res" docs
	else
		summarize "$res"
	fi
	log "benchmark done in $(($(date +%s) - t0)) s"
}

main "$@"
