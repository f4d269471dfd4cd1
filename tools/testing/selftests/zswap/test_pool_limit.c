// SPDX-License-Identifier: GPL-2.0
/*
 * zswap pool limits.
 *
 * (a) memory.zswap.max: a cgroup that swaps more than its zswap limit
 *     must keep its compressed memory at the limit by writing entries back
 *     to the swap device, and must keep storing new pages in zswap (a
 *     limit that only rejects stores would leave zswpout flat).
 * (b) max_pool_percent: once the global pool hits its limit, the shrink
 *     worker must write entries back until the pool is under
 *     accept_threshold_percent of the limit.
 *
 * The zswap shrinker is switched off so that the writeback we see comes
 * from the limits under test and not from memory pressure.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest.h"
#include "cgroup_util.h"
#include "zswap_util.h"

/* (a): 64M touched under a 32M memory.max swaps at least 32M. */
#define A_MEM_MAX		ZS_MB(32)
#define A_ZSWAP_MAX		ZS_MB(2)
#define A_ALLOC			ZS_MB(64)

/* (b): 1% of a 1G guest is a ~10M pool, which ~40M of 2:1 data overfills. */
#define B_MEM_MAX		ZS_MB(24)
#define B_POOL_PCT		1
#define B_ACCEPT_PCT		50
#define B_ALLOC_CAP		ZS_MB(256)
#define B_DRAIN_MS		20000
#define B_STILL_MS		1000
#define B_POLL_MS		100
/* Stores that passed the limit check before a hit may count after it. */
#define B_INFLIGHT_PAGES	32

/* How long one phase of the workload may take on a slow TCG guest. */
#define PHASE_TIMEOUT_MS	90000
#define SAMPLE_MS		20

#define PAGE_TAG		0x7a73776170746167ULL	/* "zswaptag" */

static struct zs_env env;

struct workload {
	size_t size;
	bool second_pass;
	int to_parent;
	int from_parent;
};

/*
 * Runs in the test cgroup: fills @size bytes with ~2:1 compressible pages,
 * each tagged with its index, optionally touches them all again, and stays
 * alive until the parent has read its counters.
 */
static int workload_fn(void *arg)
{
	struct workload *w = arg;
	size_t npages = w->size / env.page_size;
	char *mem;
	int ret = 0;

	/* Order-0 folios keep the zswap.max overshoot to single pages. */
	mem = zs_map_tagged(w->size, env.page_size, PAGE_TAG);
	if (!mem)
		return 3;
	zs_send_msg(w->to_parent, 'A');

	if (w->second_pass) {
		if (zs_wait_for_msg(w->from_parent, PHASE_TIMEOUT_MS) != 'B')
			return 4;
		/* Fault every page back in and dirty it: it must be stored again. */
		if (zs_retag(mem, npages, env.page_size, PAGE_TAG) >= 0)
			ret = 2;
		zs_send_msg(w->to_parent, 'C');
	}

	if (zs_wait_for_msg(w->from_parent, PHASE_TIMEOUT_MS) != 'X')
		return 4;
	return ret;
}

/* Starts workload_fn in @cg; -1 with @why filled in if it cannot. */
static pid_t start_workload(const char *cg, struct workload *w, int *rd,
			    int *wr, char *why, size_t len)
{
	pid_t pid;

	pid = zs_cg_spawn_piped(cg, workload_fn, w, &w->from_parent,
				&w->to_parent, rd, wr);
	if (pid < 0)
		snprintf(why, len, "cannot start the workload");
	return pid;
}

/* Explains why a workload is gone: exit code, signal and OOM kills. */
static void describe_exit(const char *cg, pid_t pid, char *why, size_t len)
{
	long long ooms = -1;
	int status = 0;

	zs_cg_key(cg, "memory.events", "oom_kill", &ooms);
	if (zs_wait_for_exit(pid, &status, 5000)) {
		snprintf(why, len, "workload stopped responding (oom_kill %lld)",
			 ooms);
		return;
	}
	if (WIFSIGNALED(status))
		snprintf(why, len,
			 "workload killed by signal %d (oom_kill %lld), expected a clean exit",
			 WTERMSIG(status), ooms);
	else if (WEXITSTATUS(status) == 2)
		snprintf(why, len, "workload read back a page with a wrong tag");
	else
		snprintf(why, len, "workload exited with %d (oom_kill %lld), expected 0",
			 WEXITSTATUS(status), ooms);
}

