// SPDX-License-Identifier: GPL-2.0
/*
 * "Throttled, never killed": zswap shrinker writeback under iocost.
 *
 * A workload whose compressed memory is charged to its own small cgroup
 * depends on zswap writeback to stay under memory.max. When that writeback
 * is throttled by the cgroup IO controllers and a heavier sibling keeps the
 * same disk busy, the workload must become slower, not be OOM-killed: if
 * writeback lags so far behind that the pool fills memory.max, memcg
 * reclaim gives up and the OOM killer runs.
 *
 * Setup: iocost on the disk that holds the active swap area, a workload
 * cgroup (memory.max 32M, io.weight 100) and a sibling (io.weight 1000)
 * running several O_DIRECT random writers on the same disk. The workload
 * touches twice its memory.max of ~2:1 compressible data, twice.
 *
 * The sibling needs a target on the swap disk, from the environment:
 *   ZSWAP_SIBLING_DEV  a spare block device (e.g. partition) on that disk;
 *                      its content is overwritten.
 *   ZSWAP_SCRATCH      a directory on a filesystem on that disk; a 64M
 *                      unlinked scratch file is used.
 * Optional: ZSWAP_SIBLING_JOBS (8), ZSWAP_IOCOST_TIMEOUT (seconds, 150),
 * ZSWAP_IOCOST_QOS and ZSWAP_IOCOST_MODEL (io.cost.qos/model settings
 * without the MAJ:MIN prefix).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest.h"
#include "cgroup_util.h"
#include "zswap_util.h"

#define WL_MEM_MAX		ZS_MB(32)
#define WL_ALLOC		(2 * WL_MEM_MAX)
#define WL_WEIGHT		"100"
#define SIB_WEIGHT		"1000"
/* A pool over 3/4 of memory.max crowds the workload out: the OOM path. */
#define POOL_BOUND		(WL_MEM_MAX / 4 * 3)

/* Eight writers keep the disk busy; more take CPU from a 2 vCPU TCG guest. */
#define SIB_JOBS_DEFAULT	8
#define SIB_JOBS_MAX		16
#define SIB_BS			4096
#define SIB_FILE_SIZE		ZS_MB(64)
#define SIB_REGION_MAX		ZS_MB(1024)
#define SIB_WARMUP_MS		2000

/* Both passes take 90-130 s under contention on a 1G, 2 vCPU TCG guest. */
#define BOUND_S_DEFAULT		150
#define GRACE_MS		30000
#define DRAIN_MS		10000

#define PAGE_TAG		0x696f636f73747467ULL

/*
 * A user cost model a little slower than a virtio disk on a TCG guest, so
 * that iocost and not the device queue decides who gets the disk.
 */
#define QOS_DEFAULT	"enable=1 ctrl=user rpct=95.00 rlat=5000 wpct=95.00 wlat=5000 min=50.00 max=100.00"
#define MODEL_DEFAULT	"ctrl=user model=linear rbps=52428800 rseqiops=4000 rrandiops=2000 wbps=52428800 wseqiops=4000 wrandiops=2000"

static struct zs_env env;

struct disk {
	unsigned int maj;
	unsigned int min;
};

struct sibling {
	char desc[PATH_MAX + 32];
	int fd;
	unsigned long long region;
	int jobs;
};

/* Shared with the children. */
struct shared {
	long writes[SIB_JOBS_MAX];
	int err[SIB_JOBS_MAX];
	int bad_page;
};

struct sib_arg {
	struct shared *sh;
	int fd;
	int idx;
	unsigned long long region;
	uint64_t deadline_ms;
};

struct wl_arg {
	struct shared *sh;
	int to_parent;
	int from_parent;
	int unused[2];
	int exit_timeout_ms;
};

/* Maps a device number to its whole disk, where iocost is configured. */
static int whole_disk(dev_t dev, struct disk *d)
{
	char path[PATH_MAX], buf[32];
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/partition",
		 major(dev), minor(dev));
	if (!access(path, F_OK))
		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/../dev",
			 major(dev), minor(dev));
	else
		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/dev",
			 major(dev), minor(dev));

	n = zs_read_file(path, buf, sizeof(buf));
	if (n < 0)
		return n;
	if (sscanf(buf, "%u:%u", &d->maj, &d->min) != 2)
		return -EINVAL;
	return 0;
}

