# SPDX-License-Identifier: GPL-2.0
# kbuild out of tree for the gates that build a snapshot of the series and
# pristine 7.3.4 side by side (lib/matrix.sh, lib/sparse-check.sh):
# configuring an O= directory, asking kbuild which objects it builds, and
# the messages of a build with their paths made comparable. Sourced after
# common.sh, never run.
#
# Layout: each side's source is a worktree .../SIDE/linux and its O=
# directories are its siblings .../SIDE/NAME, so that the compiler sees
# ../linux/... on both sides and ccache (CCACHE_BASEDIR=build/) serves one
# side what the other built.

# The KUnit options of the series' two suites, built in (=y).
# shellcheck disable=SC2034	# used by the scripts that source this file
KUNIT_Y=(CONFIG_KUNIT=y CONFIG_ZSWAP_KUNIT_TEST=y CONFIG_BLK_CGROUP_KUNIT_TEST=y)

# want WORD LIST: true when LIST (words, on one line or several) has WORD.
want() {
	local list=" ${2//[$'\n\t']/ } "
	[[ $list == *" $1 "* ]]
}

# guest_config TIPSRC: the selftest guest's configuration inputs, as
# lib/selftests.sh builds it: lib/guest.config and the series' selftest
# fragment from the tip's source TIPSRC (later lines win).
guest_config() {
	cat "$ROOT/lib/guest.config" "$1/tools/testing/selftests/zswap/config"
}

# kb_make SRC ODIR ARCH ARGS...: kbuild of source tree SRC in O=ODIR, with
# ccache (CC and HOSTCC) and under nice -n 10.
kb_make() {
	local src=$1 odir=$2 arch=$3
	shift 3
	nice -n 10 make -C "$src" O="$odir" ARCH="$arch" \
		CC="ccache gcc" HOSTCC="ccache gcc" -j"$(jobs)" "$@"
}

# kb_configure SRC ODIR ARCH TARGET INPUTS: ODIR/.config made by kconfig
# TARGET (olddefconfig reads INPUTS as .config, allnoconfig as
# KCONFIG_ALLCONFIG), again only when INPUTS, TARGET or SRC's commit
# changed. kconfig's output, with KCONFIG_WARN_UNKNOWN_SYMBOLS' warnings,
# goes to ODIR/kconfig.log. Returns non-zero when a step fails (callers
# run it as an if condition, where set -e does not hold).
kb_configure() {
	local src=$1 odir=$2 arch=$3 target=$4 inputs=$5 key
	mkdir -p "$odir" || return 1
	key=$(cat "$inputs"; echo "$target"; git -C "$src" rev-parse HEAD) || return 1
	[ "$key" != "$(cat "$odir/config.key" 2>/dev/null)" ] || [ ! -f "$odir/.config" ] || return 0
	rm -f "$odir/config.key"
	cp "$inputs" "$odir/.config" || return 1
	KCONFIG_ALLCONFIG=$inputs KCONFIG_WARN_UNKNOWN_SYMBOLS=1 \
		kb_make "$src" "$odir" "$arch" "$target" >"$odir/kconfig.log" 2>&1 || return 1
	printf '%s\n' "$key" >"$odir/config.key"
}

# kb_unknown_symbols ODIR: the symbols kconfig did not know (without
# CONFIG_), from the warnings in ODIR/kconfig.log.
kb_unknown_symbols() {
	sed -n 's/.*warning: unknown symbol: //p' "$1/kconfig.log"
}

# kb_query_makefile FILE: the makefile that every make reads through
# MAKEFILES while kb_enabled_objects asks; in a kbuild directory make
# (obj=DIR) the goal DIR/matrix-objs.o prints the objects kbuild builds
# there, and a goal in a subdirectory that is not built there does nothing.
kb_query_makefile() {
	mkdir -p "$(dirname "$1")"
	# shellcheck disable=SC2016	# make's $(...), not the shell's
	printf '%s\n' \
		'# Written by lib/kbuild.sh; read through MAKEFILES. See kb_enabled_objects.' \
		'ifdef obj' \
		'$(obj)/matrix-objs.o: FORCE' \
		"	@echo 'matrix-objs \$(obj): \$(real-obj-y) \$(real-obj-m) \$(lib-y)'" \
		'$(obj)/%/matrix-objs.o: FORCE' \
		'	@:' \
		'endif' >"$1"
}

# kb_enabled_objects SRC ODIR ARCH QUERY_MK OBJ...: the OBJs kbuild builds
# in ODIR's configuration (runs kbuild's prepare first, as any object build
# would; its output in ODIR/query.log). Every directory above an object is
# asked: block/Makefile, not block/tests/Makefile, names
# block/tests/blk_cgroup_kunit.o. Returns non-zero when kbuild fails.
kb_enabled_objects() {
	local src=$1 odir=$2 arch=$3 query=$4 goals built o
	shift 4
	goals=$(printf '%s\n' "$@" | awk -F/ '{
		d = $1; print d "/matrix-objs.o"
		for (i = 2; i < NF; i++) { d = d "/" $i; print d "/matrix-objs.o" }
	}' | sort -u)
	# shellcheck disable=SC2086
	MAKEFILES=$query kb_make "$src" "$odir" "$arch" $goals >"$odir/query.log" 2>&1 || return 1
	built=$(sed -n 's/^matrix-objs [^:]*: //p' "$odir/query.log")
	for o in "$@"; do
		want "$o" "$built" && echo "$o"
	done
	return 0
}

# kb_diagnostics LOG: the warning and error lines of a build log (gcc's
# and sparse's; sparse's errors do not stop the build).
kb_diagnostics() {
	grep -sE '(warning|error):' "$1" || true
}

# kb_relative SRC ODIR: messages (stdin) with their paths relative to the
# source tree SRC (gcc names ../linux/... from ODIR, sparse may give the
# absolute path).
kb_relative() {
	local rel
	rel=$(realpath -m --relative-to="$2" "$1")
	sed -e "s#$1/##g" -e "s#$rel/##g"
}
