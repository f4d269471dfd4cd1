# SPDX-License-Identifier: GPL-2.0
# Hardware acceleration for QEMU guests. Sourced.
#
# /dev/kvm can exist and still be unusable: on these hosts it is a PVM
# hypervisor on which a normal kernel hangs in early boot. So KVM is used
# only after a probe boot of the kernel about to run reaches its panic
# (no root fs) within a short time. KVM=1 or KVM=0 skips the probe.

KVM_PROBE_SECONDS=${KVM_PROBE_SECONDS:-30}

# kvm_usable BZIMAGE: succeed when BZIMAGE boots under -accel kvm.
kvm_usable() {
	local bz=$1 cache=$BUILD/kvm-usable out
	case ${KVM:-auto} in
	1) return 0 ;;
	0) return 1 ;;
	auto) ;;
	*) die "KVM=${KVM} is not understood: use KVM=1, KVM=0 or leave it unset" ;;
	esac
	[ -r /dev/kvm ] && [ -w /dev/kvm ] || return 1
	if [ -f "$cache" ]; then
		[ "$(cat "$cache")" = yes ]
		return
	fi
	log "probing whether KVM can boot our kernel (up to ${KVM_PROBE_SECONDS} s)"
	out=$(timeout "$KVM_PROBE_SECONDS" qemu-system-x86_64 -accel kvm -m 256 \
		-nographic -no-reboot -kernel "$bz" \
		-append "console=ttyS0 panic=-1 kunit.enable=0" </dev/null 2>&1 || true)
	if grep -q "Kernel panic" <<<"$out"; then
		echo yes >"$cache"
		return 0
	fi
	echo no >"$cache"
	return 1
}

# without_kvm CMD...: run CMD where /dev/kvm cannot be opened, so that a
# QEMU started by CMD (kunit.py insists on trying -accel kvm first) falls
# back to TCG. A private mount namespace keeps the host's node untouched.
without_kvm() {
	if [ ! -e /dev/kvm ]; then
		"$@"
		return
	fi
	[ "$(id -u)" -eq 0 ] || die "hiding an unusable /dev/kvm needs root (unshare -m); run as root or set KVM=1"
	unshare -m --propagation private sh -c 'mount --bind /dev/null /dev/kvm && exec "$@"' sh "$@"
}