static int swap_disk(struct disk *d, dev_t *swapdev, char *why, size_t len)
{
	struct stat st;

	if (stat(env.swap_path, &st)) {
		snprintf(why, len, "cannot stat swap area %.256s", env.swap_path);
		return -1;
	}
	*swapdev = S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev;
	if (whole_disk(*swapdev, d)) {
		snprintf(why, len, "swap area %.256s is not on a block device",
			 env.swap_path);
		return -1;
	}
	return 0;
}

static bool same_disk(const struct disk *a, const struct disk *b)
{
	return a->maj == b->maj && a->min == b->min;
}

static int open_sibling_dev(const char *dev, const struct disk *sd,
			    dev_t swapdev, struct sibling *s, char *why,
			    size_t len)
{
	unsigned long long size = 0;
	struct disk d;
	struct stat st;

	if (stat(dev, &st) || !S_ISBLK(st.st_mode)) {
		snprintf(why, len, "ZSWAP_SIBLING_DEV=%s is not a block device",
			 dev);
		return -1;
	}
	if (st.st_rdev == swapdev) {
		snprintf(why, len, "ZSWAP_SIBLING_DEV=%s is the swap device", dev);
		return -1;
	}
	if (whole_disk(st.st_rdev, &d) || !same_disk(&d, sd)) {
		snprintf(why, len,
			 "ZSWAP_SIBLING_DEV=%s is on disk %u:%u, swap on %u:%u: contention would be meaningless",
			 dev, d.maj, d.min, sd->maj, sd->min);
		return -1;
	}

	/* O_EXCL fails on a mounted or swapped-on device: never clobber one. */
	s->fd = open(dev, O_RDWR | O_DIRECT | O_EXCL | O_CLOEXEC);
	if (s->fd < 0) {
		snprintf(why, len, "cannot open ZSWAP_SIBLING_DEV=%s exclusively: %s",
			 dev, strerror(errno));
		return -1;
	}
	if (ioctl(s->fd, BLKGETSIZE64, &size) || size < ZS_MB(16)) {
		snprintf(why, len, "ZSWAP_SIBLING_DEV=%s is smaller than 16M", dev);
		close(s->fd);
		return -1;
	}
	s->region = size < SIB_REGION_MAX ? size : SIB_REGION_MAX;
	snprintf(s->desc, sizeof(s->desc), "%s", dev);
	return 0;
}

static int open_scratch(const char *dir, const struct disk *sd,
			struct sibling *s, char *why, size_t len)
{
	char path[PATH_MAX];
	struct disk d;
	struct stat st;
	size_t off;
	void *buf;

	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		snprintf(why, len, "ZSWAP_SCRATCH=%s is not a directory", dir);
		return -1;
	}
	if (whole_disk(st.st_dev, &d) || !same_disk(&d, sd)) {
		snprintf(why, len,
			 "ZSWAP_SCRATCH=%s is not on the swap disk %u:%u: contention would be meaningless",
			 dir, sd->maj, sd->min);
		return -1;
	}

	snprintf(path, sizeof(path), "%s/zswap_sibling.%d", dir, getpid());
	s->fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_DIRECT | O_CLOEXEC,
		     0600);
	if (s->fd < 0) {
		snprintf(why, len, "cannot create an O_DIRECT file in %s: %s",
			 dir, strerror(errno));
		return -1;
	}
	/* Nothing to remove later, whatever happens to the test. */
	unlink(path);

	/* Allocate the blocks now, so that the writers write and do not allocate. */
	if (posix_memalign(&buf, ZS_MB(1), ZS_MB(1))) {
		close(s->fd);
		snprintf(why, len, "out of memory");
		return -1;
	}
	memset(buf, 0x5a, ZS_MB(1));
	for (off = 0; off < SIB_FILE_SIZE; off += ZS_MB(1)) {
		if (pwrite(s->fd, buf, ZS_MB(1), off) != (ssize_t)ZS_MB(1)) {
			snprintf(why, len, "cannot write the scratch file: %s",
				 strerror(errno));
			free(buf);
			close(s->fd);
			return -1;
		}
	}
	free(buf);
	fsync(s->fd);

	s->region = SIB_FILE_SIZE;
	snprintf(s->desc, sizeof(s->desc), "%s/<scratch file>", dir);
	return 0;
}

