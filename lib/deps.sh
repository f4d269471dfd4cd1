#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages a target needs: lib/deps.sh GROUP...
#   build   - building kernels (UML and x86_64) with ccache
#   qemu    - running x86_64 kernels under QEMU
#   check   - the extra tools of `make check` (sparse, checkpatch's python,
#             b4 for the b4 gate)
#   vm      - the selftest VM: QEMU, udev and virtme-ng (vng); virtme-ng
#             1.35 comes from Debian trixie through a private sources list
#             (Architecture: all, its dependencies from this system's suite)
#   bench   - the benchmark: fio (the IO sibling, run in the guest from the
#             host root), gnuplot for the figures, gcc for bench/ and the
#             compile workload, procps (pkill in bench/compile.sh)
#   oltp    - the OLTP workload: MariaDB's server and client cores (no
#             service: neither package has an init script) and sysbench
# Only missing packages are installed; apt-get update runs first, once.
set -euo pipefail
. "$(dirname "$0")/common.sh"

pkgs_build="build-essential bc bison flex libelf-dev libssl-dev ccache git
	xz-utils python3 perl rsync cpio kmod"
pkgs_qemu="qemu-system-x86 qemu-system-data"
# checkpatch runs spdxcheck.py; lib/b4.sh has b4 read the series
pkgs_check="sparse python3-ply python3-git b4"
# vng's command channel needs udev on the host ("cannot find script I/O ports")
pkgs_vm="qemu-system-x86 qemu-system-data udev fdisk file kmod python3-argcomplete
	python3-pkg-resources python3-requests e2fsprogs iproute2"
pkgs_bench="fio gnuplot-nox build-essential python3 procps"
pkgs_oltp="mariadb-server-core mariadb-client-core sysbench e2fsprogs"
VNG_SUITE=trixie
VNG_VERSION=1.35

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
	# Another checkout's make may hold dpkg's lock: wait for it, bounded.
	run_logged "$LOGS/apt-update.log" "apt-get update" \
		apt-get -o DPkg::Lock::Timeout=600 update
	DEBIAN_FRONTEND=noninteractive run_logged "$LOGS/apt-install.log" \
		"apt-get install $*" apt-get -o DPkg::Lock::Timeout=600 install -y \
		--no-install-recommends "$@"
}

# install_virtme_ng: vng from trixie, unless a vng of that version is there.
install_virtme_ng() {
	local dir=$BUILD/apt/$VNG_SUITE/debs
	if command -v vng >/dev/null 2>&1 && dpkg-query -W -f='${Version}' virtme-ng 2>/dev/null |
		grep -q "^$VNG_VERSION"; then
		return 0
	fi
	[ "$(id -u)" -eq 0 ] || die "virtme-ng is missing; installing it needs root"
	log "installing virtme-ng $VNG_VERSION from Debian $VNG_SUITE (private sources list)"
	private_apt_update "$VNG_SUITE"
	rm -rf "$dir" && mkdir -p "$dir"
	(cd "$dir" && run_logged "$LOGS/apt-download-vng.log" "apt-get download virtme-ng" \
		private_apt "$VNG_SUITE" apt-get download virtme-ng)
	run_logged "$LOGS/dpkg-vng.log" "dpkg -i virtme-ng" dpkg -i "$dir"/virtme-ng_*.deb
	command -v vng >/dev/null 2>&1 || die "virtme-ng installed but vng is not on PATH"
}

[ $# -gt 0 ] || die "usage: lib/deps.sh build|qemu|check|vm|bench|oltp..."
want="" vm=0
for group in "$@"; do
	case $group in
	build) want="$want $pkgs_build" ;;
	qemu)  want="$want $pkgs_qemu" ;;
	check) want="$want $pkgs_check" ;;
	vm)    want="$want $pkgs_vm"; vm=1 ;;
	bench) want="$want $pkgs_bench" ;;
	oltp)  want="$want $pkgs_oltp" ;;
	*) die "lib/deps.sh: unknown package group '$group' (build, qemu, check, vm, bench, oltp)" ;;
	esac
done
# shellcheck disable=SC2086
install_packages $want
[ "$vm" = 0 ] || install_virtme_ng
