// SPDX-License-Identifier: GPL-2.0
/*
 * No priority inversion through zswap writeback.
 *
 * Swap IO is issued as root (bio_issue_as_root_blkg()) so that nothing
 * that waits on a folio under writeback, nor anyone outside the cgroup,
 * ever waits on one cgroup's IO budget. Zswap shrinker writeback that is
 * throttled in its cgroup breaks that: the folios it writes stay under
 * writeback for as long as the cgroup's controller holds their bio. Each
 * case puts a workload cgroup A at memory.max with a tiny io.max on the
 * swap disk (A_IO_MAX), waits until its zswap writeback is under way, and
 * then times someone who is not A:
 *
 *   other_cgroup_own_pace: a cgroup B with no IO limit, at its own
 *     memory.max, makes its passes beside A within twice the time they
 *     take alone (plus a margin), writes back, and none of B's tasks
 *     sleeps in an IO budget or in a wait of zswap's own (the worker, a
 *     cap on throttled bios).
 *   tmpfs_reader_bounded: a task of another cgroup reads a tmpfs file
 *     whose pages A swapped out: no read takes longer than 1 s, and it
 *     never sleeps in an IO budget or a wait of zswap's own.
 *   kswapd_not_throttled: under global memory pressure, kswapd never
 *     sleeps in an IO budget or a wait of zswap's own, and is throttled
 *     on writeback (reclaim_throttle()) for at most a tenth of the time.
 *   swapoff_bounded: swapoff of the swap area, while a sibling keeps
 *     writing to the same disk, takes at most 10 s plus 1 s per MiB in
 *     use on the area.
 *
 * And one case of A alone, since io.max holds none of those writes:
 *
 *   io_max_writes_back_in_place: with iocost and io.latency off on the
 *     swap disk, io.max is no IO controller to zswap. While A writes
 *     back, zswap's worker writes back nothing (debugfs deferred_wb_pages
 *     +0) and A's reclaimers write back in place (inplace_wb_pages
 *     rises): a worker would pay no IO delay there, only race A's
 *     reclaim for its memory.
 *
 * Sleeps are counted with their kernel stacks by a hist trigger on
 * sched:sched_switch (zs_sleep_trace_start()): the kernel's own
 * instrumentation, independent of any counter zswap has.
 *
 * Environment: root, zswap, a swap partition, cgroup v2 with the memory
 * and io controllers, io.max (CONFIG_BLK_DEV_THROTTLING), tracefs with
 * hist triggers; swapoff_bounded also needs ZSWAP_SIBLING_DEV, a spare
 * partition on the swap disk that may be overwritten.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <linux/fs.h>
#include <unistd.h>

#include "kselftest.h"
#include "cgroup_util.h"
#include "zswap_util.h"

/*
 * The bounds on time below are for a production kernel and are multiplied
 * by zs_slowdown() (ZSWAP_SLOWDOWN: the harness's debug guest sets it). On
 * such a slowed kernel kswapd may not reclaim at all in its window (the
 * KCSAN guest: pgscan_kswapd +0): kswapd_not_throttled then skips, which
 * lib/expected-skips allows in the debug guest only.
 */
#define A_MEM_MAX		ZS_MB(32)
#define A_DATA			ZS_MB(64)
/*
 * A's budget on the swap disk: 4 KiB and one write a second. A 128 KiB
 * swap write (SWAP_CLUSTER_MAX pages) costs A 32 s of it. The bound of
 * every case is far below what waiting for A's budget would cost.
 */
#define A_IO_MAX		"wbps=4096 wiops=1"
#define A_IO_FREE		"wbps=max wiops=max"
/* A's writeback is under way: one chunk (SWAP_CLUSTER_MAX) written back */
#define A_WB_MIN		32
#define A_WB_WAIT_MS		(120000 * zs_slowdown())
/* then A goes on for this long before the case acts */
#define A_SETTLE_MS		3000
#define EXIT_MS			(30000 * zs_slowdown())

#define B_MEM_MAX		ZS_MB(32)
#define B_DATA			ZS_MB(64)
/*
 * B shares neither A's memory nor its IO limit: beside A it competes
 * only for CPU and the disk, where A may write 4 KiB/s. Twice its time
 * alone, plus 20 s for a loaded 2-CPU TCG guest, is B's own pace.
 */
#define B_PACE_FACTOR		2
#define B_PACE_MARGIN_MS	(20000 * zs_slowdown())
#define B_ALONE_MS		(300000 * zs_slowdown())

/*
 * A read that meets a folio under writeback waits for one swap write of
 * at most 128 KiB, issued as root at the disk's speed: milliseconds. 1 s
 * leaves a TCG guest's noise a wide margin and is 32 times less than
 * A's budget for that one write.
 */
#define RD_LAT_MAX_MS		(1000 * zs_slowdown())
#define RD_WINDOW_MS		20000

/*
 * kswapd may be throttled on writeback that progresses at the disk's
 * speed: reclaim_throttle() wakes it once 32 pages per throttled task
 * completed, or after 100 ms. Throttled for more than a tenth of the
 * window, it waited on writeback that did not progress.
 */
#define KS_WINDOW_MS		30000
#define KS_THROTTLE_MAX_PCT	10
#define KS_OVER_PCT		10
#define KS_MAX			16

/*
 * swapoff reads back what the area holds; A's held writeback does not
 * add to that. 1 MiB/s is far under the disk's read rate even beside
 * the sibling, and 256 times A's budget.
 */
#define SO_BASE_MS		(10000 * zs_slowdown())
#define SO_MS_PER_MIB		(1000 * zs_slowdown())
#define SO_DRAIN_MS		(180000 * zs_slowdown())
#define SIB_JOBS		2
#define SIB_BS			4096

