// SPDX-License-Identifier: GPL-2.0
/*
 * swapoff and swapon, again and again, while the worker writes back.
 *
 * The worker writes back entries of a memcg while swapoff takes their
 * swap device away; it must hold no device reference while it pays its
 * cgroup's IO delay, so that swapoff does not wait for it, and swapoff
 * must never lose an entry the worker was writing.
 *
 *   swapoff_churn: iocost on the swap disk, so that the shrinker hands
 *     writeback to its worker and the worker pays its cgroup's delay. A
 *     cgroup holds REGION of ~2:1 compressible pages. CYCLES times:
 *     memory.reclaim asks for all of it, which stores the pages in zswap
 *     and hands their writeback to the worker; at once swapoff of the
 *     swap area runs (in a child, so that its wait is bounded) and must
 *     succeed within SWAPOFF_MS; swapon again. Then every page must hold
 *     what was written, byte for byte, and its task be alive. Pages must
 *     have been written back, or nothing raced. Prints the cycles, the
 *     longest swapoff, the pages written back, checked and bad.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/swap.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest.h"
#include "cgroup_util.h"
#include "zswap_util.h"

#define REGION			ZS_MB(16)
#define CYCLES			50
#define SWAPOFF_MS		60000
#define STEP_MS			120000
#define PAGE_TAG		0x7377706f66666368ULL
/* a disk iocost sees as slow, so that the worker pays a delay */
#define IOCOST_MODEL		"ctrl=user model=linear rbps=52428800 rseqiops=4000 rrandiops=2000 wbps=4194304 wseqiops=1000 wrandiops=500"

static struct zs_env env;

struct wl_arg {
	int to_parent;
	int from_parent;
};

/* Maps REGION, says 'M'; told 'v', checks every page: 'D' or 'X'. */
static int workload_fn(void *arg)
{
	size_t npages = REGION / env.page_size;
	struct wl_arg *a = arg;
	char *mem;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	mem = zs_map_tagged(REGION, env.page_size, PAGE_TAG);
	if (!mem)
		return 3;
	zs_send_msg(a->to_parent, 'M');
	if (zs_wait_for_msg(a->from_parent, CYCLES * (SWAPOFF_MS + 10000)) != 'v')
		return 4;
	zs_send_check(a->to_parent, "swapoff_churn", npages,
		      zs_bad_pages(mem, npages, env.page_size, PAGE_TAG));
	zs_wait_for_msg(a->from_parent, STEP_MS);
	return 0;
}

/* One cycle; its swapoff's time in ms, or -1 with @why filled in. */
static long long one_cycle(const char *cg, char *why, size_t len)
{
	int status = 0, ret;
	uint64_t t0;
	char amount[32];
	pid_t off;

	snprintf(amount, sizeof(amount), "%zu", REGION);
	cg_write(cg, "memory.reclaim", amount);	/* -EAGAIN: not all of it */
	t0 = zs_now_ms();
	off = zs_cg_spawn(env.cgroot, zs_swapoff_fn, env.swap_path);
	if (off < 0) {
		snprintf(why, len, "cannot start swapoff");
		return -1;
	}
	ret = zs_wait_for_exit(off, &status, SWAPOFF_MS);
	t0 = zs_now_ms() - t0;
	if (ret || !WIFEXITED(status) || WEXITSTATUS(status)) {
		snprintf(why, len, "swapoff: %s (bound %d s)",
			 ret ? "did not return" : !WIFEXITED(status) ?
			 "killed" : strerror(WEXITSTATUS(status)),
			 SWAPOFF_MS / 1000);
		zs_swapoff_abort(&env, ret ? off : -1, SWAPOFF_MS);
		return -1;
	}
	if (zs_swapon(&env)) {
		snprintf(why, len, "swapon failed: the swap area is gone");
		return -1;
	}
	return t0;
}

static int run_case(char *why, size_t len)
{
	long long wb0, wb1, ms, longest = 0;
	int rd = -1, wr = -1, msg = -1, status = 0, n, ret = KSFT_FAIL;
	struct wl_arg wa;
	char *cg;
	pid_t pid;

	cg = zs_cg_create(env.cgroot, "zswap_swapoff_churn");
	if (!cg) {
		snprintf(why, len, "cannot create the workload's cgroup");
		goto out;
	}
	pid = zs_cg_spawn_piped(cg, workload_fn, &wa, &wa.from_parent,
				&wa.to_parent, &rd, &wr);
	if (pid < 0 || zs_wait_for_msg(rd, STEP_MS) != 'M') {
		snprintf(why, len, "the workload did not map its pages");
		goto out;
	}
	wb0 = zs_debugfs_or("written_back_pages", 0);
	for (n = 0; n < CYCLES; n++) {
		ms = one_cycle(cg, why, len);
		if (ms < 0)
			break;
		longest = ms > longest ? ms : longest;
	}
	wb1 = zs_debugfs_or("written_back_pages", 0);
	if (n == CYCLES) {
		zs_send_msg(wr, 'v');
		msg = zs_wait_for_msg(rd, STEP_MS);
	}
	zs_child_stop(pid, wr, &status, STEP_MS);

	ksft_print_msg("swapoff_churn: %d of %d cycles, longest swapoff %.1f s\n",
		       n, CYCLES, longest / 1000.0);
	ksft_print_msg("swapoff_churn: written_back_pages +%lld\n", wb1 - wb0);
	if (n < CYCLES)
		ret = KSFT_FAIL;	/* @why says what went wrong in the cycle */
	else if (zs_check_failed(msg, -1, status, why, len))
		ret = KSFT_FAIL;
	else if (wb1 <= wb0)
		snprintf(why, len, "nothing was written back: nothing raced swapoff");
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
	zs_setup(&env, 64 * 1024);
	if (strcmp(env.swap_type, "partition"))
		ksft_exit_skip("the swap area is not a block device\n");
	if (zs_param_set("shrinker_enabled", "Y"))
		ksft_exit_skip("cannot enable the zswap shrinker\n");
	if (zs_iocost_on_swap(&env, ZS_IOCOST_QOS, IOCOST_MODEL, why, sizeof(why)))
		ksft_exit_skip("%s\n", why);
	ksft_set_plan(1);

	zs_report(run_case(why, sizeof(why)), "swapoff_churn", why);
	ksft_finished();
}