static int pick_sibling(const struct disk *sd, dev_t swapdev,
			struct sibling *s, char *why, size_t len)
{
	const char *dev = getenv("ZSWAP_SIBLING_DEV");
	const char *dir = getenv("ZSWAP_SCRATCH");
	const char *jobs = getenv("ZSWAP_SIBLING_JOBS");

	s->jobs = jobs ? atoi(jobs) : SIB_JOBS_DEFAULT;
	if (s->jobs < 1 || s->jobs > SIB_JOBS_MAX)
		s->jobs = SIB_JOBS_DEFAULT;

	if (dev && *dev)
		return open_sibling_dev(dev, sd, swapdev, s, why, len);
	if (dir && *dir)
		return open_scratch(dir, sd, s, why, len);

	snprintf(why, len,
		 "no sibling target on the swap disk %u:%u: set ZSWAP_SIBLING_DEV (spare block device) or ZSWAP_SCRATCH (directory)",
		 sd->maj, sd->min);
	return -1;
}

/* One random O_DIRECT writer of the sibling cgroup. */
static int sibling_fn(void *arg)
{
	struct sib_arg *a = arg;
	uint64_t nblocks = a->region / SIB_BS;
	uint64_t x = 0x9e3779b97f4a7c15ULL * (a->idx + 1);
	void *buf;
	off_t off;
	long n;

	/* Never outlive the test, whatever happens to it. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);

	if (posix_memalign(&buf, SIB_BS, SIB_BS))
		return 5;
	memset(buf, 0xa5 ^ a->idx, SIB_BS);

	for (n = 0;; n++) {
		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		off = (off_t)((x * 0x2545f4914f6cdd1dULL) % nblocks) * SIB_BS;
		if (pwrite(a->fd, buf, SIB_BS, off) != SIB_BS) {
			if (errno == EINTR)
				continue;
			a->sh->err[a->idx] = errno;
			return 5;
		}
		a->sh->writes[a->idx]++;
		if (!(n & 63) && zs_now_ms() > a->deadline_ms)
			return 0;
	}
}

/* Twice memory.max of ~2:1 compressible pages, written, then touched again. */
static int workload_fn(void *arg)
{
	struct wl_arg *a = arg;
	size_t i, npages = WL_ALLOC / env.page_size;
	uint64_t *tag;
	char *mem;
	int ret = 0;

	close(a->unused[0]);
	close(a->unused[1]);

	mem = mmap(NULL, WL_ALLOC, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return 3;
	madvise(mem, WL_ALLOC, MADV_NOHUGEPAGE);

	for (i = 0; i < npages; i++) {
		zs_fill_page(mem + i * env.page_size, env.page_size,
			     ZS_PAT_COMPRESSIBLE, i);
		tag = (uint64_t *)(mem + i * env.page_size);
		*tag = PAGE_TAG ^ i;
	}
	zs_send_msg(a->to_parent, 'P');

	for (i = 0; i < npages; i++) {
		tag = (uint64_t *)(mem + i * env.page_size);
		if (*tag != (PAGE_TAG ^ i)) {
			if (!ret)
				a->sh->bad_page = i;
			ret = 2;
		}
		*tag = PAGE_TAG ^ i;
	}
	zs_send_msg(a->to_parent, 'D');

	if (zs_wait_for_msg(a->from_parent, a->exit_timeout_ms) != 'X')
		return 4;
	return ret;
}

/* Finds "@key=<number>" in the @d line of @cg's io.stat. */
static long long io_stat(const char *cg, const struct disk *d, const char *key)
{
	char buf[4096], prefix[32], *line, *save, *p;
	size_t klen = strlen(key);

	if (cg_read(cg, "io.stat", buf, sizeof(buf)))
		return -1;
	snprintf(prefix, sizeof(prefix), "%u:%u ", d->maj, d->min);
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, prefix, strlen(prefix)))
			continue;
		for (p = strstr(line, key); p; p = strstr(p + 1, key))
			if (p[-1] == ' ' && p[klen] == '=')
				return strtoll(p + klen + 1, NULL, 10);
	}
	return -1;
}

