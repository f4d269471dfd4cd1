#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Get the pinned base: Debian's linux-source-7.3 7.3.4-1~bpo13+1.
# Prints the path of the verified .deb on stdout.
#
# From ../shared/kernel/ when present, else downloaded with apt through a
# private sources list for trixie-backports (the system's sources are never
# touched). Either way the sha256 must match; any other version is refused.
set -euo pipefail
. "$(dirname "$0")/common.sh"

SUITE=trixie-backports
DEB_CACHE=$BUILD/deb

verify_deb() {
	local deb=$1 sum
	sum=$(sha256sum "$deb" | cut -d' ' -f1)
	[ "$sum" = "$BASE_SHA256" ] ||
		die "$deb: sha256 $sum, expected $BASE_SHA256: refusing to build on it"
}

download_deb() {
	local versions
	mkdir -p "$DEB_CACHE"
	log "downloading $BASE_PKG=$BASE_PKG_VERSION from $(debian_mirror) $SUITE (private sources list)"
	private_apt_update "$SUITE"
	versions=$(private_apt "$SUITE" apt-cache madison "$BASE_PKG" 2>/dev/null |
		awk -F'|' '{gsub(/ /,"",$2); print $2}')
	if ! grep -qxF "$BASE_PKG_VERSION" <<<"$versions"; then
		die "$BASE_PKG $BASE_PKG_VERSION is not in $SUITE any more; available: ${versions:-none}. Not building on another base."
	fi
	(cd "$DEB_CACHE" && run_logged "$LOGS/apt-download.log" "apt-get download $BASE_PKG" \
		private_apt "$SUITE" apt-get download "$BASE_PKG=$BASE_PKG_VERSION")
}

find_deb() {
	local shared=$SHARED/kernel/$BASE_DEB cached=$DEB_CACHE/$BASE_DEB
	if [ -f "$shared" ]; then
		echo "$shared"
	elif [ -f "$cached" ]; then
		echo "$cached"
	else
		download_deb >&2
		# apt-get download escapes ':' and '~' differently across versions
		ls "$DEB_CACHE"/"${BASE_PKG}"_*7.3.4-1*bpo13+1_all.deb 2>/dev/null | head -n1
	fi
}

deb=$(find_deb)
[ -n "$deb" ] && [ -f "$deb" ] || die "could not get $BASE_DEB"
verify_deb "$deb"
echo "$deb"