#define INV_INST		ZS_TRACEFS "/instances/zswap_inversion"
#define THR_EVENT		INV_INST "/events/vmscan/mm_vmscan_throttled"
#define SHR_EVENT		INV_INST "/events/vmscan/mm_vmscan_lru_shrink_inactive"

#define PAGE_TAG		0x696e76657273696fULL

enum {
	CASE_OWN_PACE,
	CASE_TMPFS,
	CASE_KSWAPD,
	CASE_IO_MAX,
	CASE_SWAPOFF,
	NR_CASES,
};

static const char * const case_names[NR_CASES] = {
	"other_cgroup_own_pace",
	"tmpfs_reader_bounded",
	"kswapd_not_throttled",
	"io_max_writes_back_in_place",
	"swapoff_bounded",
};

static struct zs_env env;

/* Shared with the children. */
struct shared {
	long long reads;
	long long read_max_ms;
	long long read_start_ms;	/* of the read under way, 0 if none */
	long long sib_writes;
	long long a_pages;		/* of the tmpfs file, written by A */
	int err;
};

static struct {
	struct zs_disk disk;
	dev_t swapdev;
	const char *sib_dev;
	struct shared *sh;
	char *held_cg;			/* A, while its io.max is set */
	char tmpfs[PATH_MAX];
	bool tmpfs_mounted;
	int res;
	char why[1024];
} ctx;

static void set_result(int res, const char *fmt, ...)
{
	va_list ap;

	ctx.res = res;
	va_start(ap, fmt);
	vsnprintf(ctx.why, sizeof(ctx.why), fmt, ap);
	va_end(ap);
}

/* Has the parent asked for an exit ('X', or its end of the pipe closed)? */
static bool told_to_stop(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, 0) > 0;
}

static void child_init(const char *comm)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	prctl(PR_SET_NAME, comm);
}

struct touch_arg {
	const char *comm;
	size_t size;
	int passes;		/* after the fill; 0: until told to stop */
	int to_parent;
	int from_parent;
};

/*
 * Fills @size of ~2:1 compressible pages ('P'), then rewrites the first
 * word of each page, @passes times ('D') or until told to stop.
 */
static int toucher_fn(void *arg)
{
	struct touch_arg *a = arg;
	size_t i, ps = env.page_size, npages = a->size / ps;
	char *mem;
	int pass;

	child_init(a->comm);
	mem = zs_map_tagged(a->size, ps, PAGE_TAG);
	if (!mem)
		return 3;
	zs_send_msg(a->to_parent, 'P');
	for (pass = 1; !a->passes || pass <= a->passes; pass++) {
		for (i = 0; i < npages; i++) {
			*(uint64_t *)(mem + i * ps) = PAGE_TAG ^ pass ^ i;
			if (!(i & 255) && told_to_stop(a->from_parent))
				return 0;
		}
	}
	zs_send_msg(a->to_parent, 'D');
	zs_wait_for_msg(a->from_parent, EXIT_MS * 10);
	return 0;
}

/* A cgroup and the child that runs in it. */
struct run {
	char *cg;
	pid_t pid;
	int rd, wr;
	struct touch_arg ta;
};

static int run_start(struct run *r, const char *cg, int (*fn)(void *),
		     struct touch_arg *ta)
{
	r->pid = zs_cg_spawn_piped(cg, fn, ta, &ta->from_parent,
				   &ta->to_parent, &r->rd, &r->wr);
	return r->pid < 0 ? -1 : 0;
}

/* Stops the child (continued first, if stopped) and removes its cgroup. */
static void run_stop(struct run *r)
{
	if (r->pid > 0) {
		kill(r->pid, SIGCONT);
		zs_child_stop(r->pid, r->wr, NULL, EXIT_MS);
		r->pid = 0;
	}
	zs_run_cleanup(r->cg, r->rd, r->wr);
	r->cg = NULL;
	r->rd = -1;
	r->wr = -1;
}

static int io_max_write(const char *cg, const char *limits)
{
	char val[128];

	snprintf(val, sizeof(val), "%u:%u %s", ctx.disk.maj, ctx.disk.min,
		 limits);
	return cg_write(cg, "io.max", val);
}

/* Lifts A's io.max: whatever its budget holds goes on at once. */
static void held_release(void)
{
	if (ctx.held_cg)
		io_max_write(ctx.held_cg, A_IO_FREE);
	ctx.held_cg = NULL;
}

/* A: memory.max, the tiny io.max, and a toucher that runs until stopped. */
static int a_start(struct run *a, const char *name, char *why, size_t len)
{
	a->rd = -1;
	a->wr = -1;
	a->cg = zs_cg_create(env.cgroot, name);
	if (!a->cg || cg_write_numeric(a->cg, "memory.max", A_MEM_MAX) ||
	    io_max_write(a->cg, A_IO_MAX)) {
		snprintf(why, len, "cannot set up cgroup %s with io.max %s",
			 name, A_IO_MAX);
		return -1;
	}
	ctx.held_cg = a->cg;
	a->ta = (struct touch_arg){ .comm = "zsinv_a", .size = A_DATA };
	if (run_start(a, a->cg, toucher_fn, &a->ta)) {
		snprintf(why, len, "cannot start A's toucher");
		return -1;
	}
	return 0;
}

/*
 * Waits until A wrote back A_WB_MIN pages, then A_SETTLE_MS more.
 * Returns A's zswpwb, or -1 with @why filled in.
 */
