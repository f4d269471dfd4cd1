#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The benchmark's guest side: lib/bench-guest.sh OUTDIR
# Runs as root inside the VM (host root read-only over 9p). OUTDIR is a
# host directory shared read-write; params.env there says what to run
# (written by lib/bench.sh). Everything measured is written to OUTDIR as
# raw kernel files (before/, after/), samples.csv, the workload's JSON and
# the swap-write submitter histogram; lib/bench.sh parses them on the host.
set -euo pipefail

OUT=${1:?usage: bench-guest.sh OUTDIR}
# shellcheck source=/dev/null
. "$OUT/params.env"
CG=/sys/fs/cgroup
WORK=$CG/bench-work
SIB=$CG/bench-sibling
TRIG=/sys/kernel/tracing/events/block/block_bio_queue
ZDBG=/sys/kernel/debug/zswap
DEV=${BENCH_DISK:-vda}

say() { echo "bench-guest: $*"; }
fail() { say "error: $*"; echo "$*" >"$OUT/guest-error"; exit 1; }

mount_fs() {
	mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug
	mountpoint -q /sys/kernel/tracing || mount -t tracefs tracefs /sys/kernel/tracing
	mountpoint -q $CG || mount -t cgroup2 cgroup2 $CG
}

# setup_disk: swap on partition 1; the disk is non-rotational, and iocost
# runs on it with a model equal to the VM's throttle (see lib/bench.sh),
# except in scenario bare, which has no IO controller.
setup_disk() {
	local majmin
	[ -b /dev/${DEV}1 ] && [ -b /dev/${DEV}2 ] || fail "no /dev/${DEV}1 and /dev/${DEV}2"
	echo 0 >/sys/block/$DEV/queue/rotational
	mkswap -q /dev/${DEV}1 >/dev/null
	swapon /dev/${DEV}1
	[ "$BENCH_SCENARIO" != bare ] || return 0
	majmin=$(cat /sys/block/$DEV/dev)
	echo "$majmin ctrl=user model=linear $BENCH_IOCOST_MODEL" >$CG/io.cost.model
	echo "$majmin enable=1 ctrl=user $BENCH_IOCOST_QOS" >$CG/io.cost.qos
	echo Y >/sys/module/blk_cgroup/parameters/blkcg_debug_stats
}

