// SPDX-License-Identifier: GPL-2.0
/*
 * zswap writeback whose swap writes fail.
 *
 * A swap write that fails leaves its folio dirty in the swap cache, to be
 * written again later; zswap has freed the entry by then, so the folio is
 * the only copy of the page. A batch of writeback folios that lost its
 * data on an error would be read back later from whatever the disk holds.
 *
 *   write_errors_redirty: a cgroup at memory.max (CG_MAX) fills REGION of
 *     ~2:1 compressible pages, so that the shrinker writes back. Then,
 *     with fail_make_request on the swap device (the first NR_FAILS bios
 *     fail), it fills a second REGION of fresh pages (no swapin: only
 *     writes meet the errors). With the errors off again it reads every
 *     page of both regions and compares each byte with what it wrote.
 *     Every page must be intact and its task alive (a SIGBUS or a kill is
 *     a lost page here: no read was failed), nr_writeback must return to
 *     0, and errors must have been injected and pages written back after
 *     them: otherwise the case tested nothing. iocost is off on the swap
 *     disk and the cgroup has no io.max: the reclaimers write back in
 *     place, batched.
 *
 *   write_errors_redirty_worker: the same with iocost on the swap disk,
 *     so that the shrinker hands the writeback to its worker, whose
 *     batched writes meet the errors; the worker must have written back
 *     after the errors were turned on (deferred_wb_pages).
 *
 * Needs CONFIG_FAIL_MAKE_REQUEST and CONFIG_FAULT_INJECTION_DEBUG_FS (the
 * debug guest of make stress); skips without them.
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
#define REGION			ZS_MB(32)
#define NR_FAILS		"64"
/* a region takes 1-5 s on a 2-CPU TCG guest, several times that on KASAN */
#define STEP_MS			180000
#define WB_DRAIN_MS		30000
#define TAG_A			0x7772657272612d61ULL
#define TAG_B			0x7772657272612d62ULL
#define FAIL_DIR		DEBUGFS_DIR "/fail_make_request"
/* iocost with a model far above the guest's disk: it controls, it barely paces */
#define IOCOST_MODEL		"ctrl=user model=linear rbps=524288000 rseqiops=40000 rrandiops=20000 wbps=524288000 wseqiops=40000 wrandiops=20000"

static struct zs_env env;
static char make_it_fail[PATH_MAX + 64];

struct wl_arg {
	int to_parent;
	int from_parent;
	const char *name;
};

/*
 * 'A' after the first region, 'B' after the second (once told 'b'), then
 * (told 'v') 'D' when every page is intact, 'X' when one is not.
 */
static int workload_fn(void *arg)
{
	size_t npages = REGION / env.page_size;
	struct wl_arg *a = arg;
	char *ra, *rb;
	long bad;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	ra = zs_map_tagged(REGION, env.page_size, TAG_A);
	if (!ra)
		return 3;
	zs_send_msg(a->to_parent, 'A');
	if (zs_wait_for_msg(a->from_parent, STEP_MS) != 'b')
		return 4;
	rb = zs_map_tagged(REGION, env.page_size, TAG_B);
	if (!rb)
		return 3;
	zs_send_msg(a->to_parent, 'B');
	if (zs_wait_for_msg(a->from_parent, STEP_MS) != 'v')
		return 4;
	bad = zs_bad_pages(ra, npages, env.page_size, TAG_A) +
	      zs_bad_pages(rb, npages, env.page_size, TAG_B);
	zs_send_check(a->to_parent, a->name, 2 * npages, bad);
	zs_wait_for_msg(a->from_parent, STEP_MS);
	return 0;
}

static bool writeback_drained(void *arg)
{
	long long *wb = arg;

	return !zs_vmstat("nr_writeback", wb) && *wb == 0;
}

