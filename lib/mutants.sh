#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The mutation gate: every named mutation of the series' tip must make the
# test named for it fail.
#   lib/mutants.sh [--kunit | --vm | --stock] [--list FILE]
#                  [--only NAME[,NAME...]]
#                  [--result FILE]
#   lib/mutants.sh --applies [--list FILE]
# Mutations are read from lib/mutants.txt (see its header). Each is applied
# to a scratch work tree (a detached worktree of branch 'series' in
# build/mutants/linux, never the work tree being edited), the test that
# must kill it is run, and the file is restored:
# - a KUnit mutation: the KUnit suites, rebuilt incrementally in UML
#   (build/mutants/kunit-um); the unmutated tip must pass them first;
# - with a 'vm' key, also (or only) that selftest program in the QEMU guest
#   (lib/selftests.sh --tree build/mutants/linux, the guest kernel rebuilt
#   incrementally in build/mutants/guest-x86_64).
# Then the selftest cases of lib/stock-must-fail run on pristine 7.3.4 and
# must fail there: they pin what the series changes.
# --kunit runs the KUnit mutations only (about 17 min); --vm the VM
# mutations and the stock check only (tens of minutes under TCG); --stock
# the stock check only; by default, all of them. --applies builds nothing:
# it checks that every record of the list still applies to the tip (make
# check's gate, seconds; the mutations themselves run in make mutants,
# which would take make check past its hour). Prints a table: mutation, patch,
# expected killer, killed by, time; a mutation that survives, does not
# apply or does not build fails the gate. --result FILE gets
# "KILLED SURVIVED".
set -euo pipefail
. "$(dirname "$0")/common.sh"
. "$ROOT/lib/edits.sh"

list=$MUTATIONS stock_list=$ROOT/lib/stock-must-fail
only="" result="" kinds="kunit vm stock"
while [ $# -gt 0 ]; do
	case $1 in
	--kunit) kinds=kunit; shift ;;
	--vm) kinds="vm stock"; shift ;;
	--stock) kinds=stock; shift ;;
	--applies) kinds=applies; shift ;;
	--list) list=$2; shift 2 ;;
	--only) only=$2; shift 2 ;;
	--result) result=$2; shift 2 ;;
	*) die "lib/mutants.sh: unknown option '$1' (see the header of lib/mutants.sh)" ;;
	esac
done
[ -f "$list" ] || die "no mutation list at $list"
[ -d "$TREE/.git" ] || die "no work tree at $TREE: run 'make tree' first"

WORK=$BUILD/mutants
# build/mutants/linux, like build/linux, so that its UML and guest build
# directories see the sources as ../linux and ccache shares their objects.
SRC=$WORK/linux
KBUILD=$WORK/kunit-um
mkdir -p "$WORK" "$LOGS"

# scratch_tree: $SRC at the tip of branch 'series', clean.
scratch_tree() {
	local tip
	tip=$(git -C "$TREE" rev-parse "$SERIES_BRANCH")
	if [ -e "$WORK/src/.git" ]; then	# before the move to $SRC
		git -C "$TREE" worktree remove --force "$WORK/src"
		rm -rf "$KBUILD"
	fi
	if [ ! -d "$SRC/.git" ] && [ ! -f "$SRC/.git" ]; then
		rm -rf "$SRC"
		git -C "$TREE" worktree prune
		git -C "$TREE" worktree add -q --detach "$SRC" "$tip"
	fi
	# -f: a run that was interrupted may have left a mutation applied
	git -C "$SRC" checkout -q -f --detach "$tip"
	git -C "$SRC" reset -q --hard
}

# mutate FROM TO FILE: replace the one occurrence of FROM in FILE by TO.
mutate() {
	edit_once "$3" "$1" "$2" <"$3" >"$3.mutated" || { rm -f "$3.mutated"; return 1; }
	mv "$3.mutated" "$3"
}

# run_kunit JSON: build and run the suites in $SRC; 0 when all pass.
run_kunit() {
	"$SRC/tools/testing/kunit/kunit.py" run --arch=um --build_dir="$KBUILD" \
		--kunitconfig="$ROOT/kunitconfig" --jobs="$(jobs)" \
		--make_options="CC=ccache gcc" --timeout=300 --json="$1"
}

# failed_cases JSON: the names of the failed cases and suites, one a line;
# "(build)" when there are no results at all.
failed_cases() {
	python3 - "$1" <<'PY'
import json, sys
try:
    root = json.load(open(sys.argv[1]))
except (OSError, ValueError):
    print("(build)")
    sys.exit(0)
def walk(g):
    bad = False
    for c in g.get("test_cases", []):
        if c.get("status") in ("FAIL", "ERROR"):
            print(c["name"])
            bad = True
    for s in g.get("sub_groups", []):
        bad |= walk(s)
    if bad and g.get("name"):
        print(g["name"])
    return bad
walk(root)
PY
}

# run_vm TESTS FAILED: the selftests TESTS (run_kselftest.sh selection)
# of $SRC in the QEMU guest on $SRC's kernel; FAILED gets the failed
# cases, "(build)" when no TAP came back (build, boot or guest failure).
run_vm() {
	rm -f "$2"
	"$ROOT/lib/selftests.sh" --tree "$SRC" --tests "$1" --failed "$2" || true
	[ -f "$2" ] || echo "(build)" >"$2"
}

rows=() killed=0 survived=0 n=0

# row NAME PATCH KILLER BY SECS: one line of the table, counted.
row() {
	rows+=("$(printf '%-36s %-3s %-62s %-10s %4ds' "$1" "$2" "$3" "$4" "$5")")
	if [ "$4" = killed ]; then
		killed=$((killed + 1))
	else
		survived=$((survived + 1))
	fi
	n=$((n + 1))
}

