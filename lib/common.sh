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
