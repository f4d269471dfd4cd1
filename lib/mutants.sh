#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The mutation gate: every named mutation of the series' tip must make the
# test named for it fail.
#   lib/mutants.sh [--list FILE] [--only NAME[,NAME...]] [--result FILE]
# Mutations are read from lib/mutants.txt (see its header). Each is applied
# to a scratch work tree (a detached worktree of branch 'series' in
# build/mutants/src, never the work tree being edited), the KUnit suites
# are rebuilt incrementally in UML and run, and the file is restored. The
# unmutated tip must pass first. Prints a table: mutation, patch, expected
# killer, killed by, time; a mutation that survives, does not apply or does
# not build fails the gate. --result FILE gets "KILLED SURVIVED".
set -euo pipefail
. "$(dirname "$0")/common.sh"

list=$ROOT/lib/mutants.txt only="" result=""
while [ $# -gt 0 ]; do
	case $1 in
	--list) list=$2; shift 2 ;;
	--only) only=$2; shift 2 ;;
	--result) result=$2; shift 2 ;;
	*) die "lib/mutants.sh: unknown option '$1' (see the header of lib/mutants.sh)" ;;
	esac
done
[ -f "$list" ] || die "no mutation list at $list"
[ -d "$TREE/.git" ] || die "no work tree at $TREE: run 'make tree' first"

WORK=$BUILD/mutants
SRC=$WORK/src
KBUILD=$WORK/kunit-um
mkdir -p "$WORK" "$LOGS"

# scratch_tree: $SRC at the tip of branch 'series', clean.
scratch_tree() {
	local tip
	tip=$(git -C "$TREE" rev-parse "$SERIES_BRANCH")
	if [ ! -d "$SRC/.git" ] && [ ! -f "$SRC/.git" ]; then
		rm -rf "$SRC"
		git -C "$TREE" worktree prune
		git -C "$TREE" worktree add -q --detach "$SRC" "$tip"
	fi
	git -C "$SRC" checkout -q --detach "$tip"
	git -C "$SRC" reset -q --hard
}

# mutate FROM TO FILE: replace the one occurrence of FROM in FILE by TO.
mutate() {
	python3 - "$@" <<'PY'
import sys
frm, to, path = (a.replace("\\n", "\n").replace("\\t", "\t") for a in sys.argv[1:4])
s = open(path).read()
n = s.count(frm)
if n != 1:
    sys.exit(f"mutation text occurs {n} times in {path} (must be once)")
open(path, "w").write(s.replace(frm, to))
PY
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

# records: the mutation list, one a line, fields separated by US (\037:
# not whitespace, so that an empty 'to' stays a field of its own).
records() {
	awk -v only=",$only," '
		function flush() {
			if (name != "" && (only == ",," || index(only, "," name ",")))
				printf "%s\037%s\037%s\037%s\037%s\037%s\n", name, patch, file, from, to, killer
			name = patch = file = from = to = killer = ""
		}
		/^#/ { next }
		/^[[:space:]]*$/ { flush(); next }
		{
			key = $0; sub(/:.*/, "", key)
			val = $0; sub(/^[^:]*: ?/, "", val)
			if (key == "name") name = val
			else if (key == "patch") patch = val
			else if (key == "file") file = val
			else if (key == "from") from = val
			else if (key == "to") to = val
			else if (key == "killer") killer = val
		}
		END { flush() }' "$list"
}

main() {
	local name patch file from to killer t0 secs failed by rows=() killed=0 survived=0 n=0
	scratch_tree
	log "mutation gate: the unmutated tip first (build/mutants, incremental after the first run)"
	if ! run_logged "$LOGS/mutants-base.log" "KUnit on the unmutated tip" \
		run_kunit "$WORK/base.json"; then
		die "the unmutated tip does not pass its KUnit suites: no mutation can be judged"
	fi
	while IFS=$'\037' read -r name patch file from to killer; do
		n=$((n + 1))
		t0=$(date +%s)
		if ! mutate "$from" "$to" "$SRC/$file" 2>"$WORK/err"; then
			rows+=("$(printf '%-36s %-3s %-62s %-10s %4ds' "$name" "$patch" "$killer" "NOT-APPLIED" 0)")
			warn "$name: $(cat "$WORK/err")"
			survived=$((survived + 1))
			continue
		fi
		run_kunit "$WORK/$name.json" >"$LOGS/mutant-$name.log" 2>&1 || true
		git -C "$SRC" checkout -q -- "$file"
		failed=$(failed_cases "$WORK/$name.json")
		secs=$(($(date +%s) - t0))
		if grep -qxF "(build)" <<<"$failed"; then
			by="BUILD-FAILED"
		elif grep -qxF "$killer" <<<"$failed"; then
			by="killed"
		elif [ -n "$failed" ]; then
			by="other:$(head -n1 <<<"$failed")"
		else
			by="SURVIVED"
		fi
		rows+=("$(printf '%-36s %-3s %-62s %-10s %4ds' "$name" "$patch" "$killer" "$by" "$secs")")
		if [ "$by" = killed ]; then
			killed=$((killed + 1))
		else
			survived=$((survived + 1))
		fi
		log "$name: $by (${secs}s)"
	done < <(records)
	[ "$n" -gt 0 ] || die "no mutation selected from $list"
	{
		printf '%-36s %-3s %-62s %-10s %5s\n' mutation pat "expected killer" "killed by" time
		printf '%s\n' "${rows[@]}"
		printf '%d mutations: %d killed, %d not killed\n' "$n" "$killed" "$survived"
	} | tee "$LOGS/mutants.table"
	[ -z "$result" ] || echo "$killed $survived" >"$result"
	[ "$survived" -eq 0 ]
}

main
