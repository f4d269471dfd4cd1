#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The compile workload: bench/compile.sh --slice DIR [--jobs N] [--timeline FILE]
#
# Compiles every DIR/*.i (a slice of a kernel tree, made on the host by
# bench/slice.py) with the kernel's flags in DIR/flags, N at a time, the
# objects to /dev/null: cc1's memory is the anonymous working set. Prints
# one JSON object on stdout: the build time (first start to last end), the
# failed compiles and each file's time; --timeline FILE gets one row per
# finished compile. Exit status: 0 all compiled, 1 a compile failed (an
# OOM kill included), 2 usage.
set -uo pipefail

slice="" jobs=2 timeline=/dev/null

usage() {
	echo "usage: compile.sh --slice DIR [--jobs N] [--timeline FILE]" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	[ $# -ge 2 ] || usage
	case $1 in
	--slice) slice=$2 ;;
	--jobs) jobs=$2 ;;
	--timeline) timeline=$2 ;;
	*) usage ;;
	esac
	shift 2
done
if [ -z "$slice" ] || [ ! -r "$slice/flags" ]; then
	echo "compile.sh: no ${slice:-(--slice)}/flags" >&2
	exit 2
fi
case $jobs in ''|0|*[!0-9]*) usage ;; esac

now_us() { echo "${EPOCHREALTIME/./}"; }

flags=()
eval "flags=($(<"$slice/flags"))"
files=("$slice"/*.i)
[ -e "${files[0]}" ] || { echo "compile.sh: no .i files in $slice" >&2; exit 2; }

declare -A name_of start_of
results="" failed=0 running=0 next=0
t0=$(now_us)
echo "t_ms,file,rc,seconds" >"$timeline"

# start_next: one more compile in the background.
start_next() {
	local f=${files[next]} pid
	next=$((next + 1))
	gcc "${flags[@]}" -c "$f" -o /dev/null &
	pid=$!
	name_of[$pid]=$(basename "$f" .i)
	start_of[$pid]=$(now_us)
	running=$((running + 1))
}

# reap_one: wait for any compile; record it.
reap_one() {
	local pid rc=0 t secs
	wait -n -p pid || rc=$?
	t=$(now_us)
	secs=$(printf '%d.%06d' $(((t - start_of[$pid]) / 1000000)) $(((t - start_of[$pid]) % 1000000)))
	[ "$rc" -eq 0 ] || failed=$((failed + 1))
	echo "$(((t - t0) / 1000)),${name_of[$pid]},$rc,$secs" >>"$timeline"
	results+="${results:+, }\"${name_of[$pid]}\": $secs"
	running=$((running - 1))
}

while [ "$next" -lt "${#files[@]}" ] || [ "$running" -gt 0 ]; do
	while [ "$next" -lt "${#files[@]}" ] && [ "$running" -lt "$jobs" ]; do
		start_next
	done
	reap_one
done
t=$(now_us)
printf '{"workload": "compile", "files": %d, "jobs": %d, "build_s": %d.%06d, "failed": %d, "file_s": {%s}}\n' \
	"${#files[@]}" "$jobs" $(((t - t0) / 1000000)) $(((t - t0) % 1000000)) "$failed" "$results"
[ "$failed" -eq 0 ]
