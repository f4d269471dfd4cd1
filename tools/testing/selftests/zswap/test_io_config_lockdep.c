// SPDX-License-Identifier: GPL-2.0
/*
 * The block cgroup configuration writes that the zswap tests make do not
 * make lockdep report a lock order cycle.
 *
 *   iocost_then_first_io_max: on a new loop device (so that its io.max is
 *     the disk's first, whatever ran before in this boot), iocost is
 *     enabled (io.cost.qos freezes the queue, then takes rq_qos_mutex) and
 *     a new cgroup's io.max is set (its first write sets up blk-throttle
 *     for the disk, allocating under rq_qos_mutex). On 7.3.4 lockdep
 *     reports fs_reclaim -> q_usage_counter(io) -> rq_qos_mutex and turns
 *     itself off; the case fails when lockdep is off after the writes. It
 *     needs lockdep (the debug guest of make stress): without it, the
 *     program is skipped before its plan.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "kselftest.h"
#include "cgroup_util.h"
#include "zswap_util.h"

#define LOCKDEP_STATS	"/proc/lockdep_stats"
#define LOOP_SIZE	(64LL << 20)

static struct zs_env env;
static int loop_fd = -1;
static char backing[PATH_MAX];
static bool backing_made;

#define DEBUG_LOCKS	"debug_locks:"

/* lockdep's debug_locks: 1 while it checks, 0 after a report; -1 if absent */
static int lockdep_on(void)
{
	char buf[8192], *p;

	if (zs_read_file(LOCKDEP_STATS, buf, sizeof(buf)) < 0)
		return -1;
	p = strstr(buf, DEBUG_LOCKS);
	return p ? (int)strtol(p + strlen(DEBUG_LOCKS), NULL, 10) : -1;
}

static void loop_detach(void)
{
	if (loop_fd >= 0) {
		ioctl(loop_fd, LOOP_CLR_FD, 0);
		close(loop_fd);
		loop_fd = -1;
	}
	if (backing_made) {
		unlink(backing);
		backing_made = false;
	}
}

/* Attaches a new loop device over a sparse file; its numbers go in @d. */
static int loop_attach(struct zs_disk *d, char *why, size_t len)
{
	char dev[32];
	struct stat st;
	int ctl, nr, fd;

	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0) {
		snprintf(why, len, "no /dev/loop-control (CONFIG_BLK_DEV_LOOP): %s",
			 strerror(errno));
		return KSFT_SKIP;
	}
	nr = ioctl(ctl, LOOP_CTL_GET_FREE);
	close(ctl);
	snprintf(backing, sizeof(backing), "/tmp/zswap_io_config.XXXXXX");
	fd = mkstemp(backing);
	if (nr < 0 || fd < 0) {
		snprintf(why, len, "no free loop device or backing file: %s",
			 strerror(errno));
		if (fd >= 0)
			close(fd);
		return KSFT_FAIL;
	}
	backing_made = true;
	zs_on_cleanup(loop_detach);
	snprintf(dev, sizeof(dev), "/dev/loop%d", nr);
	loop_fd = open(dev, O_RDWR | O_CLOEXEC);
	if (ftruncate(fd, LOOP_SIZE) || loop_fd < 0 ||
	    ioctl(loop_fd, LOOP_SET_FD, fd) || fstat(loop_fd, &st)) {
		snprintf(why, len, "cannot attach %s to %.200s: %s", dev, backing,
			 strerror(errno));
		close(fd);
		return KSFT_FAIL;
	}
	close(fd);
	d->maj = major(st.st_rdev);
	d->min = minor(st.st_rdev);
	return KSFT_PASS;
}

static int iocost_then_first_io_max(char *why, size_t len)
{
	char path[PATH_MAX + 32], val[64], buf[256];
	struct zs_disk d = {};
	int ret, locks;
	char *cg;

	ret = loop_attach(&d, why, len);
	if (ret != KSFT_PASS)
		return ret;
	if (zs_io_controller_enable(&env)) {
		snprintf(why, len, "cannot enable the io controller for %.200s's children",
			 env.cgroot);
		return KSFT_SKIP;
	}
	snprintf(path, sizeof(path), "%s/io.cost.qos", env.cgroot);
	snprintf(val, sizeof(val), "%u:%u enable=1", d.maj, d.min);
	if (zs_write_file(path, val)) {
		snprintf(why, len, "cannot write \"%s\" to io.cost.qos (CONFIG_BLK_CGROUP_IOCOST)",
			 val);
		return KSFT_SKIP;
	}
	cg = zs_cg_create(env.cgroot, "zswap_io_config");
	if (!cg) {
		snprintf(why, len, "cannot create a cgroup");
		return KSFT_FAIL;
	}
	snprintf(val, sizeof(val), "%u:%u wiops=1000", d.maj, d.min);
	ret = cg_write(cg, "io.max", val);
	if (ret || cg_read(cg, "io.max", buf, sizeof(buf)) || !strstr(buf, "wiops=1000")) {
		snprintf(why, len, "io.max \"%s\" did not take (CONFIG_BLK_DEV_THROTTLING)", val);
		return KSFT_FAIL;
	}

	locks = lockdep_on();
	ksft_print_msg("%s: loop %u:%u, lockdep's debug_locks %d after the writes\n",
		       __func__, d.maj, d.min, locks);
	snprintf(val, sizeof(val), "%u:%u enable=0", d.maj, d.min);
	zs_write_file(path, val);
	zs_cg_destroy(cg, 5000);
	loop_detach();
	if (locks != 1) {
		snprintf(why, len,
			 "lockdep turned itself off during the two writes: its report is in dmesg");
		return KSFT_FAIL;
	}
	return KSFT_PASS;
}

int main(void)
{
	char why[512];

	ksft_print_header();
	zs_setup(&env, 0);
	if (lockdep_on() < 0)
		ksft_exit_skip("no %s: lockdep is not built in (CONFIG_PROVE_LOCKING)\n",
			       LOCKDEP_STATS);
	if (lockdep_on() != 1)
		ksft_exit_skip("lockdep is already off in this boot: an earlier report\n");
	ksft_set_plan(1);

	snprintf(why, sizeof(why), ZS_NOT_RUN);
	zs_report(iocost_then_first_io_max(why, sizeof(why)),
		  "iocost_then_first_io_max", why);
	ksft_finished();
}