static int run_case(const char *name, bool worker, char *why, size_t len)
{
	long long wb0, wb1 = -1, left = -1, nr_wb = -1, ooms = -1, dw0, dw1;
	int rd = -1, wr = -1, msg = -1, status = 0, ret = KSFT_FAIL;
	struct wl_arg wa;
	char *cg;
	pid_t pid;

	cg = zs_cg_create(env.cgroot, "zswap_write_errors");
	if (!cg || cg_write_numeric(cg, "memory.max", CG_MAX)) {
		snprintf(why, len, "cannot set up the workload's cgroup");
		goto out;
	}
	wa.name = name;
	pid = zs_cg_spawn_piped(cg, workload_fn, &wa, &wa.from_parent,
				&wa.to_parent, &rd, &wr);
	if (pid < 0 || zs_wait_for_msg(rd, STEP_MS) != 'A') {
		snprintf(why, len, "the first region was not filled");
		goto out;
	}
	wb0 = zs_debugfs_or("written_back_pages", 0);
	dw0 = zs_debugfs_or("deferred_wb_pages", 0);
	if (zs_knob_set(FAIL_DIR "/times", NR_FAILS) ||
	    zs_knob_set(make_it_fail, "1")) {
		snprintf(why, len, "cannot turn fail_make_request on");
		goto out;
	}
	zs_send_msg(wr, 'b');
	msg = zs_wait_for_msg(rd, STEP_MS);
	zs_write_file(make_it_fail, "0");
	zs_read_ll(FAIL_DIR "/times", &left);
	if (msg == 'B') {
		zs_send_msg(wr, 'v');
		msg = zs_wait_for_msg(rd, STEP_MS);
	}
	wb1 = zs_debugfs_or("written_back_pages", 0);
	dw1 = zs_debugfs_or("deferred_wb_pages", 0);
	zs_cg_key(cg, "memory.events", "oom_kill", &ooms);
	zs_wait_for(writeback_drained, &nr_wb, WB_DRAIN_MS, 100);
	zs_child_stop(pid, wr, &status, STEP_MS);

	ksft_print_msg("%s: %lld of %s bios failed\n", name,
		       atoll(NR_FAILS) - left, NR_FAILS);
	ksft_print_msg("%s: written_back_pages +%lld (by the worker +%lld), nr_writeback %lld\n",
		       name, wb1 - wb0, dw1 - dw0, nr_wb);
	if (zs_check_failed(msg, ooms, status, why, len))
		ret = KSFT_FAIL;
	else if (nr_wb)
		snprintf(why, len, "nr_writeback %lld after %d s, expected 0",
			 nr_wb, WB_DRAIN_MS / 1000);
	else if (left < 0 || atoll(NR_FAILS) - left <= 0)
		snprintf(why, len, "no write failed: nothing was tested");
	else if (wb1 <= wb0)
		snprintf(why, len, "nothing was written back under the errors");
	else if (worker && dw1 <= dw0)
		snprintf(why, len, "the worker wrote nothing back under the errors");
	else
		ret = KSFT_PASS;
out:
	zs_write_file(make_it_fail, "0");
	zs_run_cleanup(cg, rd, wr);
	return ret;
}

int main(void)
{
	char why[512] = ZS_NOT_RUN;
	const char *dev;
	int res;

	ksft_print_header();
	zs_setup(&env, 128 * 1024);
	if (strcmp(env.swap_type, "partition"))
		ksft_exit_skip("the swap area is not a block device\n");
	dev = strrchr(env.swap_path, '/');
	snprintf(make_it_fail, sizeof(make_it_fail),
		 "/sys/class/block/%s/make-it-fail", dev ? dev + 1 : env.swap_path);
	if (access(make_it_fail, W_OK) || access(FAIL_DIR "/times", W_OK))
		ksft_exit_skip("no fail_make_request: %s\n",
			       "CONFIG_FAIL_MAKE_REQUEST and its debugfs");
	if (zs_param_set("shrinker_enabled", "Y") ||
	    zs_knob_set(FAIL_DIR "/probability", "100") ||
	    zs_knob_set(FAIL_DIR "/interval", "1") ||
	    zs_knob_set(FAIL_DIR "/verbose", "0"))
		ksft_exit_skip("cannot set up zswap or fail_make_request\n");
	ksft_set_plan(2);

	res = run_case("write_errors_redirty", false, why, sizeof(why));
	zs_report(res, "write_errors_redirty", why);

	snprintf(why, sizeof(why), ZS_NOT_RUN);
	if (zs_iocost_on_swap(&env, ZS_IOCOST_QOS, IOCOST_MODEL, why, sizeof(why)))
		ksft_test_result_skip("write_errors_redirty_worker: %s\n", why);
	else
		zs_report(run_case("write_errors_redirty_worker", true, why,
				   sizeof(why)),
			  "write_errors_redirty_worker", why);
	ksft_finished();
}
