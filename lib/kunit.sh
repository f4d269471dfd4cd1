#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Run the KUnit suites of the series with tools/testing/kunit/kunit.py.
#   lib/kunit.sh [--arch um|x86_64] [--tree DIR] [--build-dir DIR]
#                [--kunitconfig FILE] [--filter GLOB] [--result FILE]
#                [--lenient]
# UML by default. x86_64 runs under QEMU: with KVM when it is usable, under
# TCG otherwise (kunit.py always asks QEMU for -accel kvm first, which hangs
# on a host whose /dev/kvm cannot run a normal kernel; see lib/vm.sh).
# --lenient drops kunitconfig options that the tree does not define (for
# bisection: a suite added by a later patch does not exist yet), and lets
# cases skip.
# Otherwise a skipped case that lib/expected-skips does not list for
# kunit-ARCH counts as a failure.
# --result FILE gets one line "PASSED FAILED SKIPPED" counted from the
# results (an unexpected skip is counted as failed, not skipped).
set -euo pipefail
. "$(dirname "$0")/common.sh"
. "$ROOT/lib/vm.sh"

arch=um tree=$TREE build_dir="" kunitconfig=$ROOT/kunitconfig filter="" result=""
lenient=0
while [ $# -gt 0 ]; do
	case $1 in
	--arch) arch=$2; shift 2 ;;
	--tree) tree=$2; shift 2 ;;
	--build-dir) build_dir=$2; shift 2 ;;
	--kunitconfig) kunitconfig=$2; shift 2 ;;
	--filter) filter=$2; shift 2 ;;
	--result) result=$2; shift 2 ;;
	--lenient) lenient=1; shift ;;
	*) die "lib/kunit.sh: unknown option '$1' (see the header of lib/kunit.sh)" ;;
	esac
done
case $arch in
um|x86_64) ;;
*) die "ARCH=$arch is not supported: use um (default) or x86_64" ;;
esac
build_dir=${build_dir:-$BUILD/kunit-$arch}
[ -f "$kunitconfig" ] || die "no kunitconfig at $kunitconfig"
[ -x "$tree/tools/testing/kunit/kunit.py" ] || die "$tree is not a kernel tree: run 'make tree' first"
mkdir -p "$build_dir" "$LOGS"
# kunit.py runs in the tree: relative paths would name directories there.
build_dir=$(cd "$build_dir" && pwd) tree=$(cd "$tree" && pwd)
kunitconfig=$(cd "$(dirname "$kunitconfig")" && pwd)/$(basename "$kunitconfig")

# lenient_kunitconfig IN OUT: IN less the options $tree does not define.
lenient_kunitconfig() {
	local sym dropped=""
	grep -rhoE --include='Kconfig*' '^[[:space:]]*(menu)?config[[:space:]]+[A-Za-z0-9_]+' \
		"$tree" | awk '{print $2}' | sort -u >"$2.defined"
	: >"$2"
	while IFS= read -r line; do
		sym=$(sed -nE 's/^# (CONFIG_[A-Za-z0-9_]+) is not set$/\1/p; s/^(CONFIG_[A-Za-z0-9_]+)=.*/\1/p' <<<"$line")
		if [ -n "$sym" ] && ! grep -qxF "${sym#CONFIG_}" "$2.defined"; then
			dropped="$dropped ${sym#CONFIG_}"
			continue
		fi
		printf '%s\n' "$line" >>"$2"
	done <"$1"
	rm -f "$2.defined"
	[ -z "$dropped" ] || log "not defined at this commit, left out:$dropped"
}

# kunit_cmd SUBCOMMAND ARGS...: print nothing, set the array KUNIT_CMD to the
# kunit.py command line (an array, so that without_kvm can exec it).
kunit_cmd() {
	KUNIT_CMD=("$tree/tools/testing/kunit/kunit.py" "$1" --arch="$arch"
		--build_dir="$build_dir" "${@:2}")
}

