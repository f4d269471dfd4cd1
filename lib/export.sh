#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# lib/export.sh export: write build/linux's commits on the base back to
#   patches/ (format-patch files, series, cover letter) and copy every file
#   the series adds to the same path at the repository root.
# lib/export.sh check: fail when patches/ and those copies disagree, or when
#   the cover letter does not describe the series.
#
# The cover letter's subject and blurb are ours and are kept across exports;
# its shortlog, diffstat and base-commit: line are regenerated.
set -euo pipefail
. "$(dirname "$0")/common.sh"

COVER=0000-cover-letter.patch

git_tree() { git -C "$TREE" "$@"; }

# Print the subject (without "[PATCH 0/N] ") and the blurb of a cover letter.
cover_subject() {
	sed -n 's/^Subject: \[PATCH[^]]*\] //p' "$1" | head -n1
}
cover_blurb() {
	# From the first blank line after the headers up to the shortlog's
	# "Author (N):" line.
	awk 'hdr && /^[^ ].* \([0-9]+\):$/ { exit }
	     hdr { print }
	     !hdr && /^$/ { hdr = 1 }' "$1" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'
}

# added_files PATCH...: the paths that the patches create.
added_files() {
	awk '/^diff --git / { path = substr($4, 3) }
	     /^new file mode/ { print path }' "$@" | sort -u
}

