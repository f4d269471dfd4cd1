# SPDX-License-Identifier: GPL-2.0
# Guest kernels for the VM runners (selftests, benchmark). Sourced.
#
#   guest_kernel TREE GDIR ARCH BASECONFIG FRAGMENT...
#       configure (base + fragments in order, olddefconfig, only when the
#       inputs changed) and build the guest kernel of TREE in GDIR with
#       ccache, under nice -n 10; every option of each FRAGMENT must
#       survive olddefconfig ("# CONFIG_X is not set" too).
#   guest_image GDIR ARCH
#       the bootable image built there.
#   stock_tree
#       a worktree of build/linux at the pristine base (v7.3.4-base), for
#       guests that run the unpatched kernel; prints its path.
#
# One GDIR belongs to one source tree (kbuild's O= records it): give the
# stock kernel its own GDIR.

# guest_config TREE GDIR ARCH BASECONFIG FRAGMENT...
guest_config() {
	local tree=$1 gdir=$2 arch=$3 base=$4
	local want=$gdir/config.inputs missing="" fragment
	shift 4
	mkdir -p "$gdir"
	cat "$base" "$@" >"$want.new"
	if ! cmp -s "$want.new" "$want" || [ ! -f "$gdir/.config" ]; then
		cp "$want.new" "$gdir/.config"
		run_logged "$LOGS/guest-olddefconfig-${gdir##*/}.log" "guest olddefconfig" \
			make -C "$tree" ARCH="$arch" O="$gdir" CC="ccache gcc" olddefconfig
		mv "$want.new" "$want"
	fi
	rm -f "$want.new"
	for fragment in "$@"; do
		missing=$(fragment_missing "$gdir/.config" "$arch" "$fragment")
		[ -z "$missing" ] || die "options of $fragment did not survive olddefconfig:$missing"
	done
}

# fragment_missing CONFIG ARCH FRAGMENT: the options of FRAGMENT that
# CONFIG does not have as FRAGMENT sets them (=value, or "is not set").
fragment_missing() {
	local config=$1 arch=$2 fragment=$3 line name
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*) name=${line%%=*} ;;
		"# CONFIG_"*" is not set") name=${line#\# }; name=${name%% *} ;;
		*) continue ;;
		esac
		# UML has no PCI: virtio is the QEMU guest's disk transport, ubd
		# stands in for it there. Nor has it ARCH_HAVE_NMI_SAFE_CMPXCHG,
		# which hist triggers need: the deferral case skips there.
		case $arch:$name in um:CONFIG_VIRTIO_*|um:CONFIG_HIST_TRIGGERS) continue ;; esac
		case $line in
		CONFIG_*) grep -qxF "$line" "$config" || printf ' %s' "$name" ;;
		*) ! grep -q "^$name=" "$config" || printf ' %s' "$name" ;;
		esac
	done <"$fragment"
}

# guest_image GDIR ARCH
guest_image() {
	if [ "$2" = um ]; then
		echo "$1/linux"
	else
		echo "$1/arch/x86/boot/bzImage"
	fi
}

# guest_kernel TREE GDIR ARCH BASECONFIG FRAGMENT...
guest_kernel() {
	local tree=$1 gdir=$2 arch=$3 target=bzImage
	[ "$arch" = um ] && target=linux
	guest_config "$@"
	log "building the guest kernel ($arch) of ${tree#"$ROOT"/} in ${gdir#"$ROOT"/} (about 7 min cold)"
	# named by the build dir under build/, so that two trees' logs differ
	local name=${gdir#"$BUILD"/}
	run_logged "$LOGS/guest-build-${name//\//-}.log" "guest kernel build" \
		nice -n 10 make -C "$tree" ARCH="$arch" O="$gdir" CC="ccache gcc" -j"$(jobs)" "$target"
}

# stock_tree: build/stock/linux, a detached worktree at the base tag.
stock_tree() {
	local dir=$BUILD/stock/linux
	git -C "$TREE" rev-parse -q --verify "refs/tags/$BASE_TAG" >/dev/null ||
		die "build/linux has no $BASE_TAG: run make tree first"
	if [ ! -e "$dir/.git" ]; then
		mkdir -p "${dir%/*}"
		git -C "$TREE" worktree prune
		run_logged "$LOGS/stock-tree.log" "stock worktree" \
			git -C "$TREE" worktree add --detach "$dir" "$BASE_TAG"
	elif [ "$(git -C "$dir" rev-parse HEAD)" != "$(git -C "$TREE" rev-parse "$BASE_TAG^{commit}")" ]; then
		run_logged "$LOGS/stock-tree.log" "stock worktree reset" \
			git -C "$dir" checkout -q --detach "$BASE_TAG"
	fi
	echo "$dir"
}
