#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The design-choice rows of the benchmark (issue 16, item 7):
#   lib/bench-rows.sh [--rounds N] [--sibling-weight W] [--workloads 'cache oltp']
#                     [--scenarios 'open heavy'] [--arms 'A B C'] [--results DIR]
#                     [ROW...]
#   lib/bench-rows.sh --commits [ROW...]   (make the rows' commits, list them)
#
# Each row is a kernel that differs from the tip in one design choice,
# run as an arm of one lib/bench.sh results directory (--row NAME=REV):
# in each round the (scenario, row) pairs of a workload run in a random
# order, like the arms of `make bench`, so the host's drift spreads over
# the rows instead of landing on whichever ran last. Standard profile,
# cache and oltp, scenarios open and heavy unless told otherwise.
# Rows (the first six when none is named):
#   tip            branch series itself: the control
#   plug           the tip with v1's block plug around each batched walk
#                  (zswap_walk_batch()); the tip has none since v2
#   no-rotation    the tip without the LRU-add drain per batch: written-back
#                  folios age like hot ones, as on stock
#   no-batch       the series up to "scan each entry at most once per shrink
#                  call": every write its own bio, the rotation fix in its
#                  per-entry form (patch 1)
#   fallback-v1    v1's fallback rule: every reclaimer that finds reclaim
#                  failing (zswap_wb_struggling()) waits for the worker and
#                  writes in place throttled, kswapd and kthreads included
#                  (zswap_wb_fallback_mode() returns ZSWAP_FB_THROTTLED)
#   age-only       the brief's rule: fall back only once the pending claim
#                  is older than 500 ms (no busy count); the edit of
#                  mutation fallback_on_age_only in lib/mutants.txt
#   age-100        age-only with 100 ms instead of 500 ms (the same edit,
#                  its age changed here)
#   age-plug       age-only and plug together: the kernel of the issue's
#                  report ("age-only rule plus per-chunk batching and a plug")
#   fallback-never never fall back from deferral (no safety net)
#   fallback-busy  fall back on every back-off from a pending claim
#   worker-memalloc the tip with v1's worker context: the deferred walk runs
#                  with PF_MEMALLOC (reserves, charges forced past
#                  memory.max) instead of failing its allocation and
#                  stopping at the memcg's limit: a forced charge bounded
#                  by one chunk's folios, whose writes are issued as root
#   worker-reclaim the tip with the worker allocating as limit reclaim
#                  does when its no-reclaim try fails: it submits what it
#                  queued and retries with reclaim (__GFP_NORETRY: one
#                  round, no OOM kill; in that reclaim the shrinker backs
#                  off for a kthread)
#   never-memalloc, never-reclaim  fallback-never with the worker's
#                  charge policy of worker-memalloc or worker-reclaim:
#                  whether the charge policy alone keeps the cgroup alive
#   wq-wide        the tip with zswap-lruvec-wb at the workqueue's default
#                  max_active instead of 4: a worker asleep in its payment
#                  no longer keeps another memcg's work waiting for a slot
#   never-wide     fallback-never with wq-wide's workqueue
#   worker-handback the tip with the work handed back to reclaim when the
#                  worker stops for memory: the entries it left become a
#                  claim that reclaimers find lagging (zswap_wb_struggling()),
#                  so that for 100 ms they write in place, with their own
#                  charge rules, while the work waits; then it runs again.
#                  (A row: a stop for memory is seen in the global
#                  deferred_wb_nomem count, another worker's stop included.)
#   pay-nofallback the tip with no fallback while the lruvec's work waits
#                  out a payment (its timer armed): a reclaimer that finds
#                  the claim pending then backs off, so none of what the
#                  indebted memcg owes is written in place meanwhile
#                  (kswapd's in-place writes are not paid for)
#   defer-uncontrolled  the tip without patch 21's gate: where no IO
#                  controller is set up the shrinker defers to the worker
#                  (unpaced) instead of writing in place; the edit of
#                  mutation no_controller_defers in lib/mutants.txt
#   unbatched      the tip with each shrinker write submitted as its own
#                  bio (swap_write_submit() after every __swap_writepage()):
#                  what batching gives, in place and in the worker
#   v1             the series before issue 13 (patches/ of our commit
#                  V1_REV, v1 as benchmarked on 2026-11-30), in one commit
#   v2             the series before issue 34 (patches/ of our commit
#                  V2_REV: v2's 12 patches, its throttled swap bio), in one
#                  commit
# The variant rows are commits made here (branch bench/<row> of
# build/linux, on top of branch series, mm/zswap.c changed only; the same
# commit every time, so that --results DIR resumes); no-batch is a commit
# of branch series, found by its subject; v1 and v2 are applied from our
# history to the base (branches bench/v1, bench/v2).
#
# --arms 'A B C' runs those arms of lib/bench.sh beside the rows, in the
# same random order: `lib/bench-rows.sh --arms 'A B C' --rounds 5
# --results DIR v1` adds the v1 row to the standard run in DIR (issue
# 13's acceptance: the new tip against the tip before it).
# --sibling-weight W runs the sibling at io.weight W instead of 1000 (the
# workload has 100). --results DIR goes on with the runs of DIR.
#
# Output: build/bench/results/rows-<timestamp>/ (or DIR): a lib/bench.sh
# results directory whose arms are the rows; its summary.md, and
# `bench/summary.py rows DIR` for the row tables of docs/results.md.
set -euo pipefail
. "$(dirname "$0")/common.sh"
. "$ROOT/lib/edits.sh"