kunit_py() {
	kunit_cmd "$@"
	"${KUNIT_CMD[@]}"
}

build() {
	log "building the KUnit kernel ($arch) in ${build_dir#"$ROOT"/} (about 3 min cold, seconds when warm)"
	run_logged "$LOGS/kunit-build-$arch.log" "KUnit build ($arch)" \
		kunit_py build --kunitconfig="$kunitconfig" --jobs="$(jobs)" \
		--make_options="CC=ccache gcc"
}

execute() {
	local json=$LOGS/kunit-$arch.json rc=0 wrap=()
	local args=(--timeout=600 --json="$json")
	[ -n "$filter" ] && args+=("$filter")
	if [ "$arch" = x86_64 ] && ! kvm_usable "$build_dir/arch/x86/boot/bzImage"; then
		log "KVM is not usable here: running QEMU under TCG"
		wrap=(without_kvm)
	fi
	log "running the KUnit suites ($arch)"
	rm -f "$json"
	kunit_cmd exec "${args[@]}"
	"${wrap[@]}" "${KUNIT_CMD[@]}" 2>&1 | tee "$LOGS/kunit-exec-$arch.log" || rc=$?
	count_results "$json" || rc=1
	return "$rc"
}

# Count the leaf cases (each parameter of a parameterised case is one) of
# kunit.py's JSON results. A skipped case, named SUITE.CASE[.PARAM], counts
# as skipped when lib/expected-skips lists it for kunit-ARCH (or with
# --lenient), as failed otherwise.
count_results() {
	python3 - "$1" "${result:-/dev/null}" "kunit-$arch" "$ROOT/lib/expected-skips" "$lenient" <<'PY2'
import fnmatch, json, sys
path, result, where, listfile, lenient = sys.argv[1:6]
try:
    root = json.load(open(path))
except (OSError, ValueError) as e:
    sys.exit(f"error: no KUnit results ({e})")
expected = []
for ln in open(listfile):
    body, _, reason = ln.partition("#")
    f = body.split()
    if len(f) == 2 and f[0] == where:
        expected.append(f[1])
n = {"PASS": 0, "FAIL": 0, "SKIP": 0, "ERROR": 0}
unexpected = []
def walk(g, prefix):
    for c in g.get("test_cases", []):
        st = c.get("status", "ERROR")
        name = prefix + c.get("name", "?")
        if st == "SKIP" and lenient != "1" and \
           not any(fnmatch.fnmatchcase(name, p) for p in expected):
            unexpected.append(name)
            st = "FAIL"
        n[st] = n.get(st, 0) + 1
    for s in g.get("sub_groups", []):
        walk(s, prefix + s.get("name", "?") + ".")
walk(root, "")
failed = n["FAIL"] + n["ERROR"]
if n["PASS"] + failed + n["SKIP"] == 0:
    sys.exit("error: the KUnit run printed no test result")
for u in unexpected:
    print(f"error: unexpected skip of {u} under {where} (lib/expected-skips does not list it): counted as a failure",
          file=sys.stderr)
print(f"kunit: {n['PASS']} passed, {failed} failed, {n['SKIP']} skipped", file=sys.stderr)
with open(result, "w") as f:
    f.write(f"{n['PASS']} {failed} {n['SKIP']}\n")
sys.exit(1 if failed else 0)
PY2
}

if [ "$lenient" = 1 ]; then
	lenient_kunitconfig "$kunitconfig" "$build_dir/kunitconfig.lenient"
	kunitconfig=$build_dir/kunitconfig.lenient
	# A commit before the series' first test option (the rotation fix
	# comes first and its test is a selftest) has no suite to run: such a
	# step only has to build.
	if ! grep -qE '^CONFIG_[A-Z0-9_]+_KUNIT_TEST=y' "$kunitconfig"; then
		build
		echo "kunit: built; no KUnit suite of the series at this commit" >&2
		exit 0
	fi
fi
build
execute
