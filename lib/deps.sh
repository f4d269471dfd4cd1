#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages a target needs: lib/deps.sh GROUP...
#   build   - building kernels (UML and x86_64) with ccache
#   qemu    - running x86_64 kernels under QEMU
#   check   - the extra tools of `make check` (sparse)
# Only missing packages are installed; apt-get update runs first, once.
set -euo pipefail
. "$(dirname "$0")/common.sh"

pkgs_build="build-essential bc bison flex libelf-dev libssl-dev ccache git
	xz-utils python3 perl rsync cpio kmod"
pkgs_qemu="qemu-system-x86 qemu-system-data"
pkgs_check="sparse python3-ply python3-git"	# checkpatch runs spdxcheck.py

missing_packages() {
	local p
	for p in "$@"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -q '^install ok installed$' || echo "$p"
	done
}

install_packages() {
	local missing
	missing=$(missing_packages "$@")
	[ -n "$missing" ] || return 0
	# shellcheck disable=SC2086
	set -- $missing
	if [ "$(id -u)" -ne 0 ]; then
		die "missing Debian packages: $*; install them as root (apt-get install $*)"
	fi
	log "installing Debian packages: $*"
	run_logged "$LOGS/apt-update.log" "apt-get update" apt-get update
	DEBIAN_FRONTEND=noninteractive run_logged "$LOGS/apt-install.log" \
		"apt-get install $*" apt-get install -y --no-install-recommends "$@"
}

[ $# -gt 0 ] || die "usage: lib/deps.sh build|qemu|check..."
want=""
for group in "$@"; do
	case $group in
	build) want="$want $pkgs_build" ;;
	qemu)  want="$want $pkgs_qemu" ;;
	check) want="$want $pkgs_check" ;;
	*) die "lib/deps.sh: unknown package group '$group' (build, qemu, check)" ;;
	esac
done
# shellcheck disable=SC2086
install_packages $want
