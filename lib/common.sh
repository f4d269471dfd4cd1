# SPDX-License-Identifier: GPL-2.0
# Shared definitions for the harness scripts: paths, logging, failure reports.
# Sourced, never run. Every script that sources it runs with set -euo pipefail.

ROOT=${ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
BUILD=${BUILD:-$ROOT/build}
TREE=$BUILD/linux			# the work tree: base commit + one commit per patch
PATCHES=$ROOT/patches
LOGS=$BUILD/logs
SHARED=${SHARED:-$ROOT/../shared}

# The pinned base (see ../shared/design/series.md, "Base").
BASE_PKG=linux-source-7.3
BASE_PKG_VERSION=7.3.4-1~bpo13+1
BASE_DEB=${BASE_PKG}_${BASE_PKG_VERSION}_all.deb
BASE_SHA256=703e369ddd4cce971452f5a593ee55df3a5c10c83caf0fa0df039633ed181ee3
BASE_KVER=7.3.4
BASE_TAG=v$BASE_KVER-base		# tag of the pristine commit in $TREE
SERIES_BRANCH=series

export CCACHE_NOHASHDIR=1		# build dirs differ; objects do not
export CCACHE_BASEDIR=$BUILD

log()  { printf '==> %s\n' "$*" >&2; }
warn() { printf 'warning: %s\n' "$*" >&2; }
die()  { printf 'error: %s\n' "$*" >&2; exit 1; }

# run_logged LOGFILE WHAT CMD...: run CMD with its output in LOGFILE; on
# failure print WHAT and the log's last lines, and return CMD's status.
run_logged() {
	local logfile=$1 what=$2 rc=0
	shift 2
	mkdir -p "$(dirname "$logfile")"
	"$@" >"$logfile" 2>&1 || rc=$?
	if [ "$rc" -ne 0 ]; then
		printf 'error: %s failed (exit %d); last lines of %s:\n' \
			"$what" "$rc" "$logfile" >&2
		tail -n 40 "$logfile" | sed 's/^/  | /' >&2
	fi
	return "$rc"
}

# series_patches: the patch files of patches/series, in order, cover letter
# excluded (it carries no diff).
series_patches() {
	[ -f "$PATCHES/series" ] || return 0
	grep -v -e '^#' -e '^[[:space:]]*$' "$PATCHES/series" |
		grep -v -e '^0000-cover-letter.patch$' || true
}

jobs() { nproc; }

# free_mib DIR: MiB free on the file system that holds DIR (or, when DIR
# does not exist yet, its nearest existing parent).
free_mib() {
	local d=$1
	while [ ! -d "$d" ]; do d=$(dirname "$d"); done
	df -Pk "$d" | awk 'NR == 2 { print int($4 / 1024) }'
}

# need_space DIR MIB WHAT: return 0 when DIR's file system has MIB MiB free;
# otherwise say what needs the space, how much is free and where, and
# return 1. Callers check before a step that would die half-way on ENOSPC.
need_space() {
	local dir=$1 need=$2 what=$3 have
	have=$(free_mib "$dir")
	[ "$have" -ge "$need" ] && return 0
	printf 'error: %s needs about %d MiB free on the file system of %s; %d MiB are free.\n' \
		"$what" "$need" "$dir" "$have" >&2
	printf '       Free some space (an old build/ or clone) or point %s elsewhere.\n' \
		"$([ "$dir" = "$BUILD" ] && echo 'BUILD=' || echo 'TMPDIR=')" >&2
	return 1
}

# The mirror the system already uses for Debian, reused for the private
# sources lists below so that no new host is needed.
debian_mirror() {
	local uri
	uri=$(grep -rhoE '(URIs:|deb) +https?://[^ ]+/debian/?( |$)' \
		/etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null |
		awk '{print $2}' | head -n1)
	echo "${uri:-http://deb.debian.org/debian}"
}

# private_apt SUITE apt-get|apt-cache ARGS...: run an apt tool on a private
# sources list for Debian SUITE, with its lists and cache under
# build/apt/SUITE. The system's sources are never touched.
private_apt() {
	local suite=$1 tool=$2 dir=$BUILD/apt/$1
	shift 2
	"$tool" -o Dir::Etc::SourceList="$dir/sources.list" \
		-o Dir::Etc::SourceParts=/dev/null \
		-o Dir::State::Lists="$dir/lists" \
		-o Dir::Cache="$dir/cache" \
		-o APT::Get::List-Cleanup=0 "$@"
}

# private_apt_update SUITE: write SUITE's sources list and fetch its lists.
private_apt_update() {
	local suite=$1 dir=$BUILD/apt/$1
	mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial"
	printf 'deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s %s main\n' \
		"$(debian_mirror)" "$suite" >"$dir/sources.list"
	run_logged "$LOGS/apt-$suite-update.log" "apt-get update ($suite, private sources list)" \
		private_apt "$suite" apt-get update
}
