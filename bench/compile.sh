#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The compile workload:
#   bench/compile.sh --slice DIR [--jobs N] [--timeout S] [--timeline FILE]
#
# Compiles every DIR/*.i (a slice of a kernel tree, made on the host by
# bench/slice.py) with the kernel's flags in DIR/flags, N at a time, the
# objects to /dev/null: cc1's memory is the anonymous working set. Prints
# one JSON object on stdout: the build time (first start to last end), the
# failed compiles and each file's time; --timeline FILE gets one row per
# finished compile. After --timeout S seconds the compiles still running
# are killed and the JSON says timed_out, with the files compiled so far
# (the build time is then a lower bound). Exit status: 0 all compiled,
# 1 a compile failed (an OOM kill included), 2 usage, 3 timed out.
set -uo pipefail

slice="" jobs=2 timeline=/dev/null timeout=0

usage() {
	echo "usage: compile.sh --slice DIR [--jobs N] [--timeout S] [--timeline FILE]" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	[ $# -ge 2 ] || usage
	case $1 in
	--slice) slice=$2 ;;
	--jobs) jobs=$2 ;;
	--timeline) timeline=$2 ;;
	--timeout) timeout=$2 ;;
	*) usage ;;
	esac
	shift 2
done
if [ -z "$slice" ] || [ ! -r "$slice/flags" ]; then
	echo "compile.sh: no ${slice:-(--slice)}/flags" >&2
	exit 2
fi
case $jobs in ''|0|*[!0-9]*) usage ;; esac
case $timeout in ''|*[!0-9]*) usage ;; esac

now_us() { echo "${EPOCHREALTIME/./}"; }
# secs US: microseconds as seconds with six decimals.
secs() { printf '%d.%06d' $(($1 / 1000000)) $(($1 % 1000000)); }

flags=()
eval "flags=($(<"$slice/flags"))"
files=("$slice"/*.i)
[ -e "${files[0]}" ] || { echo "compile.sh: no .i files in $slice" >&2; exit 2; }

declare -A name_of start_of
results="" failed=0 done=0 running=0 next=0 timer="" timed_out=false
t0=$(now_us)
echo "t_ms,file,rc,seconds" >"$timeline"
if [ "$timeout" -gt 0 ]; then
	sleep "$timeout" &
	timer=$!
fi

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

# stop_all: the timer fired; kill the compiles still running (the gcc
# drivers and their cc1 and as).
stop_all() {
	local pid
	timed_out=true
	for pid in "${!name_of[@]}"; do
		pkill -KILL -P "$pid" 2>/dev/null
		kill -KILL "$pid" 2>/dev/null
	done
	wait "${!name_of[@]}" 2>/dev/null
	running=0
}

# reap_one: wait for any compile (or the timer); record it.
reap_one() {
	local pid rc=0 t secs
	wait -n -p pid || rc=$?
	if [ "$pid" = "$timer" ]; then
		stop_all
		return
	fi
	t=$(now_us)
	secs=$(secs $((t - start_of[$pid])))
	if [ "$rc" -eq 0 ]; then
		done=$((done + 1))
	else
		failed=$((failed + 1))
	fi
	echo "$(((t - t0) / 1000)),${name_of[$pid]},$rc,$secs" >>"$timeline"
	results+="${results:+, }\"${name_of[$pid]}\": $secs"
	unset "name_of[$pid]"
	running=$((running - 1))
}

while ! $timed_out && { [ "$next" -lt "${#files[@]}" ] || [ "$running" -gt 0 ]; }; do
	while [ "$next" -lt "${#files[@]}" ] && [ "$running" -lt "$jobs" ]; do
		start_next
	done
	reap_one
done
t=$(now_us)
[ -n "$timer" ] && ! $timed_out && kill "$timer" 2>/dev/null
printf '{"workload": "compile", "files": %d, "jobs": %d, "build_s": %s, "compiled": %d, ' \
	"${#files[@]}" "$jobs" "$(secs $((t - t0)))" "$done"
printf '"failed": %d, "timed_out": %s, "file_s": {%s}}\n' "$failed" "$timed_out" "$results"
$timed_out && exit 3
[ "$failed" -eq 0 ]
