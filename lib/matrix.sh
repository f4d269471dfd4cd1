#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The build matrix (make matrix): lib/matrix.sh [--commit REV] [--rows 'ROW ...']
#
# Builds the series at REV (default: branch `series` of build/linux) and
# pristine 7.3.4 (v7.3.4-base) with the same configuration, one row per
# configuration:
#   guest     the selftest guest: lib/guest.config + the series'
#             tools/testing/selftests/zswap/config (as lib/selftests.sh)
#   kunit-m   x86_64 allnoconfig + MODULES=y + the project's kunitconfig
#             with KUNIT, ZSWAP_KUNIT_TEST and BLK_CGROUP_KUNIT_TEST =m;
#             also vmlinux.o and the modules, so that modpost checks every
#             symbol the modules use. modpost needs all of vmlinux.o: on
#             the guest config that is a whole kernel (about 7 min cold per
#             side here); allnoconfig keeps only what the suites need.
#   memcg-n, zswap-n, swap-n, blkcg-n, iocost-n
#             guest + KUNIT=y and both test options =y (where their
#             dependencies allow) + MEMCG, ZSWAP, SWAP, BLK_CGROUP or
#             BLK_CGROUP_IOCOST =n
#   um        ARCH=um with the project's kunitconfig (what kunit.py builds)
#   i386      ARCH=i386 (32-bit) with the options of the =n rows
# The options a row is named after must survive olddefconfig (allnoconfig
# for kunit-m), or the row fails (options that the pristine tree does not
# define are let go there).
#
# Each row compiles only the objects of the .c files the series touches
# (kernel files, not tools/) that kbuild builds in that configuration: the
# others are "n.a.". kbuild itself says which (every make reads the small
# makefile that kb_query_makefile of lib/kbuild.sh writes, through
# MAKEFILES, and a goal DIR/matrix-objs.o prints the objects of DIR).
# They are compiled with W=1 and C=1 (sparse from lib/sparse.sh), and a
# warning (or sparse error) counts only when the same build of pristine
# 7.3.4 does not give it (line numbers left out of the comparison).
# modpost needs the export table of vmlinux.o, so the kunit-m row builds
# vmlinux.o and the modules (the only whole build; pristine 7.3.4 repeats
# it only to judge modpost warnings, see modpost()).
#
# Builds: ccache (CC and HOSTCC "ccache gcc"), under nice -n 10, each row
# in its own O= directory: build/matrix/tip/ROW and build/matrix/base/ROW
# next to their sources build/matrix/tip/linux and build/matrix/base/linux
# (detached worktrees of build/linux, the tip's checked out at REV), so
# that both see ../linux and ccache serves the base what the tip built
# (the host tools; objects only where both .configs are the same).
#
# Prints a table (config x file: ok / FAIL / n.a., modpost, new
# warnings, wall and CPU time of both sides) and the new warnings; exits
# non-zero on any failure or new warning. --rows runs only some rows.
set -euo pipefail
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/compare.sh"
. "$(dirname "$0")/kbuild.sh"

MATRIX=$BUILD/matrix
ALL_ROWS="guest kunit-m memcg-n zswap-n swap-n blkcg-n iocost-n um i386"
QUERY_MK=$MATRIX/kbuild-objs.mk
rev=$SERIES_BRANCH rows=$ALL_ROWS

usage() {
	die "usage: lib/matrix.sh [--commit REV] [--rows '$ALL_ROWS']"
}

parse_args() {
	local r
	while [ $# -gt 0 ]; do
		case $1 in
		--commit|--rows)
			[ $# -ge 2 ] || die "lib/matrix.sh: $1 needs a value"
			if [ "$1" = --commit ]; then rev=$2; else rows=$2; fi
			shift 2 ;;
		-h|--help) usage ;;
		*) die "lib/matrix.sh: unknown option '$1' (usage: lib/matrix.sh [--commit REV] [--rows 'ROW ...'])" ;;
		esac
	done
	for r in $rows; do
		want "$r" "$ALL_ROWS" || die "lib/matrix.sh: no row '$r' (rows: $ALL_ROWS)"
	done
	[ -n "${rows// /}" ] || die "lib/matrix.sh: --rows names no row"
}

# --- sources -----------------------------------------------------------

# snapshot SIDE ID: build/matrix/SIDE/linux, a detached worktree of
# build/linux at commit ID (see snapshot_worktree). Prints the path.
snapshot() {
	snapshot_worktree "$MATRIX/$1/linux" "$2" "$LOGS/matrix-worktree-$1.log"
}

# --- configurations ----------------------------------------------------

row_arch() {
	case $1 in
	um) echo um ;;
	i386) echo i386 ;;
	*) echo x86_64 ;;
	esac
}

