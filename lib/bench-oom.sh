#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The OOM matrix (issue 33, item 1):
#   lib/bench-oom.sh [--screen | --follow-up] [--cells 'CELL...']
#                    [--arms 'ARM...'] [--rounds N] [--results DIR]
#   lib/bench-oom.sh --list     (every cell and arm, with its settings)
#
# Which fallback rule keeps a throttled, deferred writeback from getting
# the workload OOM-killed is judged on OOM outcomes, in cells where a
# kernel without any fallback (fallback-never) is killed. A cell is
# DEVICE-SIBLING-SHAPE:
#   DEVICE   the swap disk's QEMU throttle, and iocost's linear model of
#            it: normal (1000 IOPS, 16 MiB/s), slow (512 IOPS, 2 MiB/s),
#            vslow (128 IOPS, 512 KiB/s)
#   SIBLING  lib/bench.sh's scenario: none (iocost on, no sibling), bare
#            (no IO controller at all: the series writes back in place),
#            open (fio at 40% of the device's IOPS, iocost's latency
#            targets on) or heavy (16 writes in flight, fixed vrate);
#            io.weight 1000 against 100
#   SHAPE    2x: the cache workload's 192M working set under memory.max
#            96M (the public RFC was killed there beside a 16-deep
#            sibling); 4x: 256M under 64M; manymemcg: 16 memcgs of 16M,
#            each running its own 32M cache workload (one thread), with
#            zswap's max_pool_percent at 10 (the global pool limit)
# The default cells are every DEVICE-SIBLING pair with 2x and 4x and
# normal-heavy-manymemcg; --cells takes any DEVICE-SIBLING-SHAPE.
#
# Arms (ARM_TABLE): stock is arm B of lib/bench.sh (7.3.4, shrinker
# on); the others are rows of lib/bench-rows.sh of the same name (tip:
# the v2 busy count; fallback-never; age-only: the claim's age only,
# 500 ms; age-100: 100 ms; the worker's charge policies worker-memalloc
# (PF_MEMALLOC: its charges forced, one chunk at a time) and
# worker-reclaim (it submits its batch and retries with reclaim, no OOM
# kill), and never-memalloc and never-reclaim, the same with
# fallback-never's rule; wq-wide and never-wide: zswap-lruvec-wb at the
# default max_active, with the tip's rule and with fallback-never's;
# defer-uncontrolled: deferral without an IO
# controller too, for the bare cells; worker-handback: the work handed
# back to reclaim for 100 ms when the worker stops for memory;
# pay-nofallback: no fallback while the work waits out a payment). An
# arm that is a row of lib/bench-rows.sh is one more name in ARM_TABLE.
#
# Runs: lib/bench.sh's oom profile (populate bounded at 180 s, a 30 s
# run phase), one freshly booted guest per run; in each cell and round
# the arms run in a random order. Under TCG the whole product is days of
# runs, so:
#   --screen     every cell (or --cells), one round of stock and
#                fallback-never;
#   --follow-up  the cells of --results DIR's screen where an arm was
#                OOM-killed, its compressed pool came near memory.max or
#                its outcome differed from stock's (bench/summary.py
#                oom-pick), with every arm and 3 rounds (or --arms,
#                --rounds);
#   otherwise    --cells (default: all) x --arms (default: all) x
#                --rounds (default 3).
# The kernels of the arms are built first (in one lib/bench.sh
# BENCH_BUILD_ONLY invocation), then each cell is one lib/bench.sh
# results directory, DIR/CELL, run with BENCH_PREBUILT. --results DIR
# goes on where an interrupted matrix stopped. DIR/oom.md is the table
# (bench/summary.py oom DIR).
set -euo pipefail
. "$(dirname "$0")/common.sh"

PY=/usr/bin/python3
# NAME:IOPS:BYTES_PER_S
DEVICES="normal:1000:16777216 slow:512:2097152 vslow:128:524288"
SIBLINGS="none bare open heavy"
# NAME:MEMORY_MAX:WORKING_SET_MB:THREADS:MEMCGS:MAX_POOL_PERCENT (one
# workload per memcg, each under MEMORY_MAX with WORKING_SET_MB)
SHAPES="2x:96M:192:4:1:20 4x:64M:256:4:1:20 manymemcg:16M:32:1:16:10"
EXTRA_CELLS="normal-heavy-manymemcg"
# NAME:KERNEL, KERNEL being B (lib/bench.sh's stock arm) or row (the row
# of lib/bench-rows.sh named NAME)
ARM_TABLE="stock:B tip:row fallback-never:row age-only:row age-100:row worker-memalloc:row worker-reclaim:row never-memalloc:row never-reclaim:row wq-wide:row never-wide:row defer-uncontrolled:row worker-handback:row pay-nofallback:row"
SCREEN_ARMS="stock fallback-never"
OPEN_SHARE_PCT=40		# the open sibling's rate, % of the device's IOPS

