#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# b4 gate: lib/b4.sh [--patches DIR]
# b4 (Debian's package, lib/deps.sh check) reads the series the way a
# maintainer would take it from the list, offline.
#
# patches/series (cover letter first) becomes one mbox as a list archive
# would hold it: mboxrd (a body line "From ..." is quoted ">From ...", or
# it would start a message of its own), each message with a Message-Id and
# the patches in reply to the cover letter (git send-email --thread).
# `b4 --offline-mode am -m -` then reads it from stdin. The gate passes
# when b4
#   - exits 0 and says nothing of WARNING, ERROR, missing or incomplete;
#   - finds the whole series: "Total patches: N" with N the patches of
#     patches/series, and writes the cover letter;
#   - takes the cover letter's base-commit: as v7.3.4-base of build/linux;
#   - writes an am-ready mbox whose diffs are those of patches/ (git
#     patch-id --stable, patch by patch).
# That patches/ applies with git am onto pristine 7.3.4 is the gate
# "series applies" (lib/tree.sh builds build/linux that way); it is not
# done twice. b4 runs in build/linux only to look the base commit up (it
# reads, never writes there); its output, cache and state go to build/b4/.
# --patches DIR reads the series of DIR (a copy of patches/) instead.
set -euo pipefail
. "$(dirname "$0")/common.sh"

OUT=$BUILD/b4
MSGID_DOMAIN=b4-gate.invalid

parse_args() {
	while [ $# -gt 0 ]; do
		case $1 in
		--patches)
			[ $# -ge 2 ] || die "lib/b4.sh: --patches needs a directory with a series file"
			[ -f "$2/series" ] || die "lib/b4.sh: '$2' has no series file"
			PATCHES=$(cd "$2" && pwd)
			shift 2 ;;
		*) die "lib/b4.sh: unknown option '$1' (usage: lib/b4.sh [--patches DIR])" ;;
		esac
	done
}

# series_files: patches/series in order, cover letter included.
series_files() {
	grep -v -e '^#' -e '^[[:space:]]*$' "$PATCHES/series"
}

# as_message I FILE: FILE (git format-patch output) as message I of the
# thread: its "From <sha>" line, a Message-Id (and, for a patch, the cover
# letter as parent), the rest with mboxrd quoting.
as_message() {
	awk -v i="$1" -v dom="$MSGID_DOMAIN" '
		NR == 1 {
			print
			print "Message-Id: <zswap-series-" i "@" dom ">"
			if (i > 0) {
				print "In-Reply-To: <zswap-series-0@" dom ">"
				print "References: <zswap-series-0@" dom ">"
			}
			next
		}
		/^>*From / { print ">" $0; next }
		{ print }
	' "$2"
}

# make_mbox MBOX: the series as one mbox; dies unless patches/series
# starts with the cover letter and every file it names exists.
make_mbox() {
	local i=0 f
	[ -f "$PATCHES/series" ] || die "no patches/series"
	[ "$(series_files | head -n 1)" = 0000-cover-letter.patch ] ||
		die "patches/series does not start with 0000-cover-letter.patch"
	: >"$1"
	for f in $(series_files); do
		[ -f "$PATCHES/$f" ] || die "patches/series names $f, which is not in patches/"
		head -n 1 "$PATCHES/$f" | grep -q '^From [0-9a-f]\{40\} ' ||
			die "patches/$f does not start like git format-patch output (From <sha> ...)"
		as_message "$i" "$PATCHES/$f" >>"$1"
		i=$((i + 1))
	done
}