# row_options ROW: the options ROW is named after; they must survive
# olddefconfig.
row_options() {
	case $1 in
	guest) ;;
	kunit-m) echo CONFIG_MODULES=y
		sed -nE 's/^(CONFIG_(KUNIT|[A-Z0-9_]+_KUNIT_TEST))=y$/\1=m/; /^CONFIG_/p' \
			"$ROOT/kunitconfig" ;;
	memcg-n) echo CONFIG_MEMCG=n ;;
	zswap-n) echo CONFIG_ZSWAP=n ;;
	swap-n) echo CONFIG_SWAP=n ;;
	blkcg-n) echo CONFIG_BLK_CGROUP=n ;;
	iocost-n) echo CONFIG_BLK_CGROUP_IOCOST=n ;;
	um) grep '^CONFIG_' "$ROOT/kunitconfig" ;;
	i386) echo CONFIG_64BIT=n ;;
	esac
}

# row_kconfig ROW: the kconfig target that completes ROW's inputs.
row_kconfig() {
	case $1 in
	kunit-m) echo allnoconfig ;;
	*) echo olddefconfig ;;
	esac
}

# row_inputs ROW TIPSRC: what row_kconfig completes (olddefconfig reads it
# as .config, allnoconfig as KCONFIG_ALLCONFIG), the same for both sides
# (the selftests' fragment and UML's KUnit options come from the
# series): a base, then the row's options (later lines win).
row_inputs() {
	local row=$1 tip=$2
	case $row in
	kunit-m) ;;
	um) cat "$tip/tools/testing/kunit/configs/arch_uml.config" || return 1 ;;
	*) guest_config "$tip" || return 1 ;;
	esac
	case $row in
	guest|kunit-m|um) ;;
	*) printf '%s\n' "${KUNIT_Y[@]}" ;;
	esac
	row_options "$row"
}

