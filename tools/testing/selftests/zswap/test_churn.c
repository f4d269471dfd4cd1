// SPDX-License-Identifier: GPL-2.0
/*
 * Memory cgroups created, filled past memory.max and removed, over and
 * over, while their zswap writeback is under way.
 *
 * The shrinker of a cgroup at its memory.max hands its writeback to the
 * worker where an IO controller is active: a claim on the memcg's lruvec
 * and a queued work item, each holding a reference on the memcg until the
 * work has run or was cancelled when the memcg went offline. A reference
 * that is never put keeps the removed cgroup dying for ever.
 *
 *   churn_iocost: iocost on the swap disk, so the shrinker defers
 *     writeback to the worker. Up to CYCLES times (at most CHURN_MS
 *     in all): create a cgroup under a parent of the test's own,
 *     memory.max CG_MAX, fill CG_FILL of ~2:1 compressible pages in it;
 *     then, while its task still faults those pages back in (swapins
 *     charged to the cgroup, which keep it reclaiming), move the task to
 *     a keeper cgroup and remove the cgroup at once, with its writeback
 *     claimed, queued or running; kill and reap the task. The cycles
 *     must have deferred writeback (debugfs deferred_wb_pages rose), or
 *     nothing was tested.
 *   churn_no_controller: the same with iocost off, where the series
 *     writes back in place as stock does; written_back_pages must rise.
 *
 * A fill that is OOM-killed (memory.events oom_kill) still makes a cycle:
 * its cgroup is removed once the task is reaped; such cycles are counted
 * and printed, not failed (OOM outcomes are test_iocost_sibling's
 * no_oom_under_io_contention's and the OOM matrix's to judge).
 *
 * Afterwards the parent's nr_dying_descendants must come back to 0 within
 * DYING_MS, the parent reclaimed meanwhile (zs_wait_no_dying()). Each
 * case prints its cycles, the writeback counter's rise, the longest cycle
 * and how long the dying cgroups took to go; under make stress the run's
 * kmemleak scan covers the memcgs these cycles freed.
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

#define CYCLES			200
#define CG_MAX			ZS_MB(8)
#define CG_FILL			ZS_MB(16)
/* a fill takes 0.2-1 s on a 2-CPU TCG guest, several times that on KASAN */
#define FILL_MS			60000
#define CHURN_MS		120000
#define DYING_MS		60000
#define MOVE_AFTER_MS		100
#define PAGE_TAG		0x636875726e636875ULL

#define QOS_ON	ZS_IOCOST_QOS
#define QOS_OFF	"enable=0"
#define MODEL	"ctrl=user model=linear rbps=52428800 rseqiops=4000 rrandiops=2000 wbps=52428800 wseqiops=4000 wrandiops=2000"

static struct zs_env env;
static struct zs_disk disk;

struct fill_arg {
	int to_parent;
	int from_parent;
};

/*
 * Fills CG_FILL, says 'D', then reads its pages over and over until it is
 * killed: each read of a page in zswap is a swapin charged to the memcg
 * that swapped it out, so that memcg stays at its limit, claiming
 * writeback, after the task has moved to another cgroup.
 */
static int fill_fn(void *arg)
{
	struct fill_arg *a = arg;
	uint64_t sum = 0;
	char *mem;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	mem = zs_map_tagged(CG_FILL, env.page_size, PAGE_TAG);
	if (!mem)
		return 3;
	zs_send_msg(a->to_parent, 'D');
	for (;;)
		sum += zs_csum(mem, CG_FILL);
	return sum != 0;
}

/*
 * One cycle: a new cgroup, filled; its task moved out to @keeper while it
 * still faults its pages in, the cgroup removed at once, the task killed
 * and reaped (a zombie's css_set would pin the cgroup). Returns 0; 1 if
 * the task was OOM-killed in its fill (the cgroup is removed all the
 * same); -1 with @why filled in.
 */
static int churn_one(const char *parent, const char *keeper, int i,
		     char *why, size_t len)
{
	int rd = -1, wr = -1, msg, status, err, ret = -1;
	struct fill_arg fa;
	pid_t pid = -1;
	char name[32];
	char *cg;

	snprintf(name, sizeof(name), "c%d", i);
	cg = zs_cg_create(parent, name);
	if (!cg || cg_write_numeric(cg, "memory.max", CG_MAX)) {
		snprintf(why, len, "cgroup %d: cannot set it up", i);
		goto out;
	}
	pid = zs_cg_spawn_piped(cg, fill_fn, &fa, &fa.from_parent,
				&fa.to_parent, &rd, &wr);
	if (pid < 0) {
		snprintf(why, len, "cgroup %d: cannot start its task", i);
		goto out;
	}
	msg = zs_wait_for_msg(rd, FILL_MS);
	if (msg != 'D') {
		long long ooms = -1;

		zs_cg_key(cg, "memory.events", "oom_kill", &ooms);
		if (ooms > 0) {
			ret = 1;	/* still a cgroup to remove */
			goto out;
		}
		snprintf(why, len, "cgroup %d: the fill did not finish (%d)",
			 i, msg);
		goto out;
	}
	zs_sleep_ms(MOVE_AFTER_MS);
	if (cg_enter(keeper, pid)) {
		snprintf(why, len, "cgroup %d: cannot move its task out", i);
		goto out;
	}
	ret = 0;
out:
	/* at once while the task runs; after it is reaped if it died */
	if (!ret || ret == 1) {
		if (ret == 1) {
			kill(pid, SIGKILL);
			zs_wait_for_exit(pid, &status, FILL_MS);
			pid = -1;
		}
		err = zs_cg_destroy(cg, 10000);
		if (err) {
			snprintf(why, len, "cgroup %d: cannot remove it: %s", i,
				 strerror(-err));
			ret = -1;
		}
	}
	if (pid > 0) {
		kill(pid, SIGKILL);
		if (zs_wait_for_exit(pid, &status, FILL_MS) && ret >= 0) {
			snprintf(why, len, "cgroup %d: its task did not exit", i);
			ret = -1;
		}
	}
	zs_run_cleanup(cg, rd, wr);
	return ret;
}

