#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The OLTP workload's database, made on the host:
#   bench/oltp-seed.sh --out IMG --tables N --rows N
#
# Runs Debian's mariadbd natively (no service: a private datadir, socket
# and no network), fills sysbench's oltp tables, shuts the server down
# slowly (innodb_fast_shutdown=0: nothing left in the redo log to apply)
# and writes the datadir as an ext4 file system image, IMG (mkfs.ext4 -d,
# no mount). Each benchmark run gets a copy of IMG as its data disk, so
# every arm starts from the same database. Exit status: 0 made, 1 failed
# (the server's log is printed), 2 usage.
set -euo pipefail

out="" tables="" rows=""
usage() {
	echo "usage: oltp-seed.sh --out IMG --tables N --rows N" >&2
	exit 2
}
while [ $# -gt 0 ]; do
	[ $# -ge 2 ] || usage
	case $1 in
	--out) out=$2 ;;
	--tables) tables=$2 ;;
	--rows) rows=$2 ;;
	*) usage ;;
	esac
	shift 2
done
[ -n "$out" ] || usage
for n in "$tables" "$rows"; do
	case $n in ''|0|*[!0-9]*) usage ;; esac
done

work=$out.d
sock=""			# in a short temporary directory: sun_path is 108 bytes
server_pid=""

fail() {
	echo "oltp-seed.sh: $*" >&2
	[ -f "$work/server.log" ] && tail -n 20 "$work/server.log" | sed 's/^/  | /' >&2
	exit 1
}

stop_server() {
	if [ -n "$server_pid" ]; then
		kill "$server_pid" 2>/dev/null || true
		wait "$server_pid" 2>/dev/null || true
		server_pid=""
	fi
	[ -z "$sock" ] || rm -rf "$(dirname "$sock")"
}
trap stop_server EXIT

# shellcheck source=bench/mariadb.sh
. "$(dirname "$0")/mariadb.sh"

rm -rf "$work" "$out"
mkdir -p "$work/data"
sock=$(mktemp -d /tmp/oltp-seed.XXXXXX)/sock
MARIADB_SOCK=$sock
mariadb-install-db --no-defaults --user=root --datadir="$work/data" \
	--auth-root-authentication-method=normal --skip-test-db \
	--innodb-log-file-size=64M --open-files-limit=4096 >"$work/install.log" 2>&1 ||
	fail "mariadb-install-db failed; see $work/install.log"
mariadb_start "$work/data" "$work/server.log" 256 30
sql "CREATE DATABASE sbtest"
sysbench oltp_read_write --db-driver=mysql --mysql-socket="$sock" --mysql-user=root \
	--tables="$tables" --table-size="$rows" prepare >"$work/prepare.log" 2>&1 ||
	fail "sysbench prepare failed; see $work/prepare.log"
sql "SET GLOBAL innodb_fast_shutdown = 0; SHUTDOWN"
wait "$server_pid" || fail "mariadbd did not shut down cleanly"
server_pid=""
rm -f "$work/data/ibtmp1" "$work/data/ib_buffer_pool"
# Room for the run's inserts, undo and redo: half the data again. The
# inode tables and journal are written now, not by ext4lazyinit during a
# measured run.
size_mb=$(du -sm "$work/data" | cut -f1)
mkfs.ext4 -q -F -L oltp -E lazy_itable_init=0,lazy_journal_init=0 -d "$work/data" \
	"$out" $((size_mb * 3 / 2 + 128))M >/dev/null ||
	fail "mkfs.ext4 -d failed"
rm -rf "$work"