# verdict KILLER FAILED: how the named killer fared, from the failed names.
verdict() {
	if grep -qxF "(build)" <<<"$2"; then
		echo BUILD-FAILED
	elif grep -qxF "$1" <<<"$2"; then
		echo killed
	elif [ -n "$2" ]; then
		echo "other:$(head -n1 <<<"$2")"
	else
		echo SURVIVED
	fi
}

# mutation NAME PATCH FILE FROM TO KILLER VM: apply, run the killer's
# test, restore, and add the row.
mutation() {
	local name=$1 patch=$2 file=$3 from=$4 to=$5 killer=$6 vm=$7 t0 failed by
	t0=$(date +%s)
	if ! mutate "$from" "$to" "$SRC/$file" 2>"$WORK/err"; then
		warn "$name: $(cat "$WORK/err")"
		row "$name" "$patch" "$killer" NOT-APPLIED 0
		return
	fi
	if [ -n "$vm" ]; then
		run_vm "$vm" "$WORK/$name.failed" >"$LOGS/mutant-$name-vm.log" 2>&1
		failed=$(cat "$WORK/$name.failed")
	else
		run_kunit "$WORK/$name.json" >"$LOGS/mutant-$name.log" 2>&1 || true
		failed=$(failed_cases "$WORK/$name.json")
	fi
	git -C "$SRC" checkout -q -- "$file"
	by=$(verdict "$killer" "$failed")
	row "$name" "$patch" "$killer${vm:+ ($vm)}" "$by" $(($(date +%s) - t0))
	log "$name: $by ($(($(date +%s) - t0))s)"
}

# stock_cases: lib/stock-must-fail as "TESTS CASE" lines.
stock_cases() {
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$stock_list"
}

# stock_check: pristine 7.3.4 with the series' selftests; each case of
# lib/stock-must-fail must fail there.
stock_check() {
	local tests t0 failed tests_of c
	[ -f "$stock_list" ] || die "no list of cases that must fail on stock at $stock_list"
	tests=$(stock_cases | awk '{print $1}' | sort -u | tr '\n' ' ')
	[ -n "$tests" ] || die "$stock_list lists no case"
	t0=$(date +%s)
	log "stock 7.3.4: $tests"
	rm -f "$WORK/stock.failed"
	"$ROOT/lib/selftests.sh" --kernel stock --tests "$tests" \
		--failed "$WORK/stock.failed" >"$LOGS/mutant-stock.log" 2>&1 || true
	[ -f "$WORK/stock.failed" ] || echo "(build)" >"$WORK/stock.failed"
	failed=$(cat "$WORK/stock.failed")
	while read -r tests_of c; do
		row "stock-7.3.4" "-" "$c ($tests_of)" "$(verdict "$c" "$failed")" $(($(date +%s) - t0))
	done < <(stock_cases)
}

want() { [[ " $kinds " == *" $1 "* ]]; }

# all_apply: every record of the list, whatever --only picks, still
# applies to the tip (its 'from' occurs once in its file); a record whose
# text moved with a change of the series is named before anything builds.
all_apply() {
	local name patch file from to killer vm vm_killer bad=()
	while IFS=$'\037' read -r name patch file from to killer vm vm_killer; do
		edit_once "$name" "$from" "$to" <"$SRC/$file" >/dev/null 2>&1 ||
			bad+=("$name")
	done < <(mutation_records "$list")
	[ ${#bad[@]} -eq 0 ] ||
		die "mutations whose 'from' no longer occurs exactly once in the tip: ${bad[*]} (${list#"$ROOT"/})"
}

main() {
	local name patch file from to killer vm vm_killer picked=0
	scratch_tree
	all_apply
	if want applies; then
		echo "mutation list: all $(mutation_records "$list" | wc -l) records of ${list#"$ROOT"/} apply to the tip"
		return 0
	fi
	if want kunit; then
		log "mutation gate: the unmutated tip first (build/mutants, incremental after the first run)"
		run_logged "$LOGS/mutants-base.log" "KUnit on the unmutated tip" \
			run_kunit "$WORK/base.json" ||
			die "the unmutated tip does not pass its KUnit suites: no mutation can be judged"
	fi
	while IFS=$'\037' read -r name patch file from to killer vm vm_killer; do
		[ -n "$killer" ] || [ -n "$vm_killer" ] || die "mutation $name names no killer"
		[ -z "$vm$vm_killer" ] || { [ -n "$vm" ] && [ -n "$vm_killer" ]; } ||
			die "mutation $name: 'vm' and 'vm_killer' go together"
		if [ -n "$killer" ] && want kunit; then
			picked=$((picked + 1))
			mutation "$name" "$patch" "$file" "$from" "$to" "$killer" ""
		fi
		if [ -n "$vm_killer" ] && want vm; then
			picked=$((picked + 1))
			mutation "$name" "$patch" "$file" "$from" "$to" "$vm_killer" "$vm"
		fi
	done < <(mutation_records "$list" "$only")
	if want stock && [ -z "$only" ]; then
		stock_check
		picked=$((picked + 1))
	fi
	[ "$picked" -gt 0 ] || die "no mutation selected from $list (kinds: $kinds${only:+, only: $only})"
	{
		printf '%-36s %-3s %-62s %-10s %5s\n' mutation pat "expected killer" "killed by" time
		printf '%s\n' "${rows[@]}"
		printf '%d mutations: %d killed, %d not killed\n' "$n" "$killed" "$survived"
	} | tee "$LOGS/mutants.table"
	[ -z "$result" ] || echo "$killed $survived" >"$result"
	[ "$survived" -eq 0 ]
}

main
