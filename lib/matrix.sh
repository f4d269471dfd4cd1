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
# makefile that make_query writes, through MAKEFILES, and a goal
# DIR/matrix-objs.o prints the objects of DIR). They are compiled with
# W=1 and C=1 (sparse from lib/sparse.sh), and a warning (or sparse
# error) counts only when the same build of pristine 7.3.4 does not give
# it (line numbers left out of the comparison). modpost needs the export
# table of vmlinux.o, so the kunit-m row builds vmlinux.o and the modules
# (the only whole build; pristine 7.3.4 repeats it only to judge modpost
# warnings, see modpost()).
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

MATRIX=$BUILD/matrix
ALL_ROWS="guest kunit-m memcg-n zswap-n swap-n blkcg-n iocost-n um i386"
KUNIT_Y=(CONFIG_KUNIT=y CONFIG_ZSWAP_KUNIT_TEST=y CONFIG_BLK_CGROUP_KUNIT_TEST=y)
QUERY_MK=$MATRIX/kbuild-objs.mk
rev=$SERIES_BRANCH rows=$ALL_ROWS

usage() {
	die "usage: lib/matrix.sh [--commit REV] [--rows '$ALL_ROWS']"
}

# want WORD LIST: true when LIST (words, on one line or several) has WORD.
want() {
	local list=" ${2//[$'\n\t']/ } "
	[[ $list == *" $1 "* ]]
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

# commit_of REV: REV's commit id in build/linux, or a clear error.
commit_of() {
	git -C "$TREE" rev-parse -q --verify "$1^{commit}" ||
		die "'$1' is not a commit of build/linux (run make tree first?)"
}

# snapshot SIDE ID: build/matrix/SIDE/linux, a detached worktree of
# build/linux at commit ID (build/linux's own working tree is not
# touched); a later commit is checked out there, which rewrites (and
# dates) only the files that differ. Prints the path.
snapshot() {
	local dir=$MATRIX/$1/linux id=$2
	if [ ! -e "$dir/.git" ]; then
		log "matrix: worktree ${dir#"$ROOT"/} at ${id:0:12} (about a minute)"
		mkdir -p "${dir%/*}"
		git -C "$TREE" worktree prune
		run_logged "$LOGS/matrix-worktree-$1.log" "git worktree add ${dir#"$ROOT"/}" \
			git -C "$TREE" worktree add -q --detach "$dir" "$id" || exit 1
	elif [ "$(git -C "$dir" rev-parse HEAD)" != "$id" ]; then
		run_logged "$LOGS/matrix-worktree-$1.log" "checkout of ${id:0:12} in ${dir#"$ROOT"/}" \
			git -C "$dir" checkout -q -f --detach "$id" || exit 1
	fi
	echo "$dir"
}

# touched_objects ID: the objects of the kernel .c files the series adds
# or changes at ID (tools/ holds userspace programs, not kbuild objects).
touched_objects() {
	git -C "$TREE" diff --no-renames --name-only --diff-filter=AM "$BASE_TAG" "$1" -- \
		'*.c' ':!tools/' | sed 's/\.c$/.o/'
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
	*) cat "$ROOT/lib/guest.config" "$tip/tools/testing/selftests/zswap/config" || return 1 ;;
	esac
	case $row in
	guest|kunit-m|um) ;;
	*) printf '%s\n' "${KUNIT_Y[@]}" ;;
	esac
	row_options "$row"
}

# unknown_symbols LOG: the symbols olddefconfig did not know (without
# CONFIG_), from KCONFIG_WARN_UNKNOWN_SYMBOLS' warnings in LOG.
unknown_symbols() {
	sed -n 's/.*warning: unknown symbol: //p' "$1"
}

# check_options ROW ODIR: every option ROW is named after is in ODIR's
# .config (=n: not set), unless the tree does not define it; prints the
# ones that are not.
check_options() {
	local line sym val unknown
	unknown=$(unknown_symbols "$2/kconfig.log")
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
	nice -n 10 make -C "$MATRIX/$side/linux" O="$MATRIX/$side/$row" ARCH="$(row_arch "$row")" \
		CC="ccache gcc" HOSTCC="ccache gcc" -j"$(jobs)" "$@"
}

# configure SIDE ROW TIPSRC: ROW's .config on SIDE, made again only when
# its inputs or the commit changed. Fails (the reason in the row's
# check.log) when kconfig does, or with the options that did not survive.
# Runs as an if condition, where set -e does not hold: every step checks.
configure() {
	local side=$1 row=$2 tip=$3 odir=$MATRIX/$1/$2 target key lost
	target=$(row_kconfig "$row")
	mkdir -p "$odir"
	row_inputs "$row" "$tip" >"$odir/config.inputs" || {
		echo "error: $row: cannot read its configuration inputs" | tee "$odir/check.log" >&2
		return 1
	}
	key=$(cat "$odir/config.inputs"; echo "$target"; git -C "$MATRIX/$side/linux" rev-parse HEAD)
	if [ "$key" != "$(cat "$odir/config.key" 2>/dev/null)" ] || [ ! -f "$odir/.config" ]; then
		rm -f "$odir/config.key"
		cp "$odir/config.inputs" "$odir/.config" || return 1
		KCONFIG_ALLCONFIG=$odir/config.inputs KCONFIG_WARN_UNKNOWN_SYMBOLS=1 \
			kmake "$side" "$row" "$target" >"$odir/kconfig.log" 2>&1 || {
			cp "$odir/kconfig.log" "$odir/check.log"
			warn "make $target failed for $row ($side): see ${odir#"$ROOT"/}/check.log"
			return 1
		}
		printf '%s\n' "$key" >"$odir/config.key" || return 1
	fi
	lost=$(check_options "$row" "$odir")
	[ -z "$lost" ] || {
		echo "error: $row ($side): did not survive $target: ${lost//$'\n'/ }" |
			tee "$odir/check.log" >&2
		return 1
	}
}

