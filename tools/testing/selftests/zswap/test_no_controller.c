// SPDX-License-Identifier: GPL-2.0
/*
 * Without an IO controller nothing paces zswap writeback.
 *
 * Pacing zswap's shrinker writeback exists to make a cgroup pay its IO
 * budget. Where no IO controller is set up for the cgroup on the swap
 * disk there is no budget to pay: no task may wait for the writeback
 * worker, for a cap on throttled swap writes, or for a budget, and
 * writeback must work as it does without the series.
 *
 *   no_task_waits: iocost is off on the swap disk and the workload's
 *     cgroup has no io.max nor io.latency. At its memory.max (32M), the
 *     workload fills 64M of ~2:1 compressible pages and rewrites them
 *     once, so that the zswap shrinker writes back. Every blocking sleep
 *     of every task is counted with its kernel stack (a hist trigger on
 *     sched:sched_switch); none may be in an IO budget or in a wait of
 *     zswap's or the swap write path's own (the worker, a cap). zswap's
 *     debugfs counters of waits, paced delays or throttled writeback
 *     (every file whose name says so) must not move; the others are
 *     printed when they moved. The writeback must be the reclaimers'
 *     own, in place: the worker (deferred_wb_pages) may write back
 *     nothing, since it would pay no IO delay and cannot charge its
 *     folios at memory.max. The workload must finish: an OOM kill is
 *     named as one (stock writes back in place and is not killed). The
 *     case fails when nothing was written back: then it tested nothing.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest.h"
#include "cgroup_util.h"
#include "zswap_util.h"

#define WL_MEM_MAX		ZS_MB(32)
#define WL_DATA			ZS_MB(64)
/* The passes take 20-60 s on a 2-CPU TCG guest; the wait is only a bound. */
#define WL_MS			300000
#define EXIT_MS			30000
#define PAGE_TAG		0x6e6f6374726c7273ULL
#define MAX_COUNTERS		32

static struct zs_env env;

struct wl_arg {
	int to_parent;
	int from_parent;
};

/* Fills WL_DATA of compressible pages, rewrites them once ('D'). */
static int workload_fn(void *arg)
{
	struct wl_arg *a = arg;
	size_t npages = WL_DATA / env.page_size;
	char *mem;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	prctl(PR_SET_NAME, "zsnc_wl");
	mem = zs_map_tagged(WL_DATA, env.page_size, PAGE_TAG);
	if (!mem)
		return 3;
	if (zs_retag(mem, npages, env.page_size, PAGE_TAG) >= 0)
		return 2;
	zs_send_msg(a->to_parent, 'D');
	zs_wait_for_msg(a->from_parent, EXIT_MS * 10);
	return 0;
}

/* zswap's debugfs counters; @waits: the name speaks of waiting or pacing. */
struct counters {
	int n;
	char name[MAX_COUNTERS][64];
	long long val[MAX_COUNTERS];
	bool waits[MAX_COUNTERS];
};

static bool counter_of_waits(const char *name)
{
	return strstr(name, "wait") || strstr(name, "pace") ||
	       strstr(name, "throttl") || strstr(name, "sleep") ||
	       strstr(name, "stall");
}

static void counters_read(struct counters *c)
{
	struct dirent *de;
	DIR *dir;

	c->n = 0;
	dir = opendir(ZSWAP_DEBUGFS_DIR);
	if (!dir)
		return;
	while ((de = readdir(dir)) && c->n < MAX_COUNTERS) {
		if (de->d_name[0] == '.' ||
		    zs_debugfs(de->d_name, &c->val[c->n]))
			continue;
		snprintf(c->name[c->n], sizeof(c->name[0]), "%.63s", de->d_name);
		c->waits[c->n] = counter_of_waits(de->d_name);
		c->n++;
	}
	closedir(dir);
}

/* Turns iocost off on @d if it is on; put back at exit. */
static int iocost_off(const struct zs_disk *d)
{
	char path[PATH_MAX + 16], buf[4096], prefix[32], val[64], *p;

	snprintf(path, sizeof(path), "%s/io.cost.qos", env.cgroot);
	if (access(path, F_OK) || zs_read_file(path, buf, sizeof(buf)) < 0)
		return 0;
	snprintf(prefix, sizeof(prefix), "%u:%u ", d->maj, d->min);
	p = strstr(buf, prefix);
	if (!p || !strstr(p, "enable=1") ||
	    (strchr(p, '\n') && strstr(p, "enable=1") > strchr(p, '\n')))
		return 0;
	snprintf(val, sizeof(val), "%u:%u enable=0", d->maj, d->min);
	snprintf(buf, sizeof(buf), "%u:%u enable=1", d->maj, d->min);
	return zs_knob_set_restore(path, val, buf);
}