static long long a_writeback_under_way(struct run *a, char *why, size_t len)
{
	long long wb = -1;

	if (zs_wait_for_memstat_above(a->cg, "zswpwb", A_WB_MIN - 1,
				      A_WB_WAIT_MS, &wb)) {
		snprintf(why, len,
			 "A's zswap writeback never got under way: zswpwb %lld after %d s (need %d)",
			 wb, A_WB_WAIT_MS / 1000, A_WB_MIN);
		return -1;
	}
	zs_sleep_ms(A_SETTLE_MS);
	return zs_memstat_or(a->cg, "zswpwb", wb);
}

static void a_stop(struct run *a)
{
	held_release();
	run_stop(a);
}

/*
 * B's fill and one pass in a fresh cgroup at its own memory.max, no IO
 * limit. Returns the ms they took, or -1 if not done within @limit_ms
 * (B is left running: the caller stops it). *@wb gets B's zswpwb.
 */
static long long b_passes(struct run *b, const char *name, int limit_ms,
			  long long *wb)
{
	uint64_t t0 = zs_now_ms();
	long long left;
	int msg;

	b->rd = -1;
	b->wr = -1;
	*wb = -1;
	b->cg = zs_cg_create(env.cgroot, name);
	if (!b->cg || cg_write_numeric(b->cg, "memory.max", B_MEM_MAX))
		return -2;
	b->ta = (struct touch_arg){ .comm = "zsinv_b", .size = B_DATA,
				    .passes = 1 };
	if (run_start(b, b->cg, toucher_fn, &b->ta))
		return -2;
	do {
		left = limit_ms - (long long)(zs_now_ms() - t0);
		msg = zs_wait_for_msg(b->rd, left > 0 ? left : 0);
	} while (msg == 'P');
	*wb = zs_memstat_or(b->cg, "zswpwb", -1);
	return msg == 'D' ? (long long)(zs_now_ms() - t0) : -1;
}

/*
 * Item 2 of the review: A's tiny io.max must not slow B, which has no IO
 * limit, at its own memory.max. B's time alone is measured first.
 */
static void case_own_pace(void)
{
	struct run a = { .rd = -1, .wr = -1 }, b = { .rd = -1, .wr = -1 };
	long long alone, beside, bound, wb_alone, wb_b, wb_a0, wb_a1;
	struct zs_sleeps s;
	char why[512];

	alone = b_passes(&b, "zswap_inv_b_alone", B_ALONE_MS, &wb_alone);
	run_stop(&b);
	if (alone < 0) {
		set_result(KSFT_FAIL, "B alone did not finish its passes within %d s",
			   B_ALONE_MS / 1000);
		return;
	}
	bound = B_PACE_FACTOR * alone + B_PACE_MARGIN_MS;

	if (a_start(&a, "zswap_inv_a", why, sizeof(why))) {
		set_result(KSFT_FAIL, "%s", why);
		goto out;
	}
	wb_a0 = a_writeback_under_way(&a, why, sizeof(why));
	if (wb_a0 < 0) {
		set_result(KSFT_FAIL, "%s", why);
		goto out;
	}
	if (zs_sleep_trace_start("prev_comm == \"zsinv_b\"", why, sizeof(why))) {
		set_result(KSFT_FAIL, "%s", why);
		goto out;
	}
	beside = b_passes(&b, "zswap_inv_b", bound, &wb_b);
	wb_a1 = zs_memstat_or(a.cg, "zswpwb", -1);
	/* what B sleeps in while not done is part of the verdict */
	zs_sleep_trace_read(&s);
	zs_sleep_trace_stop();
	held_release();

	ksft_print_msg("own_pace: B's passes %.1f s alone, %s%.1f s beside A (bound %.1f s)\n",
		       alone / 1000.0, beside < 0 ? "not done after " : "",
		       (beside < 0 ? bound : beside) / 1000.0, bound / 1000.0);
	ksft_print_msg("own_pace: B's zswpwb %lld alone, %lld beside A; A's zswpwb %lld -> %lld\n",
		       wb_alone, wb_b, wb_a0, wb_a1);
	zs_sleeps_print("own_pace: B", &s);
	if (beside == -2)
		set_result(KSFT_FAIL, "cannot start B beside A");
	else if (beside < 0)
		set_result(KSFT_FAIL, "B did not finish within %.1f s beside A (%.1f s alone)",
			   bound / 1000.0, alone / 1000.0);
	else if (s.hits[ZS_SLEEP_BUDGET] || s.hits[ZS_SLEEP_SWAP])
		set_result(KSFT_FAIL,
			   "B slept %lld times in an IO budget and %lld in a zswap/swap write wait; expected 0",
			   s.hits[ZS_SLEEP_BUDGET], s.hits[ZS_SLEEP_SWAP]);
	else if (s.dropped)
		set_result(KSFT_FAIL, "the trace dropped %lld sleeps", s.dropped);
	else if (wb_alone <= 0 || wb_b <= 0)
		set_result(KSFT_FAIL,
			   "B wrote nothing back (zswpwb %lld alone, %lld beside A): its writeback was not tested",
			   wb_alone, wb_b);
	else
		set_result(KSFT_PASS, "");
out:
	held_release();
	run_stop(&b);
	a_stop(&a);
}

/*
 * io.max sets no delay for a cgroup to pay and holds no swap write: A's
 * shrinker writeback stays with A's reclaimers. A's io.stat has cost.*
 * keys only when iocost is enabled on the disk; then the case does not
 * apply.
 */
