// SPDX-License-Identifier: GPL-2.0
/*
 * Cost of zswap writeback IO: batching, LRU placement, and the race of a
 * faulting task with batched writeback.
 *
 *   1. pages_per_write_bio: entries stored in slot order (MADV_PAGEOUT of
 *      one range) are written back by the shrinker (memory.reclaim on a
 *      cgroup whose anon memory is all in zswap). The pages per write bio
 *      (pswpout / nrswpout in /proc/vmstat) must reach ZS_MIN_PAGES_PER_BIO;
 *      unbatched writeback gives exactly 1.00. The pages per write request
 *      of the swap partition, after the block layer's merging (its
 *      /sys/dev/block/MAJ:MIN/stat), are printed beside it, not asserted.
 *   2. rotation: with an older, cold resident range next to them, fewer
 *      than ROT_BATCH_MAX entries are written back (through
 *      memory.zswap.max), then memory.reclaim asks for as many pages. The
 *      written-back folios sit in the swap cache, clean; once at the
 *      inactive tail they are reclaimed first, for free. At most a quarter
 *      of them may still be in memory afterwards (mincore()). Folios left
 *      in the per-CPU LRU-add batch miss the rotation and stay, and
 *      reclaim swaps out the older range instead. The task runs on one
 *      CPU throughout, so that its entries have consecutive slots and
 *      each walk's writes go out as one bio after the walk's drain.
 *   3. fault_race: a task faults on all its zswap entries while reclaim
 *      drives batched writeback of the same entries; it must finish within
 *      RACE_TIMEOUT_MS with every page intact.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest.h"
#include "cgroup_util.h"
#include "zswap_util.h"

#define BATCH_MEM_MAX		ZS_MB(256)
#define BATCH_SIZE		ZS_MB(16)
#define BATCH_SEED		0x6261746368ULL
#define PHASE_TIMEOUT_MS	60000
#define RACE_TIMEOUT_MS		60000
#define WB_TIMEOUT_MS		30000
/*
 * A walk writes back up to SWAP_CLUSTER_MAX (32) entries; entries stored
 * in slot order merge into one bio per walk. Walks cut short (the worker's
 * last chunk, the in-place fallback, an allocation that must reclaim)
 * give smaller bios; 4 keeps a wide margin above the 1.00 of unbatched
 * writeback while allowing for those.
 */
#define ZS_MIN_PAGES_PER_BIO	4.0
/*
 * Why the bio figure and not the device's: batching (the series' walk
 * context) is what puts several pages in one bio, and pswpout / nrswpout
 * counts exactly that, 1.00 without it whatever the device. The device's
 * pages per request come after the block layer has merged bios: a plug
 * or a busy queue merges adjacent one-page bios too, so that figure
 * depends on the device, its queue and the IO scheduler and can exceed 1
 * without any batching; it also counts every write to the partition. It
 * shows what the disk was asked to do, for comparison.
 */
/*
 * Rotation: ROT_STORED entries, fewer than the 31 folios of a per-CPU
 * LRU-add batch, so that without a drain every written-back folio is
 * still in the batch when its write ends (a fuller batch drains by itself
 * and hides the bug). A store over memory.zswap.max = 0 scans them all;
 * new entries are referenced, so it takes one or two stores to write them
 * back. ROT_PUSH_MAX bounds those stores.
 */
#define ROT_STORED		24
/* memcg statistics reach memory.stat within 2 s (flush_memcg_stats_dwork) */
#define STAT_FLUSH_MS		5000
#define ROT_PUSH_MAX		8
#define ROT_BATCH_MAX		31

static struct zs_env env;

/* Lives in a shared mapping charged to the parent, not to the cgroup. */
struct shared {
	long bad;
	long first_bad;
	long resident;
	uint64_t verify_ms;
	uint64_t csum[];
};

/**
 * struct child - the task whose memory the cases move around
 * @npages: pages in each of its ranges
 * @sh: checksums and verdicts
 * @rd: commands from the parent
 * @wr: replies to the parent
 *
 * Ranges: W, the pages that go to zswap (compressible, checksummed); H,
 * resident pages faulted in before W is paged out, made cold. Commands:
 * 'O' page W out; 'P' page out the next page of W (a cursor from W's
 * start); 'M' count how many of the pages 'P' paged out are in memory
 * (mincore(): mapped or in the swap cache) into @sh->resident and
 * remember which; 'N' count how many of those are still in memory; 'V'
 * read W back and verify it; 'X' exit. Each is answered with its
 * lower-case letter, or 'e' on failure.
 */
