// SPDX-License-Identifier: GPL-2.0
/*
 * Data integrity through zswap.
 *
 * Pages of three kinds (incompressible, ~2:1 compressible, same-filled
 * non-zero), interleaved so that every path sees all kinds, are checksummed,
 * pushed out with memory.reclaim and read back:
 *   1. zswap_roundtrip: store and load (nothing is written back);
 *   2. after_writeback: memory.zswap.max is lowered to 1M before the
 *      second push, so the stores write the older entries back to the swap
 *      device and the read-back comes partly from disk.
 * Incompressible pages are stored uncompressed by zswap and take a path
 * of their own in both directions.
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

#define INT_MEM_MAX		ZS_MB(64)
#define INT_SIZE		ZS_MB(24)
#define INT_ZSWAP_MAX_WB	ZS_MB(1)
#define INT_SEED		0x696e746567726974ULL
#define PHASE_TIMEOUT_MS	90000
#define NR_ROUNDS		2

static struct zs_env env;

struct verify_result {
	long bad[ZS_NR_PATTERNS];
	long first_bad;
	int first_kind;
	uint64_t got;
	uint64_t want;
	bool done;
};

/* Lives in a shared mapping charged to the parent, not to the test cgroup. */
struct shared {
	struct verify_result res[NR_ROUNDS];
	uint64_t csum[];
};

struct child_arg {
	size_t npages;
	struct shared *sh;
	int to_parent;
	int from_parent;
};

static void verify(char *mem, struct child_arg *a, struct verify_result *r)
{
	uint64_t c;
	size_t i;
	int kind;

	memset(r, 0, sizeof(*r));
	r->first_bad = -1;
	for (i = 0; i < a->npages; i++) {
		c = zs_csum(mem + i * env.page_size, env.page_size);
		if (c == a->sh->csum[i])
			continue;
		kind = i % ZS_NR_PATTERNS;
		r->bad[kind]++;
		if (r->first_bad < 0) {
			r->first_bad = i;
			r->first_kind = kind;
			r->got = c;
			r->want = a->sh->csum[i];
		}
		/* The next round judges only what happens after this one. */
		a->sh->csum[i] = c;
	}
	r->done = true;
}