static void case_io_max(void)
{
	struct run a = { .rd = -1, .wr = -1 };
	long long def0, def1, inp0, inp1, wb_a;
	char why[512];

	def0 = zs_debugfs_or("deferred_wb_pages", -1);
	inp0 = zs_debugfs_or("inplace_wb_pages", -1);
	if (def0 < 0 || inp0 < 0) {
		set_result(KSFT_FAIL,
			   "cannot read debugfs zswap/deferred_wb_pages and inplace_wb_pages");
		return;
	}
	if (a_start(&a, "zswap_inv_a_alone", why, sizeof(why))) {
		set_result(KSFT_FAIL, "%s", why);
		goto out;
	}
	wb_a = a_writeback_under_way(&a, why, sizeof(why));
	if (wb_a < 0) {
		set_result(KSFT_FAIL, "%s", why);
		goto out;
	}
	def1 = zs_debugfs_or("deferred_wb_pages", -1);
	inp1 = zs_debugfs_or("inplace_wb_pages", -1);
	ksft_print_msg("io_max: A's zswpwb %lld; deferred_wb_pages +%lld, inplace_wb_pages +%lld\n",
		       wb_a, def1 - def0, inp1 - inp0);
	if (zs_io_stat(a.cg, &ctx.disk, "cost.usage") >= 0)
		set_result(KSFT_SKIP, "iocost is enabled on the swap disk");
	else if (def1 != def0)
		set_result(KSFT_FAIL,
			   "the worker wrote back %lld pages for a cgroup limited by io.max alone; expected 0",
			   def1 - def0);
	else if (inp1 <= inp0)
		set_result(KSFT_FAIL,
			   "nothing was written back in place while A wrote back %lld pages",
			   wb_a);
	else
		set_result(KSFT_PASS, "");
out:
	a_stop(&a);
}

static void tmpfs_release(void)
{
	if (ctx.tmpfs_mounted && !umount2(ctx.tmpfs, MNT_DETACH))
		ctx.tmpfs_mounted = false;
	if (ctx.tmpfs[0] && !ctx.tmpfs_mounted && !rmdir(ctx.tmpfs))
		ctx.tmpfs[0] = '\0';
}

struct file_arg {
	struct touch_arg ta;
	char path[PATH_MAX];
};

/* A: writes the tmpfs file, ~2:1 compressible pages ('P'), then waits. */
static int tmpfs_writer_fn(void *arg)
{
	struct file_arg *f = arg;
	size_t i, ps = env.page_size, npages = f->ta.size / ps;
	char *mem;
	int fd;

	child_init(f->ta.comm);
	fd = open(f->path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, f->ta.size))
		return 3;
	mem = mmap(NULL, f->ta.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (mem == MAP_FAILED)
		return 3;
	for (i = 0; i < npages; i++) {
		zs_fill_page(mem + i * ps, ps, ZS_PAT_COMPRESSIBLE, i);
		*(uint64_t *)(mem + i * ps) = PAGE_TAG ^ i;
		__atomic_store_n(&ctx.sh->a_pages, i + 1, __ATOMIC_RELEASE);
	}
	munmap(mem, f->ta.size);
	close(fd);
	zs_send_msg(f->ta.to_parent, 'P');
	zs_wait_for_msg(f->ta.from_parent, EXIT_MS * 20);
	return 0;
}

/* The reader: reads the pages A wrote, one by one, timing each read. */
static int reader_fn(void *arg)
{
	struct file_arg *f = arg;
	size_t i, ps = env.page_size, npages;
	struct shared *sh = ctx.sh;
	long long t0, dt;
	uint64_t w;
	int fd;

	child_init(f->ta.comm);
	/* its own text must not be read back in its budget: keep it resident */
	mlockall(MCL_CURRENT);
	fd = open(f->path, O_RDONLY);
	if (fd < 0)
		return 3;
	for (;;) {
		npages = __atomic_load_n(&sh->a_pages, __ATOMIC_ACQUIRE);
		if (!npages && told_to_stop(f->ta.from_parent))
			return 0;
		for (i = 0; i < npages; i++) {
			t0 = zs_now_ms();
			__atomic_store_n(&sh->read_start_ms, t0, __ATOMIC_RELAXED);
			if (pread(fd, &w, sizeof(w), i * ps) != sizeof(w)) {
				sh->err = errno ? errno : EIO;
				return 4;
			}
			dt = zs_now_ms() - t0;
			__atomic_store_n(&sh->read_start_ms, 0, __ATOMIC_RELAXED);
			if (w != (PAGE_TAG ^ i)) {
				sh->err = EBADMSG;
				return 2;
			}
			if (dt > sh->read_max_ms)
				sh->read_max_ms = dt;
			sh->reads++;
			if (!(i & 63) && told_to_stop(f->ta.from_parent))
				return 0;
		}
	}
}

static int tmpfs_mount(char *why, size_t len)
{
	snprintf(ctx.tmpfs, sizeof(ctx.tmpfs), "/tmp/zswap_inv.XXXXXX");
	if (!mkdtemp(ctx.tmpfs)) {
		ctx.tmpfs[0] = '\0';
		snprintf(why, len, "mkdtemp: %s", strerror(errno));
		return -1;
	}
	zs_on_cleanup(tmpfs_release);
	if (mount("tmpfs", ctx.tmpfs, "tmpfs", 0, "size=256m")) {
		snprintf(why, len, "cannot mount a tmpfs on %.256s: %s", ctx.tmpfs,
			 strerror(errno));
		return -1;
	}
	ctx.tmpfs_mounted = true;
	return 0;
}

/*
 * A task of another cgroup reads a tmpfs file A wrote (its pages are
 * charged to A, swapped out by A's reclaim, some written back). Reading
 * them back charges A again, so the reads themselves keep A's reclaim
 * and writeback going.
 */