struct child {
	size_t npages;
	struct shared *sh;
	int rd;
	int wr;
};

static int child_fn(void *arg)
{
	struct child *c = arg;
	size_t len = c->npages * env.page_size, i, next = 0;
	unsigned char *vec, *was;
	uint64_t t0;
	char *w, *h;
	int msg;

	vec = malloc(c->npages);
	was = calloc(c->npages, 1);
	w = mmap(NULL, 2 * len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (w == MAP_FAILED || !vec || !was)
		return 3;
	h = w + len;
	/* Order-0 folios: slot order is page order. */
	madvise(w, 2 * len, MADV_NOHUGEPAGE);
	for (i = 0; i < c->npages; i++) {
		zs_fill_page(w + i * env.page_size, env.page_size,
			     ZS_PAT_COMPRESSIBLE, BATCH_SEED ^ i);
		c->sh->csum[i] = zs_csum(w + i * env.page_size, env.page_size);
	}
	for (i = 0; i < c->npages; i++)
		zs_fill_page(h + i * env.page_size, env.page_size,
			     ZS_PAT_COMPRESSIBLE, ~BATCH_SEED ^ i);
	/*
	 * H is inactive and unreferenced: reclaim would otherwise spare it
	 * for its young bits, whatever the written-back folios' place.
	 */
	madvise(h, len, MADV_COLD);
	zs_send_msg(c->wr, 'f');

	for (;;) {
		msg = zs_wait_for_msg(c->rd, PHASE_TIMEOUT_MS);
		switch (msg) {
		case 'O':
			msg = madvise(w, len, MADV_PAGEOUT) ? 'e' : 'o';
			break;
		case 'P':
			msg = next < c->npages &&
			      !madvise(w + next * env.page_size, env.page_size,
				       MADV_PAGEOUT) ? 'p' : 'e';
			next++;
			break;
		case 'M':
		case 'N':
			if (!next || mincore(w, next * env.page_size, vec)) {
				msg = 'e';
				break;
			}
			c->sh->resident = 0;
			for (i = 0; i < next; i++) {
				if (msg == 'M')
					was[i] = vec[i] & 1;
				c->sh->resident += was[i] && (vec[i] & 1);
			}
			msg = msg == 'M' ? 'm' : 'n';
			break;
		case 'V':
			t0 = zs_now_ms();
			c->sh->bad = 0;
			c->sh->first_bad = -1;
			for (i = 0; i < c->npages; i++) {
				if (zs_csum(w + i * env.page_size, env.page_size) ==
				    c->sh->csum[i])
					continue;
				if (!c->sh->bad++)
					c->sh->first_bad = i;
			}
			c->sh->verify_ms = zs_now_ms() - t0;
			msg = 'v';
			break;
		case 'X':
			return 0;
		default:
			return 4;
		}
		zs_send_msg(c->wr, msg);
	}
}

/**
 * struct cs - one case's cgroup and child
 * @cg: the cgroup
 * @c: the child's arguments
 * @pid: the child
 * @shsize: size of @c.sh
 */
struct cs {
	char *cg;
	struct child c;
	pid_t pid;
	size_t shsize;
};

/* Sends @cmd to the child and waits for @reply; 0 or -1 with @why. */
static int ask(struct cs *k, char cmd, char reply, int timeout_ms,
	       char *why, size_t len)
{
	int msg;

	zs_send_msg(k->c.wr, cmd);
	msg = zs_wait_for_msg(k->c.rd, timeout_ms);
	if (msg == reply)
		return 0;
	snprintf(why, len, "child: '%c' answered %s", cmd,
		 msg == -ETIMEDOUT ? "nothing in time" :
		 msg == 'e' ? "with an error" : "by dying");
	return -1;
}

/* A cgroup with a filled child in it; 0 or -1 with @why. */
static int case_start(struct cs *k, const char *name, char *why, size_t len)
{
	memset(k, 0, sizeof(*k));
	k->c.rd = -1;
	k->c.wr = -1;
	k->cg = zs_cg_create(env.cgroot, name);
	if (!k->cg) {
		snprintf(why, len, "cannot create cgroup %s", name);
		return -1;
	}
	if (cg_write_numeric(k->cg, "memory.max", BATCH_MEM_MAX) ||
	    cg_write(k->cg, "memory.zswap.max", "max") ||
	    cg_write(k->cg, "memory.zswap.writeback", "1")) {
		snprintf(why, len, "cannot configure %s", k->cg);
		return -1;
	}
	k->c.npages = BATCH_SIZE / env.page_size;
	k->shsize = sizeof(*k->c.sh) + k->c.npages * sizeof(uint64_t);
	k->c.sh = mmap(NULL, k->shsize, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (k->c.sh == MAP_FAILED) {
		snprintf(why, len, "mmap: %s", strerror(errno));
		return -1;
	}
	memset(k->c.sh, 0, k->shsize);
	/* From the fork on, c.rd/c.wr are the parent's ends. */
	k->pid = zs_cg_spawn_piped(k->cg, child_fn, &k->c, &k->c.rd, &k->c.wr,
				   &k->c.rd, &k->c.wr);
	if (k->pid < 0) {
		snprintf(why, len, "pipe/fork: %s", strerror(errno));
		return -1;
	}
	if (zs_wait_for_msg(k->c.rd, PHASE_TIMEOUT_MS) != 'f') {
		snprintf(why, len, "child did not fill its memory");
		return -1;
	}
	return 0;
}

static void case_end(struct cs *k)
{
	if (k->pid > 0)
		zs_child_stop(k->pid, k->c.wr, NULL, 10000);
	zs_run_cleanup(k->cg, k->c.rd, k->c.wr);
	if (k->c.sh && k->c.sh != MAP_FAILED)
		munmap(k->c.sh, k->shsize);
}

/* Pages W to zswap; 0 or -1 with @why (also when too little got there). */
static int page_out(struct cs *k, char *why, size_t len)
{
	long long before, after;

	before = zs_memstat_or(k->cg, "zswpout", 0);
	if (ask(k, 'O', 'o', PHASE_TIMEOUT_MS, why, len))
		return -1;
	after = zs_memstat_or(k->cg, "zswpout", 0);
	if (after - before < (long long)k->c.npages / 2) {
		snprintf(why, len, "only %lld of %zu pages went to zswap",
			 after - before, k->c.npages);
		return -1;
	}
	return 0;
}

/*
 * The swap partition's completed write requests (after merging) and
 * sectors written, from its stat file (Documentation/block/stat.rst);
 * -1 when the swap area is not a block device.
 */
static int swap_disk_writes(char *path, size_t len, long long *ios,
			    long long *sectors)
{
	unsigned long long v[7];
	char buf[256];
	struct stat st;

	if (stat(env.swap_path, &st) || !S_ISBLK(st.st_mode))
		return -1;
	snprintf(path, len, "/sys/dev/block/%u:%u/stat",
		 major(st.st_rdev), minor(st.st_rdev));
	if (zs_read_file(path, buf, sizeof(buf)) <= 0 ||
	    sscanf(buf, "%llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
		   &v[2], &v[3], &v[4], &v[5], &v[6]) != 7)
		return -1;
	*ios = v[4];
	*sectors = v[6];
	return 0;
}

/*
 * Waits until no page is under writeback; 0, or -1 with the reason in
 * @why. nr_writeback in /proc/vmstat leaves out what each CPU has not
 * folded into it yet, up to the vmstat threshold per CPU (16 pages in a
 * 1G guest of 2 CPUs): a walk's bio can be in flight while it reads 0.
 * Writing /proc/sys/vm/stat_refresh folds every CPU's part first.
 */
static int wait_writeback_done(char *why, size_t len)
{
	uint64_t end = zs_now_ms() + WB_TIMEOUT_MS;
	long long n;

	do {
		if (zs_write_file("/proc/sys/vm/stat_refresh", "1") ||
		    zs_vmstat("nr_writeback", &n)) {
			snprintf(why, len, "cannot refresh and read nr_writeback");
			return -1;
		}
		if (n == 0)
			return 0;
		zs_sleep_ms(50);
	} while (zs_now_ms() < end);
	snprintf(why, len, "%lld pages still under writeback after %d ms",
		 n, WB_TIMEOUT_MS);
	return -1;
}

static int test_pages_per_write_bio(char *why, size_t len)
{
	static const char name[] = "pages_per_write_bio";
	long long out0, bios0, ios0 = 0, sec0 = 0, wb0;
	long long out1, bios1, ios1 = 0, sec1 = 0, wb1;
	double per_bio, per_req = -1;
	int res = KSFT_FAIL, i;
	char stat_path[PATH_MAX];
	bool disk;
	uint64_t end;
	struct cs k;

	if (case_start(&k, "zswap_batch_ppr", why, len) || page_out(&k, why, len))
		goto out;

	zs_vmstat("pswpout", &out0);
	zs_vmstat("nrswpout", &bios0);
	disk = !swap_disk_writes(stat_path, sizeof(stat_path), &ios0, &sec0);
	wb0 = zs_memstat_or(k.cg, "zswpwb", 0);
	/* Only zswap is left to shrink: reclaim drives the shrinker. */
	end = zs_now_ms() + PHASE_TIMEOUT_MS;
	for (i = 0; zs_now_ms() < end; i++) {
		cg_write(k.cg, "memory.reclaim", "8M");
		if (zs_memstat_or(k.cg, "zswpwb", 0) - wb0 >= (long long)k.c.npages / 2)
			break;
		zs_sleep_ms(100);
	}
	if (wait_writeback_done(why, len))
		ksft_print_msg("%s: %s\n", name, why);
	zs_vmstat("pswpout", &out1);
	zs_vmstat("nrswpout", &bios1);
	if (disk)
		disk = !swap_disk_writes(stat_path, sizeof(stat_path), &ios1,
					 &sec1);
	wb1 = zs_memstat_or(k.cg, "zswpwb", 0);

	ksft_print_msg("%s: zswpwb +%lld, pswpout +%lld, nrswpout +%lld, %d reclaim calls\n",
		       name, wb1 - wb0, out1 - out0, bios1 - bios0, i + 1);
	if (disk)
		ksft_print_msg("%s: %s: write requests +%lld, sectors +%lld\n",
			       name, stat_path, ios1 - ios0, sec1 - sec0);
	if (wb1 - wb0 < 32 || bios1 == bios0) {
		snprintf(why, len,
			 "zswpwb +%lld, nrswpout +%lld, expected >= 32 and > 0: no writeback to measure",
			 wb1 - wb0, bios1 - bios0);
		goto out;
	}
	per_bio = (double)(out1 - out0) / (bios1 - bios0);
	/* sectors are 512 bytes: sectors / 8 / requests with 4K pages */
	if (disk && ios1 > ios0)
		per_req = (double)(sec1 - sec0) * 512 / env.page_size /
			  (ios1 - ios0);
	if (per_req < 0)
		ksft_print_msg("%s: %.2f pages per write bio; per device request: n/a (%s)\n",
			       name, per_bio, disk ? "no write request" :
			       "swap is not on a block device");
	else
		ksft_print_msg("%s: %.2f pages per write bio, %.2f per device write request\n",
			       name, per_bio, per_req);
	if (per_bio < ZS_MIN_PAGES_PER_BIO) {
		snprintf(why, len, "%.2f pages per write bio, expected at least %.1f",
			 per_bio, ZS_MIN_PAGES_PER_BIO);
		goto out;
	}
	res = KSFT_PASS;
out:
	case_end(&k);
	return res;
}

/* Lets @pid (0: the caller) run on @cpu only; 0 or -1 with errno. */
static int run_on_cpu(pid_t pid, int cpu)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	return sched_setaffinity(pid, sizeof(one), &one);
}

/*
 * Drains the per-CPU LRU caches of every CPU we may run on: MADV_COLD
 * starts with lru_add_drain(), which also flushes the batch of pending
 * moves to the inactive tail. A batch fills and drains by itself under
 * steady writeback; with fewer folios than a batch holds, the write end's
 * rotation would otherwise wait in the batch of the CPU that completed it.
 * What the LRU-add batch still holds at the write's end is not rotated by
 * this: the drain adds it at the inactive head.
 */
static int drain_lru_caches(void)
{
	cpu_set_t all;
	int cpu, ret = 0;
	void *page;

	if (sched_getaffinity(0, sizeof(all), &all))
		return -1;
	page = mmap(NULL, env.page_size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		return -1;
	for (cpu = 0; cpu < CPU_SETSIZE && !ret; cpu++) {
		if (!CPU_ISSET(cpu, &all))
			continue;
		ret = run_on_cpu(0, cpu) ||
		      madvise(page, env.page_size, MADV_COLD);
	}
	if (sched_setaffinity(0, sizeof(all), &all))
		ret = -1;
	munmap(page, env.page_size);
	return ret;
}

/* Pages out @nr more pages of W, one 'P' each; 0 or -1 with @why. */
static int page_out_next(struct cs *k, int nr, char *why, size_t len)
{
	while (nr--)
		if (ask(k, 'P', 'p', PHASE_TIMEOUT_MS, why, len))
			return -1;
	return 0;
}

static int test_rotation(char *why, size_t len)
{
	long long out0, out1, wb0, wb1, swap0, swap1, n, before, after;
	long long bios0 = 0, bios1 = 0;
	int res = KSFT_FAIL, pushes;
	char amount[32];
	struct cs k;

	if (case_start(&k, "zswap_batch_rot", why, len))
		goto out;
	/*
	 * Slots come from a per-CPU swap cluster: a child that moved between
	 * its one-page stores would get slots from two clusters, and the walk
	 * submits a bio at each slot gap, before its LRU drain (see
	 * zswap_walk_batch()). Ours is a CPU we may run on.
	 */
	if (run_on_cpu(k.pid, sched_getcpu())) {
		snprintf(why, len, "cannot pin the child to one CPU: %s", strerror(errno));
		goto out;
	}

	out0 = zs_memstat_or(k.cg, "zswpout", 0);
	if (page_out_next(&k, ROT_STORED, why, len))
		goto out;
	/*
	 * memory.stat is flushed every 2 s, or sooner past a per-CPU batch
	 * of updates that 24 stores do not reach: wait for the count.
	 */
	zs_wait_for_memstat_above(k.cg, "zswpout", out0 + ROT_STORED - 1,
				  STAT_FLUSH_MS, &out1);
	if (out1 - out0 < ROT_STORED) {
		snprintf(why, len, "only %lld of %d pages went to zswap",
			 out1 - out0, ROT_STORED);
		goto out;
	}

	/* Each further store is over the limit and writes back. */
	wb0 = zs_memstat_or(k.cg, "zswpwb", 0);
	zs_vmstat("nrswpout", &bios0);
	if (cg_write(k.cg, "memory.zswap.max", "0")) {
		snprintf(why, len, "cannot set memory.zswap.max");
		goto out;
	}
	for (pushes = 0; pushes < ROT_PUSH_MAX; pushes++) {
		if (zs_memstat_or(k.cg, "zswpwb", 0) - wb0 >= ROT_STORED / 2)
			break;
		if (page_out_next(&k, 1, why, len)) {
			pushes = -1;
			break;
		}
	}
	cg_write(k.cg, "memory.zswap.max", "max");
	if (pushes < 0)
		goto out;
	/* A folio whose write is still in flight is kept by reclaim. */
	if (wait_writeback_done(why, len))
		goto out;
	if (drain_lru_caches()) {
		snprintf(why, len, "cannot drain the LRU caches: %s", strerror(errno));
		goto out;
	}
	wb1 = zs_memstat_or(k.cg, "zswpwb", 0);
	zs_vmstat("nrswpout", &bios1);
	n = wb1 - wb0;
	if (n < ROT_STORED / 2 || n >= ROT_BATCH_MAX) {
		snprintf(why, len, "%lld entries written back by %d stores, expected %d to %d",
			 n, pushes, ROT_STORED / 2, ROT_BATCH_MAX - 1);
		goto out;
	}

	/* Written back (or swapped out directly): in the swap cache. */
	if (ask(&k, 'M', 'm', PHASE_TIMEOUT_MS, why, len))
		goto out;
	before = k.c.sh->resident;
	if (zs_cg_ll(k.cg, "memory.swap.current", &swap0)) {
		snprintf(why, len, "no memory.swap.current");
		goto out;
	}
	snprintf(amount, sizeof(amount), "%lld", before * env.page_size);
	cg_write(k.cg, "memory.reclaim", amount);
	zs_cg_ll(k.cg, "memory.swap.current", &swap1);
	/* Only those: the shrinker may write more back meanwhile. */
	if (ask(&k, 'N', 'n', PHASE_TIMEOUT_MS, why, len))
		goto out;
	after = k.c.sh->resident;

	ksft_print_msg("rotation: %lld written back by %d stores over the limit, %lld cached\n",
		       n, pushes, before);
	ksft_print_msg("rotation: in %lld write bios\n", bios1 - bios0);
	ksft_print_msg("rotation: reclaiming %lld pages left %lld of them; swap +%lld pages\n",
		       before, after, (swap1 - swap0) / env.page_size);
	if (before < n) {
		snprintf(why, len, "%lld written back, only %lld in the swap cache",
			 n, before);
		goto out;
	}
	if (after > before / 4) {
		snprintf(why, len,
			 "%lld of %lld written-back folios survived reclaim, expected <= %lld",
			 after, before, before / 4);
		goto out;
	}
	res = KSFT_PASS;
out:
	case_end(&k);
	return res;
}

/* Drives reclaim, hence shrinker writeback, until killed or @ms pass. */
static void reclaim_loop(const char *cg, int ms)
{
	uint64_t end = zs_now_ms() + ms;

	while (zs_now_ms() < end) {
		cg_write(cg, "memory.reclaim", "16M");
		zs_sleep_ms(20);
	}
	_exit(0);
}

static int test_fault_race(char *why, size_t len)
{
	long long wb0, wb1, in0, in1;
	int res = KSFT_FAIL, status;
	pid_t reclaimer;
	struct cs k;

	if (case_start(&k, "zswap_batch_race", why, len) || page_out(&k, why, len))
		goto out;

	wb0 = zs_memstat_or(k.cg, "zswpwb", 0);
	in0 = zs_memstat_or(k.cg, "zswpin", 0);
	fflush(stdout);
	reclaimer = fork();
	if (reclaimer < 0) {
		snprintf(why, len, "fork: %s", strerror(errno));
		goto out;
	}
	if (!reclaimer)
		reclaim_loop(k.cg, 2 * RACE_TIMEOUT_MS);
	/*
	 * Once writeback runs, fault on the same entries, oldest first, as
	 * the walks take them.
	 */
	if (zs_wait_for_memstat_above(k.cg, "zswpwb", wb0 + 63, 20000, &wb1)) {
		kill(reclaimer, SIGKILL);
		zs_wait_for_exit(reclaimer, &status, 5000);
		snprintf(why, len,
			 "zswpwb +%lld after 20 s of reclaim, expected > 63: no writeback to race with",
			 wb1 - wb0);
		goto out;
	}
	if (ask(&k, 'V', 'v', RACE_TIMEOUT_MS, why, len)) {
		kill(reclaimer, SIGKILL);
		zs_wait_for_exit(reclaimer, &status, 5000);
		goto out;
	}
	kill(reclaimer, SIGKILL);
	zs_wait_for_exit(reclaimer, &status, 5000);
	wb1 = zs_memstat_or(k.cg, "zswpwb", 0);
	in1 = zs_memstat_or(k.cg, "zswpin", 0);

	ksft_print_msg("fault_race: %zu pages read back in %llu ms, %ld corrupt\n",
		       k.c.npages, (unsigned long long)k.c.sh->verify_ms, k.c.sh->bad);
	ksft_print_msg("fault_race: meanwhile zswpwb +%lld, zswpin +%lld\n",
		       wb1 - wb0, in1 - in0);
	if (k.c.sh->bad) {
		snprintf(why, len, "%ld pages corrupt (first: page %ld), expected 0",
			 k.c.sh->bad, k.c.sh->first_bad);
		goto out;
	}
	res = KSFT_PASS;
out:
	case_end(&k);
	return res;
}

int main(void)
{
	char why[512];
	int res;

	ksft_print_header();
	zs_setup(&env, 3 * BATCH_SIZE / 1024 * 2);
	if (zs_param_set("shrinker_enabled", "Y"))
		ksft_exit_skip("cannot switch the zswap shrinker on\n");
	ksft_set_plan(3);

	snprintf(why, sizeof(why), ZS_NOT_RUN);
	res = test_pages_per_write_bio(why, sizeof(why));
	zs_report(res, "pages_per_write_bio", why);

	snprintf(why, sizeof(why), ZS_NOT_RUN);
	res = test_rotation(why, sizeof(why));
	zs_report(res, "rotation", why);

	snprintf(why, sizeof(why), ZS_NOT_RUN);
	res = test_fault_race(why, sizeof(why));
	zs_report(res, "fault_race", why);

	ksft_finished();
}