DEFAULT_ROWS="tip plug no-rotation no-batch fallback-v1 age-only"
ALL_ROWS="$DEFAULT_ROWS age-100 age-plug fallback-never fallback-busy worker-memalloc worker-reclaim never-memalloc never-reclaim wq-wide never-wide worker-handback pay-nofallback defer-uncontrolled unbatched v1 v2"
# The tip before issue 13 (series v1): the last commit of our repository
# with v1's patches/ (the OLTP standard run's docs, 2026-11-30).
V1_REV=1658d48
# The tip before issue 34 (series v2): the last commit of our repository
# with v2's patches/, before the v3 core entered the series.
V2_REV=761c1c1c215c59f6e8bae7753b8cfc8f82787144
STRUGGLING='	return busy > ZSWAP_WB_BUSY_MAX ||
	       time_after(now, claimed_at + ZSWAP_WB_LAG);'
MODE_RULE='	if (r->kswapd)
		return ZSWAP_FB_UNTHROTTLED;
	if (r->kthread)
		return ZSWAP_FB_BACKOFF;
	if (r->own_charge && r->limit)
		return ZSWAP_FB_THROTTLED;
	return ZSWAP_FB_UNTHROTTLED;'
BATCH='	unsigned long freed = zswap_lru_walk(memcg, nid, walk, nr_to_walk);

	if (freed)
		zswap_wb_lru_drain(walk);
	swap_write_submit(&walk->io);
	return freed;'
UNROTATED='	unsigned long freed = zswap_lru_walk(memcg, nid, walk, nr_to_walk);

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
WRITE='	__swap_writepage(ctx, folio);
'
WRITE_ALONE='	__swap_writepage(ctx, folio);
	swap_write_submit(ctx);
'
INCLUDE='#include <linux/zsmalloc.h>'
NEVER='	return false;'
RUN_START='	long nr = atomic_long_xchg(&state->wb_pending, 0);
	struct zswap_wb_end end = {};'
RUN_START_NOMEM='	long nr = atomic_long_xchg(&state->wb_pending, 0);
	long nomem = atomic_long_read(&zswap_wb_nomem);
	struct zswap_wb_end end = {};'
RUN_END='	if (!end.delay || !zswap_wb_pay(state, memcg, nid, end.left, end.delay))
		zswap_memcg_put(memcg);
	return written;'