static void case_tmpfs_reader(void)
{
	struct run a = { .rd = -1, .wr = -1 }, r = { .rd = -1, .wr = -1 };
	long long wb0, wb1, in0 = -1, in1 = -1, cur = 0, worst;
	struct file_arg fa, fr;
	struct zs_sleeps s;
	uint64_t t0;
	char why[512];

	if (tmpfs_mount(why, sizeof(why))) {
		set_result(KSFT_FAIL, "%s", why);
		return;
	}
	a.cg = zs_cg_create(env.cgroot, "zswap_inv_a");
	r.cg = zs_cg_create(env.cgroot, "zswap_inv_reader");
	if (!a.cg || !r.cg || cg_write_numeric(a.cg, "memory.max", A_MEM_MAX) ||
	    io_max_write(a.cg, A_IO_MAX)) {
		set_result(KSFT_FAIL, "cannot set up the cgroups");
		goto out;
	}
	ctx.held_cg = a.cg;
	fa = (struct file_arg){ .ta = { .comm = "zsinv_a", .size = A_DATA } };
	snprintf(fa.path, sizeof(fa.path), "%.4000s/a", ctx.tmpfs);
	fr = fa;
	fr.ta.comm = "zsinv_rd";
	if (run_start(&a, a.cg, tmpfs_writer_fn, &fa.ta)) {
		set_result(KSFT_FAIL, "cannot start A's writer");
		goto out;
	}
	wb0 = a_writeback_under_way(&a, why, sizeof(why));
	if (wb0 < 0) {
		set_result(KSFT_FAIL, "%s", why);
		goto out;
	}
	if (zs_sleep_trace_start("prev_comm == \"zsinv_rd\"", why, sizeof(why))) {
		set_result(KSFT_FAIL, "%s", why);
		goto out;
	}
	zs_vmstat("pswpin", &in0);
	if (run_start(&r, r.cg, reader_fn, &fr.ta)) {
		set_result(KSFT_FAIL, "cannot start the reader");
		goto out;
	}
	t0 = zs_now_ms();
	while (zs_now_ms() - t0 < RD_WINDOW_MS &&
	       waitpid(r.pid, NULL, WNOHANG) == 0)
		zs_sleep_ms(100);
	/* a read still under way counts for as long as it has taken */
	cur = __atomic_load_n(&ctx.sh->read_start_ms, __ATOMIC_RELAXED);
	cur = cur ? (long long)zs_now_ms() - cur : 0;
	zs_vmstat("pswpin", &in1);
	wb1 = zs_memstat_or(a.cg, "zswpwb", -1);
	zs_sleep_trace_read(&s);
	zs_sleep_trace_stop();
	held_release();

	worst = cur > ctx.sh->read_max_ms ? cur : ctx.sh->read_max_ms;
	ksft_print_msg("tmpfs_reader: longest read %.3f s%s (bound %.1f s), %lld reads in %d s\n",
		       worst / 1000.0, cur ? ", still under way" : "",
		       RD_LAT_MAX_MS / 1000.0, ctx.sh->reads, RD_WINDOW_MS / 1000);
	ksft_print_msg("tmpfs_reader: %lld pages A wrote; pswpin +%lld; A's zswpwb %lld -> %lld\n",
		       ctx.sh->a_pages, in1 - in0, wb0, wb1);
	zs_sleeps_print("tmpfs_reader: reader", &s);
	if (ctx.sh->err)
		set_result(KSFT_FAIL, "the reader failed: %s", strerror(ctx.sh->err));
	else if (worst > RD_LAT_MAX_MS)
		set_result(KSFT_FAIL, "a read took %.3f s (bound %.1f s)",
			   worst / 1000.0, RD_LAT_MAX_MS / 1000.0);
	else if (s.hits[ZS_SLEEP_BUDGET] || s.hits[ZS_SLEEP_SWAP])
		set_result(KSFT_FAIL,
			   "the reader slept %lld times in an IO budget and %lld in a zswap/swap write wait; expected 0",
			   s.hits[ZS_SLEEP_BUDGET], s.hits[ZS_SLEEP_SWAP]);
	else if (s.dropped)
		set_result(KSFT_FAIL, "the trace dropped %lld sleeps", s.dropped);
	else if (in1 - in0 <= 0 && !s.hits[ZS_SLEEP_WRITEBACK])
		set_result(KSFT_FAIL,
			   "the reader met no written-back page (pswpin +%lld, no writeback wait): nothing was tested",
			   in1 - in0);
	else
		set_result(KSFT_PASS, "");
out:
	held_release();
	run_stop(&r);
	a_stop(&a);
	tmpfs_release();
}

/* The hog: allocates past the available memory, again and again. */
static int hog_fn(void *arg)
{
	struct touch_arg *a = arg;
	size_t i, ps = env.page_size, npages = a->size / ps;
	uint64_t pass;
	char *mem;

	child_init(a->comm);
	mem = mmap(NULL, a->size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return 3;
	madvise(mem, a->size, MADV_NOHUGEPAGE);
	for (pass = 1;; pass++) {
		for (i = 0; i < npages; i++) {
			*(uint64_t *)(mem + i * ps) = pass << 32 | i;
			if (!(i & 1023) && told_to_stop(a->from_parent))
				return 0;
		}
		if (pass == 1)
			zs_send_msg(a->to_parent, 'P');
	}
}

/* Hist triggers on kswapd's vmscan events, in an instance of their own. */
static struct trigger {
	const char *event;
	char cmd[512];
	bool on;
} thr[] = {
	{ .event = THR_EVENT },
	{ .event = SHR_EVENT },
};

static void thr_trace_stop(void)
{
	char path[PATH_MAX], off[sizeof(thr[0].cmd) + 1];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(thr); i++) {
		if (!thr[i].on)
			continue;
		snprintf(path, sizeof(path), "%s/trigger", thr[i].event);
		snprintf(off, sizeof(off), "!%s", thr[i].cmd);
		zs_write_file(path, off);
		thr[i].on = false;
	}
	rmdir(INV_INST);
}

/*
 * Counts kswapd's reclaim_throttle() sleeps by reason, with their time,
 * and the folios under writeback its inactive list scans met.
 */