/* What the dying cgroups under @parent still hold, for a failure. */
static void print_dying(const char *tag, const char *parent)
{
	static const char * const stat[] = {
		"anon", "file", "swapcached", "zswap", "kernel", "percpu",
	};
	long long v = -1, w = -1;
	unsigned int i;

	zs_cg_key(parent, "cgroup.stat", "nr_dying_subsys_memory", &v);
	zs_cg_key(parent, "cgroup.stat", "nr_dying_subsys_io", &w);
	ksft_print_msg("%s: dying memory css %lld, io css %lld\n", tag, v, w);
	zs_cg_ll(parent, "memory.current", &v);
	w = -1;
	zs_cg_ll(parent, "memory.swap.current", &w);
	ksft_print_msg("%s: parent memory.current %lld, memory.swap.current %lld\n",
		       tag, v, w);
	for (i = 0; i < ARRAY_SIZE(stat); i++)
		ksft_print_msg("%s: parent memory.stat %s %lld\n", tag, stat[i],
			       zs_memstat_or(parent, stat[i], -1));
}

static int churn(const char *tag, const char *qos, const char *counter,
		 char *why, size_t len)
{
	long long c0, c1, dying, dying_ms, t, longest = 0, ooms = 0;
	char *parent, *keeper = NULL;
	int i, rc, ret = KSFT_FAIL;
	uint64_t end;

	if (zs_iocost_set(&env, &disk, qos, MODEL)) {
		snprintf(why, len, "cannot set io.cost.qos to \"%s\"", qos);
		return KSFT_FAIL;
	}
	parent = zs_cg_create(env.cgroot, tag);
	if (!parent ||
	    cg_write(parent, "cgroup.subtree_control", "+memory +io")) {
		snprintf(why, len, "cannot set up the parent cgroup");
		goto out;
	}
	keeper = zs_cg_create(parent, "keeper");
	if (!keeper) {
		snprintf(why, len, "cannot create the keeper cgroup");
		goto out;
	}
	c0 = zs_debugfs_or(counter, 0);
	end = zs_now_ms() + CHURN_MS;
	for (i = 0; i < CYCLES && zs_now_ms() < end; i++) {
		t = zs_now_ms();
		rc = churn_one(parent, keeper, i, why, len);
		if (rc < 0)
			goto out;
		ooms += rc;
		t = zs_now_ms() - t;
		longest = t > longest ? t : longest;
	}
	c1 = zs_debugfs_or(counter, 0);
	t = zs_now_ms();
	dying = zs_wait_no_dying(parent, t + DYING_MS);
	dying_ms = zs_now_ms() - t;

	ksft_print_msg("%s: %d cycles (%lld fills OOM-killed), %s +%lld, longest cycle %.1f s\n",
		       tag, i, ooms, counter, c1 - c0, longest / 1000.0);
	ksft_print_msg("%s: nr_dying_descendants %lld after %.1f s\n", tag,
		       dying, dying_ms / 1000.0);
	if (dying) {
		print_dying(tag, parent);
		snprintf(why, len,
			 "nr_dying_descendants %lld after %d s, expected 0: a removed memcg is still referenced",
			 dying, DYING_MS / 1000);
	} else if (c1 <= c0) {
		snprintf(why, len, "%s did not move in %d cycles: nothing was tested",
			 counter, i);
	} else {
		ret = KSFT_PASS;
	}
out:
	zs_cg_destroy(keeper, 10000);
	free(keeper);
	zs_cg_destroy(parent, 10000);
	free(parent);
	return ret;
}

int main(void)
{
	char why[512] = ZS_NOT_RUN;

	ksft_print_header();
	zs_setup(&env, 128 * 1024);
	if (zs_swap_disk(&env, &disk, NULL))
		ksft_exit_skip("cannot find the disk of %s\n", env.swap_path);
	if (zs_param_set("shrinker_enabled", "Y"))
		ksft_exit_skip("cannot enable the zswap shrinker\n");
	if (zs_iocost_on_swap(&env, QOS_ON, MODEL, why, sizeof(why)))
		ksft_exit_skip("%s\n", why);
	ksft_set_plan(2);

	zs_report(churn("zswap_churn_iocost", QOS_ON, "deferred_wb_pages",
			why, sizeof(why)), "churn_iocost", why);
	snprintf(why, sizeof(why), ZS_NOT_RUN);
	zs_report(churn("zswap_churn_no_controller", QOS_OFF,
			"written_back_pages", why, sizeof(why)),
		  "churn_no_controller", why);
	ksft_finished();
}