static int child_fn(void *arg)
{
	struct child_arg *a = arg;
	int round = 0, msg;
	char *mem, *p;
	size_t i;

	mem = mmap(NULL, a->npages * env.page_size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return 3;
	/* Order-0 folios: the test is about pages, not THP splitting. */
	madvise(mem, a->npages * env.page_size, MADV_NOHUGEPAGE);

	for (i = 0; i < a->npages; i++) {
		p = mem + i * env.page_size;
		zs_fill_page(p, env.page_size, i % ZS_NR_PATTERNS,
			     INT_SEED ^ i);
		a->sh->csum[i] = zs_csum(p, env.page_size);
	}
	zs_send_msg(a->to_parent, 'F');

	for (;;) {
		msg = zs_wait_for_msg(a->from_parent, PHASE_TIMEOUT_MS);
		if (msg == 'X')
			return 0;
		if (msg != 'V' || round >= NR_ROUNDS)
			return 4;
		verify(mem, a, &a->sh->res[round++]);
		zs_send_msg(a->to_parent, 'v');
	}
}

/*
 * memory.reclaim may stop short (-EAGAIN) while pages are still being
 * stored; retry a few times until most of the anon memory is out.
 */
static void push_out(const char *cg)
{
	char amount[32];
	long long anon;
	int i;

	snprintf(amount, sizeof(amount), "%zu", INT_SIZE + ZS_MB(8));
	for (i = 0; i < 4; i++) {
		cg_write(cg, "memory.reclaim", amount);
		if (!zs_memstat(cg, "anon", &anon) && anon < (long long)INT_SIZE / 8)
			break;
	}
}

static void describe_bad(const struct verify_result *r, char *why, size_t len,
			 const char *when)
{
	snprintf(why, len,
		 "%s: %ld random, %ld compressible, %ld same-filled pages corrupt, expected 0 (page %ld %s: csum %016llx, expected %016llx)",
		 when, r->bad[ZS_PAT_RANDOM], r->bad[ZS_PAT_COMPRESSIBLE],
		 r->bad[ZS_PAT_SAME], r->first_bad,
		 zs_pattern_name(r->first_kind),
		 (unsigned long long)r->got, (unsigned long long)r->want);
}

static bool result_bad(const struct verify_result *r)
{
	return r->first_bad >= 0;
}

struct counters {
	long long out;
	long long in;
	long long wb;
};

static void snap(const char *cg, struct counters *c)
{
	c->out = zs_memstat_or(cg, "zswpout", -1);
	c->in = zs_memstat_or(cg, "zswpin", -1);
	c->wb = zs_memstat_or(cg, "zswpwb", -1);
}

/* Asks the child to verify; returns 0, or -1 with @why filled in. */
static int run_verify(const char *cg, int rd, int wr, char *why, size_t len,
		      const char *when)
{
	long long ooms = -1;
	int msg;

	zs_send_msg(wr, 'V');
	msg = zs_wait_for_msg(rd, PHASE_TIMEOUT_MS);
	if (msg == 'v')
		return 0;
	zs_cg_key(cg, "memory.events", "oom_kill", &ooms);
	snprintf(why, len, "%s: verifier %s (oom_kill %lld), expected a verdict",
		 when, msg == -ETIMEDOUT ? "made no progress in 90 s" : "died",
		 ooms);
	return -1;
}

int main(void)
{
	size_t npages, shsize;
	struct counters c0, c1, c2, c3;
	struct child_arg a = { 0 };
	char why[2][512] = { ZS_NOT_RUN, ZS_NOT_RUN };
	int rd, wr, msg;
	int res[NR_ROUNDS] = { KSFT_FAIL, KSFT_FAIL };
	char path[PATH_MAX];
	struct shared *sh;
	pid_t pid;
	char *cg;

	ksft_print_header();
	zs_setup(&env, INT_SIZE / 1024 * 2);

	/* Writeback below comes from memory.zswap.max, not from pressure. */
	if (zs_param_set("shrinker_enabled", "N"))
		ksft_exit_skip("cannot switch the zswap shrinker off\n");

	cg = zs_cg_create(env.cgroot, "zswap_integrity");
	if (!cg)
		ksft_exit_fail_msg("cannot create a cgroup under %s\n",
				   env.cgroot);
	snprintf(path, sizeof(path), "%s/memory.zswap.max", cg);
	if (access(path, F_OK))
		ksft_exit_skip("no memory.zswap.max in %s\n", cg);
	if (cg_write_numeric(cg, "memory.max", INT_MEM_MAX) ||
	    cg_write(cg, "memory.zswap.max", "max"))
		ksft_exit_fail_msg("cannot configure %s\n", cg);

	npages = INT_SIZE / env.page_size;
	shsize = sizeof(*sh) + npages * sizeof(sh->csum[0]);
	sh = mmap(NULL, shsize, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	/* Fault it in here, so that it is charged outside the test cgroup. */
	memset(sh, 0, shsize);

	a.npages = npages;
	a.sh = sh;

	ksft_set_plan(NR_ROUNDS);

	pid = zs_cg_spawn_piped(cg, child_fn, &a, &a.from_parent, &a.to_parent,
				&rd, &wr);
	if (pid < 0)
		ksft_exit_fail_msg("pipe/fork: %s\n", strerror(errno));

	snap(cg, &c0);
	msg = zs_wait_for_msg(rd, PHASE_TIMEOUT_MS);
	if (msg != 'F') {
		snprintf(why[0], sizeof(why[0]), "writer %s before filling its pages",
			 msg == -ETIMEDOUT ? "made no progress" : "died");
		snprintf(why[1], sizeof(why[1]), "%s", why[0]);
		goto report;
	}

	/* Round 1: store everything in zswap, then load it back. */
	push_out(cg);
	snap(cg, &c1);
	if (run_verify(cg, rd, wr, why[0], sizeof(why[0]), "zswap round trip")) {
		snprintf(why[1], sizeof(why[1]), "%s", why[0]);
		goto report;
	}
	if (result_bad(&sh->res[0])) {
		describe_bad(&sh->res[0], why[0], sizeof(why[0]),
			     "after zswap round trip");
	} else if (c1.out - c0.out < (long long)npages / 2) {
		snprintf(why[0], sizeof(why[0]),
			 "zswpout +%lld over %zu pages, expected >= %zu: round trip not exercised",
			 c1.out - c0.out, npages, npages / 2);
	} else {
		res[0] = KSFT_PASS;
	}

	/*
	 * Round 2: the loads above freed the entries. With a 1M limit, the
	 * new stores write the older entries back, so most pages come back
	 * from the swap device.
	 */
	snap(cg, &c2);
	if (cg_write_numeric(cg, "memory.zswap.max", INT_ZSWAP_MAX_WB)) {
		snprintf(why[1], sizeof(why[1]), "cannot lower memory.zswap.max");
		goto report;
	}
	push_out(cg);
	snap(cg, &c3);
	if (run_verify(cg, rd, wr, why[1], sizeof(why[1]), "after writeback"))
		goto report;

	if (result_bad(&sh->res[1])) {
		describe_bad(&sh->res[1], why[1], sizeof(why[1]),
			     "after writeback");
	} else if (c3.wb - c2.wb <= 0) {
		snprintf(why[1], sizeof(why[1]),
			 "zswpwb +%lld under a %zu byte memory.zswap.max, expected > 0: writeback path not exercised",
			 c3.wb - c2.wb, INT_ZSWAP_MAX_WB);
	} else {
		res[1] = KSFT_PASS;
	}

report:
	zs_child_stop(pid, wr, NULL, 10000);
	if (res[0] == KSFT_PASS)
		ksft_print_msg("round trip: zswpout +%lld, zswpin +%lld over %zu pages\n",
			       c1.out - c0.out, c2.in - c1.in, npages);
	if (res[1] == KSFT_PASS)
		ksft_print_msg("writeback: zswpout +%lld, zswpwb +%lld\n",
			       c3.out - c2.out, c3.wb - c2.wb);

	zs_report(res[0], "zswap_roundtrip", why[0]);
	zs_report(res[1], "after_writeback", why[1]);

	zs_run_cleanup(cg, rd, wr);
	munmap(sh, shsize);
	ksft_finished();
}
