/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the zswap selftests: knob handling with restore at exit,
 * counters, bounded waits, environment checks and page patterns.
 */
#ifndef __ZSWAP_UTIL_H
#define __ZSWAP_UTIL_H

#include <linux/limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "kselftest.h"

#define ZSWAP_MODULE_DIR	"/sys/module/zswap"
#define ZSWAP_PARAM_DIR		ZSWAP_MODULE_DIR "/parameters"
#define DEBUGFS_DIR		"/sys/kernel/debug"
#define ZSWAP_DEBUGFS_DIR	DEBUGFS_DIR "/zswap"

#define ZS_MB(x)		((size_t)(x) << 20)

/* Longest knob value we save for restoring (an io.cost.qos line fits). */
#define ZS_VAL_LEN		256

/*
 * Every case starts as a failure with this reason: a case passes only by
 * getting to the end of its checks, never because it stopped early.
 */
#define ZS_NOT_RUN		"not run"

/* What the tests learn about the machine while checking the environment. */
struct zs_env {
	char cgroot[PATH_MAX];		/* cgroup v2 mount point */
	char swap_path[PATH_MAX];	/* highest priority swap area */
	char swap_type[16];		/* "partition" or "file" */
	long long swap_size_kb;
	long long swap_used_kb;
	int swap_prio;
	int nr_swaps;			/* active swap areas */
	bool swap_prio_tie;		/* another area has the same priority */
	long page_size;
	long nr_cpus;
	unsigned long long totalram;	/* bytes, as MemTotal */
};

/* Files */
ssize_t zs_read_file(const char *path, char *buf, size_t len);
int zs_write_file(const char *path, const char *val);
int zs_read_ll(const char *path, long long *val);
int zs_read_key(const char *path, const char *key, long long *val);

/* Knobs changed by a test are put back at exit, in reverse order. */
int zs_knob_set(const char *path, const char *val);
int zs_knob_set_restore(const char *path, const char *val, const char *restore);
int zs_param_set(const char *name, const char *val);
int zs_knobs_mark(void);
void zs_knobs_restore(int mark);
void zs_cleanup(void);
/*
 * Called first by zs_cleanup(), last registered first; must be idempotent.
 * A hook registered again keeps its place. -ENOSPC when the table is full.
 */
int zs_on_cleanup(void (*fn)(void));

/* Cgroups made by a test are removed at exit too. */
char *zs_cg_create(const char *parent, const char *name);
int zs_cg_destroy(const char *cg, int timeout_ms);
pid_t zs_cg_spawn(const char *cg, int (*fn)(void *arg), void *arg);
pid_t zs_cg_spawn_piped(const char *cg, int (*fn)(void *arg), void *arg,
			int *child_rd, int *child_wr, int *rd, int *wr);
int zs_child_stop(pid_t pid, int wr, int *status, int timeout_ms);
void zs_run_cleanup(char *cg, int rd, int wr);

/* Counters; each returns 0 or -errno and stores the value in *val. */
int zs_vmstat(const char *field, long long *val);
int zs_cg_key(const char *cg, const char *file, const char *key, long long *val);
int zs_memstat(const char *cg, const char *field, long long *val);
int zs_cg_ll(const char *cg, const char *file, long long *val);
long long zs_wait_no_dying(const char *parent, uint64_t until_ms);
int zs_debugfs(const char *name, long long *val);
long long zs_memstat_or(const char *cg, const char *field, long long dflt);
long long zs_debugfs_or(const char *name, long long dflt);

/*
 * How many times slower than a production kernel the kernel under test
 * runs (a debug kernel: lockdep, KASAN): ZSWAP_SLOWDOWN, 1 when unset; a
 * bad value fails the test. A case scales its bounds on time up by it and
 * says what else it relaxes on a slowed kernel.
 */
#define ZS_SLOWDOWN_MAX		100
int zs_slowdown(void);

/* Bounded waits: 0 when the condition holds, -ETIMEDOUT otherwise. */
uint64_t zs_now_ms(void);
void zs_sleep_ms(unsigned int ms);
int zs_wait_for(bool (*cond)(void *arg), void *arg, int timeout_ms,
		int interval_ms);
int zs_wait_for_memstat_above(const char *cg, const char *field,
			      long long above, int timeout_ms, long long *val);
int zs_wait_for_debugfs_at_most(const char *name, long long limit,
				int timeout_ms, long long *val);
int zs_wait_for_msg(int fd, int timeout_ms);
int zs_wait_for_msg_sampling(int fd, int timeout_ms, int interval_ms,
			     void (*sample)(void *arg), void *arg);

/**
 * struct zs_peak - the peak of a cgroup's memory.zswap.current
 * @cg: the cgroup
 * @peak: the highest value seen by zs_zswap_peak_sample()
 */
struct zs_peak {
	const char *cg;
	long long peak;
};

void zs_zswap_peak_sample(void *arg);
int zs_send_msg(int fd, char msg);
int zs_wait_for_exit(pid_t pid, int *status, int timeout_ms);

/* Environment; zs_setup() calls ksft_exit_skip() when a need is not met. */
void zs_setup(struct zs_env *env, long long min_free_swap_kb);
int zs_parse_swaps(struct zs_env *env);
int zs_swap_active(const char *path);

/* Block devices and iocost */
/*
 * io.cost.qos for the tests that turn iocost on: set by the user, p95
 * latency targets of 5 ms, vrate 50-100%. Each test sets its own model.
 */
#define ZS_IOCOST_QOS		"enable=1 ctrl=user rpct=95.00 rlat=5000 wpct=95.00 wlat=5000 min=50.00 max=100.00"

struct zs_disk {
	unsigned int maj;
	unsigned int min;
};