static int thr_trace_start(const pid_t *pids, int n, char *why, size_t len)
{
	static const char * const hists[] = {
		"hist:keys=reason:vals=hitcount,usec_delayed",
		"hist:keys=nid:vals=hitcount,nr_writeback,nr_immediate",
	};
	char path[PATH_MAX], pidf[256];
	size_t i, off = 0;
	int j, ret;

	zs_on_cleanup(thr_trace_stop);
	thr_trace_stop();
	if (zs_trace_instance(INV_INST, why, len))
		return -1;
	for (j = 0; j < n && off < sizeof(pidf); j++)
		off += snprintf(pidf + off, sizeof(pidf) - off,
				"%scommon_pid == %d", j ? " || " : "", pids[j]);
	for (i = 0; i < ARRAY_SIZE(thr); i++) {
		snprintf(thr[i].cmd, sizeof(thr[i].cmd), "%s if %s", hists[i],
			 pidf);
		snprintf(path, sizeof(path), "%s/trigger", thr[i].event);
		ret = zs_write_file(path, thr[i].cmd);
		if (ret) {
			snprintf(why, len, "cannot set a hist trigger on %s: %s",
				 thr[i].event, strerror(-ret));
			return -1;
		}
		thr[i].on = true;
	}
	return 0;
}

/* Sums @val over the entries of @event's hist whose "@key: N" is @want. */
static long long hist_sum(const char *event, const char *key,
			  long long want, const char *val)
{
	char path[PATH_MAX], *buf, *p, *q, *end;
	size_t klen = strlen(key), vlen = strlen(val);
	long long sum = 0;

	snprintf(path, sizeof(path), "%s/hist", event);
	buf = zs_read_big(path, NULL);
	if (!buf)
		return -1;
	for (p = strstr(buf, "{ "); p; p = strstr(p + 1, "{ ")) {
		if (strncmp(p + 2, key, klen) || p[2 + klen] != ':')
			continue;
		if (want >= 0 && strtoll(p + 3 + klen, NULL, 10) != want)
			continue;
		end = strchr(p, '\n');
		q = strstr(p, val);
		if (q && (!end || q < end) && q[vlen] == ':')
			sum += strtoll(q + vlen + 1, NULL, 10);
	}
	free(buf);
	return sum;
}

/*
 * kswapd reclaims for everyone: it must never wait on one cgroup's
 * budget, directly or through the folios that budget holds.
 */
static void case_kswapd(void)
{
	struct run a = { .rd = -1, .wr = -1 }, h = { .rd = -1, .wr = -1 };
	long long wb0, wb1, scan0 = -1, scan1 = -1, nr, us, met, imm;
	pid_t pids[KS_MAX];
	struct zs_sleeps s;
	char why[512];
	size_t size;
	uint64_t t0;
	int n;

	n = zs_find_kthreads("kswapd", pids, KS_MAX);
	if (!n) {
		set_result(KSFT_FAIL, "no kswapd thread found in /proc");
		return;
	}
	/* past MemAvailable, A's data and the hog within half the free swap */
	if (zs_size_past_available(env.totalram / 100 * KS_OVER_PCT, A_DATA,
				   &size, why, sizeof(why))) {
		set_result(KSFT_FAIL, "%s", why);
		return;
	}
	if (a_start(&a, "zswap_inv_a", why, sizeof(why))) {
		set_result(KSFT_FAIL, "%s", why);
		goto out;
	}
	wb0 = a_writeback_under_way(&a, why, sizeof(why));
	if (wb0 < 0) {
		set_result(KSFT_FAIL, "%s", why);
		goto out;
	}
	if (zs_sleep_trace_start("prev_comm ~ \"kswapd*\"", why, sizeof(why)) ||
	    thr_trace_start(pids, n, why, sizeof(why))) {
		set_result(KSFT_FAIL, "%s", why);
		goto out;
	}
	zs_vmstat("pgscan_kswapd", &scan0);
	h.cg = zs_cg_create(env.cgroot, "zswap_inv_hog");
	h.ta = (struct touch_arg){ .comm = "zsinv_hog", .size = size };
	if (!h.cg || run_start(&h, h.cg, hog_fn, &h.ta)) {
		set_result(KSFT_FAIL, "cannot start the hog");
		goto out;
	}
	t0 = zs_now_ms();
	while (zs_now_ms() - t0 < KS_WINDOW_MS &&
	       waitpid(h.pid, NULL, WNOHANG) == 0)
		zs_sleep_ms(200);
	zs_vmstat("pgscan_kswapd", &scan1);
	wb1 = zs_memstat_or(a.cg, "zswpwb", -1);
	zs_sleep_trace_read(&s);
	zs_sleep_trace_stop();
	/* reason 1 is VMSCAN_THROTTLE_WRITEBACK */
	nr = hist_sum(THR_EVENT, "reason", 1, "hitcount");
	us = hist_sum(THR_EVENT, "reason", 1, "usec_delayed");
	met = hist_sum(SHR_EVENT, "nid", -1, "nr_writeback");
	imm = hist_sum(SHR_EVENT, "nid", -1, "nr_immediate");
	thr_trace_stop();
	held_release();

	ksft_print_msg("kswapd: writeback throttles: %lld for %.2f s of %d s (bound %d%%)\n",
		       nr, us / 1e6, KS_WINDOW_MS / 1000, KS_THROTTLE_MAX_PCT);
	ksft_print_msg("kswapd: met %lld folios under writeback, %lld flagged immediate\n",
		       met, imm);
	ksft_print_msg("kswapd: pgscan_kswapd +%lld; A's zswpwb %lld -> %lld; hog %zu MiB\n",
		       scan1 - scan0, wb0, wb1, size >> 20);
	zs_sleeps_print("kswapd: kswapd", &s);
	if (s.hits[ZS_SLEEP_BUDGET] || s.hits[ZS_SLEEP_SWAP])
		set_result(KSFT_FAIL,
			   "kswapd slept %lld times in an IO budget and %lld in a zswap/swap write wait; expected 0",
			   s.hits[ZS_SLEEP_BUDGET], s.hits[ZS_SLEEP_SWAP]);
	else if (us > (long long)KS_WINDOW_MS * 1000 / 100 * KS_THROTTLE_MAX_PCT)
		set_result(KSFT_FAIL,
			   "kswapd was throttled on writeback for %.2f s of %d s (bound %d%%)",
			   us / 1e6, KS_WINDOW_MS / 1000, KS_THROTTLE_MAX_PCT);
	else if (s.dropped || nr < 0 || us < 0)
		set_result(KSFT_FAIL, "the traces dropped %lld sleeps or could not be read",
			   s.dropped);
	else if (scan1 - scan0 <= 0)
		set_result(zs_slowdown() > 1 ? KSFT_SKIP : KSFT_FAIL,
			   "kswapd did not reclaim (pgscan_kswapd +%lld): nothing was tested",
			   scan1 - scan0);
	else
		set_result(KSFT_PASS, "");
out:
	held_release();
	run_stop(&h);
	a_stop(&a);
}