usage() {
	die "usage: lib/bench-oom.sh [--screen | --follow-up] [--cells 'CELL...'] [--arms 'ARM...'] [--rounds N] [--results DIR] | --list"
}

# field TABLE KEY N: field N (1: the key) of TABLE's record KEY, or
# nothing when TABLE has no such record.
field() {
	local rec
	for rec in $1; do
		[ "${rec%%:*}" = "$2" ] || continue
		echo "$rec" | cut -d: -f"$3"
		return
	done
}

# keys TABLE: the record names of TABLE.
keys() {
	local rec
	for rec in $1; do echo "${rec%%:*}"; done | xargs
}

all_cells() {
	local d s h out=""
	for d in $(keys "$DEVICES"); do
		for s in $SIBLINGS; do
			for h in 2x 4x; do out+="$d-$s-$h "; done
		done
	done
	echo "$out$EXTRA_CELLS"
}

all_arms() {
	keys "$ARM_TABLE"
}

# check_cell CELL: dies, naming the valid parts, unless CELL is
# DEVICE-SIBLING-SHAPE.
check_cell() {
	local d s h
	IFS=- read -r d s h <<<"$1"
	[ -n "$(field "$DEVICES" "$d" 1)" ] && [[ " $SIBLINGS " == *" $s "* ]] &&
		[ -n "$(field "$SHAPES" "$h" 1)" ] && [ "$1" = "$d-$s-$h" ] ||
		die "cell '$1' is not DEVICE-SIBLING-SHAPE with DEVICE one of: $(keys "$DEVICES"); SIBLING one of: $SIBLINGS; SHAPE one of: $(keys "$SHAPES") (lib/bench-oom.sh --list)"
}

check_arm() {
	[ -n "$(field "$ARM_TABLE" "$1" 1)" ] ||
		die "arm '$1' is not one of: $(all_arms)"
}

# cell_env CELL: the environment lib/bench.sh runs CELL in, one
# assignment a line.
cell_env() {
	local d s h iops
	IFS=- read -r d s h <<<"$1"
	iops=$(field "$DEVICES" "$d" 2)
	echo "BENCH_IOPS=$iops"
	echo "BENCH_BPS=$(field "$DEVICES" "$d" 3)"
	echo "SIB_OPEN_IOPS=$((iops * OPEN_SHARE_PCT / 100))"
	echo "CACHE_MEM_MAX=$(field "$SHAPES" "$h" 2)"
	echo "CACHE_WSS_MB=$(field "$SHAPES" "$h" 3)"
	echo "CACHE_THREADS=$(field "$SHAPES" "$h" 4)"
	echo "CACHE_MEMCGS=$(field "$SHAPES" "$h" 5)"
	echo "ZSWAP_MAX_POOL_PERCENT=$(field "$SHAPES" "$h" 6)"
}

cell_sibling() {
	echo "$1" | cut -d- -f2
}

# bench_arm ARM: the arm's name in lib/bench.sh (B, or the row's name).
bench_arm() {
	case $(field "$ARM_TABLE" "$1" 2) in
	B) echo B ;;
	row) echo "$1" ;;
	esac
}

# row_commits ARM...: "NAME REV" for each arm that is a row, its commit
# made by lib/bench-rows.sh --commits (which leaves build/linux's work
# tree and index alone).
row_commits() {
	local rows="" a
	for a in "$@"; do
		[ "$(field "$ARM_TABLE" "$a" 2)" = row ] && rows+=" $a"
	done
	[ -n "$rows" ] || return 0
	# shellcheck disable=SC2086 # row names are words
	run_logged "$LOGS/bench-oom-rows.log" "lib/bench-rows.sh --commits$rows" \
		"$ROOT/lib/bench-rows.sh" --commits $rows
	awk '{ print $1, $2 }' "$LOGS/bench-oom-rows.log" | grep -v '^==>' || true
}

# bench ARMS ARG...: lib/bench.sh with the oom profile, the cache
# workload, ARMS (ours) as its arms and rows, and ARG...; under nice
# when BENCH_NICE is set.
bench() {
	local a barms="" commits name rev
	local -a rargs=() nice=()
	for a in $1; do barms+="${barms:+ }$(bench_arm "$a")"; done
	# shellcheck disable=SC2086 # arm names are words
	commits=$(row_commits $1)
	while read -r name rev; do
		[ -z "$name" ] || rargs+=(--row "$name=$rev")
	done <<<"$commits"
	[ -z "${BENCH_NICE:-}" ] || nice=(nice -n 10)
	shift
	"${nice[@]}" "$ROOT/lib/bench.sh" --profile oom --workloads cache --arms "$barms" "${rargs[@]}" "$@"
}