# check_options ROW ODIR: every option ROW is named after is in ODIR's
# .config (=n: not set), unless the tree does not define it; prints the
# ones that are not.
check_options() {
	local line sym val unknown
	unknown=$(kb_unknown_symbols "$2")
	while IFS= read -r line; do
		sym=${line%%=*} val=${line#*=}
		want "${sym#CONFIG_}" "$unknown" && continue
		if [ "$val" = n ]; then
			grep -qE "^$sym=" "$2/.config" && echo "$line"
		else
			grep -qxF "$line" "$2/.config" || echo "$line"
		fi
	done < <(row_options "$1")
	return 0
}

# kmake SIDE ROW ARGS...: kbuild in SIDE's tree and ROW's O= directory.
kmake() {
	local side=$1 row=$2
	shift 2
	kb_make "$MATRIX/$side/linux" "$MATRIX/$side/$row" "$(row_arch "$row")" "$@"
}

# configure SIDE ROW TIPSRC: ROW's .config on SIDE (kb_configure). Fails
# (the reason in the row's check.log) when kconfig does, or with the
# options that did not survive. Runs as an if condition, where set -e
# does not hold: every step checks.
configure() {
	local side=$1 row=$2 tip=$3 odir=$MATRIX/$1/$2 target lost
	target=$(row_kconfig "$row")
	mkdir -p "$odir"
	row_inputs "$row" "$tip" >"$odir/config.inputs" || {
		echo "error: $row: cannot read its configuration inputs" | tee "$odir/check.log" >&2
		return 1
	}
	kb_configure "$MATRIX/$side/linux" "$odir" "$(row_arch "$row")" "$target" \
		"$odir/config.inputs" || {
		cp "$odir/kconfig.log" "$odir/check.log"
		warn "make $target failed for $row ($side): see ${odir#"$ROOT"/}/check.log"
		return 1
	}
	lost=$(check_options "$row" "$odir")
	[ -z "$lost" ] || {
		echo "error: $row ($side): did not survive $target: ${lost//$'\n'/ }" |
			tee "$odir/check.log" >&2
		return 1
	}
}

# --- what kbuild builds ------------------------------------------------

# enabled_objects SIDE ROW OBJ...: the OBJs kbuild builds in ROW on SIDE
# (kb_enabled_objects, through build/matrix/kbuild-objs.mk).
enabled_objects() {
	local side=$1 row=$2 odir=$MATRIX/$1/$2
	shift 2
	kb_enabled_objects "$MATRIX/$side/linux" "$odir" "$(row_arch "$row")" "$QUERY_MK" "$@" || {
		cp "$odir/query.log" "$odir/check.log"
		warn "kbuild could not prepare $row ($side): see ${odir#"$ROOT"/}/check.log"
		return 1
	}
}

# --- building and warnings ---------------------------------------------

# compile_objects SIDE ROW SPARSE OBJ...: compile OBJs afresh with W=1
# and sparse, with -k; prints "OBJ ok|FAIL" for each. Output in check.log.
compile_objects() {
	local side=$1 row=$2 sparse=$3 odir=$MATRIX/$1/$2 o
	shift 3
	for o in "$@"; do rm -f "$odir/$o"; done
	kmake "$side" "$row" -k W=1 C=1 CHECK="$sparse" "$@" >"$odir/check.log" 2>&1 || true
	for o in "$@"; do
		if [ -f "$odir/$o" ]; then echo "$o ok"; else echo "$o FAIL"; fi
	done
}

# modpost SIDE ROW: vmlinux.o and the modules, so that modpost checks the
# modules' symbols against vmlinux's exports (without vmlinux.o it cannot:
# every symbol is then unresolved). vmlinux_o, not vmlinux.o: a goal
# ending in .o would make kbuild take the run for a single-object build.
# Output in modpost.log. The base runs it only when the tip's modpost
# warned, to tell old warnings from new: pristine 7.3.4 has no test
# modules, and its .config lacks their options, so ccache cannot give it
# the tip's objects: it would be a second whole build.
modpost() {
	local odir=$MATRIX/$1/$2
	kmake "$1" "$2" vmlinux_o modules >"$odir/modpost.log" 2>&1
}

# raw_warnings SIDE ROW: the warning and error lines of the row's
# compiler and sparse log and modpost's warnings (its errors stop the
# build: they show as a failure).
raw_warnings() {
	local odir=$MATRIX/$1/$2
	kb_diagnostics "$odir/check.log"
	grep -sE '^WARNING: modpost:' "$odir/modpost.log" || true
}

# side_warnings SIDE ROW: raw_warnings with paths relative to the source
# tree, also written to build/matrix/SIDE/ROW/warnings.
side_warnings() {
	raw_warnings "$1" "$2" | kb_relative "$MATRIX/$1/linux" "$MATRIX/$1/$2" |
		tee "$MATRIX/$1/$2/warnings"
}

# new_warnings ROW: the tip's warnings that the base does not give (as
# many times as the tip gives them more often), with their lines.
new_warnings() {
	side_warnings base "$1" >/dev/null
	side_warnings tip "$1" >/dev/null
	new_lines "$MATRIX/base/$1/warnings" "$MATRIX/tip/$1/warnings"
}

# --- one row -----------------------------------------------------------

# build_side SIDE ROW TIPSRC SPARSE OBJ...: configure, ask kbuild which
# OBJs it builds, compile them (and run modpost for kunit-m); writes
# status lines "OBJ ok|FAIL|n.a." and "modpost ok|FAIL|n.a." to
# build/matrix/SIDE/ROW/status.
build_side() {
	local side=$1 row=$2 tip=$3 sparse=$4 odir=$MATRIX/$1/$2 enabled o
	shift 4
	rm -f "$odir/check.log" "$odir/modpost.log" "$odir/status"
	mkdir -p "$odir"
	if ! configure "$side" "$row" "$tip" || ! enabled=$(enabled_objects "$side" "$row" "$@"); then
		for o in "$@" modpost; do echo "$o FAIL"; done >"$odir/status"
		return
	fi
	{
		for o in "$@"; do want "$o" "$enabled" || echo "$o n.a."; done
		# shellcheck disable=SC2086
		[ -z "$enabled" ] || compile_objects "$side" "$row" "$sparse" $enabled
	} >"$odir/status"
	if [ "$row" != kunit-m ]; then
		echo "modpost n.a." >>"$odir/status"
	elif grep -q ' FAIL$' "$odir/status"; then
		echo "modpost FAIL" >>"$odir/status"	# not run: an object does not build
	elif [ "$side" = base ] && ! grep -qs '^WARNING: modpost:' "$MATRIX/tip/$row/modpost.log"; then
		echo "modpost skipped" >>"$odir/status"	# see modpost()
	elif modpost "$side" "$row"; then
		echo "modpost ok" >>"$odir/status"
	else
		echo "modpost FAIL" >>"$odir/status"
	fi
}

# cpu_now: CPU_NOW, the CPU seconds (user + system) of the commands this
# script ran and waited for, from the shell's times. Not a function that
# prints: in a command substitution, times would count the children of
# that subshell only.
cpu_now() {
	times >"$MATRIX/times"
	CPU_NOW=$(awk 'NR == 2 {
		for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); sum += t[1] * 60 + t[2] }
		printf "%d\n", sum
	}' "$MATRIX/times")
}

# run_row ROW TIPSRC SPARSE OBJ...: both sides of ROW; writes its wall
# and CPU seconds to build/matrix/tip/ROW/time.
run_row() {
	local row=$1 tip=$2 sparse=$3 t0 c0
	shift 3
	t0=$(date +%s)
	cpu_now
	c0=$CPU_NOW
	log "matrix: $row"
	build_side tip "$row" "$tip" "$sparse" "$@"
	build_side base "$row" "$tip" "$sparse" "$@"
	cpu_now
	echo $(($(date +%s) - t0)) $((CPU_NOW - c0)) >"$MATRIX/tip/$row/time"
}