struct sib_arg {
	int fd;
	int idx;
	unsigned long long region;
};

/* A random 4K O_DIRECT writer on the sibling partition. */
static int sibling_fn(void *arg)
{
	struct sib_arg *a = arg;
	uint64_t x = 0x9e3779b97f4a7c15ULL * (a->idx + 1);
	uint64_t nblocks = a->region / SIB_BS;
	void *buf;
	off_t off;

	child_init("zsinv_sib");
	if (posix_memalign(&buf, SIB_BS, SIB_BS))
		return 5;
	memset(buf, 0xa5 ^ a->idx, SIB_BS);
	for (;;) {
		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		off = (off_t)((x * 0x2545f4914f6cdd1dULL) % nblocks) * SIB_BS;
		if (pwrite(a->fd, buf, SIB_BS, off) != SIB_BS) {
			if (errno == EINTR)
				continue;
			ctx.sh->err = errno;
			return 5;
		}
		__atomic_add_fetch(&ctx.sh->sib_writes, 1, __ATOMIC_RELAXED);
	}
}

/* Opens the sibling's partition: a block device on the swap disk. */
static int sibling_open(unsigned long long *region, char *why, size_t len)
{
	unsigned long long size = 0;
	struct zs_disk d;
	struct stat st;
	int fd;

	if (!ctx.sib_dev || stat(ctx.sib_dev, &st) || !S_ISBLK(st.st_mode) ||
	    st.st_rdev == ctx.swapdev || zs_whole_disk(st.st_rdev, &d) ||
	    !zs_same_disk(&d, &ctx.disk)) {
		snprintf(why, len, "ZSWAP_SIBLING_DEV is not a spare partition of the swap disk");
		return -1;
	}
	/* O_EXCL fails on a mounted or swapped-on device: never clobber one */
	fd = open(ctx.sib_dev, O_RDWR | O_DIRECT | O_EXCL | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, BLKGETSIZE64, &size) || size < ZS_MB(16)) {
		snprintf(why, len, "cannot open ZSWAP_SIBLING_DEV=%s exclusively",
			 ctx.sib_dev);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	*region = size < ZS_MB(512) ? size : ZS_MB(512);
	return fd;
}

/* Waits for the swapoff child; returns its exit code, or -1 if not done. */
static int swapoff_wait(pid_t off, int ms)
{
	int status;

	if (zs_wait_for_exit(off, &status, ms))
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : EINTR;
}

/*
 * swapoff must wait for folios under writeback; they must be written at
 * the disk's speed, not A's budget. A is stopped and its memory.max
 * lifted first, so that its pages can come back.
 */
