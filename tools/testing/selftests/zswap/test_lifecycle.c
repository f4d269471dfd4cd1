// SPDX-License-Identifier: GPL-2.0
/*
 * zswap writeback across configuration and device changes.
 *
 * writeback_disabled: with memory.zswap.writeback=0, no trigger writes
 *   anything back: memory pressure (the shrinker), memory.reclaim,
 *   memory.zswap.max and the global max_pool_percent (shrink_worker).
 * compressor_switch: entries stored before a compressor switch still
 *   write back and load intact after it, and the old pool goes away once
 *   its last entry is gone (its zsmalloc debugfs directory is removed).
 * swapfile_writeback: with a swap file on a filesystem as the swap area,
 *   pages go through zswap, writeback to the file and swapin intact.
 * swapoff_during_writeback: swapoff of that file while memory.zswap.max
 *   writeback of its entries runs: swapoff succeeds, no page is lost.
 *
 * The swap file cases need a directory on a filesystem that can hold a
 * swap file (ext4, xfs, btrfs...): ZSWAP_SCRATCH. Without it they skip.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest.h"
#include "cgroup_util.h"
#include "zswap_util.h"

#define REGION			ZS_MB(12)
#define NR_REGIONS		2
#define SEED			0x6c6966656379636cULL
#define MSG_TIMEOUT_MS		90000

/*
 * writeback_disabled: 24M of compressible data (incompressible pages are
 * not stored when writeback is off) under a 20M memory.max. For the
 * global limit, max_pool_percent is 0: every store then hits the limit
 * and queues shrink_worker, however well the data compressed and however
 * much memory.reclaim pushed out. At 1% of a 1G guest the ~10M pool was
 * a coin flip: one run in three never reached it.
 */
#define WD_MEM_MAX		ZS_MB(20)
#define WD_POOL_PCT		"0"

#define ZSMALLOC_DEBUGFS	DEBUGFS_DIR "/zsmalloc"
#define POOL_GONE_MS		30000

#define SWAPFILE_SIZE		ZS_MB(96)
#define SWAPOFF_MS		120000

static struct zs_env env;

/* Shared with the child that owns the pages. */
struct shared {
	long bad;
	long first_bad;
	long filled;		/* pages filled so far */
	uint64_t csum[];
};

struct holder {
	struct shared *sh;
	size_t shsize;
	char *cg;
	pid_t pid;
	int rd;
	int wr;
};

/*
 * The child: 'a' + k fills region k with the three patterns interleaved,
 * 'A' + k with ~2:1 compressible pages only, 'V' checks every filled page
 * against its checksum, 'X' exits.
 */