static int run_case(char *why, size_t len)
{
	struct counters c0, c1;
	long long wb = -1, ooms = -1, moved = 0, deferred = 0;
	int rd = -1, wr = -1, msg, i, ret = KSFT_FAIL;
	struct zs_sleeps s;
	struct wl_arg wa;
	uint64_t t0;
	char *cg;
	pid_t pid;

	cg = zs_cg_create(env.cgroot, "zswap_no_controller");
	if (!cg || cg_write_numeric(cg, "memory.max", WL_MEM_MAX)) {
		snprintf(why, len, "cannot set up the workload's cgroup");
		goto out;
	}
	if (zs_sleep_trace_start(NULL, why, len))
		goto out;
	counters_read(&c0);
	t0 = zs_now_ms();
	pid = zs_cg_spawn_piped(cg, workload_fn, &wa, &wa.from_parent,
				&wa.to_parent, &rd, &wr);
	if (pid < 0) {
		snprintf(why, len, "cannot start the workload");
		goto out;
	}
	msg = zs_wait_for_msg(rd, WL_MS);
	t0 = zs_now_ms() - t0;
	zs_sleep_trace_read(&s);
	zs_sleep_trace_stop();
	counters_read(&c1);
	wb = zs_memstat_or(cg, "zswpwb", -1);
	zs_cg_key(cg, "memory.events", "oom_kill", &ooms);
	zs_child_stop(pid, wr, NULL, EXIT_MS);

	ksft_print_msg("no_task_waits: workload %s %.1f s, zswpwb %lld\n",
		       msg == 'D' ? "done in" : "not done after", t0 / 1000.0,
		       wb);
	zs_sleeps_print("no_task_waits: all tasks", &s);
	for (i = 0; i < c1.n; i++) {
		long long before = i < c0.n && !strcmp(c0.name[i], c1.name[i]) ?
				   c0.val[i] : 0;

		/* the others say how the writeback went, when they moved */
		if (c1.waits[i] || c1.val[i] != before)
			ksft_print_msg("no_task_waits: %s +%lld\n", c1.name[i],
				       c1.val[i] - before);
		moved += c1.waits[i] && c1.val[i] != before;
		if (!strcmp(c1.name[i], "deferred_wb_pages"))
			deferred = c1.val[i] - before;
	}
	if (msg == -ETIMEDOUT)
		snprintf(why, len, "the workload did not finish within %d s",
			 WL_MS / 1000);
	else if (ooms > 0)
		snprintf(why, len,
			 "the workload was OOM-killed after %.1f s (oom_kill %lld)",
			 t0 / 1000.0, ooms);
	else if (msg != 'D')
		snprintf(why, len,
			 "the workload ended after %.1f s without finishing (%d): killed or failed",
			 t0 / 1000.0, msg);
	else if (s.hits[ZS_SLEEP_BUDGET] || s.hits[ZS_SLEEP_SWAP])
		snprintf(why, len,
			 "%lld sleeps in an IO budget and %lld in a zswap/swap write wait with no IO controller; expected 0",
			 s.hits[ZS_SLEEP_BUDGET], s.hits[ZS_SLEEP_SWAP]);
	else if (moved)
		snprintf(why, len, "%lld counters of waits or pacing moved",
			 moved);
	else if (deferred)
		snprintf(why, len,
			 "the worker wrote back %lld pages with no IO controller; expected 0 (in place)",
			 deferred);
	else if (s.dropped || !s.total)
		snprintf(why, len, "the trace saw %lld sleeps and dropped %lld",
			 s.total, s.dropped);
	else if (wb <= 0)
		snprintf(why, len, "nothing was written back (zswpwb %lld): nothing was tested",
			 wb);
	else
		ret = KSFT_PASS;
out:
	zs_sleep_trace_stop();
	zs_run_cleanup(cg, rd, wr);
	return ret;
}

int main(void)
{
	char why[512] = ZS_NOT_RUN, path[PATH_MAX];
	struct zs_disk d;
	int res;

	ksft_print_header();
	zs_setup(&env, 128 * 1024);
	if (zs_swap_disk(&env, &d, NULL))
		ksft_exit_skip("cannot find the disk of %s\n", env.swap_path);
	if (iocost_off(&d))
		ksft_exit_skip("cannot turn iocost off on %u:%u\n", d.maj, d.min);
	if (zs_param_set("shrinker_enabled", "Y"))
		ksft_exit_skip("cannot enable the zswap shrinker\n");
	/* the sleeps are counted by a hist trigger: none in UML, for one */
	if (zs_sleep_trace_start(NULL, path, sizeof(path)))
		ksft_exit_skip("%s\n", path);
	zs_sleep_trace_stop();
	ksft_set_plan(1);

	res = run_case(why, sizeof(why));
	zs_report(res, "no_task_waits", why);
	ksft_finished();
}
