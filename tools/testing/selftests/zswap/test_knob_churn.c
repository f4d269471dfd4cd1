// SPDX-License-Identifier: GPL-2.0
/*
 * zswap's knobs changed while writeback runs lose no page.
 *
 *   knob_churn: a cgroup at memory.max (CG_MAX) holds REGION of ~2:1
 *     compressible pages and rewrites them ROUNDS times: each round
 *     faults every page in, checks its tag and dirties it, so that zswap
 *     stores and the shrinker writes back all along. Meanwhile, every
 *     TOGGLE_MS, the test changes the next knob of a cycle:
 *     shrinker_enabled, the cgroup's memory.zswap.writeback, the
 *     compressor (each one the kernel has, in turn) and enabled. Then
 *     every page must hold what was written, byte for byte, and its task
 *     must be alive (a SIGBUS is a lost page); pages must have been
 *     written back and more than one compressor used, or nothing was
 *     tested. Prints the knob changes, pages checked and pages bad.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "kselftest.h"
#include "cgroup_util.h"
#include "zswap_util.h"

#define CG_MAX			ZS_MB(24)
#define REGION			ZS_MB(48)
#define ROUNDS			3
#define TOGGLE_MS		100
/* three rounds take 10-40 s on a 2-CPU TCG guest; the wait is a bound */
#define RUN_MS			300000
#define PAGE_TAG		0x6b6e6f6263687572ULL

static struct zs_env env;
static const char * const algos[] = { "lzo", "lz4", "lzo-rle" };

struct wl_arg {
	int to_parent;
	int from_parent;
};

/*
 * ROUNDS rewrites, then the full check: 'D' when intact, 'X' when not. A
 * round that met a wrong tag rewrote it, so it counts as at least one bad
 * page even where the full check finds none.
 */
static int workload_fn(void *arg)
{
	size_t npages = REGION / env.page_size;
	struct wl_arg *a = arg;
	long bad, wrong = 0;
	char *mem;
	int r;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	mem = zs_map_tagged(REGION, env.page_size, PAGE_TAG);
	if (!mem)
		return 3;
	for (r = 0; r < ROUNDS; r++)
		wrong += zs_retag(mem, npages, env.page_size, PAGE_TAG) >= 0;
	bad = zs_bad_pages(mem, npages, env.page_size, PAGE_TAG);
	if (bad < wrong)
		bad = wrong;
	zs_send_check(a->to_parent, "knob_churn", npages, bad);
	zs_wait_for_msg(a->from_parent, RUN_MS);
	return 0;
}

/*
 * Changes knob @step % 4 of the cycle; counts compressors actually used.
 * zswap off while the cgroup's writeback is off leaves the cgroup no way
 * to swap (swap_writeout() keeps the folio): the memcg OOM that follows
 * is stock's answer, not a lost page. The cycle turns the cgroup's
 * writeback back on before it turns zswap off, so the two never overlap.
 */
static void toggle(const char *cg, unsigned int step, bool *used)
{
	unsigned int i = step / 4;

	switch (step % 4) {
	case 0:
		zs_param_set("shrinker_enabled", i % 2 ? "N" : "Y");
		break;
	case 1:
		/* the cgroup's own knob: it goes with the cgroup */
		cg_write(cg, "memory.zswap.writeback", i % 2 ? "0" : "1");
		break;
	case 2:
		if (!zs_param_set("compressor", algos[i % ARRAY_SIZE(algos)]))
			used[i % ARRAY_SIZE(algos)] = true;
		break;
	case 3:
		if (i % 2)
			cg_write(cg, "memory.zswap.writeback", "1");
		zs_param_set("enabled", i % 2 ? "N" : "Y");
		break;
	}
}

static int run_case(char *why, size_t len)
{
	bool used[ARRAY_SIZE(algos)] = { };
	long long wb0, wb1, ooms = -1;
	int rd = -1, wr = -1, msg = 0, status = 0, nused = 0, ret = KSFT_FAIL;
	unsigned int step = 0, i;
	uint64_t end;
	struct wl_arg wa;
	char *cg;
	pid_t pid;

	cg = zs_cg_create(env.cgroot, "zswap_knob_churn");
	if (!cg || cg_write_numeric(cg, "memory.max", CG_MAX)) {
		snprintf(why, len, "cannot set up the workload's cgroup");
		goto out;
	}
	wb0 = zs_debugfs_or("written_back_pages", 0);
	pid = zs_cg_spawn_piped(cg, workload_fn, &wa, &wa.from_parent,
				&wa.to_parent, &rd, &wr);
	if (pid < 0) {
		snprintf(why, len, "cannot start the workload");
		goto out;
	}
	end = zs_now_ms() + RUN_MS;
	do {
		toggle(cg, step++, used);
		msg = zs_wait_for_msg(rd, TOGGLE_MS);
	} while (msg == -ETIMEDOUT && zs_now_ms() < end);
	zs_param_set("enabled", "Y");
	zs_param_set("shrinker_enabled", "Y");
	wb1 = zs_debugfs_or("written_back_pages", 0);
	zs_cg_key(cg, "memory.events", "oom_kill", &ooms);
	zs_child_stop(pid, wr, &status, RUN_MS);
	for (i = 0; i < ARRAY_SIZE(algos); i++)
		nused += used[i];

	ksft_print_msg("knob_churn: %u knob changes, %d compressors, written_back_pages +%lld\n",
		       step, nused, wb1 - wb0);
	if (zs_check_failed(msg, ooms, status, why, len))
		ret = KSFT_FAIL;
	else if (wb1 <= wb0)
		snprintf(why, len, "nothing was written back: nothing was tested");
	else if (nused < 2)
		snprintf(why, len, "only %d compressor was used: nothing was switched", nused);
	else
		ret = KSFT_PASS;
out:
	zs_run_cleanup(cg, rd, wr);
	return ret;
}

int main(void)
{
	char why[512] = ZS_NOT_RUN;

	ksft_print_header();
	zs_setup(&env, 128 * 1024);
	if (zs_param_set("shrinker_enabled", "Y") || zs_param_set("enabled", "Y"))
		ksft_exit_skip("cannot enable zswap and its shrinker\n");
	ksft_set_plan(1);

	zs_report(run_case(why, sizeof(why)), "knob_churn", why);
	ksft_finished();
}
