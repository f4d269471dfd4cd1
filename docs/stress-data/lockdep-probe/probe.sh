#!/bin/sh
# Two cgroup writes of stock 7.3.4's block layer, nothing of zswap:
# io.cost.qos (freezes the queue, then takes rq_qos_mutex) and the first
# io.max of the disk (blk_throtl_init() allocates with GFP_KERNEL under
# rq_qos_mutex). Prints the kernel's lockdep report, if any.
mountpoint -q /sys/fs/cgroup || mount -t cgroup2 none /sys/fs/cgroup
dev=$(cat /sys/block/vda/dev)
echo "probe: kernel $(uname -r) $(uname -v); disk vda $dev"
echo +io > /sys/fs/cgroup/cgroup.subtree_control
echo "probe: io.cost.qos enable=1"
echo "$dev enable=1" > /sys/fs/cgroup/io.cost.qos
mkdir -p /sys/fs/cgroup/lockprobe
echo "probe: io.max wiops=1000 in a new cgroup"
echo "$dev wiops=1000" > /sys/fs/cgroup/lockprobe/io.max
cat /sys/fs/cgroup/lockprobe/io.max
if dmesg | grep -q 'possible circular locking dependency'; then
	dmesg | sed -n '/possible circular locking dependency/,/stack backtrace/p'
	echo "probe: lockdep report: yes"
else
	echo "probe: lockdep report: no"
fi
grep -i 'debug_locks\|lockdep' /proc/lockdep_stats 2>/dev/null | head -3
