#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Bisectability: after each patch of the series, the UML KUnit kernel builds
# and its suites pass. Runs in a worktree of build/linux (build/bisect/linux)
# with its own build directory, so each step is an incremental build and the
# work tree is never touched. Options that a later patch defines are left out
# of the kunitconfig at earlier steps (lib/kunit.sh --lenient).
set -euo pipefail
. "$(dirname "$0")/common.sh"

WT=$BUILD/bisect/linux
BDIR=$BUILD/bisect/kunit-um

git_tree() { git -C "$TREE" "$@"; }

# kernel_unchanged C: C changes only selftests and documentation, which the
# KUnit kernel does not build: it builds and tests as its parent did.
kernel_unchanged() {
	! git_tree diff --name-only "$1^" "$1" |
		grep -qv -e '^tools/testing/selftests/' -e '^Documentation/'
}

commits=$(git_tree rev-list --reverse "$BASE_TAG"..HEAD)
[ -n "$commits" ] || { log "bisect: the series is empty"; exit 0; }
if [ ! -d "$WT/.git" ] && [ ! -f "$WT/.git" ]; then
	log "bisect: creating the worktree build/bisect/linux (about 30 s)"
	git_tree worktree prune
	mkdir -p "$(dirname "$WT")"
	git_tree worktree add -q --detach "$WT" "$BASE_TAG"
fi
i=0 bad=0 prev_ok=""
total=$(wc -w <<<"$commits")
for c in $commits; do
	i=$((i + 1))
	subj=$(git_tree log -1 --format=%s "$c")
	if [ -n "$prev_ok" ] && kernel_unchanged "$c"; then
		printf '  ok   [%d/%d] %s (no kernel change: as [%d/%d])\n' \
			"$i" "$total" "$subj" "$((i - 1))" "$total"
		continue
	fi
	prev_ok=""
	git -C "$WT" checkout -q --detach "$c"
	log "bisect [$i/$total] $subj"
	if "$ROOT/lib/kunit.sh" --tree "$WT" --build-dir "$BDIR" --lenient \
		>"$LOGS/bisect-$i.log" 2>&1; then
		printf '  ok   [%d/%d] %s (%s)\n' "$i" "$total" "$subj" \
			"$(grep -o 'kunit: .*' "$LOGS/bisect-$i.log" | tail -n1)"
		prev_ok=1
	else
		printf '  FAIL [%d/%d] %s; last lines of build/logs/bisect-%d.log:\n' \
			"$i" "$total" "$subj" "$i"
		tail -n 30 "$LOGS/bisect-$i.log" | sed 's/^/       /'
		bad=1
	fi
done
exit "$bad"
