# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# MariaDB for the OLTP workload, sourced by bench/oltp-seed.sh (on the
# host) and bench/oltp.sh (in the guest), so that the database is made
# and used with the same server options. The sourcing script defines
# fail MESSAGE (exits) and sets MARIADB_SOCK before calling these.

# sql STATEMENT: run it as root over MARIADB_SOCK; rows without a header.
sql() { mariadb --no-defaults --socket="$MARIADB_SOCK" --user=root -N -e "$1"; }

# mariadb_start DATADIR LOG POOL_MB TIMEOUT_S [OPTION...]: start mariadbd
# on DATADIR in the background (private socket, no network, no service)
# and set server_pid; return once it answers a query. Fails (through
# fail) when it exits or does not answer within TIMEOUT_S.
mariadb_start() {
	local datadir=$1 log=$2 pool_mb=$3 limit=$4 i
	shift 4
	rm -f "$MARIADB_SOCK"
	mariadbd --no-defaults --user=root --datadir="$datadir" --socket="$MARIADB_SOCK" \
		--skip-networking --pid-file="$MARIADB_SOCK.pid" --log-error="$log" \
		--open-files-limit=4096 --innodb-log-file-size=64M \
		--innodb-buffer-pool-size="${pool_mb}M" "$@" &
	server_pid=$!
	for ((i = 0; i < limit * 10; i++)); do
		[ -S "$MARIADB_SOCK" ] && sql "SELECT 1" >/dev/null 2>&1 && return 0
		kill -0 "$server_pid" 2>/dev/null || fail "mariadbd exited at start"
		sleep 0.1
	done
	fail "mariadbd did not answer on $MARIADB_SOCK within $limit s"
}