/* Total memory stall in us from memory.pressure, -1 without PSI. */
static long long psi_full_total(const char *cg)
{
	char buf[512], *p;

	if (cg_read(cg, "memory.pressure", buf, sizeof(buf)))
		return -1;
	p = strstr(buf, "full ");
	if (p)
		p = strstr(p, "total=");
	return p ? strtoll(p + 6, NULL, 10) : -1;
}

/*
 * The restore value for an io.cost.qos/model line: the old line itself, or
 * "ctrl=auto" (with the old enable state), since writing back the numbers
 * the kernel computed would make them user settings.
 */
static void iocost_restore(const char *path, const struct disk *d,
			   bool qos, char *out, size_t len)
{
	char buf[4096], prefix[32], *line, *save;
	int enable = 0;

	snprintf(prefix, sizeof(prefix), "%u:%u ", d->maj, d->min);
	if (qos)
		snprintf(out, len, "%u:%u enable=0 ctrl=auto", d->maj, d->min);
	else
		snprintf(out, len, "%u:%u ctrl=auto", d->maj, d->min);

	if (zs_read_file(path, buf, sizeof(buf)) < 0)
		return;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, prefix, strlen(prefix)))
			continue;
		if (strstr(line, "ctrl=user")) {
			snprintf(out, len, "%s", line);
		} else if (qos) {
			if (strstr(line, "enable=1"))
				enable = 1;
			snprintf(out, len, "%u:%u enable=%d ctrl=auto",
				 d->maj, d->min, enable);
		}
		return;
	}
}

static int setup_iocost(const struct disk *d, char *why, size_t len)
{
	char qos_path[PATH_MAX + 16], model_path[PATH_MAX + 16];
	char val[ZS_VAL_LEN], restore[ZS_VAL_LEN];
	const char *qos = getenv("ZSWAP_IOCOST_QOS");
	const char *model = getenv("ZSWAP_IOCOST_MODEL");
	int ret;

	snprintf(qos_path, sizeof(qos_path), "%s/io.cost.qos", env.cgroot);
	snprintf(model_path, sizeof(model_path), "%s/io.cost.model", env.cgroot);
	if (access(qos_path, F_OK) || access(model_path, F_OK)) {
		snprintf(why, len, "no io.cost.qos (CONFIG_BLK_CGROUP_IOCOST)");
		return -1;
	}

	iocost_restore(qos_path, d, true, restore, sizeof(restore));
	snprintf(val, sizeof(val), "%u:%u %s", d->maj, d->min,
		 qos && *qos ? qos : QOS_DEFAULT);
	ret = zs_knob_set_restore(qos_path, val, restore);
	if (ret) {
		snprintf(why, len, "cannot enable iocost on %u:%u (\"%s\"): %s",
			 d->maj, d->min, val, strerror(-ret));
		return -1;
	}

	iocost_restore(model_path, d, false, restore, sizeof(restore));
	snprintf(val, sizeof(val), "%u:%u %s", d->maj, d->min,
		 model && *model ? model : MODEL_DEFAULT);
	ret = zs_knob_set_restore(model_path, val, restore);
	if (ret) {
		snprintf(why, len, "cannot set the iocost model (\"%s\"): %s",
			 val, strerror(-ret));
		return -1;
	}
	return 0;
}

static int enable_io_controller(char *why, size_t len)
{
	char path[PATH_MAX + 32];

	if (cg_read_strstr(env.cgroot, "cgroup.controllers", "io")) {
		snprintf(why, len, "io controller is not available");
		return -1;
	}
	if (!cg_read_strstr(env.cgroot, "cgroup.subtree_control", "io"))
		return 0;
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", env.cgroot);
	if (zs_knob_set_restore(path, "+io", "-io")) {
		snprintf(why, len, "cannot enable the io controller");
		return -1;
	}
	return 0;
}

