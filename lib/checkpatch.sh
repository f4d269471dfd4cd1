#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Every patch of the series passes scripts/checkpatch.pl --strict with no
# error, warning or check.
#
# One type is ignored: FILE_PATH_CHANGES ("added, moved or deleted file(s),
# does MAINTAINERS need updating?"). checkpatch asks it of every patch that
# adds a file without touching MAINTAINERS; the series' selftests patch adds
# the F: line for tools/testing/selftests/zswap/, so later patches adding
# tests there are covered by it. It is ignored only for a patch whose
# every file is in a directory with an F: line (ignore_for).
#
# UNKNOWN_COMMIT_ID is ignored for a patch with a Fixes: tag: the commit it
# names predates 7.3.4, and build/linux has no history before it. The tag
# was checked against the upstream history by hand; its form is still
# checked (GIT_COMMIT_ID).
set -euo pipefail
. "$(dirname "$0")/common.sh"

[ -x "$TREE/scripts/checkpatch.pl" ] || die "no work tree: run 'make tree' first"
# ignore_for PATCH: "--ignore FILE_PATH_CHANGES" when every file PATCH
# touches is in a directory MAINTAINERS has an F: line for, and
# "--ignore UNKNOWN_COMMIT_ID" when PATCH carries a Fixes: tag.
ignore_for() {
	local f covered=1
	for f in $(sed -n 's|^+++ b/||p' "$1"); do
		grep -qxF "F:	${f%/*}/" "$TREE/MAINTAINERS" || covered=0
	done
	[ "$covered" = 0 ] || echo "--ignore FILE_PATH_CHANGES"
	! grep -q '^Fixes: ' "$1" || echo "--ignore UNKNOWN_COMMIT_ID"
}

bad=0
for p in $(series_patches); do
	# spdxcheck.py, which checkpatch runs, needs Debian's python3 (ply, git).
	out=$(cd "$TREE" && PATH=/usr/bin:$PATH ./scripts/checkpatch.pl --strict --no-color \
		--show-types $(ignore_for "$PATCHES/$p") "$PATCHES/$p" 2>&1) || true
	total=$(grep -E "^total: " <<<"$out" | tail -n1 || true)
	if grep -qE '^total: 0 errors, 0 warnings, 0 checks' <<<"$out"; then
		printf '  ok   %s\n' "$p"
	else
		printf '  FAIL %s: %s\n' "$p" "${total:-checkpatch did not finish}"
		grep -E '^(ERROR|WARNING|CHECK):' -A3 <<<"$out" | sed 's/^/       /' | head -n 40
		bad=1
	fi
done
exit "$bad"