/*
 * Explains why the workload did not send the expected message: stuck
 * (killed here) or gone.
 */
static void workload_gone(const char *cg, pid_t pid, int msg, char *why,
			  size_t len)
{
	int status;

	if (msg != -ETIMEDOUT) {
		describe_exit(cg, pid, why, len);
		return;
	}
	kill(pid, SIGKILL);
	zs_wait_for_exit(pid, &status, 5000);
	snprintf(why, len, "workload made no progress in %d ms",
		 PHASE_TIMEOUT_MS);
}

static void append(char *why, size_t len, const char *fmt, long long a,
		   long long b)
{
	size_t used = strlen(why);

	if (used >= len - 1)
		return;
	if (used)
		used += snprintf(why + used, len - used, "; ");
	if (used < len)
		snprintf(why + used, len - used, fmt, a, b);
}

static int test_cgroup_zswap_max(char *why, size_t len)
{
	/*
	 * zswap_store() checks the limit before it compresses: the check
	 * rounds the usage down to pages (one page), every CPU may be
	 * between the check and the charge (one page each), and a store
	 * may be preempted there on a slow guest (one more).
	 */
	long long slack = (env.nr_cpus + 2) * env.page_size;
	long long out_a, out_c, wb_c, ooms = 0;
	struct workload w = { .size = A_ALLOC, .second_pass = true };
	struct zs_peak pk = { 0 };
	int ret = KSFT_FAIL, rd = -1, wr = -1, status, msg;
	char path[PATH_MAX];
	pid_t pid;
	char *cg;

	cg = zs_cg_create(env.cgroot, "zswap_pool_limit_cg");
	if (!cg) {
		snprintf(why, len, "cannot create a cgroup under %s", env.cgroot);
		return KSFT_FAIL;
	}
	snprintf(path, sizeof(path), "%s/memory.zswap.max", cg);
	if (access(path, F_OK)) {
		snprintf(why, len, "no memory.zswap.max");
		ret = KSFT_SKIP;
		goto out;
	}
	if (cg_write_numeric(cg, "memory.max", A_MEM_MAX) ||
	    cg_write_numeric(cg, "memory.zswap.max", A_ZSWAP_MAX)) {
		snprintf(why, len, "cannot set memory.max/memory.zswap.max");
		goto out;
	}

	pid = start_workload(cg, &w, &rd, &wr, why, len);
	if (pid < 0)
		goto out;

	pk.cg = cg;
	msg = zs_wait_for_msg_sampling(rd, PHASE_TIMEOUT_MS, SAMPLE_MS,
				       zs_zswap_peak_sample, &pk);
	if (msg != 'A')
		goto died;
	out_a = zs_memstat_or(cg, "zswpout", -1);

	zs_send_msg(wr, 'B');
	msg = zs_wait_for_msg_sampling(rd, PHASE_TIMEOUT_MS, SAMPLE_MS,
				       zs_zswap_peak_sample, &pk);
	if (msg != 'C')
		goto died;
	out_c = zs_memstat_or(cg, "zswpout", -1);
	wb_c = zs_memstat_or(cg, "zswpwb", -1);
	zs_cg_key(cg, "memory.events", "oom_kill", &ooms);

	if (zs_child_stop(pid, wr, &status, 10000)) {
		snprintf(why, len, "workload did not exit when told to");
		goto out;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		snprintf(why, len,
			 "workload ended with status 0x%x (oom_kill %lld), expected exit 0",
			 status, ooms);
		goto out;
	}

	why[0] = '\0';
	if (pk.peak > (long long)A_ZSWAP_MAX + slack)
		append(why, len, "memory.zswap.current peaked at %lld, expected <= %lld",
		       pk.peak, (long long)A_ZSWAP_MAX + slack);
	if (wb_c <= 0)
		append(why, len, "zswpwb is %lld, expected > %lld", wb_c, 0);
	if (out_a <= 0)
		append(why, len, "zswpout after the fill is %lld, expected > %lld",
		       out_a, 0);
	if (out_c <= out_a)
		append(why, len, "zswpout rose by %lld during the second pass, expected > %lld",
		       out_c - out_a, 0);
	if (why[0])
		goto out;

	ksft_print_msg("zswap.max %zu: zswap.current peak %lld, zswpout %lld+%lld, zswpwb %lld\n",
		       A_ZSWAP_MAX, pk.peak, out_a, out_c - out_a, wb_c);
	ret = KSFT_PASS;
	goto out;

died:
	workload_gone(cg, pid, msg, why, len);
out:
	zs_run_cleanup(cg, rd, wr);
	return ret;
}

