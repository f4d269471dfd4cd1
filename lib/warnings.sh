#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The .c files the series touches compile without warnings under W=1, in
# the UML KUnit configuration (build/kunit-um, which must exist: run the
# KUnit gate first). sparse (C=1) runs too when the installed sparse can
# parse this kernel; Debian 12's sparse 0.6.4 cannot (no __typeof_unqual__),
# which is reported, not hidden.
set -euo pipefail
. "$(dirname "$0")/common.sh"

BDIR=$BUILD/kunit-um
[ -f "$BDIR/.config" ] || die "no $BDIR/.config: run the KUnit gate (make kunit) first"

# Kernel objects only: the selftests under tools/ are userspace programs.
objs=$(git -C "$TREE" diff --name-only --diff-filter=AM "$BASE_TAG"..HEAD -- '*.c' ':!tools/' |
	sed 's/\.c$/.o/')
[ -n "$objs" ] || { log "the series touches no .c file"; exit 0; }

check=""
if (cd "$TREE" && sh scripts/checker-valid.sh sparse -D__linux__ | grep -qx 1); then
	check="C=1"
else
	warn "sparse: skipped, the installed sparse cannot parse Linux $BASE_KVER ($(sparse --version 2>/dev/null || echo 'not installed'))"
fi
# An object the KUnit build did not make is one its config leaves out:
# building it alone would test nothing the kernel builds (or fail).
for o in $objs; do
	[ -f "$BDIR/$(dirname "$o")/.$(basename "$o").cmd" ] ||
		die "W=1: $o is not built by the KUnit config; add its option to kunitconfig"
done
log "W=1 $check build of: $(echo $objs)"
# Remove the objects so that they are compiled (and warn) again.
for o in $objs; do rm -f "$BDIR/$o"; done
# shellcheck disable=SC2086
(cd "$TREE" && make -s ARCH=um O="$BDIR" CC="ccache gcc" W=1 $check $objs) \
	>"$LOGS/warnings.log" 2>&1 || { tail -n 40 "$LOGS/warnings.log"; exit 1; }
if grep -E 'warning:|error:' "$LOGS/warnings.log"; then
	echo "the lines above are new warnings in files the series touches" >&2
	exit 1
fi
log "no W=1 warnings in the files the series touches"
