#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# kernel-doc gate: lib/kerneldoc.sh [--commit REV]
# Runs scripts/kernel-doc -none -Wall on every .c and .h file the series
# adds or changes (v7.3.4-base..REV, REV = branch `series` by default),
# and on the same files at pristine 7.3.4 (those that exist there), with
# REV's kernel-doc both times. Warnings that pristine 7.3.4 gives too
# (compared without line numbers, as many times as REV gives them) are
# printed as pre-existing; the gate fails on the others.
#
# It also fails, by the reviewers' rule, when a non-static function that
# the series adds to a kernel .c file (defined there at REV under a name
# the base does not define there; tools/ excluded) has no kernel-doc
# comment. VISIBLE_IF_KUNIT counts as non-static: such a function is
# visible wherever KUnit is built. (A function of 7.3.4 that the series
# only makes visible to its tests is not a new function.)
#
# The files and kernel-doc itself (scripts/kernel-doc, tools/docs,
# tools/lib/python) are read with git archive into build/kerneldoc/tip and
# build/kerneldoc/base, so build/linux's working tree is neither read nor
# written and a commit can be checked while another is being edited.
set -euo pipefail
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/compare.sh"

OUT=$BUILD/kerneldoc
PY=/usr/bin/python3			# Debian's, not a pyenv shim
KDOC_FILES="scripts/kernel-doc tools/docs tools/lib/python"
rev=$SERIES_BRANCH

# extract DIR REV FILE...: REV's FILEs (those REV has), fresh, under DIR.
extract() {
	local dir=$1 rev=$2 have
	shift 2
	rm -rf "$dir" && mkdir -p "$dir"
	have=$(git -C "$TREE" ls-tree -r --name-only "$rev" -- "$@")
	[ -n "$have" ] || return 0
	# shellcheck disable=SC2086
	git -C "$TREE" archive "$rev" -- $have | tar -x -C "$dir"
}

# kerneldoc DIR ARGS...: REV's kernel-doc (from build/kerneldoc/tip) run
# in DIR, each message once: 7.3's kernel-doc logs every warning twice.
# It exits 0 with warnings (without -Werror); a non-zero exit means it
# did not run.
kerneldoc() {
	local dir=$1 out rc=0
	shift
	out=$(cd "$dir" && PYTHONDONTWRITEBYTECODE=1 "$PY" "$OUT/tip/scripts/kernel-doc" "$@" 2>&1) || rc=$?
	awk '!seen[$0]++' <<<"$out"
	return "$rc"
}

# warnings SIDE FILE...: kernel-doc -none -Wall's messages on SIDE's copy
# of FILEs (those it has) into build/kerneldoc/SIDE.msgs.
warnings() {
	local side=$1 f have=() out
	shift
	for f in "$@"; do [ ! -f "$OUT/$side/$f" ] || have+=("$f"); done
	: >"$OUT/$side.msgs"
	[ ${#have[@]} -gt 0 ] || return 0
	out=$(kerneldoc "$OUT/$side" -none -Wall "${have[@]}") ||
		{ printf '%s\n' "$out" >&2; die "kernel-doc did not run on the files at $side"; }
	grep -iE '^(warning|error)|: (warning|error):' <<<"$out" >"$OUT/$side.msgs" || true
}

# functions FILE [nonstatic]: the names of the functions FILE defines
# (only those that are not static with "nonstatic"), kernel style: the
# declarator starts in column 0 and has its "(" on its first line, and
# the body's "{" stands alone on a line.
functions() {
	awk -v only="${2:-}" '
		function emit(d,   n, w) {
			if (only == "nonstatic" && d ~ /^static[ \t]/) return
			sub(/\(.*/, "", d)
			n = split(d, w, /[ \t*]+/)
			if (w[n] != "") print w[n]
		}
		decl != "" && $0 == "{" { emit(decl); decl = ""; next }
		decl != "" && /^[ \t]/ && decl !~ /\)[ \t]*$/ { decl = decl " " $0; next }
		{ decl = "" }
		/^[A-Za-z_]/ && /\(/ && !/;[ \t]*$/ && !/^(typedef|struct|union|enum)[ \t][^(]*[{=;]/ { decl = $0 }
	' "$1" | sort -u
}

# documented_functions DIR FILE: the functions with a kernel-doc comment
# in DIR's copy of FILE (kernel-doc -rst names them in ".. c:function::").
documented_functions() {
	kerneldoc "$1" -rst "$2" 2>/dev/null | sed -n 's/^\.\. c:function:: //p' |
		sed -E 's/ *\(.*//; s/.*[ *]//' | sort -u
}

# undocumented FILE...: "FILE: NAME()" for each non-static function that
# the series adds to a kernel .c file among FILEs and that has no
# kernel-doc comment at REV.
undocumented() {
	local f
	for f in "$@"; do
		case $f in tools/*|*.h) continue ;; esac
		comm -23 <(functions "$OUT/tip/$f" nonstatic) \
			<(if [ -f "$OUT/base/$f" ]; then functions "$OUT/base/$f"; fi) |
			comm -23 - <(documented_functions "$OUT/tip" "$f") | sed "s#^#$f: #; s#\$#()#"
	done
}

main() {
	local id files new old missing n
	parse_commit_option lib/kerneldoc.sh "$@"
	id=$(tree_commit "$rev")
	files=$(touched_files "$id" '*.c' '*.h')
	[ -n "$files" ] || { log "kernel-doc: the series adds or changes no .c or .h file"; return 0; }
	# shellcheck disable=SC2086
	extract "$OUT/tip" "$id" $KDOC_FILES $files
	# shellcheck disable=SC2086
	extract "$OUT/base" "$(tree_commit "$BASE_TAG")" $files
	n=$(wc -w <<<"$files")
	log "kernel-doc -none -Wall at ${id:0:12} ($rev) and $BASE_TAG on $n files"
	# shellcheck disable=SC2086
	warnings tip $files
	# shellcheck disable=SC2086
	warnings base $files
	new=$(new_lines "$OUT/base.msgs" "$OUT/tip.msgs")
	old=$(old_lines "$OUT/base.msgs" "$OUT/tip.msgs")
	# shellcheck disable=SC2086
	missing=$(undocumented $files)
	section "kernel-doc: pre-existing warnings (pristine $BASE_KVER gives them too):" "$old"
	section "kernel-doc: NEW warnings (not given by pristine $BASE_KVER):" "$new"
	section "kernel-doc: new non-static functions without a kernel-doc comment:" "$missing"
	if [ -n "$new$missing" ]; then
		echo "kernel-doc gate: $(count_lines "$new") new warning(s)," \
			"$(count_lines "$missing") undocumented new non-static function(s)" >&2
		return 1
	fi
	log "kernel-doc: no new warnings in $n files ($(count_lines "$old") pre-existing)," \
		"every new non-static function documented"
}

main "$@"