# setup_zswap: fixed compressor and pool settings; the arm sets the shrinker.
setup_zswap() {
	local p=/sys/module/zswap/parameters
	echo "$BENCH_ZSWAP_COMPRESSOR" >$p/compressor
	echo "$BENCH_ZSWAP_MAX_POOL_PERCENT" >$p/max_pool_percent
	echo Y >$p/enabled
	echo "$BENCH_SHRINKER" >$p/shrinker_enabled
	grep -H . $p/* >"$OUT/zswap-params.txt" 2>/dev/null || true
}

# setup_cgroups: the workload's cgroup under BENCH_MEM_MAX; with
# BENCH_MEMCGS > 1 it is the parent, uncapped, of that many memcgs
# (w0, w1, ...) each under BENCH_MEM_MAX (memory.events and
# memory.pressure of the parent count the whole subtree).
setup_cgroups() {
	local i
	echo "+memory +io" >$CG/cgroup.subtree_control
	mkdir -p $WORK $SIB
	echo "default 100" >$WORK/io.weight
	echo "default $BENCH_SIBLING_WEIGHT" >$SIB/io.weight
	if [ "${BENCH_MEMCGS:-1}" -le 1 ]; then
		echo "$BENCH_MEM_MAX" >$WORK/memory.max
		return
	fi
	echo "+memory +io" >$WORK/cgroup.subtree_control
	for ((i = 0; i < BENCH_MEMCGS; i++)); do
		mkdir $WORK/w$i
		echo "$BENCH_MEM_MAX" >$WORK/w$i/memory.max
	done
}

# setup_trace: count write bios queued on the swap partition, by the comm
# of the task that submitted them (the swap disk and the partition's
# sectors only: the event reports the whole disk and whole-disk sectors
# after the partition remap, and the OLTP workload's data disk has
# sectors in the same range). dev is the kernel's dev_t, major << 20.
setup_trace() {
	local start size maj min
	read -r start </sys/block/$DEV/${DEV}1/start
	read -r size </sys/block/$DEV/${DEV}1/size
	IFS=: read -r maj min </sys/block/$DEV/dev
	echo "hist:keys=comm:vals=hitcount,nr_sector:sort=hitcount.descending:size=4096 if dev == $((maj << 20 | min)) && rwbs ~ \"*W*\" && sector >= $start && sector < $((start + size))" \
		>$TRIG/trigger
}

# snap DIR: the kernel's own counters, copied raw: when (time), the
# memory PSI of the system and of the workload's cgroup, the CPU time of
# both cgroups and of the whole system (cpu.stat), the block stats of the
# disk and of the swap partition (requests completed after merging),
# debugfs zswap (the series adds its writeback counters there: none on
# stock) and the CPU time of every kworker (see kworker_line).
snap() {
	local d=$OUT/$1 f p
	mkdir -p "$d"
	echo "$EPOCHREALTIME" >"$d/time"
	cat /proc/vmstat >"$d/vmstat"
	cat /proc/pressure/memory >"$d/pressure-memory"
	cat $WORK/memory.events >"$d/memory.events"
	cat $WORK/memory.pressure >"$d/memory.pressure"
	cat $WORK/memory.stat >"$d/memory.stat"
	cat $WORK/io.stat >"$d/io.stat"
	cat $SIB/io.stat >"$d/sibling-io.stat"
	cat $WORK/cpu.stat >"$d/cpu.stat"
	cat $SIB/cpu.stat >"$d/sibling-cpu.stat"
	cat $CG/cpu.stat >"$d/root-cpu.stat"
	cat /sys/block/$DEV/stat >"$d/disk.stat"
	cat /sys/block/$DEV/${DEV}1/stat >"$d/swap-part.stat"
	for f in $ZDBG/*; do
		echo "${f##*/} $(cat "$f")"
	done >"$d/zswap-debugfs"
	for p in /proc/[0-9]*; do
		kworker_line "${p#/proc/}" && echo "$KW_PID $KW_TICKS $KW_COMM"
	done >"$d/kworkers"
}