static int holder_fn(void *arg)
{
	struct holder *h = arg;
	size_t npages = REGION / env.page_size, i, k;
	char *mem, *p;
	int msg;

	mem = mmap(NULL, NR_REGIONS * REGION, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return 3;
	madvise(mem, NR_REGIONS * REGION, MADV_NOHUGEPAGE);

	for (;;) {
		msg = zs_wait_for_msg(h->rd, 10 * MSG_TIMEOUT_MS);
		if (msg == 'X')
			return 0;
		if ((msg >= 'a' && msg < 'a' + NR_REGIONS) ||
		    (msg >= 'A' && msg < 'A' + NR_REGIONS)) {
			k = msg >= 'a' ? msg - 'a' : msg - 'A';
			for (i = k * npages; i < (k + 1) * npages; i++) {
				p = mem + i * env.page_size;
				zs_fill_page(p, env.page_size,
					     msg >= 'a' ? i % ZS_NR_PATTERNS :
					     ZS_PAT_COMPRESSIBLE, SEED ^ i);
				h->sh->csum[i] = zs_csum(p, env.page_size);
			}
			if ((long)((k + 1) * npages) > h->sh->filled)
				h->sh->filled = (k + 1) * npages;
		} else if (msg == 'V') {
			h->sh->bad = 0;
			h->sh->first_bad = -1;
			for (i = 0; i < (size_t)h->sh->filled; i++) {
				if (zs_csum(mem + i * env.page_size,
					    env.page_size) == h->sh->csum[i])
					continue;
				if (!h->sh->bad++)
					h->sh->first_bad = i;
			}
		} else {
			return 4;
		}
		zs_send_msg(h->wr, 'k');
	}
}

static int holder_start(struct holder *h, const char *name, size_t mem_max)
{
	memset(h, 0, sizeof(*h));
	h->pid = -1;
	h->rd = -1;
	h->wr = -1;
	h->shsize = sizeof(*h->sh) +
		    NR_REGIONS * REGION / env.page_size * sizeof(uint64_t);
	h->sh = mmap(NULL, h->shsize, PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (h->sh == MAP_FAILED) {
		h->sh = NULL;
		return -1;
	}
	/* Faulted in here: charged to the test, not to the cgroup. */
	memset(h->sh, 0, h->shsize);

	h->cg = zs_cg_create(env.cgroot, name);
	if (!h->cg || cg_write_numeric(h->cg, "memory.max", mem_max) ||
	    cg_write(h->cg, "memory.zswap.max", "max"))
		return -1;
	/* The child sees its own ends in rd/wr, the parent its ends. */
	h->pid = zs_cg_spawn_piped(h->cg, holder_fn, h, &h->rd, &h->wr,
				   &h->rd, &h->wr);
	return h->pid < 0 ? -1 : 0;
}

/* Sends @cmd to the holder and waits for its answer. */
static int holder_do(struct holder *h, char cmd)
{
	if (zs_send_msg(h->wr, cmd))
		return -1;
	return zs_wait_for_msg(h->rd, MSG_TIMEOUT_MS) == 'k' ? 0 : -1;
}

static void holder_stop(struct holder *h)
{
	if (h->pid > 0)
		zs_child_stop(h->pid, h->wr, NULL, 20000);
	zs_run_cleanup(h->cg, h->rd, h->wr);
	if (h->sh)
		munmap(h->sh, h->shsize);
	memset(h, 0, sizeof(*h));
}

/* Pushes the holder's memory out: memory.reclaim may stop short. */
static void push_out(const char *cg, int tries)
{
	char amount[32];

	snprintf(amount, sizeof(amount), "%zu", NR_REGIONS * REGION + ZS_MB(8));
	while (tries--)
		cg_write(cg, "memory.reclaim", amount);
}

/* Checks every page; 0 when intact, else -1 with @why filled in. */
static int holder_verify(struct holder *h, char *why, size_t len)
{
	long long ooms = -1;

	if (holder_do(h, 'V')) {
		zs_cg_key(h->cg, "memory.events", "oom_kill", &ooms);
		snprintf(why, len, "page holder died or stalled (oom_kill %lld)",
			 ooms);
		return -1;
	}
	if (h->sh->bad) {
		snprintf(why, len,
			 "%ld of %ld pages corrupt, first %ld (%s), expected 0",
			 h->sh->bad, h->sh->filled, h->sh->first_bad,
			 zs_pattern_name(h->sh->first_bad % ZS_NR_PATTERNS));
		return -1;
	}
	return 0;
}

static int test_writeback_disabled(char *why, size_t len)
{
	long long wb0, wb1, cgwb, out, hit0, hit1, rej, ooms = -1;
	char path[PATH_MAX];
	struct holder h;
	int ret = KSFT_FAIL;

	if (holder_start(&h, "zswap_lifecycle_nowb", WD_MEM_MAX)) {
		snprintf(why, len, "cannot start the page holder");
		goto out;
	}
	snprintf(path, sizeof(path), "%s/memory.zswap.writeback", h.cg);
	if (access(path, F_OK)) {
		snprintf(why, len, "no memory.zswap.writeback");
		ret = KSFT_SKIP;
		goto out;
	}
	if (cg_write(h.cg, "memory.zswap.writeback", "0") ||
	    zs_param_set("shrinker_enabled", "Y")) {
		snprintf(why, len, "cannot set memory.zswap.writeback/shrinker_enabled");
		goto out;
	}
	wb0 = zs_debugfs_or("written_back_pages", -1);
	hit0 = zs_debugfs_or("pool_limit_hit", -1);

	/* 1. memory pressure: 24M under a 20M memory.max, shrinker on */
	if (holder_do(&h, 'A') || holder_do(&h, 'B')) {
		snprintf(why, len, "page holder died filling its pages");
		goto out;
	}
	/* 2. proactive reclaim */
	push_out(h.cg, 2);
	/* 3. memory.zswap.max below the pool, with room to spare in memory */
	if (cg_write_numeric(h.cg, "memory.max", ZS_MB(128)) ||
	    cg_write_numeric(h.cg, "memory.zswap.max", ZS_MB(1))) {
		snprintf(why, len, "cannot raise memory.max/lower memory.zswap.max");
		goto out;
	}
	if (holder_do(&h, 'A')) {
		snprintf(why, len, "page holder died refilling its pages");
		goto out;
	}
	push_out(h.cg, 2);
	/* 4. the global pool limit: shrink_worker */
	cg_write(h.cg, "memory.zswap.max", "max");
	if (zs_param_set("max_pool_percent", WD_POOL_PCT)) {
		snprintf(why, len, "cannot set max_pool_percent");
		goto out;
	}
	if (holder_do(&h, 'A') || holder_do(&h, 'B')) {
		snprintf(why, len, "page holder died refilling its pages");
		goto out;
	}
	push_out(h.cg, 2);
	/* shrink_worker is asynchronous: give it time to do the wrong thing */
	zs_sleep_ms(2000);

	wb1 = zs_debugfs_or("written_back_pages", -1);
	hit1 = zs_debugfs_or("pool_limit_hit", -1);
	rej = zs_debugfs_or("reject_reclaim_fail", -1);
	cgwb = zs_memstat_or(h.cg, "zswpwb", -1);
	out = zs_memstat_or(h.cg, "zswpout", -1);
	zs_cg_key(h.cg, "memory.events", "oom_kill", &ooms);
	ksft_print_msg("writeback_disabled: zswpout %lld, zswpwb %lld, oom_kill %lld\n",
		       out, cgwb, ooms);
	ksft_print_msg("writeback_disabled: written_back_pages +%lld, pool_limit_hit +%lld\n",
		       wb1 - wb0, hit1 - hit0);
	ksft_print_msg("writeback_disabled: reject_reclaim_fail %lld\n", rej);

	if (cgwb != 0 || wb1 != wb0) {
		snprintf(why, len,
			 "zswpwb %lld, written_back_pages +%lld, expected 0 with memory.zswap.writeback=0",
			 cgwb, wb1 - wb0);
		goto out;
	}
	if (holder_verify(&h, why, len))
		goto out;
	if (out <= 0 || hit1 <= hit0) {
		snprintf(why, len,
			 "zswpout %lld, pool_limit_hit +%lld, expected both > 0: the triggers were not exercised",
			 out, hit1 - hit0);
		goto out;
	}
	ret = KSFT_PASS;
out:
	holder_stop(&h);
	return ret;
}

/* Fills @names with the zswap pools that zsmalloc lists; returns how many. */
static int zswap_pools(char names[][NAME_MAX + 1], int max)
{
	struct dirent *de;
	int n = 0;
	DIR *d;

	d = opendir(ZSMALLOC_DEBUGFS);
	if (!d)
		return -1;
	while ((de = readdir(d)) && n < max) {
		if (strncmp(de->d_name, "zswap", 5))
			continue;
		snprintf(names[n++], NAME_MAX + 1, "%s", de->d_name);
	}
	closedir(d);
	return n;
}

static bool pool_listed(const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", ZSMALLOC_DEBUGFS, name);
	return !access(path, F_OK);
}

static int test_compressor_switch(char *why, size_t len)
{
	static const char * const algos[] = { "lz4", "lzo", "zstd", "deflate" };
	char before[8][NAME_MAX + 1], after[8][NAME_MAX + 1], old[NAME_MAX + 1] = "";
	char cur[64], path[PATH_MAX];
	long long stored, wb0, wb1;
	int nb, na, i, j, ret = KSFT_FAIL;
	const char *algo = NULL;
	uint64_t t0, end;
	struct holder h;

	snprintf(path, sizeof(path), "%s/compressor", ZSWAP_PARAM_DIR);
	if (zs_read_file(path, cur, sizeof(cur)) < 0) {
		snprintf(why, len, "cannot read the zswap compressor");
		return KSFT_SKIP;
	}
	if (access(ZSMALLOC_DEBUGFS, F_OK)) {
		snprintf(why, len, "no %s (CONFIG_ZSMALLOC_STAT): pool lifetime not observable",
			 ZSMALLOC_DEBUGFS);
		return KSFT_SKIP;
	}
	if (holder_start(&h, "zswap_lifecycle_switch", ZS_MB(128)) ||
	    zs_param_set("shrinker_enabled", "N")) {
		snprintf(why, len, "cannot start the page holder");
		goto out;
	}

	/* Entries in the current pool. */
	if (holder_do(&h, 'a')) {
		snprintf(why, len, "page holder died filling its pages");
		goto out;
	}
	push_out(h.cg, 2);
	stored = zs_debugfs_or("stored_pages", -1);
	nb = zswap_pools(before, 8);

	for (i = 0; i < (int)ARRAY_SIZE(algos) && !algo; i++)
		if (strcmp(cur, algos[i]) && !zs_param_set("compressor", algos[i]))
			algo = algos[i];
	if (!algo) {
		snprintf(why, len, "no other compressor than %s available", cur);
		ret = KSFT_SKIP;
		goto out;
	}
	na = zswap_pools(after, 8);
	/* The old pool: listed before, the new one: listed only after. */
	for (i = 0; i < nb && !old[0]; i++) {
		for (j = 0; j < na; j++)
			if (!strcmp(before[i], after[j]))
				break;
		if (j < na)
			memcpy(old, before[i], sizeof(old));
	}
	ksft_print_msg("compressor_switch: %s -> %s with %lld stored pages\n",
		       cur, algo, stored);
	ksft_print_msg("compressor_switch: zswap pools %d before, %d after\n",
		       nb, na);
	if (stored <= 0 || na <= nb || !old[0]) {
		snprintf(why, len,
			 "expected stored pages (%lld) and a new pool next to the old (%d -> %d pools)",
			 stored, nb, na);
		goto out;
	}

	/* New entries in the new pool; writeback through both. */
	if (holder_do(&h, 'b')) {
		snprintf(why, len, "page holder died filling its pages");
		goto out;
	}
	wb0 = zs_memstat_or(h.cg, "zswpwb", 0);
	if (zs_param_set("shrinker_enabled", "Y") ||
	    cg_write_numeric(h.cg, "memory.zswap.max", ZS_MB(1))) {
		snprintf(why, len, "cannot enable the shrinker/lower memory.zswap.max");
		goto out;
	}
	t0 = zs_now_ms();
	end = t0 + POOL_GONE_MS;
	/* The shrinker and memory.zswap.max write back on reclaim. */
	while (pool_listed(old) && zs_now_ms() < end) {
		push_out(h.cg, 1);
		zs_sleep_ms(200);
	}
	wb1 = zs_memstat_or(h.cg, "zswpwb", -1);
	ksft_print_msg("compressor_switch: old pool %s %s after %.1f s\n",
		       old, pool_listed(old) ? "still there" : "gone",
		       (zs_now_ms() - t0) / 1000.0);
	ksft_print_msg("compressor_switch: zswpwb +%lld, stored_pages %lld\n",
		       wb1 - wb0, zs_debugfs_or("stored_pages", -1));
	if (wb1 <= wb0) {
		snprintf(why, len, "zswpwb rose by %lld after the switch, expected > 0",
			 wb1 - wb0);
		goto out;
	}
	if (pool_listed(old)) {
		snprintf(why, len,
			 "old pool %s still there after %d s, expected it freed once empty",
			 old, POOL_GONE_MS / 1000);
		goto out;
	}
	if (holder_verify(&h, why, len))
		goto out;
	ret = KSFT_PASS;
out:
	holder_stop(&h);
	return ret;
}

/* The swap file: made, swapped on at top priority, removed at exit. */
static char swapfile[PATH_MAX];
static bool swapfile_on;

static void swapfile_remove(void)
{
	if (swapfile_on && !swapoff(swapfile))
		swapfile_on = false;
	if (swapfile[0] && !swapfile_on) {
		unlink(swapfile);
		swapfile[0] = '\0';
	}
}

/* A version 1 swap header: what mkswap writes, minus label and UUID. */
static int write_swap_header(int fd, size_t size)
{
	uint32_t *hdr;
	int ret = 0;

	hdr = calloc(1, env.page_size);
	if (!hdr)
		return -1;
	hdr[1024 / 4] = 1;					/* version */
	hdr[1024 / 4 + 1] = size / env.page_size - 1;		/* last_page */
	memcpy((char *)hdr + env.page_size - 10, "SWAPSPACE2", 10);
	if (pwrite(fd, hdr, env.page_size, 0) != env.page_size)
		ret = -1;
	free(hdr);
	return ret;
}

static int swapfile_make(char *why, size_t len)
{
	const char *dir = getenv("ZSWAP_SCRATCH");
	int fd, prio, flags;
	size_t off;
	char *buf;

	if (!dir || !*dir) {
		snprintf(why, len, "ZSWAP_SCRATCH is not set: no filesystem for a swap file");
		return KSFT_SKIP;
	}
	snprintf(swapfile, sizeof(swapfile), "%s/zswap_swapfile.%d", dir,
		 getpid());
	zs_on_cleanup(swapfile_remove);
	fd = open(swapfile, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		snprintf(why, len, "cannot create %.256s: %s", swapfile,
			 strerror(errno));
		swapfile[0] = '\0';
		return KSFT_SKIP;
	}
	/* Written, not fallocated: a swap file must have no holes. */
	buf = calloc(1, ZS_MB(1));
	for (off = 0; buf && off < SWAPFILE_SIZE; off += ZS_MB(1))
		if (pwrite(fd, buf, ZS_MB(1), off) != (ssize_t)ZS_MB(1))
			break;
	free(buf);
	if (off < SWAPFILE_SIZE || write_swap_header(fd, SWAPFILE_SIZE) ||
	    fsync(fd)) {
		close(fd);
		snprintf(why, len, "cannot write %.256s", swapfile);
		return KSFT_SKIP;
	}
	close(fd);

	/* Above the other areas, so that new swap slots come from it. */
	prio = env.swap_prio + 10;
	if (prio < 0)
		prio = 10;
	if (prio > SWAP_FLAG_PRIO_MASK)
		prio = SWAP_FLAG_PRIO_MASK;
	flags = SWAP_FLAG_PREFER | (prio << SWAP_FLAG_PRIO_SHIFT);
	if (swapon(swapfile, flags)) {
		snprintf(why, len, "swapon %.256s: %s (filesystem without swap file support?)",
			 swapfile, strerror(errno));
		return KSFT_SKIP;
	}
	swapfile_on = true;
	return KSFT_PASS;
}

/* The swap file's "used" KiB from /proc/swaps, -1 if not listed. */
static long long swapfile_used(void)
{
	char buf[4096], *line, *save, path[PATH_MAX];
	long long size, used;

	if (zs_read_file("/proc/swaps", buf, sizeof(buf)) < 0)
		return -1;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%4095s %*s %lld %lld", path, &size, &used) == 3 &&
		    !strcmp(path, swapfile))
			return used;
	}
	return -1;
}