# --- what kbuild builds ------------------------------------------------

# make_query: the makefile that every make reads through MAKEFILES while
# enabled_objects asks; in a kbuild directory make (obj=DIR) the goal
# DIR/matrix-objs.o prints the objects kbuild builds there, and a goal in
# a subdirectory that is not built there does nothing.
make_query() {
	mkdir -p "$MATRIX"
	# shellcheck disable=SC2016	# make's $(...), not the shell's
	printf '%s\n' \
		'# Written by lib/matrix.sh; read through MAKEFILES. See enabled_objects.' \
		'ifdef obj' \
		'$(obj)/matrix-objs.o: FORCE' \
		"	@echo 'matrix-objs \$(obj): \$(real-obj-y) \$(real-obj-m) \$(lib-y)'" \
		'$(obj)/%/matrix-objs.o: FORCE' \
		'	@:' \
		'endif' >"$QUERY_MK"
}

# enabled_objects SIDE ROW OBJ...: the OBJs kbuild builds in ROW on SIDE
# (runs kbuild's prepare first, as any object build would). Every
# directory above an object is asked: block/Makefile, not
# block/tests/Makefile, names block/tests/blk_cgroup_kunit.o.
enabled_objects() {
	local side=$1 row=$2 odir=$MATRIX/$1/$2 goals built o
	shift 2
	goals=$(printf '%s\n' "$@" | awk -F/ '{
		d = $1; print d "/matrix-objs.o"
		for (i = 2; i < NF; i++) { d = d "/" $i; print d "/matrix-objs.o" }
	}' | sort -u)
	# shellcheck disable=SC2086
	MAKEFILES=$QUERY_MK kmake "$side" "$row" $goals >"$odir/query.log" 2>&1 || {
		cp "$odir/query.log" "$odir/check.log"
		warn "kbuild could not prepare $row ($side): see ${odir#"$ROOT"/}/check.log"
		return 1
	}
	built=$(sed -n 's/^matrix-objs [^:]*: //p' "$odir/query.log")
	for o in "$@"; do
		want "$o" "$built" && echo "$o"
	done
	return 0
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
# compiler and sparse log (sparse's errors do not stop the build) and
# modpost's warnings (its errors do: they show as a failure).
raw_warnings() {
	local odir=$MATRIX/$1/$2
	grep -sE '(warning|error):' "$odir/check.log" || true
	grep -sE '^WARNING: modpost:' "$odir/modpost.log" || true
}

# side_warnings SIDE ROW: raw_warnings with paths relative to the source
# tree (gcc names ../linux/..., sparse the absolute path).
side_warnings() {
	raw_warnings "$1" "$2" | sed -e "s#$MATRIX/$1/linux/##g" -e 's#\.\./linux/##g'
}

# unplaced: warnings (stdin) comparable between trees: no line, column
# or code offset.
unplaced() {
	sed -E -e 's#^([^: ]+):[0-9]+(:[0-9]+)?:#\1:#' -e 's#\+0x[0-9a-f]+#+0x#g'
}

# new_warnings ROW: the tip's warnings that the base does not give (as
# many times as the tip gives them more often), with their lines.
new_warnings() {
	local row=$1
	awk -v tipfile=<(side_warnings tip "$row") '
		FILENAME == ARGV[1] { base[$0]++; next }
		{ getline raw <tipfile; if (base[$0]-- <= 0) print raw }
	' <(side_warnings base "$row" | unplaced) <(side_warnings tip "$row" | unplaced)
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
		if [ -n "$w" ]; then
			printf '\n%s: new warnings\n' "$row"
			sed 's/^/  /' <<<"$w"
		fi
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

# lock: one matrix at a time (two would build in the same directories).
lock() {
	mkdir -p "$MATRIX"
	exec 9>"$MATRIX/lock"
	flock -n 9 || die "another lib/matrix.sh is running (it holds ${MATRIX#"$ROOT"/}/lock)"
}

main() {
	local id tip sparse objs row t0 rc=0
	parse_args "$@"
	t0=$(date +%s)
	"$ROOT/lib/deps.sh" build
	git -C "$TREE" rev-parse -q --verify "refs/tags/$BASE_TAG" >/dev/null ||
		die "build/linux has no $BASE_TAG: run make tree first"
	id=$(commit_of "$rev")
	objs=$(touched_objects "$id")
	[ -n "$objs" ] || { log "matrix: the series touches no kernel .c file at $rev"; return 0; }
	check_space
	lock
	sparse=$("$ROOT/lib/sparse.sh")
	tip=$(snapshot tip "$id")
	snapshot base "$(commit_of "$BASE_TAG")" >/dev/null
	make_query
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
