#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# sparse gate: lib/sparse-check.sh [--commit REV]
# sparse (C=2, the 0.6.5~rc1 that lib/sparse.sh builds) on the objects of
# the kernel .c files the series adds or changes (v7.3.4-base..REV, REV =
# branch `series` by default; tools/ excluded), at REV and at pristine
# 7.3.4 with the same configuration: the selftest guest's (lib/guest.config
# + the series' selftest fragment, as lib/selftests.sh) with both KUnit
# suites built in, x86_64. An object that kbuild does not build in that
# configuration is named and not checked.
#
# Fails on any sparse error or warning at REV that the base does not give
# (messages compared without line numbers, as many times as REV gives them
# more often); those the base gives too are printed as pre-existing (for
# one, sparse's "too long token expansion" in include/trace/events/vmscan.h,
# which every build of mm/vmscan.o meets).
#
# Sources: detached worktrees of build/linux under build/sparse-check/
# (tip/linux at REV, base/linux at v7.3.4-base), so build/linux's working
# tree is never read or written while someone edits it; O= directories
# tip/x86_64 and base/x86_64 beside them, built with ccache (lib/kbuild.sh).
# The objects are compiled first (gcc's messages are the W=1 gate's), then
# sparse alone runs on them (C=2 checks objects that are up to date), so
# its log holds sparse's messages only.
set -euo pipefail
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/compare.sh"
. "$(dirname "$0")/kbuild.sh"

SC=$BUILD/sparse-check
ARCH_SC=x86_64
rev=$SERIES_BRANCH

# check_space: a cold run writes two worktrees (1.5 GiB each) and two
# prepared O= directories with a few objects.
check_space() {
	local need=512
	[ -e "$SC/base/linux/.git" ] || need=4096
	need_space "$BUILD" "$need" "the sparse gate" || exit 1
}

# config_inputs TIPSRC: the configuration, the same for both sides.
config_inputs() {
	guest_config "$1"
	printf '%s\n' "${KUNIT_Y[@]}"
}

# prepare_side SIDE: SIDE's .config and the touched objects kbuild builds
# there (printed); dies with kbuild's last lines when it cannot.
prepare_side() {
	local side=$1 odir=$SC/$1/$ARCH_SC
	shift
	kb_configure "$SC/$side/linux" "$odir" "$ARCH_SC" olddefconfig "$SC/config.inputs" || {
		tail -n 20 "$odir/kconfig.log" >&2
		die "sparse gate: make olddefconfig failed at $side (${odir#"$ROOT"/}/kconfig.log)"
	}
	kb_enabled_objects "$SC/$side/linux" "$odir" "$ARCH_SC" "$SC/kbuild-objs.mk" "$@" || {
		tail -n 20 "$odir/query.log" >&2
		die "sparse gate: kbuild could not prepare $side (${odir#"$ROOT"/}/query.log)"
	}
}

# sparse_side SIDE SPARSE OBJ...: compile OBJs on SIDE, then sparse alone
# on them; writes SIDE's sparse messages, paths relative to its source,
# to build/sparse-check/SIDE/sparse.msgs. Dies when the compile fails.
sparse_side() {
	local side=$1 sparse=$2 src=$SC/$1/linux odir=$SC/$1/$ARCH_SC rc=0
	shift 2
	run_logged "$odir/compile.log" "compiling the touched objects at $side" \
		kb_make "$src" "$odir" "$ARCH_SC" "$@" || die "sparse gate: the objects do not build at $side"
	kb_make "$src" "$odir" "$ARCH_SC" -k C=2 CHECK="$sparse" "$@" >"$odir/sparse.log" 2>&1 || rc=$?
	kb_diagnostics "$odir/sparse.log" | kb_relative "$src" "$odir" >"$SC/$side/sparse.msgs"
	if [ "$rc" -ne 0 ] && ! grep -q 'error:' "$SC/$side/sparse.msgs"; then
		tail -n 20 "$odir/sparse.log" >&2
		die "sparse gate: sparse did not run at $side (exit $rc; ${odir#"$ROOT"/}/sparse.log)"
	fi
	return 0
}

# report OBJS: the verdict on the tip's messages against the base's;
# returns 1 on an error or a new warning.
report() {
	local tip=$SC/tip/sparse.msgs base=$SC/base/sparse.msgs errors new old old_errors
	errors=$(new_lines "$base" "$tip" | grep -E '(^|: )error:' || true)
	old_errors=$(old_lines "$base" "$tip" | grep -E '(^|: )error:' || true)
	new=$(new_lines "$base" "$tip" | grep -vE '(^|: )error:' || true)
	old=$(old_lines "$base" "$tip" | grep -vE '(^|: )error:' || true)
	section "sparse: pre-existing errors (pristine $BASE_KVER gives them too):" "$old_errors"
	section "sparse: pre-existing warnings (pristine $BASE_KVER gives them too):" "$old"
	section "sparse: NEW ERRORS at the tip:" "$errors"
	section "sparse: NEW warnings (not given by pristine $BASE_KVER):" "$new"
	if [ -n "$errors$new" ]; then
		echo "sparse gate: $(count_lines "$errors") new error(s), $(count_lines "$new") new warning(s) in $1;" \
			"sparse's whole output: ${SC#"$ROOT"/}/tip/$ARCH_SC/sparse.log" >&2
		return 1
	fi
	log "sparse: no new errors or warnings in $1 ($(count_lines "$old_errors") error(s) and $(count_lines "$old") warning(s) pre-existing)"
}

main() {
	local id base objs sparse tip enabled base_enabled o skipped
	parse_commit_option lib/sparse-check.sh "$@"
	id=$(tree_commit "$rev")
	base=$(tree_commit "$BASE_TAG")
	objs=$(touched_objects "$id")
	[ -n "$objs" ] || { log "sparse: the series touches no kernel .c file at $rev"; return 0; }
	check_space
	exclusive "$SC" lib/sparse-check.sh
	sparse=$("$ROOT/lib/sparse.sh")
	tip=$(snapshot_worktree "$SC/tip/linux" "$id" "$LOGS/sparse-check-worktree-tip.log")
	snapshot_worktree "$SC/base/linux" "$base" "$LOGS/sparse-check-worktree-base.log" >/dev/null
	kb_query_makefile "$SC/kbuild-objs.mk"
	config_inputs "$tip" >"$SC/config.inputs" || die "sparse gate: cannot read the configuration inputs"
	# shellcheck disable=SC2086
	enabled=$(prepare_side tip $objs)
	# shellcheck disable=SC2086
	base_enabled=$(prepare_side base $objs)
	skipped=$(for o in $objs; do want "$o" "$enabled" || echo "$o"; done)
	[ -n "$enabled" ] || die "sparse gate: kbuild builds none of ${objs//$'\n'/ } in this configuration"
	[ -z "$skipped" ] || warn "not built in the gate's configuration, not checked: ${skipped//$'\n'/ }"
	log "sparse (C=2, ${sparse#"$ROOT"/}) at ${id:0:12} ($rev) and $BASE_TAG: ${enabled//$'\n'/ }"
	# shellcheck disable=SC2086
	sparse_side tip "$sparse" $enabled
	if [ -n "$base_enabled" ]; then
		# shellcheck disable=SC2086
		sparse_side base "$sparse" $base_enabled
	else
		: >"$SC/base/sparse.msgs"
	fi
	report "${enabled//$'\n'/ }"
}

main "$@"