static int pusher_fn(void *arg)
{
	const char *cg = arg;
	uint64_t end = zs_now_ms() + SWAPOFF_MS;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	while (zs_now_ms() < end) {
		cg_write((char *)cg, "memory.reclaim", "8M");
		zs_sleep_ms(20);
	}
	return 0;
}

/*
 * swapfile_writeback, then swapoff_during_writeback on the same file and
 * pages.
 */
static void test_swapfile(int *res, char why[][512], size_t len)
{
	long long wb0, wb1, used, ret;
	pid_t pusher = -1, off = -1;
	int status = 0, ok;
	uint64_t t0, t1;
	struct holder h = { 0 };

	res[0] = KSFT_FAIL;
	res[1] = KSFT_FAIL;
	ret = swapfile_make(why[0], len);
	if (ret != KSFT_PASS) {
		res[0] = ret;
		res[1] = ret;
		memcpy(why[1], why[0], len);
		return;
	}
	if (holder_start(&h, "zswap_lifecycle_swapfile", ZS_MB(128)) ||
	    zs_param_set("shrinker_enabled", "N")) {
		snprintf(why[0], len, "cannot start the page holder");
		memcpy(why[1], why[0], len);
		goto out;
	}

	/* swapfile_writeback */
	if (holder_do(&h, 'a') || holder_do(&h, 'b')) {
		snprintf(why[0], len, "page holder died filling its pages");
		memcpy(why[1], why[0], len);
		goto out;
	}
	wb0 = zs_memstat_or(h.cg, "zswpwb", 0);
	cg_write_numeric(h.cg, "memory.zswap.max", ZS_MB(1));
	push_out(h.cg, 3);
	wb1 = zs_memstat_or(h.cg, "zswpwb", -1);
	used = swapfile_used();
	ksft_print_msg("swapfile_writeback: %s, used %lld KiB, zswpout %lld, zswpwb +%lld\n",
		       swapfile, used, zs_memstat_or(h.cg, "zswpout", -1),
		       wb1 - wb0);
	if (holder_verify(&h, why[0], len))
		res[0] = KSFT_FAIL;
	else if (used <= 0 || wb1 <= wb0)
		snprintf(why[0], len,
			 "swap file used %lld KiB, zswpwb +%lld: expected writeback to the file",
			 used, wb1 - wb0);
	else
		res[0] = KSFT_PASS;

	/* swapoff_during_writeback: entries in zswap and on the file */
	cg_write_numeric(h.cg, "memory.zswap.max", ZS_MB(4));
	push_out(h.cg, 3);
	used = swapfile_used();
	wb0 = zs_memstat_or(h.cg, "zswpwb", 0);
	pusher = zs_cg_spawn(env.cgroot, pusher_fn, h.cg);
	t0 = zs_now_ms();
	off = zs_cg_spawn(env.cgroot, zs_swapoff_fn, swapfile);
	ok = !zs_wait_for_exit(off, &status, SWAPOFF_MS);
	t1 = zs_now_ms();
	kill(pusher, SIGKILL);
	zs_wait_for_exit(pusher, NULL, 10000);
	wb1 = zs_memstat_or(h.cg, "zswpwb", -1);
	if (ok && WIFEXITED(status) && !WEXITSTATUS(status))
		swapfile_on = false;
	ksft_print_msg("swapoff_during_writeback: %lld KiB on the file, zswpwb +%lld meanwhile\n",
		       used, wb1 - wb0);
	ksft_print_msg("swapoff_during_writeback: swapoff %s after %.1f s\n",
		       !ok ? "still running" : WIFEXITED(status) ?
		       strerror(WEXITSTATUS(status)) : "killed",
		       (t1 - t0) / 1000.0);
	if (!ok) {
		snprintf(why[1], len, "swapoff did not return within %d s",
			 SWAPOFF_MS / 1000);
	} else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		snprintf(why[1], len, "swapoff failed: %s, expected success",
			 WIFEXITED(status) ? strerror(WEXITSTATUS(status)) :
			 "killed");
	} else if (holder_verify(&h, why[1], len)) {
		res[1] = KSFT_FAIL;
	} else if (wb1 <= wb0) {
		snprintf(why[1], len,
			 "zswpwb +%lld while swapoff ran, expected > 0: the race was not exercised",
			 wb1 - wb0);
	} else {
		res[1] = KSFT_PASS;
	}
out:
	if (pusher > 0)
		kill(pusher, SIGKILL);
	holder_stop(&h);
	swapfile_remove();
}

int main(void)
{
	char why[2][512] = { ZS_NOT_RUN, ZS_NOT_RUN };
	int res[2] = { KSFT_FAIL, KSFT_FAIL };
	int mark;

	ksft_print_header();
	zs_setup(&env, ZS_MB(64) / 1024);
	ksft_set_plan(4);
	/* Each case starts from zs_setup()'s settings. */
	mark = zs_knobs_mark();

	res[0] = test_writeback_disabled(why[0], sizeof(why[0]));
	zs_report(res[0], "writeback_disabled", why[0]);
	zs_knobs_restore(mark);

	snprintf(why[0], sizeof(why[0]), ZS_NOT_RUN);
	res[0] = test_compressor_switch(why[0], sizeof(why[0]));
	zs_report(res[0], "compressor_switch", why[0]);
	zs_knobs_restore(mark);

	snprintf(why[0], sizeof(why[0]), ZS_NOT_RUN);
	test_swapfile(res, why, sizeof(why[0]));
	zs_report(res[0], "swapfile_writeback", why[0]);
	zs_report(res[1], "swapoff_during_writeback", why[1]);

	ksft_finished();
}