# kworker_line PID: true when PID is a kworker; sets KW_PID, KW_TICKS
# (utime + stime, in clock ticks: clk_tck) and KW_COMM from
# /proc/PID/stat, without a fork. A kworker's comm there is
# "kworker/<pool>:<id>" followed by "+<workqueue>" while it runs a work
# item and "-<workqueue>" after, naming the last workqueue it ran
# (wq_worker_comm()); the zswap workqueues are zswap-shrink (stock and
# series) and zswap-lruvec-wb (the series' deferred writeback).
kworker_line() {
	local line rest
	{ read -r line <"/proc/$1/stat"; } 2>/dev/null || return 1
	KW_COMM=${line#*\(}
	KW_COMM=${KW_COMM%\)*}
	case $KW_COMM in kworker/*) ;; *) return 1 ;; esac
	rest=${line##*\) }
	set -f
	# shellcheck disable=SC2086 # the fields after the comm are words
	set -- $rest
	set +f
	KW_TICKS=$((${12} + ${13}))	# fields 14 and 15 of stat
	KW_PID=${line%% *}
}

# sampler: once a second, the pool, the workload's cost and stall and
# the system's memory stall (samples.csv), and the kworkers' CPU time
# (kworkers.csv, see kworker_sample). No fork per sample (a fork is slow
# under TCG): bash's clock, and a read with a timeout on a private fifo
# for the sleep.
sampler() {
	local t0 now line k v pool stored mcur zsw psi spsi wait debt delay
	mkfifo /tmp/bench-sampler.fifo
	exec 9<>/tmp/bench-sampler.fifo
	exec 8>"$OUT/kworkers.csv"
	echo "t_ms,pid,ticks,comm" >&8
	if [ "${BENCH_MEMCGS:-1}" -gt 1 ]; then
		exec 7>"$OUT/memcgs.csv"
		echo "t_ms,memcg,memory_current,zswap_bytes,writeback_bytes" >&7
	fi
	t0=${EPOCHREALTIME/./}
	echo "t_ms,pool_bytes,stored_pages,memory_current,zswap_bytes,cost_wait_us,cost_indebt_us,cost_indelay_us,psi_full_us,sys_psi_full_us"
	while :; do
		now=${EPOCHREALTIME/./}
		read -r pool <$ZDBG/pool_total_size
		read -r stored <$ZDBG/stored_pages
		read -r mcur <$WORK/memory.current
		zsw=0 wait=0 debt=0 delay=0 psi=0 spsi=0
		while read -r k v; do
			[ "$k" = zswap ] && { zsw=$v; break; }
		done <$WORK/memory.stat
		while read -r line; do
			for k in $line; do
				case $k in
				cost.wait=*) wait=$((wait + ${k#*=})) ;;
				cost.indebt=*) debt=$((debt + ${k#*=})) ;;
				cost.indelay=*) delay=$((delay + ${k#*=})) ;;
				esac
			done
		done <$WORK/io.stat
		while read -r k line; do
			[ "$k" = full ] && { psi=${line##*total=}; break; }
		done <$WORK/memory.pressure
		while read -r k line; do
			[ "$k" = full ] && { spsi=${line##*total=}; break; }
		done </proc/pressure/memory
		echo "$(((now - t0) / 1000)),$pool,$stored,$mcur,$zsw,$wait,$debt,$delay,$psi,$spsi"
		kworker_sample $(((now - t0) / 1000)) >&8
		[ "${BENCH_MEMCGS:-1}" -le 1 ] || memcg_sample $(((now - t0) / 1000)) >&7
		read -r -t 1 -u 9 _ || true
	done
}

# memcg_sample T_MS: a line "t_ms,memcg,memory_current,zswap_bytes,
# writeback_bytes" for each of the BENCH_MEMCGS memcgs (memcgs.csv):
# what a memcg's pool and its folios under writeback (memory.stat's
# file_writeback, swap-backed folios included) hold of its limit while it
# lives, beside what the OOM reports say of the ones that die.
memcg_sample() {
	local i k v cur zsw wb
	for ((i = 0; i < BENCH_MEMCGS; i++)); do
		read -r cur <$WORK/w$i/memory.current || continue
		zsw=0 wb=0
		while read -r k v; do
			case $k in
			zswap) zsw=$v ;;
			file_writeback) wb=$v; break ;;
			esac
		done <$WORK/w$i/memory.stat
		echo "$1,$i,$cur,$zsw,$wb"
	done
}

# kworker_sample T_MS: a line "t_ms,pid,ticks,comm" for each kworker
# whose CPU time or comm changed since the last sample (every kworker the
# first time it is seen). Where the cost moved (issue 16): deferral runs
# writeback, and its decompression, in root kworkers, outside the
# workload's cpu.stat. No kernel file counts CPU time per workqueue, so
# bench/summary.py attributes each kworker's ticks between two samples to
# zswap when its comm names a zswap workqueue at the end of the interval
# (the last work it ran was zswap's) or names one with "+" at the start
# (it was inside a zswap work item then). Work items run to completion,
# and a zswap worker runs for many ms per chunk, so a 1 s sample misses
# little; a worker that ran zswap's work and then another queue's within
# one second is the error, either way. The kworkers files of before/ and
# after/ give all kworkers' CPU time, the upper bound.
# Non-kworker PIDs are remembered, so a sample reads only kworkers.
declare -A KW_NOT=() KW_LAST=()
kworker_sample() {
	local p pid
	for p in /proc/[0-9]*; do
		pid=${p#/proc/}
		[ -n "${KW_NOT[$pid]:-}" ] && continue
		if ! kworker_line "$pid"; then
			[ -e "$p" ] && KW_NOT[$pid]=1
			continue
		fi
		[ "${KW_LAST[$pid]:-}" = "$KW_TICKS $KW_COMM" ] && continue
		KW_LAST[$pid]="$KW_TICKS $KW_COMM"
		echo "$1,$KW_PID,$KW_TICKS,$KW_COMM"
	done
}

# start_sibling: fio in the sibling's cgroup until it is killed (a day's
# runtime); closed loop at BENCH_SIBLING_DEPTH, or open loop at
# BENCH_SIBLING_RATE IOPS (Poisson arrivals); none at depth 0. Its report,
# JSON with total latency percentiles, is written when it is stopped
# (SIGTERM).
start_sibling() {
	local engine=psync
	local -a rate=()
	SIB_PID=""
	[ "$BENCH_SIBLING_DEPTH" -gt 0 ] || return 0
	[ "$BENCH_SIBLING_DEPTH" -gt 1 ] && engine=libaio
	[ "${BENCH_SIBLING_RATE:-0}" -gt 0 ] &&
		rate=(--rate_iops="$BENCH_SIBLING_RATE" --rate_process=poisson)
	(
		echo "$BASHPID" >$SIB/cgroup.procs
		exec fio --name=sibling --filename=/dev/${DEV}2 --direct=1 \
			--rw=randwrite --bs=4k --ioengine=$engine \
			--iodepth="$BENCH_SIBLING_DEPTH" "${rate[@]}" \
			--time_based --runtime=86400 --lat_percentiles=1 \
			--output-format=json --output="$OUT/fio.json"
	) >/dev/null 2>"$OUT/fio.err" &
	SIB_PID=$!
}

# workload_instance CGROUP SUFFIX: the workload in CGROUP, its output in
# workload$SUFFIX.json and .err, its timeline in timeline$SUFFIX.csv.
workload_instance() {
	echo "$BASHPID" >"$1/cgroup.procs"
	exec timeout -s KILL "$BENCH_WORKLOAD_TIMEOUT" $BENCH_WORKLOAD_CMD \
		--timeline "$OUT/timeline$2.csv" >"$OUT/workload$2.json" 2>"$OUT/workload$2.err"
}

# run_workload: one instance in the workload's cgroup, or one in each of
# its BENCH_MEMCGS memcgs, all at once (workload-N.*, each with its exit
# status in workload-N.rc); workload.rc is the first failing status.
run_workload() {
	local rc=0 one i n=${BENCH_MEMCGS:-1}
	local -a pids=()
	say "workload: $BENCH_WORKLOAD_CMD (in $n memcg(s))"
	if [ "$n" -le 1 ]; then
		(workload_instance $WORK "") || rc=$?
	else
		for ((i = 0; i < n; i++)); do
			(workload_instance $WORK/w$i "-$i") &
			pids+=($!)
		done
		for ((i = 0; i < n; i++)); do
			one=0
			wait "${pids[$i]}" || one=$?
			echo "$one" >"$OUT/workload-$i.rc"
			[ "$rc" -ne 0 ] || rc=$one
		done
	fi
	echo "$rc" >"$OUT/workload.rc"
	say "workload exited $rc"
}

main() {
	mount_fs
	say "kernel $(uname -r), $(nproc) CPUs, arm $BENCH_ARM, scenario $BENCH_SCENARIO"
	uname -a >"$OUT/uname"
	# which kernel runs: lib/bench.sh's image.txt has the built image's
	# release, version and build ID to compare with (bench/summary.py)
	{
		echo "release=$(uname -r)"
		echo "version=$(uname -v)"
		echo "clk_tck=$(getconf CLK_TCK)"
	} >"$OUT/kernel.txt"
	cat /sys/kernel/notes >"$OUT/kernel-notes" 2>/dev/null || true
	setup_disk
	setup_zswap
	setup_cgroups
	setup_trace
	cat $CG/io.cost.model $CG/io.cost.qos >"$OUT/iocost.txt"
	start_sibling
	sleep "$BENCH_SIBLING_WARMUP"
	snap before
	sampler >"$OUT/samples.csv" &
	SAMPLER_PID=$!
	run_workload
	snap after
	# the sibling must have run to the end (its fio has a day's runtime)
	if [ -z "$SIB_PID" ]; then
		echo none >"$OUT/sibling-alive"
	elif kill -0 "$SIB_PID" 2>/dev/null; then
		echo yes >"$OUT/sibling-alive"
	else
		echo no >"$OUT/sibling-alive"
	fi
	kill "$SAMPLER_PID" $SIB_PID 2>/dev/null || true
	[ -z "$SIB_PID" ] || wait "$SIB_PID" 2>/dev/null || true
	cat $TRIG/hist >"$OUT/swap-writers.hist"
	dmesg >"$OUT/dmesg.txt"
	say "done"
	echo ok >"$OUT/guest-done"
}

main