# --- the table ---------------------------------------------------------

mmss() { printf '%d:%02d' $(($1 / 60)) $(($1 % 60)); }

# status_of SIDE ROW WHAT: ok, FAIL or n.a. for an object or modpost.
status_of() {
	awk -v w="$3" '$1 == w { print $2 }' "$MATRIX/$1/$2/status"
}

# print_table OBJ...: one line per row; returns 1 when anything failed or
# warned anew.
print_table() {
	local row o s n line wall cpu bad=0
	line=$(printf '%-9s' config)
	for o in "$@" modpost; do line+=$(printf '  %-*s' "$(col_width "$o")" "$(col_name "$o")"); done
	printf '%s  %5s  %6s  %6s\n' "$line" "new W" time cpu
	for row in $rows; do
		line=$(printf '%-9s' "$row")
		for o in "$@" modpost; do
			s=$(status_of tip "$row" "$o")
			[ "$s" != FAIL ] || bad=1
			line+=$(printf '  %-*s' "$(col_width "$o")" "$s")
		done
		n=$(new_warnings "$row" | wc -l)
		[ "$n" -eq 0 ] || bad=1
		read -r wall cpu <"$MATRIX/tip/$row/time"
		printf '%s  %5d  %6s  %6s\n' "$line" "$n" "$(mmss "$wall")" "$(mmss "$cpu")"
	done
	return "$bad"
}

col_name() {
	case $1 in
	modpost) echo modpost ;;
	*) basename "${1%.o}.c" ;;
	esac
}

col_width() {
	local w
	w=$(col_name "$1" | wc -c)
	echo $((w > 5 ? w - 1 : 4))
}

# print_details OBJ...: what the table sums up: each row's new warnings,
# and for each failure whether pristine 7.3.4 fails too, its log and the
# log's first errors.
print_details() {
	local row o w log
	for row in $rows; do
		w=$(new_warnings "$row")
		section $'\n'"$row: new warnings" "$w"
		for o in "$@" modpost; do
			[ "$(status_of tip "$row" "$o")" = FAIL ] || continue
			log=$MATRIX/tip/$row/check.log
			[ "$o" != modpost ] || log=$MATRIX/tip/$row/modpost.log
			printf '\n%s: %s FAILS (pristine 7.3.4: %s); log: %s\n' "$row" "$(col_name "$o")" \
				"$(status_of base "$row" "$o")" "${log#"$ROOT"/}"
			grep -sE -m 5 'error:|ERROR:|Error [0-9]' "$log" | sed 's/^/  /' || true
		done
	done
}

# check_space: a cold matrix writes two worktrees (1.5 GiB each) and the
# kunit-m row's two builds up to vmlinux.o (about 1.5 GiB each); the other
# rows hold kbuild's prepared headers and tools and a few objects.
check_space() {
	local need=1024
	[ -f "$MATRIX/base/kunit-m/vmlinux.o" ] || need=8192
	need_space "$BUILD" "$need" "make matrix" || exit 1
}

main() {
	local id tip sparse objs row t0 rc=0
	parse_args "$@"
	t0=$(date +%s)
	"$ROOT/lib/deps.sh" build
	id=$(tree_commit "$rev")
	objs=$(touched_objects "$id")
	[ -n "$objs" ] || { log "matrix: the series touches no kernel .c file at $rev"; return 0; }
	check_space
	exclusive "$MATRIX" lib/matrix.sh
	sparse=$("$ROOT/lib/sparse.sh")
	tip=$(snapshot tip "$id")
	snapshot base "$(tree_commit "$BASE_TAG")" >/dev/null
	kb_query_makefile "$QUERY_MK"
	log "matrix at ${id:0:12} ($rev) against $BASE_TAG; objects: ${objs//$'\n'/ }"
	for row in $rows; do
		# shellcheck disable=SC2086
		run_row "$row" "$tip" "$sparse" $objs
	done
	printf '\nbuild matrix: %s (%s) against pristine %s (W=1, C=1 with %s)\n' \
		"${id:0:12}" "$rev" "$BASE_KVER" "${sparse#"$ROOT"/}"
	# shellcheck disable=SC2086
	print_table $objs || rc=1
	# shellcheck disable=SC2086
	print_details $objs
	cpu_now
	printf '\nmatrix total: %s wall, %s CPU (rows: %s; load average now %s)\n' \
		"$(mmss $(($(date +%s) - t0)))" "$(mmss "$CPU_NOW")" "$rows" \
		"$(cut -d' ' -f1-3 /proc/loadavg)"
	return "$rc"
}

main "$@"