RUN_END_HANDBACK='	if (nr > 0 && !end.delay && written < nr &&
	    atomic_long_read(&zswap_wb_nomem) != nomem && zswap_wb_allowed(memcg)) {
		long idle = 0;

		if (atomic_long_try_cmpxchg(&state->wb_pending, &idle,
					    ZSWAP_WB_CLAIMING)) {
			WRITE_ONCE(state->wb_claimed_at,
				   jiffies - ZSWAP_WB_LAG - 1);
			atomic_set(&state->wb_busy, ZSWAP_WB_BUSY_MAX);
			atomic_long_set_release(&state->wb_pending, nr - written);
		}
		if (zswap_wb_requeue(&state->wb_work, nid, msecs_to_jiffies(100)))
			zswap_memcg_put(memcg);
		return written;
	}
'"$RUN_END"
CLAIM_JUDGED='		return false;
	return zswap_wb_struggling(atomic_inc_return(&state->wb_busy),'
CLAIM_PAYING='		return false;
	if (timer_pending(&state->wb_work.timer))
		return false;
	return zswap_wb_struggling(atomic_inc_return(&state->wb_busy),'
WQ_NARROW='WQ_UNBOUND | WQ_MEM_RECLAIM, ZSWAP_WB_MAX_ACTIVE);'
WQ_WIDE='WQ_UNBOUND | WQ_MEM_RECLAIM, 0);'
WORKER_RUN='		written = zswap_wb_chunks(memcg, nid, nr, reason,
					  &state->wb_written);'
WORKER_MEMALLOC='		{
			unsigned int noreclaim = memalloc_noreclaim_save();

			written = zswap_wb_chunks(memcg, nid, nr, reason,
						  &state->wb_written);
			memalloc_noreclaim_restore(noreclaim);
		}'
# the worker's allocation after its no-reclaim try failed: before the
# tip's rule (only a walk that may reclaim retries), and in worker-reclaim
# (the worker too submits what it queued and retries with reclaim, no
# retries and no OOM kill, as a limit charge that may fail)
ALLOC_RETRY='	if (folio == ERR_PTR(-ENOMEM) && io->sio && !noreclaim) {
		swap_write_submit(io);
		folio = zswap_swap_cache_alloc(swpentry, GFP_KERNEL);
	}'
ALLOC_RECLAIM='	if (folio == ERR_PTR(-ENOMEM) && noreclaim) {
		swap_write_submit(io);
		folio = zswap_swap_cache_alloc(swpentry, GFP_KERNEL |
					       __GFP_NORETRY | __GFP_NOWARN);
	} else if (folio == ERR_PTR(-ENOMEM) && io->sio) {
		swap_write_submit(io);
		folio = zswap_swap_cache_alloc(swpentry, GFP_KERNEL);
	}'

usage() {
	die "usage: lib/bench-rows.sh [--rounds N] [--sibling-weight W] [--workloads WLS] [--scenarios SCENS] [--arms 'A B C'] [--results DIR] [--commits] [ROW...] (rows: $ALL_ROWS)"
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
# untouched (row_branch()). Prints its commit.
variant() {
	local row=$1 blob tree idx
	shift
	idx=$(mktemp)
	git -C "$TREE" show "$SERIES_BRANCH:mm/zswap.c" |
		edit_once "bench row $row: mm/zswap.c at the tip" "$@" >"$idx.c" ||
		{ rm -f "$idx" "$idx.c"; exit 1; }
	blob=$(git -C "$TREE" hash-object -w "$idx.c")
	rm -f "$idx.c"
	GIT_INDEX_FILE=$idx git -C "$TREE" read-tree "$SERIES_BRANCH"
	GIT_INDEX_FILE=$idx git -C "$TREE" update-index --cacheinfo "100644,$blob,mm/zswap.c"
	tree=$(GIT_INDEX_FILE=$idx git -C "$TREE" write-tree)
	rm -f "$idx"
	row_branch "$row" "$tree" "$SERIES_BRANCH" "bench row $row"
}

# row_branch ROW TREE PARENT MESSAGE: branch bench/ROW, a commit of TREE
# on PARENT with PARENT's author, committer and dates, so that the same
# tree gives the same commit on every call. Prints the commit.
row_branch() {
	local commit
	commit=$(identity_of "$3" git -C "$TREE" commit-tree "$2" -p "$3" -m "$4")
	git -C "$TREE" branch -f "bench/$1" "$commit"
	echo "$commit"
}

# patches_commit ROW REV: branch bench/ROW, the series in patches/ of our
# repository's commit REV applied to the base as one commit (a private
# index, no checkout; the cover letter, which has no diff, is skipped).
# Prints its commit (row_branch()), the same one for the same REV.
patches_commit() {
	local row=$1 rev idx p patch tree
	rev=$(git -C "$ROOT" rev-parse -q --verify "$2^{commit}") ||
		die "row $row: $2 is not a commit of this repository"
	idx=$(mktemp)
	patch=$idx.patch
	GIT_INDEX_FILE=$idx git -C "$TREE" read-tree "$BASE_TAG"
	while read -r p; do
		case $p in ''|'#'*) continue ;; esac
		git -C "$ROOT" show "$rev:patches/$p" >"$patch"
		grep -q '^diff --git' "$patch" || continue
		GIT_INDEX_FILE=$idx git -C "$TREE" apply --cached "$patch" ||
			{ rm -f "$idx" "$patch"; die "row $row: $p of ${rev:0:12} does not apply to $BASE_TAG"; }
	done < <(git -C "$ROOT" show "$rev:patches/series")
	tree=$(GIT_INDEX_FILE=$idx git -C "$TREE" write-tree)
	rm -f "$idx" "$patch"
	row_branch "$row" "$tree" "$BASE_TAG" "bench row $row: patches/ of ${rev:0:12}"
}

