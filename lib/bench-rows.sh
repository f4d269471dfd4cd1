#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The design-choice rows of the benchmark:
#   lib/bench-rows.sh [--rounds N] [--sibling-weight W] [ROW...]
#
# Each row runs arm C only (cache workload, both scenarios, standard
# profile) on a kernel that differs from the tip in one design choice.
# Rows (all of them when none is named):
#   tip            branch series itself: the control, run in the same
#                  session as the other rows (the host's speed drifts
#                  between sessions)
#   patches1-5     the series up to "scan each entry at most once per shrink
#                  call": no batching or plugging; the rotation fix in
#                  its per-entry form (patch 1)
#   patches1-6     up to the batching (rotation per entry)
#                  (The row names are those of the series before the
#                  rotation fix moved first; they are found by subject,
#                  so they now end at patches 6 and 7. The results of
#                  2026-11-30 in docs/results.md predate the move: there
#                  these rows had no rotation fix at all, and a row
#                  patches1-7 ended at v1's plug, dropped since.)
#   plug           the tip with v1's block plug around each batched walk
#                  (zswap_walk_batch()), the drain still before the
#                  submission
#   fallback-never the tip, but the shrinker never falls back from deferral
#                  (zswap_wb_struggling() returns false: no safety net)
#   fallback-busy  the tip, but every back-off falls back (returns true:
#                  the reclaimer waits for the worker or writes in place
#                  whenever a claim is pending)
# The fallback and plug rows are commits made here (branch bench/<row> of
# build/linux, on top of branch series, nothing else changed); the
# patchesN rows are commits of branch series, found by their subjects.
#
# --sibling-weight W runs the rows with the sibling at io.weight W instead
# of 1000 (the workload has 100); their directories are named <row>-wW.
#
# Output: build/bench/results/rows-<timestamp>/<row>/ (one lib/bench.sh
# results directory per row, with its summary.md).
set -euo pipefail
. "$(dirname "$0")/common.sh"

ALL_ROWS="tip patches1-5 patches1-6 plug fallback-never fallback-busy"
STRUGGLING='	return busy > ZSWAP_WB_BUSY_MAX ||
	       time_after(now, claimed_at + ZSWAP_WB_LAG);'
BATCH='	unsigned long freed = zswap_lru_walk(memcg, nid, walk, nr_to_walk);

	if (freed)
		zswap_wb_lru_drain(walk);
	swap_write_submit(&walk->io);
	return freed;'
PLUGGED='	struct blk_plug plug;
	unsigned long freed;

	blk_start_plug(&plug);
	freed = zswap_lru_walk(memcg, nid, walk, nr_to_walk);
	if (freed)
		zswap_wb_lru_drain(walk);
	swap_write_submit(&walk->io);
	blk_finish_plug(&plug);
	return freed;'
INCLUDE='#include <linux/zsmalloc.h>'

usage() {
	die "usage: lib/bench-rows.sh [--rounds N] [--sibling-weight W] [ROW...] (rows: $ALL_ROWS)"
}

# series_commit SUBJECT: the commit of branch series with that subject.
series_commit() {
	local c
	c=$(git -C "$TREE" log --format='%H %s' "$BASE_TAG..$SERIES_BRANCH" |
		awk -v s="$1" 'substr($0, 42) == s { print $1 }')
	[ -n "$c" ] || die "branch $SERIES_BRANCH has no commit '$1'"
	echo "$c"
}

# variant ROW OLD NEW [OLD NEW...]: branch bench/ROW, the tip with each
# text OLD of mm/zswap.c (which must occur once) replaced by NEW; made
# with a private index, so build/linux's work tree and index are
# untouched. Prints its commit.
variant() {
	local row=$1 blob tree commit idx
	shift
	idx=$(mktemp)
	git -C "$TREE" show "$SERIES_BRANCH:mm/zswap.c" |
		/usr/bin/python3 -c '
import sys
s, pairs = sys.stdin.read(), sys.argv[2:]
for old, new in zip(pairs[::2], pairs[1::2]):
    if s.count(old) != 1:
        sys.exit("bench-rows: row %s: mm/zswap.c at the tip is not as expected:\n%s" % (sys.argv[1], old))
    s = s.replace(old, new)
sys.stdout.write(s)' "$row" "$@" >"$idx.c" || { rm -f "$idx" "$idx.c"; exit 1; }
	blob=$(git -C "$TREE" hash-object -w "$idx.c")
	rm -f "$idx.c"
	GIT_INDEX_FILE=$idx git -C "$TREE" read-tree "$SERIES_BRANCH"
	GIT_INDEX_FILE=$idx git -C "$TREE" update-index --cacheinfo "100644,$blob,mm/zswap.c"
	tree=$(GIT_INDEX_FILE=$idx git -C "$TREE" write-tree)
	rm -f "$idx"
	commit=$(git -C "$TREE" commit-tree "$tree" -p "$SERIES_BRANCH" \
		-m "bench row $row")
	git -C "$TREE" branch -f "bench/$row" "$commit"
	echo "$commit"
}

row_commit() {
	case $1 in
	tip) git -C "$TREE" rev-parse --verify "$SERIES_BRANCH^{commit}" ;;
	patches1-5) series_commit "mm: zswap: scan each entry at most once per shrink call" ;;
	patches1-6) series_commit "mm: zswap: batch the writeback IO of an LRU walk" ;;
	plug) variant "$1" "$BATCH" "$PLUGGED" "$INCLUDE" "$INCLUDE
#include <linux/blkdev.h>" ;;
	fallback-never) variant "$1" "$STRUGGLING" "	return false;" ;;
	fallback-busy) variant "$1" "$STRUGGLING" "	return true;" ;;
	*) usage ;;
	esac
}

main() {
	local rounds=1 rows="" row rev res weight="" suffix=""
	while [ $# -gt 0 ]; do
		case $1 in
		--rounds) [ $# -ge 2 ] || usage; rounds=$2; shift ;;
		--sibling-weight) [ $# -ge 2 ] || usage; weight=$2; suffix=-w$2; shift ;;
		-*) usage ;;
		*) rows="$rows $1" ;;
		esac
		shift
	done
	rows=${rows:-$ALL_ROWS}
	for row in $rows; do
		case " $ALL_ROWS " in *" $row "*) ;; *) usage ;; esac
	done
	[ -d "$TREE/.git" ] || die "no build/linux: run make tree first"
	res=$BUILD/bench/results/rows-$(date -u +%Y%m%d-%H%M%S)
	for row in $rows; do
		rev=$(row_commit "$row")
		log "row $row: arm C at ${rev:0:12}"
		env SERIES_REV="$rev" ${weight:+SIBLING_WEIGHT="$weight"} "$ROOT/lib/bench.sh" \
			--profile standard --rounds "$rounds" --arms C --workloads cache \
			--results "$res/$row$suffix"
	done
	log "rows done: ${res#"$ROOT"/}/<row>/summary.md"
}

main "$@"
