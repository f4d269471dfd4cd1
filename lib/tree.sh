#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Make build/linux: a git tree whose first commit is pristine 7.3.4 (tag
# v7.3.4-base) and whose branch 'series' carries one commit per entry of
# patches/series, applied with git am.
#
# lib/tree.sh --mark-current records that the tree is patches/ as they are
# (make export does this). Idempotent: when patches/ did not change since the last run and the tree
# is still at the commit that run made, nothing is touched (no file gets a
# new mtime, so no rebuild follows). A patch that does not apply stops the
# run with its file name and the rejected hunks.
set -euo pipefail
. "$(dirname "$0")/common.sh"

STAMP=$TREE/.git/zswap-series.stamp	# "<sha256 of patches> <tip commit>"

git_tree() { git -C "$TREE" "$@"; }

# A fixed identity and date make the base commit's hash the same everywhere,
# so the series' base-commit: line can be checked.
base_commit_env() {
	export GIT_AUTHOR_NAME="Linux $BASE_KVER" GIT_AUTHOR_EMAIL="base@localhost"
	export GIT_COMMITTER_NAME="Linux $BASE_KVER" GIT_COMMITTER_EMAIL="base@localhost"
	export GIT_AUTHOR_DATE="2026-11-15T00:00:00Z" GIT_COMMITTER_DATE="2026-11-15T00:00:00Z"
}

# Debian's linux-source ends the top-level .gitignore with a packaging
# stanza ("/*" then "!/debian/") that ignores every top-level entry, so git
# would add nothing and ignore the series' new files. Upstream has no such
# stanza: drop it from the base so the base matches upstream's tree.
drop_debian_gitignore_stanza() {
	python3 - "$TREE/.gitignore" <<'PY'
import sys, re
p = sys.argv[1]
s = open(p).read()
t = re.sub(r'\n#\n# Debian packaging:.*\Z', '\n', s, flags=re.S)
if t == s:
    sys.exit("no Debian packaging stanza found in .gitignore")
open(p, 'w').write(t.rstrip('\n') + '\n')
PY
}