/*
 * A writer may sit in an iocost wait, which SIGKILL does not cut short:
 * give all of them one shared, bounded time to go.
 */
static void stop_siblings(const char *cg, pid_t *pids, int n)
{
	uint64_t end = zs_now_ms() + 15000;
	int i, status;

	cg_killall(cg);
	for (i = 0; i < n; i++)
		if (pids[i] > 0)
			kill(pids[i], SIGKILL);
	for (i = 0; i < n; i++) {
		if (pids[i] <= 0)
			continue;
		zs_wait_for_exit(pids[i], &status,
				 end > zs_now_ms() ? end - zs_now_ms() : 0);
		pids[i] = 0;
	}
}

static long sibling_writes(const struct shared *sh, int jobs)
{
	long sum = 0;
	int i;

	for (i = 0; i < jobs; i++)
		sum += sh->writes[i];
	return sum;
}

static int test_iocost_sibling(char *why, size_t len)
{
	long long wb0, wb1, gwb0, gwb1, out1, in1, ooms, pool = -1, peak = 0;
	pid_t sib_pids[SIB_JOBS_MAX] = { 0 }, wl_pid = -1;
	int ret = KSFT_SKIP, msg, i, rd = -1, wr = -1, status = 0;
	uint64_t t0, t_fill = 0, t_done = 0, t_sib0, t_w0 = 0, t_sib1 = 0, end;
	bool sib_running = false, late = false;
	struct sibling sib = { .fd = -1 };
	char *wl = NULL, *sc = NULL;
	struct wl_arg wa = { 0 };
	struct sib_arg sa[SIB_JOBS_MAX];
	long writes0 = 0, writes1 = 0;
	int c2p[2], p2c[2], bound_s;
	const char *bound_env;
	struct shared *sh;
	struct disk disk;
	dev_t swapdev;

	bound_env = getenv("ZSWAP_IOCOST_TIMEOUT");
	bound_s = bound_env ? atoi(bound_env) : BOUND_S_DEFAULT;
	if (bound_s <= 0)
		bound_s = BOUND_S_DEFAULT;

	if (env.swap_prio_tie) {
		snprintf(why, len,
			 "two swap areas share the top priority: which disk gets writeback is unclear");
		return KSFT_SKIP;
	}
	if (swap_disk(&disk, &swapdev, why, len))
		return KSFT_SKIP;
	if (pick_sibling(&disk, swapdev, &sib, why, len))
		return KSFT_SKIP;
	if (enable_io_controller(why, len) || setup_iocost(&disk, why, len))
		goto out;

	/* Without it io.stat has no cost.wait/indebt/indelay; not fatal. */
	if (!access("/sys/module/blk_cgroup/parameters/blkcg_debug_stats", F_OK))
		zs_knob_set("/sys/module/blk_cgroup/parameters/blkcg_debug_stats",
			    "Y");
	if (zs_param_set("shrinker_enabled", "Y")) {
		snprintf(why, len, "cannot enable the zswap shrinker");
		goto out;
	}

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		snprintf(why, len, "mmap: %s", strerror(errno));
		goto out;
	}
	memset(sh, 0, sizeof(*sh));

	/* From here on, anything that goes wrong is a failure. */
	ret = KSFT_FAIL;
	wl = zs_cg_create(env.cgroot, "zswap_iocost_workload");
	sc = zs_cg_create(env.cgroot, "zswap_iocost_sibling");
	if (!wl || !sc) {
		snprintf(why, len, "cannot create cgroups under %.256s", env.cgroot);
		goto out_unmap;
	}
	if (cg_write_numeric(wl, "memory.max", WL_MEM_MAX) ||
	    cg_write(wl, "io.weight", WL_WEIGHT) ||
	    cg_write(sc, "io.weight", SIB_WEIGHT)) {
		snprintf(why, len, "cannot set memory.max/io.weight");
		goto out_unmap;
	}

	/* The sibling first, so that the disk is contended from the start. */
	t_sib0 = zs_now_ms();
	for (i = 0; i < sib.jobs; i++) {
		sa[i] = (struct sib_arg) {
			.sh = sh, .fd = sib.fd, .idx = i, .region = sib.region,
			.deadline_ms = t_sib0 + (bound_s + 120) * 1000ULL,
		};
		sib_pids[i] = zs_cg_spawn(sc, sibling_fn, &sa[i]);
		if (sib_pids[i] < 0) {
			snprintf(why, len, "cannot start the sibling writers");
			goto out_stop;
		}
	}
	sib_running = true;
	zs_sleep_ms(SIB_WARMUP_MS);
	for (i = 0; i < sib.jobs; i++) {
		if (sh->err[i] || waitpid(sib_pids[i], &status, WNOHANG)) {
			snprintf(why, len, "sibling writer on %.256s failed: %s",
				 sib.desc, strerror(sh->err[i]));
			ret = KSFT_SKIP;
			goto out_stop;
		}
	}
	writes0 = sibling_writes(sh, sib.jobs);
	t_w0 = zs_now_ms();

	wb0 = zs_memstat_or(wl, "zswpwb", 0);
	gwb0 = zs_debugfs_or("written_back_pages", 0);

	if (pipe(c2p) || pipe(p2c)) {
		snprintf(why, len, "pipe: %s", strerror(errno));
		goto out_stop;
	}
	wa.sh = sh;
	wa.to_parent = c2p[1];
	wa.from_parent = p2c[0];
	wa.unused[0] = c2p[0];
	wa.unused[1] = p2c[1];
	wa.exit_timeout_ms = (bound_s + 60) * 1000;
	t0 = zs_now_ms();
	wl_pid = zs_cg_spawn(wl, workload_fn, &wa);
	close(c2p[1]);
	close(p2c[0]);
	rd = c2p[0];
	wr = p2c[1];
	if (wl_pid < 0) {
		snprintf(why, len, "cannot start the workload");
		goto out_stop;
	}

	/*
	 * Wait for both passes within the bound. Past it, stop the sibling
	 * and allow a grace period: a workload that was only slow is still
	 * "throttled, not killed"; one that never finishes is stuck.
	 */
	end = t0 + bound_s * 1000ULL;
	for (;;) {
		msg = zs_wait_for_msg(rd, 100);
		if (!zs_cg_ll(wl, "memory.zswap.current", &pool) && pool > peak)
			peak = pool;
		if (msg == 'P') {
			t_fill = zs_now_ms();
			continue;
		}
		if (msg == 'D') {
			t_done = zs_now_ms();
			break;
		}
		if (msg != -ETIMEDOUT)
			break;
		if (zs_now_ms() < end)
			continue;
		if (late)
			break;
		late = true;
		writes1 = sibling_writes(sh, sib.jobs);
		t_sib1 = zs_now_ms();
		stop_siblings(sc, sib_pids, sib.jobs);
		sib_running = false;
		end = zs_now_ms() + GRACE_MS;
	}

	if (t_done) {
		/* Give the pool a moment to settle under the bound. */
		end = zs_now_ms() + DRAIN_MS;
		while (!zs_cg_ll(wl, "memory.zswap.current", &pool) &&
		       pool > (long long)POOL_BOUND && zs_now_ms() < end)
			zs_sleep_ms(100);
	}

	if (sib_running) {
		writes1 = sibling_writes(sh, sib.jobs);
		t_sib1 = zs_now_ms();
	}
	wb1 = zs_memstat_or(wl, "zswpwb", -1);
	out1 = zs_memstat_or(wl, "zswpout", -1);
	in1 = zs_memstat_or(wl, "zswpin", -1);
	gwb1 = zs_debugfs_or("written_back_pages", -1);
	ooms = -1;
	zs_cg_key(wl, "memory.events", "oom_kill", &ooms);

	ksft_print_msg("disk %u:%u, sibling %d x 4K random O_DIRECT writers on %s: %.0f IOPS\n",
		       disk.maj, disk.min, sib.jobs, sib.desc,
		       t_sib1 > t_w0 ? (writes1 - writes0) * 1000.0 /
					(t_sib1 - t_w0) : 0.0);
	ksft_print_msg("workload: fill %.1f s, both passes %.1f s%s (bound %d s)\n",
		       t_fill ? (t_fill - t0) / 1000.0 : -1.0,
		       t_done ? (t_done - t0) / 1000.0 : -1.0,
		       late && t_done ? ", finished after the sibling stopped" : "",
		       bound_s);
	ksft_print_msg("workload io.stat: wbytes %lld rbytes %lld cost.usage %lld us\n",
		       io_stat(wl, &disk, "wbytes"), io_stat(wl, &disk, "rbytes"),
		       io_stat(wl, &disk, "cost.usage"));
	ksft_print_msg("workload io.stat: cost.wait %lld cost.indebt %lld cost.indelay %lld us\n",
		       io_stat(wl, &disk, "cost.wait"),
		       io_stat(wl, &disk, "cost.indebt"),
		       io_stat(wl, &disk, "cost.indelay"));
	ksft_print_msg("workload memory.stat: zswpout %lld zswpin %lld zswpwb +%lld\n",
		       out1, in1, wb1 - wb0);
	ksft_print_msg("workload zswap.current: peak %lld, end %lld; memory full stall %lld us\n",
		       peak, pool, psi_full_total(wl));
	ksft_print_msg("global written_back_pages: +%lld\n", gwb1 - gwb0);

	zs_send_msg(wr, 'X');
	/* Exiting frees ~100M of swap slots: slow on TCG, but bounded. */
	if (zs_wait_for_exit(wl_pid, &status, 20000)) {
		kill(wl_pid, SIGKILL);
		zs_wait_for_exit(wl_pid, &status, 5000);
	}
	wl_pid = -1;

	why[0] = '\0';
	if (ooms != 0 || !WIFEXITED(status) ||
	    (WEXITSTATUS(status) && WEXITSTATUS(status) != 2)) {
		snprintf(why, len,
			 "workload %s: oom_kill %lld, status 0x%x; expected no OOM kill and exit 0",
			 WIFSIGNALED(status) ? "killed" : "failed", ooms, status);
	} else if (WEXITSTATUS(status) == 2) {
		snprintf(why, len,
			 "workload page %d read back with a wrong tag, expected intact data",
			 sh->bad_page);
	} else if (!t_done) {
		snprintf(why, len,
			 "workload did not finish its passes in %d s (+%d s without the sibling), expected progress",
			 bound_s, GRACE_MS / 1000);
	} else if (wb1 - wb0 <= 0) {
		snprintf(why, len, "zswpwb rose by %lld, expected > 0", wb1 - wb0);
	} else if (pool > (long long)POOL_BOUND) {
		snprintf(why, len,
			 "memory.zswap.current %lld at the end, expected <= %lld (3/4 of memory.max)",
			 pool, (long long)POOL_BOUND);
	}
	ret = why[0] ? KSFT_FAIL : KSFT_PASS;