struct pool_watch {
	long long thr;
	long long hit0;
	long long hits;		/* pool_limit_hit at the last sample */
	long long out_at_hit;	/* zswpout when the latest hit was seen */
	bool hit_seen;
	bool drained;
	bool resumed;		/* drained, as shown by stores resuming */
	long long pool;
	long long low;		/* lowest pool size after the first limit hit */
	long long high;		/* highest pool size seen */
};

/*
 * Records whether the pool went under the threshold after a limit hit,
 * seen directly or by its effect: after a hit zswap rejects every store
 * until one finds the pool at or under the threshold. Stores then resume
 * and may take the pool over the threshold again before the next sample,
 * so zswpout rising by more than B_INFLIGHT_PAGES with no hit since is
 * the same proof. A pool that never drains keeps rejecting: neither
 * shows.
 */
static void pool_sample(void *arg)
{
	struct pool_watch *pw = arg;
	long long hit, out;

	if (zs_debugfs("pool_limit_hit", &hit) || zs_vmstat("zswpout", &out) ||
	    zs_debugfs("pool_total_size", &pw->pool))
		return;
	if (pw->pool > pw->high)
		pw->high = pw->pool;
	if (hit > pw->hits) {
		pw->hits = hit;
		pw->out_at_hit = out;
		pw->hit_seen = true;
	} else if (pw->hit_seen && out - pw->out_at_hit > B_INFLIGHT_PAGES) {
		pw->resumed = true;
		pw->drained = true;
	}
	if (!pw->hit_seen)
		return;
	if (pw->low < 0 || pw->pool < pw->low)
		pw->low = pw->pool;
	if (pw->pool <= pw->thr)
		pw->drained = true;
}