make_base() {
	local deb tmp
	deb=$("$ROOT/lib/base.sh")
	tmp=$BUILD/linux.tmp
	rm -rf "$tmp"
	# The sources (about 1.6 GiB) and their loose git objects (0.7 GiB).
	need_space "$BUILD" 3072 "extracting and committing $BASE_KVER" || exit 1
	mkdir -p "$tmp"
	log "extracting $(basename "$deb") into build/linux (about 30 s)"
	dpkg-deb --fsys-tarfile "$deb" |
		tar -xO "./usr/src/$BASE_PKG.tar.xz" |
		tar -xJ -C "$tmp" --strip-components=1
	grep -q "^SUBLEVEL = 4$" "$tmp/Makefile" || die "extracted tree is not $BASE_KVER"
	rm -rf "$TREE" && mv "$tmp" "$TREE"
	drop_debian_gitignore_stanza
	log "committing the pristine tree (git add takes about 30 s)"
	git_tree init -q -b "$SERIES_BRANCH"
	git_tree config core.autocrlf false
	git_tree config gc.auto 0
	git_tree add -A
	(base_commit_env && git_tree commit -q -m "Linux $BASE_KVER" \
		-m "Pristine source of Debian's $BASE_PKG $BASE_PKG_VERSION; the Debian
packaging stanza at the end of .gitignore is dropped (upstream has none).")
	git_tree tag "$BASE_TAG"
}

patches_hash() {
	local p
	{
		cat "$PATCHES/series" 2>/dev/null || true
		for p in $(series_patches); do cat "$PATCHES/$p"; done
	} | sha256sum | cut -d' ' -f1
}

tree_clean() { [ -z "$(git_tree status --porcelain --untracked-files=no)" ]; }

# Print the hunks of $1 that do not apply to the tree, then restore it.
show_rejects() {
	local patch=$1
	(cd "$TREE" && git apply --reject --verbose "$patch" 2>&1 | grep -v '^Checking' | head -n 30) >&2 || true
	find "$TREE" -name '*.rej' -newer "$STAMP.tmp" 2>/dev/null | while read -r rej; do
		printf -- '--- rejected hunk(s) in %s:\n' "${rej#"$TREE"/}" >&2
		head -n 40 "$rej" >&2
	done
	git_tree reset -q --hard
	git_tree clean -q -f -- '*.rej' '*.orig'
}

# keep_notes PATCH: git am drops what a commit message carries after its
# "---" line (the notes for reviewers); put PATCH's whole message back on
# HEAD, so that 'make export' writes the notes out again.
keep_notes() {
	python3 - "$1" >"$LOGS/notes.msg" <<'PY' || return 0
import re, sys
s = open(sys.argv[1]).read()
head, _, rest = s.partition("\n\n")
subject = re.search(r"^Subject: (?:\[PATCH[^]]*\] )?(.*(?:\n [^\n]*)*)", head, re.M)
body = rest.split("\ndiff --git ", 1)[0]
parts = body.split("\n---\n")
if len(parts) < 3:
    sys.exit(1)		# no notes: git am kept the whole message
msg = "\n---\n".join(parts[:-1])
print(subject.group(1).replace("\n ", " ") + "\n\n" + msg.rstrip("\n"))
PY
	git_tree commit -q --amend --no-verify -F "$LOGS/notes.msg"
}

apply_series() {
	local p n=0
	touch "$STAMP.tmp"
	git_tree checkout -q "$SERIES_BRANCH" 2>/dev/null || git_tree checkout -q -b "$SERIES_BRANCH"
	git_tree reset -q --hard "$BASE_TAG"
	for p in $(series_patches); do
		[ -f "$PATCHES/$p" ] || die "patches/series names $p, which does not exist"
		if ! git_tree am -q --keep-cr "$PATCHES/$p" >"$LOGS/git-am.log" 2>&1; then
			git_tree am --abort >/dev/null 2>&1 || true
			printf 'error: patches/%s does not apply to %s + %d patch(es):\n' "$p" "$BASE_TAG" "$n" >&2
			sed 's/^/  | /' "$LOGS/git-am.log" >&2
			show_rejects "$PATCHES/$p"
			rm -f "$STAMP" "$STAMP.tmp"
			exit 1
		fi
		keep_notes "$PATCHES/$p"
		n=$((n + 1))
	done
	rm -f "$STAMP.tmp"
	log "applied $n patch(es) on $BASE_TAG"
}

main() {
	local want have tip
	if [ "${1:-}" = --mark-current ]; then
		# After an export: build/linux is what patches/ now describes.
		echo "$(patches_hash) $(git_tree rev-parse HEAD)" >"$STAMP"
		return 0
	fi
	mkdir -p "$BUILD" "$LOGS"
	if ! git_tree rev-parse -q --verify "refs/tags/$BASE_TAG" >/dev/null 2>&1; then
		make_base
	fi
	want=$(patches_hash)
	tip=$(git_tree rev-parse HEAD)
	have=$(cat "$STAMP" 2>/dev/null || true)
	if [ "$have" = "$want $tip" ]; then
		log "build/linux is up to date with patches/ ($(git_tree rev-list --count "$BASE_TAG"..HEAD) patch(es))"
		return 0
	fi
	# The tree moved since it was last made from patches/: keep that work.
	if [ -n "$have" ] && [ "${have#* }" != "$tip" ] && [ "${FORCE:-0}" != 1 ]; then
		die "build/linux has commits that are not in patches/ (HEAD $tip): run 'make export' to keep them, or 'make tree FORCE=1' to drop them"
	fi
	tree_clean || die "build/linux has uncommitted changes: commit them (then 'make export') or discard them"
	apply_series
	echo "$want $(git_tree rev-parse HEAD)" >"$STAMP"
}

main "$@"