static void case_swapoff(void)
{
	struct run a = { .rd = -1, .wr = -1 };
	long long wb, used, held, bound, took = -1;
	pid_t sib[SIB_JOBS] = { 0 }, off = 0;
	unsigned long long region;
	struct sib_arg sa[SIB_JOBS];
	char why[512], path[64], stack[2048];
	char *sc = NULL;
	int i, fd, ret = -1;
	uint64_t t0;

	fd = sibling_open(&region, why, sizeof(why));
	if (fd < 0) {
		set_result(KSFT_SKIP, "%s", why);
		return;
	}
	sc = zs_cg_create(env.cgroot, "zswap_inv_sibling");
	for (i = 0; sc && i < SIB_JOBS; i++) {
		sa[i] = (struct sib_arg){ .fd = fd, .idx = i, .region = region };
		sib[i] = zs_cg_spawn(sc, sibling_fn, &sa[i]);
	}
	if (!sc || sib[SIB_JOBS - 1] <= 0) {
		set_result(KSFT_FAIL, "cannot start the sibling writers");
		goto out;
	}
	if (a_start(&a, "zswap_inv_a", why, sizeof(why))) {
		set_result(KSFT_FAIL, "%s", why);
		goto out;
	}
	wb = a_writeback_under_way(&a, why, sizeof(why));
	if (wb < 0) {
		set_result(KSFT_FAIL, "%s", why);
		goto out;
	}
	kill(a.pid, SIGSTOP);
	if (cg_write(a.cg, "memory.max", "max")) {
		set_result(KSFT_FAIL, "cannot lift A's memory.max");
		goto out;
	}
	held = zs_memstat_or(a.cg, "file_writeback", -1);
	used = zs_swap_used_kb(env.swap_path);
	if (used < 0) {
		set_result(KSFT_FAIL, "%s is not in /proc/swaps", env.swap_path);
		goto out;
	}
	bound = SO_BASE_MS + SO_MS_PER_MIB * ((used + 1023) / 1024);

	t0 = zs_now_ms();
	off = zs_cg_spawn(env.cgroot, zs_swapoff_fn, env.swap_path);
	if (off > 0)
		ret = swapoff_wait(off, bound);
	if (off > 0 && ret < 0) {
		snprintf(path, sizeof(path), "/proc/%d/stack", off);
		if (zs_read_file(path, stack, sizeof(stack)) >= 0)
			ksft_print_msg("swapoff: where it waits at the bound:\n%s\n",
				       stack);
		/* let it finish: lift A's budget, then the sibling */
		held_release();
		ret = swapoff_wait(off, SO_DRAIN_MS);
	} else {
		took = zs_now_ms() - t0;
	}
	ksft_print_msg("swapoff: %s%.1f s (bound %.1f s: %lld MiB in use)\n",
		       took < 0 ? "not done after " : "took ",
		       (took < 0 ? bound : took) / 1000.0, bound / 1000.0,
		       (used + 1023) / 1024);
	ksft_print_msg("swapoff: A: %lld KiB under writeback, zswpwb %lld; sibling %lld writes\n",
		       held >> 10, wb,
		       __atomic_load_n(&ctx.sh->sib_writes, __ATOMIC_RELAXED));
	if (off <= 0)
		set_result(KSFT_FAIL, "cannot start swapoff");
	else if (took < 0)
		set_result(KSFT_FAIL, "swapoff did not finish within %.1f s (%lld MiB in use)%s",
			   bound / 1000.0, (used + 1023) / 1024,
			   ret < 0 ? ", nor after A's io.max was lifted" : "");
	else if (ret)
		set_result(KSFT_FAIL, "swapoff failed: %s", strerror(ret));
	else
		set_result(KSFT_PASS, "");
	if (off > 0 && ret < 0) {
		kill(off, SIGKILL);
		zs_wait_for_exit(off, NULL, SO_DRAIN_MS);
	}
out:
	held_release();
	for (i = 0; i < SIB_JOBS; i++)
		if (sib[i] > 0)
			kill(sib[i], SIGKILL);
	for (i = 0; i < SIB_JOBS; i++)
		if (sib[i] > 0)
			zs_wait_for_exit(sib[i], NULL, EXIT_MS);
	if (!zs_swap_active(env.swap_path) && zs_swapon(&env))
		ksft_print_msg("swapoff: cannot swap %s on again: %s\n",
			       env.swap_path, strerror(errno));
	a_stop(&a);
	zs_cg_destroy(sc, 10000);
	free(sc);
	close(fd);
}

static void setup(void)
{
	char path[PATH_MAX + 16];
	struct stat st;
	char *probe;

	if (env.swap_prio_tie || env.nr_swaps != 1)
		ksft_exit_skip("needs exactly one swap area, has %d\n",
			       env.nr_swaps);
	if (strcmp(env.swap_type, "partition"))
		ksft_exit_skip("the swap area is a %s, not a partition\n",
			       env.swap_type);
	if (stat(env.swap_path, &st) || !S_ISBLK(st.st_mode) ||
	    zs_whole_disk(st.st_rdev, &ctx.disk))
		ksft_exit_skip("cannot find the disk of %s\n", env.swap_path);
	ctx.swapdev = st.st_rdev;
	if (zs_io_controller_enable(&env))
		ksft_exit_skip("cannot enable the io controller\n");
	probe = zs_cg_create(env.cgroot, "zswap_inv_probe");
	snprintf(path, sizeof(path), "%s/io.max", probe ? probe : "");
	if (!probe || access(path, F_OK))
		ksft_exit_skip("no io.max (CONFIG_BLK_DEV_THROTTLING)\n");
	zs_cg_destroy(probe, 5000);
	free(probe);
	if (zs_param_set("shrinker_enabled", "Y"))
		ksft_exit_skip("cannot enable the zswap shrinker\n");
	if (zs_tracefs_ready(path, sizeof(path)))
		ksft_exit_skip("%s\n", path);
	if (access(ZS_TRACEFS "/events/vmscan/mm_vmscan_throttled", F_OK) ||
	    access(ZS_TRACEFS "/events/vmscan/mm_vmscan_lru_shrink_inactive", F_OK))
		ksft_exit_skip("no vmscan throttle or shrink_inactive event\n");
	zs_on_cleanup(held_release);
	ctx.sib_dev = getenv("ZSWAP_SIBLING_DEV");
	ctx.sh = mmap(NULL, sizeof(*ctx.sh), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (ctx.sh == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
}

int main(void)
{
	static void (* const cases[NR_CASES])(void) = {
		[CASE_OWN_PACE] = case_own_pace,
		[CASE_TMPFS] = case_tmpfs_reader,
		[CASE_KSWAPD] = case_kswapd,
		[CASE_IO_MAX] = case_io_max,
		/* last: it takes the swap area away for a while */
		[CASE_SWAPOFF] = case_swapoff,
	};
	int c, mark;

	ksft_print_header();
	/* A swaps out up to 64M, the hog up to a tenth of RAM past that */
	zs_setup(&env, 256 * 1024);
	setup();
	ksft_set_plan(NR_CASES);

	for (c = 0; c < NR_CASES; c++) {
		set_result(KSFT_FAIL, ZS_NOT_RUN);
		mark = zs_knobs_mark();
		memset(ctx.sh, 0, sizeof(*ctx.sh));
		cases[c]();
		zs_knobs_restore(mark);
		zs_report(ctx.res, case_names[c], ctx.why);
	}
	ksft_finished();
}