do_export() {
	local tmp n subject blurb f
	git_tree rev-parse -q --verify "refs/tags/$BASE_TAG" >/dev/null ||
		die "no work tree: run 'make tree' first"
	[ -z "$(git_tree status --porcelain --untracked-files=no)" ] ||
		die "build/linux has uncommitted changes: commit them first"
	n=$(git_tree rev-list --count "$BASE_TAG"..HEAD)
	[ "$n" -gt 0 ] || die "build/linux has no commits on $BASE_TAG"
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' RETURN
	# The cover letter is signed by the series' author, not by whoever
	# runs the export (format-patch takes it from the committer).
	GIT_COMMITTER_NAME=$(git_tree log -1 --format=%an HEAD) \
	GIT_COMMITTER_EMAIL=$(git_tree log -1 --format=%ae HEAD) \
		git_tree format-patch -q --cover-letter --base="$BASE_TAG" \
		--no-signature --zero-commit -o "$tmp" "$BASE_TAG"..HEAD
	if [ -f "$PATCHES/$COVER" ]; then
		subject=$(cover_subject "$PATCHES/$COVER")
		cover_blurb "$PATCHES/$COVER" >"$tmp/blurb"
	else
		subject="mm: zswap: throttled, deferred and batched shrinker writeback"
		echo "(describe the series here)" >"$tmp/blurb"
	fi
	python3 - "$tmp/$COVER" "$subject" "$tmp/blurb" <<'PY'
import sys
p, subject, blurb = sys.argv[1], sys.argv[2], open(sys.argv[3]).read().rstrip("\n")
s = open(p).read()
s = s.replace("*** SUBJECT HERE ***", subject, 1).replace("*** BLURB HERE ***", blurb, 1)
open(p, "w").write(s)
PY
	rm -f "$tmp/blurb"
	rm -f "$PATCHES"/*.patch
	cp "$tmp"/*.patch "$PATCHES/"
	{
		echo "# The series against Linux $BASE_KVER ($BASE_TAG in build/linux), in order."
		echo "# Written by 'make export'; apply with 'make tree' or git am."
		(cd "$tmp" && ls ./*.patch | sed 's|^\./||')
	} >"$PATCHES/series"
	log "exported $n patch(es) and the cover letter to patches/"
	copy_added_files
	# The tree is the series now: let lib/tree.sh know, so it does not re-apply.
	"$ROOT/lib/tree.sh" --mark-current
}

# Copy the files the series adds, as they are at its tip, to the root;
# remove copies of files it no longer adds.
copy_added_files() {
	local f
	for f in $(added_files $(series_paths)); do
		mkdir -p "$ROOT/$(dirname "$f")"
		git_tree show "HEAD:$f" >"$ROOT/$f"
	done
	stale_copies | while read -r f; do
		log "removing $f: the series no longer adds it"
		rm -f "$ROOT/$f"
	done
}

series_paths() {
	local p
	for p in $(series_patches); do echo "$PATCHES/$p"; done
}

# Top-level kernel directories the series adds files under. lib/ is the
# harness's own and never holds a copy.
copy_roots() {
	added_files $(series_paths) | cut -d/ -f1 | sort -u | grep -vx lib || true
}

# Files under the copy roots that the series does not add.
stale_copies() {
	local r
	for r in $(copy_roots); do
		(cd "$ROOT" && git ls-files -co --exclude-standard -- "$r")
	done | sort -u | comm -23 - <(added_files $(series_paths))
}

do_check() {
	local tmp bad=0 f n subj
	[ -f "$PATCHES/series" ] || die "no patches/series"
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' RETURN
	# Rebuild the added files from the patches alone.
	mkdir -p "$tmp/tree"
	local incl=()
	for f in $(added_files $(series_paths)); do incl+=(--include="$f"); done
	if [ ${#incl[@]} -gt 0 ]; then
		for f in $(series_paths); do
			(cd "$tmp/tree" && git apply "${incl[@]}" "$f") ||
				{ echo "export check: ${f#"$ROOT"/} does not apply to the files the series adds" >&2; return 1; }
		done
	fi
	for f in $(added_files $(series_paths)); do
		if [ ! -f "$ROOT/$f" ]; then
			echo "export check: $f is added by the series but missing at the root (run 'make export')" >&2
			bad=1
		elif ! cmp -s "$tmp/tree/$f" "$ROOT/$f"; then
			echo "export check: $f differs from what the series adds (run 'make export'):" >&2
			diff -u "$tmp/tree/$f" "$ROOT/$f" | head -n 20 >&2 || true
			bad=1
		fi
	done
	for f in $(stale_copies); do
		echo "export check: $f is not added by the series (stale copy)" >&2
		bad=1
	done
	# The series file and the patch files agree.
	for f in $(grep -v -e '^#' -e '^[[:space:]]*$' "$PATCHES/series"); do
		[ -f "$PATCHES/$f" ] || { echo "export check: patches/series names missing $f" >&2; bad=1; }
	done
	for f in "$PATCHES"/*.patch; do
		grep -qxF "$(basename "$f")" "$PATCHES/series" ||
			{ echo "export check: $(basename "$f") is not in patches/series" >&2; bad=1; }
	done
	# The cover letter is current: right count, every subject, the base.
	n=$(series_patches | wc -l)
	# git format-patch pads the zero to the width of N (00/11).
	if ! grep -qE "^Subject: \[PATCH 0+/$n\] " "$PATCHES/$COVER" 2>/dev/null; then
		echo "export check: the cover letter is not 'PATCH 0/$n'" >&2
		bad=1
	fi
	for f in $(series_paths); do
		subj=$(sed -n 's/^Subject: \[PATCH[^]]*\] //p' "$f" | head -n1)
		grep -qF -- "${subj:0:40}" "$PATCHES/$COVER" ||
			{ echo "export check: the cover letter does not list '$subj'" >&2; bad=1; }
	done
	grep -q '^base-commit: [0-9a-f]\{40\}$' "$PATCHES/$COVER" ||
		{ echo "export check: the cover letter has no base-commit: line" >&2; bad=1; }
	grep -q 'describe the series here' "$PATCHES/$COVER" &&
		{ echo "export check: the cover letter has no blurb" >&2; bad=1; }
	[ "$bad" = 0 ] && log "export check: patches/ and the root copies agree"
	return "$bad"
}

case ${1:-} in
export) do_export ;;
check) do_check ;;
*) die "usage: lib/export.sh export|check" ;;
esac
