// SPDX-License-Identifier: GPL-2.0
/*
 * The shrinker sees a pool that the memcg's stats do not show yet.
 *
 * Memcg stats are flushed every 2 s; zswap's shrinker reads them, after
 * a ratelimited flush, for the memcg's compression ratio. A pool born
 * since the last flush reads as empty there, and a shrinker that then
 * counts nothing writes nothing back: a memcg that fills its limit
 * within one flush period is OOM-killed with its whole pool in memory.
 *
 *   fresh_pool_written_back: in a new cgroup (no limits, no IO
 *     controller), a task maps FILL of ~2:1 compressible pages; then
 *     memory.reclaim asks for twice as much. The pages go to zswap, and
 *     only writeback can reclaim the rest: the zswap shrinker must write
 *     back during that very reclaim, before the stats are likely to have
 *     been flushed (written_back_pages, a counter that flushes nothing;
 *     memory.stat is not read until the end). A flush during the
 *     reclaim lets the pool be seen anyway, so the case makes ATTEMPTS
 *     fresh cgroups and asks that every one of them was written back.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "kselftest.h"
#include "cgroup_util.h"
#include "zswap_util.h"

#define FILL			ZS_MB(16)
#define ATTEMPTS		3
#define STEP_MS			120000
#define PAGE_TAG		0x6672657368706f6fULL

static struct zs_env env;

struct wl_arg {
	int to_parent;
	int from_parent;
};

/* Maps FILL, says 'F', waits to be told to go. */
static int workload_fn(void *arg)
{
	struct wl_arg *a = arg;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (!zs_map_tagged(FILL, env.page_size, PAGE_TAG))
		return 3;
	zs_send_msg(a->to_parent, 'F');
	zs_wait_for_msg(a->from_parent, STEP_MS);
	return 0;
}

/* One fresh cgroup: the pages written back by its first reclaim, or -1. */
static long long one_attempt(int n, char *why, size_t len)
{
	long long wb0, wb = -1, stored = -1, zswpout = -1;
	int rd = -1, wr = -1;
	char name[64], amount[32];
	struct wl_arg wa;
	char *cg;
	pid_t pid;

	snprintf(name, sizeof(name), "zswap_fresh_pool_%d", n);
	cg = zs_cg_create(env.cgroot, name);
	if (!cg) {
		snprintf(why, len, "cannot create the cgroup");
		goto out;
	}
	pid = zs_cg_spawn_piped(cg, workload_fn, &wa, &wa.from_parent,
				&wa.to_parent, &rd, &wr);
	if (pid < 0 || zs_wait_for_msg(rd, STEP_MS) != 'F') {
		snprintf(why, len, "the workload did not map its pages");
		goto out;
	}
	snprintf(amount, sizeof(amount), "%zu", 2 * FILL);
	wb0 = zs_debugfs_or("written_back_pages", -1);
	cg_write(cg, "memory.reclaim", amount);	/* -EAGAIN: not all of it */
	wb = zs_debugfs_or("written_back_pages", -1) - wb0;
	zs_memstat(cg, "zswpout", &zswpout);
	zs_memstat(cg, "zswapped", &stored);
	ksft_print_msg("fresh_pool_written_back: cgroup %d: zswpout %lld, written back %lld\n",
		       n, zswpout, wb);
	ksft_print_msg("fresh_pool_written_back: cgroup %d: zswapped %lld bytes after\n",
		       n, stored);
	if (zswpout <= 0) {
		snprintf(why, len, "cgroup %d: nothing went to zswap: nothing was tested",
			 n);
		wb = -1;
	}
out:
	zs_run_cleanup(cg, rd, wr);
	return wb;
}

static int run_case(char *why, size_t len)
{
	long long wb;
	int n;

	for (n = 0; n < ATTEMPTS; n++) {
		wb = one_attempt(n, why, len);
		if (wb < 0)
			return KSFT_FAIL;
		if (wb == 0) {
			snprintf(why, len,
				 "cgroup %d: reclaim wrote nothing back from a pool its stats did not show yet",
				 n);
			return KSFT_FAIL;
		}
	}
	return KSFT_PASS;
}

/* Whether iocost is enabled on any disk (the worker would write back). */
static bool iocost_enabled(void)
{
	char path[PATH_MAX + 16], buf[4096];

	snprintf(path, sizeof(path), "%s/io.cost.qos", env.cgroot);
	return zs_read_file(path, buf, sizeof(buf)) > 0 && strstr(buf, "enable=1");
}

int main(void)
{
	char why[512] = ZS_NOT_RUN;

	ksft_print_header();
	zs_setup(&env, 64 * 1024);
	if (zs_param_set("shrinker_enabled", "Y"))
		ksft_exit_skip("cannot enable the zswap shrinker\n");
	if (zs_debugfs_or("written_back_pages", -1) < 0)
		ksft_exit_skip("no zswap debugfs (CONFIG_DEBUG_FS)\n");
	if (iocost_enabled())
		ksft_exit_skip("iocost is on: the case wants no IO controller\n");
	ksft_set_plan(1);

	zs_report(run_case(why, sizeof(why)), "fresh_pool_written_back", why);
	ksft_finished();
}
