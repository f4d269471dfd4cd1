#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Every patch of the series passes scripts/checkpatch.pl --strict with no
# error, warning or check.
set -euo pipefail
. "$(dirname "$0")/common.sh"

[ -x "$TREE/scripts/checkpatch.pl" ] || die "no work tree: run 'make tree' first"
bad=0
for p in $(series_patches); do
	# spdxcheck.py, which checkpatch runs, needs Debian's python3 (ply, git).
	out=$(cd "$TREE" && PATH=/usr/bin:$PATH ./scripts/checkpatch.pl --strict --no-color \
		--show-types "$PATCHES/$p" 2>&1) || true
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
