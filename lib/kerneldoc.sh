#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# kernel-doc gate: lib/kerneldoc.sh [--commit REV]
# Runs scripts/kernel-doc -none -Wall on every .c and .h file the series
# adds or changes (v7.3.4-base..REV, REV = branch `series` by default),
# prints its warnings and fails on any.
#
# The files and kernel-doc itself (scripts/kernel-doc, tools/docs,
# tools/lib/python) are read from REV with git archive into
# build/kerneldoc/, so build/linux's working tree is neither read nor
# written and a commit can be checked while another is being edited.
set -euo pipefail
. "$(dirname "$0")/common.sh"

OUT=$BUILD/kerneldoc
PY=/usr/bin/python3			# Debian's, not a pyenv shim
KDOC_FILES="scripts/kernel-doc tools/docs tools/lib/python"
rev=$SERIES_BRANCH

parse_args() {
	while [ $# -gt 0 ]; do
		case $1 in
		--commit)
			[ $# -ge 2 ] || die "lib/kerneldoc.sh: --commit needs a commit of build/linux"
			rev=$2
			shift 2 ;;
		*) die "lib/kerneldoc.sh: unknown option '$1' (usage: lib/kerneldoc.sh [--commit REV])" ;;
		esac
	done
}

# resolve REV: REV's commit id in build/linux, or a clear error.
resolve() {
	git -C "$TREE" rev-parse -q --verify "refs/tags/$BASE_TAG" >/dev/null ||
		die "build/linux has no $BASE_TAG: run make tree first"
	git -C "$TREE" rev-parse -q --verify "$1^{commit}" ||
		die "'$1' is not a commit of build/linux"
}

# touched_sources REV: the .c and .h files the series adds or changes at REV.
touched_sources() {
	git -C "$TREE" diff --no-renames --name-only --diff-filter=AM \
		"$BASE_TAG" "$1" -- '*.c' '*.h'
}

# extract REV FILE...: REV's FILEs and kernel-doc, fresh, under $OUT.
extract() {
	local rev=$1
	shift
	rm -rf "$OUT" && mkdir -p "$OUT"
	# shellcheck disable=SC2086
	git -C "$TREE" archive "$rev" -- $KDOC_FILES "$@" | tar -x -C "$OUT"
}

# run_kerneldoc FILE...: kernel-doc's messages on FILEs (paths under $OUT),
# each once: 7.3's kernel-doc logs every warning twice. It exits 0 with
# warnings (without -Werror); a non-zero exit means it did not run.
run_kerneldoc() {
	local out rc=0
	out=$(cd "$OUT" && PYTHONDONTWRITEBYTECODE=1 "$PY" scripts/kernel-doc -none -Wall "$@" 2>&1) || rc=$?
	awk '!seen[$0]++' <<<"$out"
	return "$rc"
}

main() {
	local id files out n
	parse_args "$@"
	id=$(resolve "$rev")
	files=$(touched_sources "$id")
	[ -n "$files" ] || { log "kernel-doc: the series adds or changes no .c or .h file"; return 0; }
	# shellcheck disable=SC2086
	extract "$id" $files
	log "kernel-doc -none -Wall at ${id:0:12} ($rev) on $(wc -w <<<"$files") files"
	# shellcheck disable=SC2086
	out=$(run_kerneldoc $files) || { printf '%s\n' "$out" >&2; die "kernel-doc did not run"; }
	n=$(grep -ciE '^(warning|error)' <<<"$out" || true)
	[ -z "$out" ] || printf '%s\n' "$out"
	if [ "$n" -gt 0 ]; then
		echo "kernel-doc: $n warning(s) in the files the series adds or changes" >&2
		return 1
	fi
	log "kernel-doc: no warnings in $(wc -w <<<"$files") files"
}

main "$@"