out_stop:
	if (sib_running)
		stop_siblings(sc, sib_pids, sib.jobs);
	if (wl_pid > 0 && waitpid(wl_pid, &status, WNOHANG) == 0) {
		kill(wl_pid, SIGKILL);
		zs_wait_for_exit(wl_pid, &status, 5000);
	}
	if (rd >= 0)
		close(rd);
	if (wr >= 0)
		close(wr);
out_unmap:
	munmap(sh, sizeof(*sh));
out:
	zs_cg_destroy(wl, 10000);
	zs_cg_destroy(sc, 10000);
	free(wl);
	free(sc);
	if (sib.fd >= 0)
		close(sib.fd);
	return ret;
}

int main(void)
{
	char why[512] = "";
	int ret;

	ksft_print_header();
	/* The workload swaps out up to ~2x its 32M memory.max. */
	zs_setup(&env, 128 * 1024);

	ksft_set_plan(1);
	ret = test_iocost_sibling(why, sizeof(why));
	if (ret == KSFT_PASS) {
		ksft_test_result_pass("iocost_sibling_throttled_not_killed\n");
	} else if (ret == KSFT_SKIP) {
		ksft_test_result_skip("iocost_sibling_throttled_not_killed: %s\n",
				      why);
	} else {
		ksft_print_msg("%s\n", why);
		ksft_test_result_fail("iocost_sibling_throttled_not_killed\n");
	}

	ksft_finished();
}