# identity_of REF CMD...: CMD with REF's author and committer in the
# environment.
identity_of() {
	local f
	f=$(git -C "$TREE" log -1 --format='%an%x00%ae%x00%aI%x00%cn%x00%ce%x00%cI' "$1^{commit}" | tr '\0' '\n')
	shift
	{
		read -r GIT_AUTHOR_NAME; read -r GIT_AUTHOR_EMAIL; read -r GIT_AUTHOR_DATE
		read -r GIT_COMMITTER_NAME; read -r GIT_COMMITTER_EMAIL; read -r GIT_COMMITTER_DATE
	} <<<"$f"
	GIT_AUTHOR_NAME=$GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL=$GIT_AUTHOR_EMAIL \
		GIT_AUTHOR_DATE=$GIT_AUTHOR_DATE GIT_COMMITTER_NAME=$GIT_COMMITTER_NAME \
		GIT_COMMITTER_EMAIL=$GIT_COMMITTER_EMAIL GIT_COMMITTER_DATE=$GIT_COMMITTER_DATE "$@"
}

# mutation_edit NAME: mutation NAME's from and to of lib/mutants.txt,
# separated by \037 (a row written once, as that mutation).
mutation_edit() {
	local e
	e=$(mutation_records "$MUTATIONS" "$1" | cut -d $'\037' -f 4,5)
	[ -n "$e" ] || die "lib/mutants.txt has no mutation $1"
	echo "$e"
}

