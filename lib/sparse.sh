#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A sparse that can parse Linux 7.3: lib/sparse.sh [--suite SUITE]
# Prints the path of the sparse binary, for the kernel's CHECK=.
#
# Debian 12's sparse 0.6.4 stops at __typeof_unqual__, which 7.3's headers
# use everywhere. Debian sid's source package (0.6.5~rc1) knows it: this
# script fetches it with apt-get source through a private deb-src list
# (build/apt/SUITE-src; the system's sources are never touched), unpacks it
# under build/sparse/ and builds the sparse binary there with make (nothing
# is installed). Idempotent: a binary already built there that parses
# __typeof_unqual__ is printed at once. SPARSE_SUITE= does what --suite
# does; the suite must carry a sparse that passes that probe.
set -euo pipefail
. "$(dirname "$0")/common.sh"

SPARSE_DIR=$BUILD/sparse
suite=${SPARSE_SUITE:-sid}

parse_args() {
	while [ $# -gt 0 ]; do
		case $1 in
		--suite)
			[ $# -ge 2 ] || die "lib/sparse.sh: --suite needs a Debian suite (sid, trixie, ...)"
			suite=$2
			shift 2 ;;
		*) die "lib/sparse.sh: unknown option '$1' (usage: lib/sparse.sh [--suite SUITE])" ;;
		esac
	done
	[[ $suite =~ ^[a-z][a-z0-9-]*$ ]] || die "lib/sparse.sh: '$suite' is not a Debian suite name"
}

# built_binary: the sparse binary built under build/sparse, if any.
# (sparse --version says 0.6.4 for 0.6.5~rc1: the directory, named after
# the source package's version, is what tells them apart.)
built_binary() {
	[ -d "$SPARSE_DIR" ] || return 0
	find "$SPARSE_DIR" -mindepth 2 -maxdepth 2 -type f -name sparse -perm -u+x 2>/dev/null |
		sort | tail -n 1
}

# parses_73 BIN: true when BIN reads the C that 7.3's headers need
# (__typeof_unqual__, the reason Debian 12's sparse fails) without a word.
parses_73() {
	local bin=$1 probe out
	probe=$(mktemp --suffix=.c)
	printf '%s\n' 'static const int c;' 'static __typeof_unqual__(c) u;' \
		'int f(void);' 'int f(void) { u = 1; return u + c; }' >"$probe"
	out=$("$bin" "$probe" 2>&1) || true
	rm -f "$probe"
	[ -z "$out" ]
}

# src_list_update: the private deb-src list of the suite, and its lists.
src_list_update() {
	local name=$suite-src dir=$BUILD/apt/$suite-src
	mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial"
	printf 'deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s %s main\n' \
		"$(debian_mirror)" "$suite" >"$dir/sources.list"
	run_logged "$LOGS/apt-$name-update.log" "apt-get update ($suite deb-src, private sources list)" \
		private_apt "$name" apt-get update
}

# fetch_source: apt-get source sparse into a fresh build/sparse; prints the
# unpacked source directory.
fetch_source() {
	local srcdir
	src_list_update
	rm -rf "$SPARSE_DIR" && mkdir -p "$SPARSE_DIR"
	(cd "$SPARSE_DIR" && run_logged "$LOGS/sparse-source.log" "apt-get source sparse ($suite)" \
		private_apt "$suite-src" apt-get source -q sparse) || exit 1
	srcdir=$(find "$SPARSE_DIR" -mindepth 1 -maxdepth 1 -type d -name 'sparse-*' | head -n 1)
	[ -n "$srcdir" ] || die "apt-get source sparse left no sparse-* directory in $SPARSE_DIR"
	echo "$srcdir"
}

# build_source DIR: make the sparse binary (only it: the optional
# programs need GTK, libxml2 or LLVM, which the checker does not), with
# the system's gcc (Debian's packaging patch asks for the gcc-16 of sid).
build_source() {
	run_logged "$LOGS/sparse-build.log" "building sparse in ${1#"$ROOT"/}" \
		make -C "$1" -j"$(jobs)" CC=gcc sparse || exit 1
}

main() {
	local bin src
	parse_args "$@"
	bin=$(built_binary)
	if [ -n "$bin" ] && parses_73 "$bin"; then
		echo "$bin"
		return
	fi
	if ! command -v apt-get >/dev/null 2>&1 || ! command -v dpkg-source >/dev/null 2>&1; then
		die "building sparse needs apt-get and dpkg-source (Debian's dpkg-dev)"
	fi
	log "building sparse from Debian $suite's source package into ${SPARSE_DIR#"$ROOT"/}"
	src=$(fetch_source)
	build_source "$src"
	bin=$src/sparse
	[ -x "$bin" ] || die "the sparse build left no binary at $bin"
	parses_73 "$bin" ||
		die "${src##*/} from $suite cannot parse __typeof_unqual__: pick another suite (--suite)"
	log "${src##*/} built: ${bin#"$ROOT"/}"
	echo "$bin"
}

main "$@"
