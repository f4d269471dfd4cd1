#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The OLTP workload, run in the guest inside the capped cgroup:
#   bench/oltp.sh --device DEV --buffer-pool-mb MB --tables N --rows N
#                 --threads N --duration S --deadline-ms MS
#                 --populate-timeout S [--timeline FILE]
#
# DEV is an ext4 file system holding a MariaDB datadir with sysbench's
# oltp tables (made on the host by bench/oltp-seed.sh). The server and
# sysbench run as children of this script, so both are in its cgroup.
# Two phases, as in bench/cachebench:
#   populate  one full scan of every table's clustered index fills the
#             buffer pool (anonymous memory, larger than memory.max: the
#             part over the cap goes to zswap and the swap device); its
#             time and the pages it brought in are reported, bounded by
#             --populate-timeout (a scan still running is stopped);
#   run       sysbench oltp_read_write with N threads for S seconds.
# A transaction slower than --deadline-ms is an error (a missed deadline),
# counted from sysbench's latency histogram. Prints one JSON object on
# stdout, with cachebench's names where the figure is the same kind (ops:
# transactions, ops_per_s: their rate, p*_us, misses, miss_pct) and when
# each phase began, in seconds since the script started (populate_at_s,
# run_at_s: the server's start comes first); the
# report is sysbench's own, kept beside FILE (sysbench.txt), and
# FILE gets its per-second lines as CSV. Exit status: 0 done, 1 the
# server or sysbench failed (an OOM kill included), 2 usage.
set -uo pipefail

dev="" pool_mb="" tables="" rows="" threads="" duration="" deadline_ms="" pop_timeout=""
timeline=/dev/null
MNT=/tmp/oltp-data
MARIADB_SOCK=/tmp/oltp.sock

usage() {
	echo "usage: oltp.sh --device DEV --buffer-pool-mb MB --tables N --rows N --threads N --duration S --deadline-ms MS --populate-timeout S [--timeline FILE]" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	[ $# -ge 2 ] || usage
	case $1 in
	--device) dev=$2 ;;
	--buffer-pool-mb) pool_mb=$2 ;;
	--tables) tables=$2 ;;
	--rows) rows=$2 ;;
	--threads) threads=$2 ;;
	--duration) duration=$2 ;;
	--deadline-ms) deadline_ms=$2 ;;
	--populate-timeout) pop_timeout=$2 ;;
	--timeline) timeline=$2 ;;
	*) usage ;;
	esac
	shift 2
done
[ -b "$dev" ] || { echo "oltp.sh: --device ${dev:-(none)} is not a block device" >&2; exit 2; }
for n in "$pool_mb" "$tables" "$rows" "$threads" "$duration" "$deadline_ms" "$pop_timeout"; do
	case $n in ''|0|*[!0-9]*) usage ;; esac
done
report=$(dirname "$timeline")/sysbench.txt
[ "$timeline" = /dev/null ] && report=/tmp/oltp-sysbench.txt

server_pid=""
fail() {
	echo "oltp.sh: $*" >&2
	[ -f /tmp/oltp-server.log ] && tail -n 20 /tmp/oltp-server.log | sed 's/^/  | /' >&2
	exit 1
}
stop_server() {
	[ -n "$server_pid" ] && kill -KILL "$server_pid" 2>/dev/null
	wait 2>/dev/null
}
trap stop_server EXIT

now_us() { echo "${EPOCHREALTIME/./}"; }
secs() { printf '%d.%06d' $(($1 / 1000000)) $(($1 % 1000000)); }
# shellcheck source=bench/mariadb.sh
. "$(dirname "$0")/mariadb.sh"

# start_server: the seed's options, the benchmark's pool size; O_DIRECT
# data files (MariaDB's default), so the database's memory is the buffer
# pool, not page cache. The pool is neither dumped nor loaded: every arm
# starts cold.
start_server() {
	rm -f /tmp/oltp-server.log
	mkdir -p "$MNT"
	mount -t ext4 "$dev" "$MNT" || fail "cannot mount $dev"
	mariadb_start "$MNT" /tmp/oltp-server.log "$pool_mb" 120 --innodb-flush-method=O_DIRECT \
		--innodb-buffer-pool-load-at-startup=OFF --innodb-buffer-pool-dump-at-shutdown=OFF
}