int zs_whole_disk(dev_t dev, struct zs_disk *d);
int zs_swap_disk(const struct zs_env *env, struct zs_disk *d, dev_t *dev);
bool zs_same_disk(const struct zs_disk *a, const struct zs_disk *b);
int zs_io_controller_enable(const struct zs_env *env);
int zs_iocost_enable(const struct zs_env *env, const struct zs_disk *d,
		     const char *qos, const char *model, char *why, size_t len);
int zs_iocost_on_swap(const struct zs_env *env, const char *qos,
		      const char *model, char *why, size_t len);
int zs_iocost_set(const struct zs_env *env, const struct zs_disk *d,
		  const char *qos, const char *model);
long long zs_io_stat(const char *cg, const struct zs_disk *d, const char *key);
long long zs_psi_full_us(const char *cg, const char *res);

/* Swap areas */
int zs_swapon(const struct zs_env *env);
int zs_swapoff_fn(void *path);
void zs_swapoff_abort(const struct zs_env *env, pid_t off, int ms);
long long zs_swap_used_kb(const char *path);

/* Kernel threads, by the start of their comm ("kswapd"); returns how many. */
int zs_find_kthreads(const char *prefix, pid_t *pids, int max);

/* tracefs: mounted if it is not (unmounted at exit), and instances. */
#define ZS_TRACEFS		"/sys/kernel/tracing"
int zs_tracefs_ready(char *why, size_t len);
int zs_trace_instance(const char *inst, char *why, size_t len);
char *zs_read_big(const char *path, size_t *lenp);

/*
 * Blocking sleeps (S or D) with their kernel stacks, counted by a hist
 * trigger on sched:sched_switch in a trace instance of their own, and
 * sorted by what the task waited for. This is the kernel's own
 * instrumentation: it sees every sleep, not samples, and does not depend
 * on any counter of the series.
 */
enum zs_sleep_class {
	ZS_SLEEP_OTHER,
	/* in a cgroup IO controller: iocost, io.max, io.latency, a blkcg delay */
	ZS_SLEEP_BUDGET,
	/* in a wait of zswap's or the swap write path's own: a worker, a cap */
	ZS_SLEEP_SWAP,
	/* on a folio under writeback */
	ZS_SLEEP_WRITEBACK,
	/* in reclaim_throttle() */
	ZS_SLEEP_RECLAIM,
	ZS_NR_SLEEP_CLASSES,
};

#define ZS_STACK_LEN		768

/**
 * struct zs_sleeps - blocking sleeps seen by the trace, by class
 * @hits: sleeps of each class
 * @example: the most frequent stack of each class ("comm: f1 < f2 < ...")
 * @example_hits: how many sleeps @example stands for
 * @total: all sleeps seen
 * @dropped: sleeps the hist could not count (its table was full)
 */
struct zs_sleeps {
	long long hits[ZS_NR_SLEEP_CLASSES];
	char example[ZS_NR_SLEEP_CLASSES][ZS_STACK_LEN];
	long long example_hits[ZS_NR_SLEEP_CLASSES];
	long long total;
	long long dropped;
};

const char *zs_sleep_class_name(enum zs_sleep_class c);
int zs_sleep_trace_start(const char *comm_filter, char *why, size_t len);
int zs_sleep_trace_read(struct zs_sleeps *s);
void zs_sleep_trace_stop(void);
void zs_sleeps_print(const char *who, const struct zs_sleeps *s);

/*
 * A size past MemAvailable by @over bytes (page aligned), for a task that
 * must push the system into global reclaim; fails (@why) unless half the
 * free swap holds @over + @extra bytes.
 */
int zs_size_past_available(size_t over, size_t extra, size_t *size,
			   char *why, size_t len);

/* Page contents */
enum zs_pattern {
	ZS_PAT_RANDOM,		/* incompressible */
	ZS_PAT_COMPRESSIBLE,	/* random first half, zero second half: ~2:1 */
	ZS_PAT_SAME,		/* one non-zero word repeated */
	ZS_NR_PATTERNS,
};

const char *zs_pattern_name(enum zs_pattern pat);
void zs_fill_page(void *page, size_t size, enum zs_pattern pat, uint64_t seed);
uint64_t zs_csum(const void *buf, size_t len);
char *zs_map_tagged(size_t size, size_t page_size, uint64_t tag);
long zs_retag(char *mem, size_t npages, size_t page_size, uint64_t tag);
long zs_bad_pages(const char *mem, size_t npages, size_t page_size,
		  uint64_t tag);
void zs_send_check(int fd, const char *name, size_t npages, long bad);
bool zs_check_failed(int msg, long long ooms, int status, char *why,
		     size_t len);

/**
 * zs_report() - print the TAP result line of one case
 * @res: KSFT_PASS, KSFT_SKIP, or anything else for a failure
 * @name: the case's name
 * @why: why it was skipped or failed
 *
 * A skip gives @why on the result line; a failure prints "@name: @why"
 * first as a diagnostic line of its own. Skip only for what the
 * environment lacks; a kernel that did not do what the case needs done
 * is a failure. Inline on purpose: kselftest.h keeps its
 * pass/fail counts per translation unit, so the calls must be compiled
 * into the test program, not into zswap_util.o.
 */
static inline void zs_report(int res, const char *name, const char *why)
{
	if (!why || !*why)
		why = "no reason given";
	if (res == KSFT_PASS) {
		ksft_test_result_pass("%s\n", name);
	} else if (res == KSFT_SKIP) {
		ksft_test_result_skip("%s: %s\n", name, why);
	} else {
		ksft_print_msg("%s: %s\n", name, why);
		ksft_test_result_fail("%s\n", name);
	}
}

#endif /* __ZSWAP_UTIL_H */