# build ARMS: the kernels of ARMS (niced) and the workload, unless every
# kernel is built from its arm's commit already (lib/bench.sh's
# BENCH_PREBUILT check; a changed lib/guest.config is not seen there:
# build with BENCH_BUILD_ONLY=1 lib/bench.sh then).
build() {
	if (export BENCH_PREBUILT=1 BENCH_BUILD_ONLY=1; bench "$1" --scenarios heavy) 2>/dev/null; then
		log "kernels of [$1] built already"
		return
	fi
	log "building the kernels of [$1] (nice -n 10)"
	(export BENCH_BUILD_ONLY=1 BENCH_NICE=1; bench "$1" --scenarios heavy)
}

# run_cell RES CELL ARMS ROUNDS: ROUNDS rounds of ARMS in RES/CELL.
run_cell() {
	local res=$1 cell=$2 sib
	local -a envs
	mapfile -t envs < <(cell_env "$cell")
	sib=$(cell_sibling "$cell")
	log "cell $cell: arms [$3], $4 round(s) -> ${res#"$ROOT"/}/$cell"
	(
		export "${envs[@]}" BENCH_PREBUILT=1
		bench "$3" --scenarios "$sib" --rounds "$4" --results "$res/$cell"
	)
}

# follow_cells RES: the cells of RES that bench/summary.py oom-pick
# names (an arm OOM-killed, near memory.max, or an outcome unlike stock's).
follow_cells() {
	[ -d "$1" ] || die "--follow-up needs --results DIR, the directory of a screen"
	"$PY" "$ROOT/bench/summary.py" oom-pick "$1" | xargs
}

list() {
	local c e
	echo "cells (default: all of them):"
	for c in $(all_cells); do
		e=$(cell_env "$c" | xargs)
		printf '  %-24s %s\n' "$c" "$e"
	done
	echo "arms (default: all of them; --screen: $SCREEN_ARMS):"
	for c in $(all_arms); do
		printf '  %-24s %s\n' "$c" "$(field "$ARM_TABLE" "$c" 2 | sed 's/^B$/lib\/bench.sh arm B (7.3.4, shrinker on)/; s/^row$/lib\/bench-rows.sh row '"$c"'/')"
	done
}

main() {
	local mode=full cells="" arms="" rounds="" res="" c a
	while [ $# -gt 0 ]; do
		case $1 in
		--screen) mode=screen ;;
		--follow-up) mode=follow ;;
		--list) list; return ;;
		--cells|--arms|--rounds|--results)
			[ $# -ge 2 ] || usage
			case $1 in
			--cells) cells=$2 ;;
			--arms) arms=$2 ;;
			--rounds) rounds=$2 ;;
			--results) res=$2 ;;
			esac
			shift ;;
		*) usage ;;
		esac
		shift
	done
	[ -d "$TREE/.git" ] || die "no build/linux: run make tree first"
	case $mode in
	screen) arms=${arms:-$SCREEN_ARMS} rounds=${rounds:-1} ;;
	follow) cells=${cells:-$(follow_cells "$res")} arms=${arms:-$(all_arms)} rounds=${rounds:-3}
		[ -n "$cells" ] || { log "the screen in $res flagged no cell: nothing to follow up"; return; } ;;
	full) arms=${arms:-$(all_arms)} rounds=${rounds:-3} ;;
	esac
	cells=${cells:-$(all_cells)}
	for c in $cells; do check_cell "$c"; done
	for a in $arms; do check_arm "$a"; done
	[[ $rounds =~ ^[1-9][0-9]*$ ]] || die "--rounds $rounds: a positive number, please"
	res=${res:-$BUILD/bench/results/oom-$(date -u +%Y%m%d-%H%M%S)}
	mkdir -p "$res"
	res=$(cd "$res" && pwd)
	cells=$(xargs <<<"$cells") arms=$(xargs <<<"$arms")
	echo "$(date -u +%Y-%m-%dT%H:%M:%SZ) lib/bench-oom.sh mode=$mode cells=[$cells] arms=[$arms] rounds=$rounds host_cpus=$(nproc) load=$(cut -d' ' -f1-3 /proc/loadavg)" \
		>>"$res/oom-meta.txt"
	build "$arms"
	for c in $cells; do
		run_cell "$res" "$c" "$arms" "$rounds"
	done
	"$PY" "$ROOT/bench/summary.py" oom "$res" >"$res/oom.md"
	cat "$res/oom.md"
	log "OOM matrix: ${res#"$ROOT"/}/oom.md"
}

main "$@"