static int test_global_max_pool(char *why, size_t len)
{
	long long max_pages, thr_pages, pool_max, wb0, wb1, hit1, stored, last;
	struct workload w = { .second_pass = false };
	struct pool_watch pw = { .low = -1 };
	int ret = KSFT_FAIL, rd = -1, wr = -1, status, msg;
	uint64_t end, still_since;
	char val[16];
	char *cg = NULL;
	pid_t pid;

	/* The kernel's own arithmetic: zswap_max_pages(), zswap_accept_thr_pages() */
	max_pages = env.totalram / env.page_size * B_POOL_PCT / 100;
	thr_pages = max_pages * B_ACCEPT_PCT / 100;
	pool_max = max_pages * env.page_size;
	pw.thr = thr_pages * env.page_size;

	/* Swap out about four limits' worth of 2:1 data: twice the pool. */
	w.size = B_MEM_MAX + 4 * pool_max;
	w.size = (w.size + ZS_MB(1) - 1) & ~(ZS_MB(1) - 1);
	if (w.size > B_ALLOC_CAP) {
		snprintf(why, len, "%d%% of RAM is a %lld byte pool, too big to fill here",
			 B_POOL_PCT, pool_max);
		return KSFT_SKIP;
	}
	if (!zs_parse_swaps(&env) &&
	    (env.swap_size_kb - env.swap_used_kb) * 1024 < (long long)w.size) {
		snprintf(why, len, "needs %zu bytes of free swap", w.size);
		return KSFT_SKIP;
	}

	snprintf(val, sizeof(val), "%d", B_POOL_PCT);
	if (zs_param_set("max_pool_percent", val)) {
		snprintf(why, len, "cannot set max_pool_percent");
		return KSFT_FAIL;
	}
	snprintf(val, sizeof(val), "%d", B_ACCEPT_PCT);
	if (zs_param_set("accept_threshold_percent", val)) {
		snprintf(why, len, "cannot set accept_threshold_percent");
		return KSFT_FAIL;
	}

	/*
	 * Other users' entries would blur the picture: a machine this busy
	 * is not an environment the case can run in.
	 */
	if (zs_wait_for_debugfs_at_most("pool_total_size", pw.thr, 5000,
					&pw.pool)) {
		snprintf(why, len,
			 "other users' entries hold the pool at %lld bytes, need <= %lld (the accept threshold) to start",
			 pw.pool, pw.thr);
		return KSFT_SKIP;
	}
	if (zs_debugfs("written_back_pages", &wb0) ||
	    zs_debugfs("pool_limit_hit", &pw.hit0)) {
		snprintf(why, len, "cannot read zswap debugfs counters");
		return KSFT_FAIL;
	}
	pw.hits = pw.hit0;

	cg = zs_cg_create(env.cgroot, "zswap_pool_limit_global");
	if (!cg) {
		snprintf(why, len, "cannot create a cgroup under %s", env.cgroot);
		return KSFT_FAIL;
	}
	if (cg_write_numeric(cg, "memory.max", B_MEM_MAX)) {
		snprintf(why, len, "cannot set memory.max");
		goto out;
	}

	pid = start_workload(cg, &w, &rd, &wr, why, len);
	if (pid < 0)
		goto out;

	msg = zs_wait_for_msg_sampling(rd, PHASE_TIMEOUT_MS, SAMPLE_MS,
				       pool_sample, &pw);
	if (msg != 'A') {
		workload_gone(cg, pid, msg, why, len);
		goto out;
	}

	/*
	 * The pool may have ended the fill between the threshold and the
	 * limit with stores allowed again (the hysteresis), where nothing
	 * makes it shrink. Pushing a little more of the workload out makes
	 * it reach the limit and drain once more. Push only while the pool
	 * has been still for B_STILL_MS: a push during the drain could store
	 * again right after the worker reached the threshold, and the idle
	 * workload stores nothing by itself.
	 */
	end = zs_now_ms() + B_DRAIN_MS;
	still_since = zs_now_ms();
	last = -1;
	for (;;) {
		pool_sample(&pw);
		if (pw.drained || zs_now_ms() >= end)
			break;
		if (pw.pool != last) {
			last = pw.pool;
			still_since = zs_now_ms();
		} else if (zs_now_ms() - still_since >= B_STILL_MS) {
			cg_write(cg, "memory.reclaim", "2M");
			still_since = zs_now_ms();
		}
		zs_sleep_ms(B_POLL_MS);
	}
	wb1 = zs_debugfs_or("written_back_pages", -1);
	hit1 = zs_debugfs_or("pool_limit_hit", -1);
	stored = zs_debugfs_or("stored_pages", -1);

	zs_child_stop(pid, wr, &status, 10000);

	if (!pw.hit_seen) {
		snprintf(why, len,
			 "pool_limit_hit +0, pool_total_size at most %lld (stored_pages %lld) after %zu bytes of data, expected the %lld byte limit hit",
			 pw.high, stored, w.size, pool_max);
		goto out;
	}

	why[0] = '\0';
	if (wb1 <= wb0)
		append(why, len, "written_back_pages rose by %lld, expected > %lld",
		       wb1 - wb0, 0);
	if (!pw.drained)
		append(why, len,
		       "pool_total_size at least %lld after the limit hit and stores never resumed, expected <= %lld within 20 s",
		       pw.low, pw.thr);
	if (why[0])
		goto out;

	ksft_print_msg("pool limit %lld, threshold %lld, pool low %lld, now %lld\n",
		       pool_max, pw.thr, pw.low, pw.pool);
	ksft_print_msg("drained: %s\n", pw.resumed ?
		       "stores resumed with no new limit hit" :
		       "pool seen under the threshold");
	ksft_print_msg("pool_limit_hit +%lld, written_back_pages +%lld\n",
		       hit1 - pw.hit0, wb1 - wb0);
	ret = KSFT_PASS;
out:
	zs_run_cleanup(cg, rd, wr);
	return ret;
}

static const struct {
	int (*fn)(char *why, size_t len);
	const char *name;
} tests[] = {
	{ test_cgroup_zswap_max, "cgroup_zswap_max" },
	{ test_global_max_pool, "global_max_pool_percent" },
};

int main(void)
{
	char why[512];
	size_t i;

	ksft_print_header();
	/* (a) swaps ~40M, (b) up to B_ALLOC_CAP on a big machine */
	zs_setup(&env, 96 * 1024);

	if (zs_param_set("shrinker_enabled", "N"))
		ksft_exit_skip("cannot switch the zswap shrinker off\n");

	ksft_set_plan(ARRAY_SIZE(tests));
	for (i = 0; i < ARRAY_SIZE(tests); i++) {
		snprintf(why, sizeof(why), ZS_NOT_RUN);
		zs_report(tests[i].fn(why, sizeof(why)), tests[i].name, why);
	}

	ksft_finished();
}