# run_b4 MBOX DIR LOG: b4 am of MBOX into DIR, offline, its messages in
# LOG; b4's cache, state and config stay under build/b4. b4 asks git for
# user.email and stops, silently and with exit 1, without one: HOME is
# private here (and a fresh build/linux has no identity of its own), so
# the private HOME gets a placeholder identity.
run_b4() {
	local rc=0
	mkdir -p "$OUT/home"
	git config --file "$OUT/home/.gitconfig" user.name "make check (b4 gate)"
	git config --file "$OUT/home/.gitconfig" user.email "b4-gate@localhost"
	(cd "$TREE" && HOME=$OUT/home XDG_CACHE_HOME=$OUT/home/cache \
		XDG_DATA_HOME=$OUT/home/data XDG_CONFIG_HOME=$OUT/home/config \
		b4 --offline-mode am -o "$2" -m - <"$1") >"$3" 2>&1 || rc=$?
	return "$rc"
}

# complaints LOG: what b4 says that a clean series does not make it say.
# The patch list ("  [PATCH 2/9] subject") is left out: a subject may
# well say "failed" or "missing".
complaints() {
	grep -vE '^[[:space:]]*\[PATCH[^]]*\] ' "$1" |
		grep -iE 'warning|error|critical|missing|incomplete|not known|could not|unable|failed' || true
}

# patch_ids FILE...: "patch-id" of each diff in FILEs, in order.
patch_ids() {
	cat "$@" | git patch-id --stable | cut -d' ' -f1
}

# check_b4 LOG DIR N BASE: the checks on b4's output; prints each problem.
check_b4() {
	local log=$1 dir=$2 n=$3 base=$4 total mbx ids want
	complaints "$log" | sed 's/^/b4 complains: /'
	total=$(sed -n 's/^Total patches: //p' "$log")
	[ "$total" = "$n" ] || echo "b4 found ${total:-no} patches; patches/series has $n"
	ls "$dir"/*.cover >/dev/null 2>&1 || echo "b4 found no cover letter"
	grep -q "Base: using specified base-commit $base\$" "$log" ||
		echo "b4 did not take the cover letter's base-commit as $BASE_TAG ($base)"
	mbx=$(find "$dir" -maxdepth 1 -name '*.mbx' | head -n 1)
	if [ -z "$mbx" ]; then
		echo "b4 wrote no am-ready mbox"
		return 0
	fi
	ids=$(patch_ids "$mbx")
	# shellcheck disable=SC2046	# file names without blanks (patches/series)
	want=$(cd "$PATCHES" && patch_ids $(series_patches))
	[ "$(wc -l <<<"$want")" -eq "$n" ] || echo "patches/ has $(wc -l <<<"$want") diffs for $n patches"
	[ "$ids" = "$want" ] || echo "the diffs of b4's am-ready mbox differ from those of patches/"
}

main() {
	local mbox dir log n base rc=0 problems line
	parse_args "$@"
	command -v b4 >/dev/null 2>&1 || die "b4 is not installed (lib/deps.sh check installs it)"
	base=$(git -C "$TREE" rev-parse -q --verify "refs/tags/$BASE_TAG^{commit}") ||
		die "build/linux has no $BASE_TAG: run make tree first"
	rm -rf "$OUT" && mkdir -p "$OUT/am" "$OUT/home"
	mbox=$OUT/series.mbox dir=$OUT/am log=$OUT/b4-am.log
	make_mbox "$mbox"
	n=$(series_patches | wc -l)
	log "b4 am (offline) of patches/ as an mbox: cover letter + $n patches"
	run_b4 "$mbox" "$dir" "$log" || rc=$?
	sed 's/^/  | /' "$log"
	[ "$rc" -eq 0 ] || die "b4 am failed (exit $rc) on the series' mbox ${mbox#"$ROOT"/}"
	problems=$(check_b4 "$log" "$dir" "$n" "$base")
	if [ -n "$problems" ]; then
		while IFS= read -r line; do echo "error: $line"; done <<<"$problems" >&2
		die "b4 does not read ${PATCHES#"$ROOT"/} as a clean series (mbox kept: ${mbox#"$ROOT"/})"
	fi
	log "b4 reads the whole series: cover letter + $n patches, base $BASE_TAG, diffs as in patches/"
}

main "$@"