# row_commit ROW: prints the commit of ROW, made if need be. The age-only
# rows take their edit from mutation fallback_on_age_only, so that it is
# written once, in lib/mutants.txt; age-100 changes its age;
# defer-uncontrolled is mutation no_controller_defers.
row_commit() {
	local blk="$INCLUDE
#include <linux/blkdev.h>" age age_from age_to age_100 nc
	age=$(mutation_edit fallback_on_age_only)
	age_from=${age%%$'\037'*} age_to=${age#*$'\037'}
	age_100=${age_to/msecs_to_jiffies(500)/msecs_to_jiffies(100)}
	case $1 in
	tip) git -C "$TREE" rev-parse --verify "$SERIES_BRANCH^{commit}" ;;
	no-batch) series_commit "mm: zswap: scan each entry at most once per shrink call" ;;
	plug) variant "$1" "$BATCH" "$PLUGGED" "$INCLUDE" "$blk" ;;
	no-rotation) variant "$1" "$BATCH" "$UNROTATED" ;;
	fallback-v1) variant "$1" "$MODE_RULE" "	return ZSWAP_FB_THROTTLED;" ;;
	age-only) variant "$1" "$age_from" "$age_to" ;;
	age-100)
		[ "$age_100" != "$age_to" ] ||
			die "row age-100: mutation fallback_on_age_only has no msecs_to_jiffies(500)"
		variant "$1" "$age_from" "$age_100" ;;
	age-plug) variant "$1" "$age_from" "$age_to" "$BATCH" "$PLUGGED" "$INCLUDE" "$blk" ;;
	fallback-never) variant "$1" "$STRUGGLING" "$NEVER" ;;
	fallback-busy) variant "$1" "$STRUGGLING" "	return true;" ;;
	worker-memalloc) variant "$1" "$WORKER_RUN" "$WORKER_MEMALLOC" ;;
	worker-reclaim) variant "$1" "$ALLOC_RETRY" "$ALLOC_RECLAIM" ;;
	never-memalloc) variant "$1" "$STRUGGLING" "$NEVER" "$WORKER_RUN" "$WORKER_MEMALLOC" ;;
	never-reclaim) variant "$1" "$STRUGGLING" "$NEVER" "$ALLOC_RETRY" "$ALLOC_RECLAIM" ;;
	wq-wide) variant "$1" "$WQ_NARROW" "$WQ_WIDE" ;;
	never-wide) variant "$1" "$STRUGGLING" "$NEVER" "$WQ_NARROW" "$WQ_WIDE" ;;
	worker-handback) variant "$1" "$RUN_START" "$RUN_START_NOMEM" "$RUN_END" "$RUN_END_HANDBACK" ;;
	pay-nofallback) variant "$1" "$CLAIM_JUDGED" "$CLAIM_PAYING" ;;
	defer-uncontrolled)
		nc=$(mutation_edit no_controller_defers)
		variant "$1" "${nc%%$'\037'*}" "${nc#*$'\037'}" ;;
	unbatched) variant "$1" "$WRITE" "$WRITE_ALONE" ;;
	v1) patches_commit "$1" "$V1_REV" ;;
	v2) patches_commit "$1" "$V2_REV" ;;
	*) usage ;;
	esac
}

main() {
	local rounds=1 rows="" row rev res="" weight="" args=() list="" arms=""
	local workloads="cache oltp" scenarios="open heavy"
	while [ $# -gt 0 ]; do
		case $1 in
		--rounds|--sibling-weight|--workloads|--scenarios|--results|--arms)
			[ $# -ge 2 ] || usage
			case $1 in
			--rounds) rounds=$2 ;;
			--sibling-weight) weight=$2 ;;
			--workloads) workloads=$2 ;;
			--scenarios) scenarios=$2 ;;
			--results) res=$2 ;;
			--arms) arms=$2 ;;
			esac
			shift ;;
		--commits) list=1 ;;
		-*) usage ;;
		*) rows="$rows $1" ;;
		esac
		shift
	done
	rows=${rows:-$DEFAULT_ROWS}
	for row in $rows; do
		case " $ALL_ROWS " in *" $row "*) ;; *) usage ;; esac
	done
	[ -d "$TREE/.git" ] || die "no build/linux: run make tree first"
	res=${res:-$BUILD/bench/results/rows-$(date -u +%Y%m%d-%H%M%S)${weight:+-w$weight}}
	for row in $rows; do
		rev=$(row_commit "$row")
		log "row $row: ${rev:0:12}"
		args+=(--row "$row=$rev")
		[ -z "$list" ] || printf '%-15s %s %s\n' "$row" "$rev" \
			"$(git -C "$TREE" diff --stat "$SERIES_BRANCH" "$rev" | tail -n1)"
	done
	[ -z "$list" ] || return 0
	env ${weight:+SIBLING_WEIGHT="$weight"} "$ROOT/lib/bench.sh" --profile standard \
		--rounds "$rounds" --workloads "$workloads" --scenarios "$scenarios" \
		--results "$res" --arms "${arms:+$arms }${rows# }" "${args[@]}"
	log "rows done: ${res#"$ROOT"/}/summary.md; tables: bench/summary.py rows ${res#"$ROOT"/}"
}

main "$@"