# populate: scan the tables in turn until done or the timeout; sets
# populated (tables scanned), populate_us and populate_pages (the buffer
# pool's data pages then). The server stops a scan at the timeout itself
# (max_statement_time), so none runs on into the measured phase; error
# 1969 is that stop, any other failure ends the workload.
populate() {
	local t0 i left rc
	t0=$(now_us)
	populate_start_us=$t0
	populated=0
	for ((i = 1; i <= tables; i++)); do
		left=$((pop_timeout - ($(now_us) - t0) / 1000000))
		[ "$left" -gt 0 ] || break
		rc=0
		sql "SET STATEMENT max_statement_time=$left FOR SELECT SUM(LENGTH(pad)) FROM sbtest.sbtest$i" \
			>/dev/null 2>/tmp/oltp-populate.err || rc=$?
		if [ "$rc" -ne 0 ]; then
			grep -q "ERROR 1969" /tmp/oltp-populate.err && break
			kill -0 "$server_pid" 2>/dev/null || fail "mariadbd died while populating"
			fail "populate scan of sbtest$i failed: $(cat /tmp/oltp-populate.err)"
		fi
		populated=$i
	done
	populate_us=$(($(now_us) - t0))
	kill -0 "$server_pid" 2>/dev/null || fail "mariadbd died while populating"
	populate_pages=$(sql "SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_pages_data'" | cut -f2)
	case $populate_pages in ''|*[!0-9]*) fail "cannot read Innodb_buffer_pool_pages_data" ;; esac
}

run_sysbench() {
	run_start_us=$(now_us)
	sysbench oltp_read_write --db-driver=mysql --mysql-socket="$MARIADB_SOCK" --mysql-user=root \
		--tables="$tables" --table-size="$rows" --threads="$threads" --time="$duration" \
		--report-interval=1 --histogram=on --percentile=99 run >"$report" 2>&1 ||
		fail "sysbench failed: $(tail -n 3 "$report" | tr '\n' ' ')"
	kill -0 "$server_pid" 2>/dev/null || fail "mariadbd died during the run"
}

# to_json: sysbench's report and the populate figures as one object;
# p99.9 and the missed deadlines come from the latency histogram (rows
# "value |*** count", in ms), the timeline from the per-second lines.
to_json() {
	python3 - "$report" "$timeline" <<PY
import json, re, sys
text = open(sys.argv[1]).read()
def num(pat):
    m = re.search(pat, text)
    return float(m.group(1)) if m else None
hist = [(float(v), int(c)) for v, c in
        re.findall(r"^\s*([0-9.]+)\s+\|\**\s+([0-9]+)\s*$", text, re.M)]
total = sum(c for _, c in hist)
def pct(p):
    seen = 0
    for v, c in hist:
        seen += c
        if seen >= p * total:
            return v * 1000
    return None
missed = sum(c for v, c in hist if v >= $deadline_ms)
with open(sys.argv[2], "w") as f:
    f.write("t_s,tps,qps,p99_ms,err_per_s\n")
    for m in re.finditer(r"^\[ (\d+)s \] thds: \d+ tps: ([0-9.]+) qps: ([0-9.]+) .*?"
                         r"lat \(ms,99%\): ([0-9.]+) err/s: ([0-9.]+)", text, re.M):
        f.write(",".join(m.groups()) + "\n")
tx = num(r"transactions:\s+(\d+)")
print(json.dumps({
    "workload": "oltp", "tables": $tables, "threads": $threads,
    "buffer_pool_mb": $pool_mb, "deadline_ms": $deadline_ms,
    "rows": $rows, "populate_s": $(secs "$populate_us"), "populated_tables": $populated,
    "populate_done": $populated == $tables, "populate_pages": $populate_pages,
    "populate_rate": $populate_pages / ($populate_us / 1e6),
    "duration_s": num(r"total time:\s+([0-9.]+)s"),
    "ops": tx, "ops_per_s": num(r"transactions:\s+\d+\s+\(([0-9.]+) per sec"),
    "qps": num(r"queries:\s+\d+\s+\(([0-9.]+) per sec"),
    "ignored_errors": num(r"ignored errors:\s+(\d+)"),
    "p50_us": pct(0.5), "p99_us": pct(0.99), "p999_us": pct(0.999),
    "max_us": (num(r"max:\s+([0-9.]+)") or 0) * 1000,
    "misses": missed, "miss_pct": 100.0 * missed / total if total else None,
    "populate_at_s": $(secs $((populate_start_us - script_start_us))),
    "run_at_s": $(secs $((run_start_us - script_start_us))),
}))
PY
}

script_start_us=$(now_us)
start_server
populate
run_sysbench
to_json
