#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Everything CI runs (make check): each gate in turn, with its time, then
# one closing line "N passed, N failed, N skipped". N counts KUnit cases
# (and, once the series has them, selftest cases) together; a gate that
# fails counts as one failure too. A case may skip only where
# lib/expected-skips says the harness cannot give it what it needs: the
# runners count any other skip as a failure.
# Exits non-zero when anything failed. Gates after a failed one still run
# when they can, so one run shows every problem.
set -euo pipefail
. "$(dirname "$0")/common.sh"

passed=0 failed=0 skipped=0 summary=()

# gate NAME CMD...: run one gate, print its time and outcome.
gate() {
	local name=$1 t0 rc=0 secs
	shift
	printf '\n=== gate: %s\n' "$name"
	t0=$(date +%s)
	"$@" || rc=$?
	secs=$(($(date +%s) - t0))
	if [ "$rc" -eq 0 ]; then
		summary+=("$(printf '  ok   %-28s %4ds' "$name" "$secs")")
	else
		summary+=("$(printf '  FAIL %-28s %4ds' "$name" "$secs")")
		failed=$((failed + 1))
	fi
	printf '=== gate: %s: %s in %ds\n' "$name" "$([ "$rc" -eq 0 ] && echo ok || echo FAILED)" "$secs"
	return 0
}

# add_counts FILE: add "PASSED FAILED SKIPPED" (lib/kunit.sh and
# lib/selftests.sh --result) from FILE to the totals.
add_counts() {
	local p f s
	[ -s "$1" ] || return 0
	read -r p f s <"$1"
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + ${s:-0}))
}

kunit_gate() {
	rm -f "$BUILD/kunit-um.counts"
	"$ROOT/lib/kunit.sh" --arch um --result "$BUILD/kunit-um.counts"
}

selftests_gate() {
	rm -f "$BUILD/selftests.counts"
	"$ROOT/lib/selftests.sh" --result "$BUILD/selftests.counts"
}

# counted_gate NAME FUNC COUNTS: a gate whose failed cases are counted from
# COUNTS; the gate itself then adds no failure of its own.
counted_gate() {
	local before=$failed
	gate "$1" "$2"
	if [ -s "$3" ] && [ "$(cut -d' ' -f2 "$3")" != 0 ] && [ "$failed" -gt "$before" ]; then
		failed=$((failed - 1))
	fi
	add_counts "$3"
}

# A cold run fills build/ with the 7.3.4 tree and its git objects (about
# 4.5 GiB), then the UML, x86_64 and per-patch builds (about 2 GiB more);
# the two build-matrix worktrees about 3 GiB; the export check copies the
# added files to TMPDIR. Failing here, before anything is written,
# beats a git or a linker dying on ENOSPC half-way.
space_gate() {
	local need=6144
	[ -d "$TREE/.git" ] || need=$((need + 5120))
	need_space "$BUILD" "$need" "make check (build/)" &&
		need_space "${TMPDIR:-/tmp}" 256 "make check (temporary files)"
}

tree_ok=1
gate "packages" "$ROOT/lib/deps.sh" build check
before=$failed
gate "disk space" space_gate
[ "$failed" -eq "$before" ] || tree_ok=0
[ "$tree_ok" = 0 ] || gate "series applies" "$ROOT/lib/tree.sh"
[ -f "$TREE/.git/zswap-series.stamp" ] || tree_ok=0
gate "export check" "$ROOT/lib/export.sh" check
if [ "$tree_ok" = 1 ]; then
	gate "checkpatch --strict" "$ROOT/lib/checkpatch.sh"
	counted_gate "kunit (um)" kunit_gate "$BUILD/kunit-um.counts"
	gate "W=1 (touched files)" "$ROOT/lib/warnings.sh"
	gate "sparse (touched files)" "$ROOT/lib/sparse-check.sh"
	gate "W=1 guest and i386 configs" "$ROOT/lib/matrix.sh" --rows 'guest i386'
	gate "kernel-doc (touched files)" "$ROOT/lib/kerneldoc.sh"
	gate "b4 reads the series" "$ROOT/lib/b4.sh"
	gate "bisect (kunit um per patch)" "$ROOT/lib/bisect.sh"
	gate "mutation list applies" "$ROOT/lib/mutants.sh" --applies
	if [ -f "$TREE/tools/testing/selftests/zswap/config" ]; then
		counted_gate "selftests (QEMU VM)" selftests_gate "$BUILD/selftests.counts"
	fi
fi

printf '\n=== make check summary\n'
printf '%s\n' "${summary[@]}"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
