// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers shared by the zswap selftests.
 *
 * The tests change global state (zswap module parameters, cgroup
 * controllers, iocost settings), so every change goes through
 * zs_knob_set*(), which remembers the old value, and every cgroup goes
 * through zs_cg_create(); zs_cleanup() undoes both at exit, including
 * when the kselftest runner stops a test with SIGTERM on timeout.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/swap.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest.h"
#include "cgroup_util.h"
#include "zswap_util.h"

#define ZS_MAX_KNOBS		32
#define ZS_MAX_CGROUPS		16
#define ZS_MAX_HOOKS		8
#define ZS_BIG_BUF		32768

struct zs_knob {
	char path[PATH_MAX];
	char old[ZS_VAL_LEN];
};

static struct zs_knob zs_knobs[ZS_MAX_KNOBS];
static int zs_nr_knobs;
static char zs_cgroups[ZS_MAX_CGROUPS][PATH_MAX];
static int zs_nr_cgroups;
static void (*zs_hooks[ZS_MAX_HOOKS])(void);
static int zs_nr_hooks;
static bool zs_debugfs_mounted;
static bool zs_cleanup_registered;
static sig_atomic_t zs_cleaning;
/* Children inherit the atexit() handler; only the test process cleans up. */
static pid_t zs_owner;

/*
 * Reads a whole (small) file; a trailing newline is dropped. Returns the
 * length or -errno.
 */
ssize_t zs_read_file(const char *path, char *buf, size_t len)
{
	ssize_t n, total = 0;
	int fd, err;

	if (!len)
		return -EINVAL;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;

	/* seq_file based files may hand their content out in pieces */
	while (total < (ssize_t)len - 1) {
		n = read(fd, buf + total, len - 1 - total);
		if (n < 0) {
			err = -errno;
			close(fd);
			return err;
		}
		if (!n)
			break;
		total += n;
	}
	close(fd);

	buf[total] = '\0';
	while (total > 0 && buf[total - 1] == '\n')
		buf[--total] = '\0';
	return total;
}

/* Writes @val in a single write(), as kernfs parses one write at a time. */
int zs_write_file(const char *path, const char *val)
{
	size_t len = strlen(val);
	ssize_t n;
	int fd, err = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;

	n = write(fd, val, len);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;
	close(fd);
	return err;
}

/* Reads a number; "max" (cgroup limits) reads as LLONG_MAX. */
int zs_read_ll(const char *path, long long *val)
{
	char buf[128], *end;
	ssize_t n;

	n = zs_read_file(path, buf, sizeof(buf));
	if (n < 0)
		return n;
	if (!strcmp(buf, "max")) {
		*val = LLONG_MAX;
		return 0;
	}

	errno = 0;
	*val = strtoll(buf, &end, 10);
	if (errno || end == buf)
		return -EINVAL;
	return 0;
}

/* Finds "@key <number>" at the start of a line (memory.stat, vmstat...). */
int zs_read_key(const char *path, const char *key, long long *val)
{
	size_t klen = strlen(key);
	char *buf, *line, *save;
	ssize_t n;
	int ret = -ENOENT;

	buf = malloc(ZS_BIG_BUF);
	if (!buf)
		return -ENOMEM;

	n = zs_read_file(path, buf, ZS_BIG_BUF);
	if (n < 0) {
		free(buf);
		return n;
	}

	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, key, klen) || line[klen] != ' ')
			continue;
		*val = strtoll(line + klen + 1, NULL, 10);
		ret = 0;
		break;
	}

	free(buf);
	return ret;
}

static void zs_on_signal(int sig)
{
	/*
	 * Not strictly async-signal-safe, but a test killed on timeout
	 * must not leave zswap or iocost reconfigured for the next test.
	 */
	zs_cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void zs_register_cleanup(void)
{
	struct sigaction sa = { .sa_handler = zs_on_signal };

	if (zs_cleanup_registered)
		return;
	zs_cleanup_registered = true;
	zs_owner = getpid();
	atexit(zs_cleanup);

	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* A child that died must not kill the test when we message it. */
	signal(SIGPIPE, SIG_IGN);
}

/*
 * Writes @val to @path; zs_cleanup() undoes it. For a plain knob the value
 * read before the first change is written back. Files where a write is a
 * delta ("+io" to cgroup.subtree_control) or whose read format cannot be
 * written back give @restore instead, and each such change is undone on
 * its own.
 */
int zs_knob_set_restore(const char *path, const char *val, const char *restore)
{
	struct zs_knob *knob;
	bool recorded = false;
	int i, ret;

	zs_register_cleanup();

	for (i = 0; !restore && i < zs_nr_knobs; i++)
		if (!strcmp(zs_knobs[i].path, path))
			break;

	if (restore || i == zs_nr_knobs) {
		if (zs_nr_knobs == ZS_MAX_KNOBS)
			return -ENOSPC;
		knob = &zs_knobs[zs_nr_knobs];
		snprintf(knob->path, sizeof(knob->path), "%s", path);
		if (restore) {
			snprintf(knob->old, sizeof(knob->old), "%s", restore);
		} else {
			ret = zs_read_file(path, knob->old, sizeof(knob->old));
			if (ret < 0)
				return ret;
		}
		zs_nr_knobs++;
		recorded = true;
	}

	ret = zs_write_file(path, val);
	/* Nothing changed: nothing to restore. */
	if (ret && recorded)
		zs_nr_knobs--;
	return ret;
}

int zs_knob_set(const char *path, const char *val)
{
	return zs_knob_set_restore(path, val, NULL);
}

int zs_param_set(const char *name, const char *val)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", ZSWAP_PARAM_DIR, name);
	return zs_knob_set(path, val);
}

static int zs_rmdir_bounded(const char *cg, int timeout_ms)
{
	uint64_t end = zs_now_ms() + timeout_ms;

	for (;;) {
		if (!rmdir(cg) || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			return -errno;
		/* cgroup.kill where available, else SIGKILL each member */
		cg_killall(cg);
		if (zs_now_ms() >= end)
			return -ETIMEDOUT;
		zs_sleep_ms(20);
	}
}

/**
 * zs_knobs_mark() - remember which knob changes exist so far
 *
 * Return: a mark for zs_knobs_restore().
 */
int zs_knobs_mark(void)
{
	return zs_nr_knobs;
}

/**
 * zs_knobs_restore() - undo the knob changes made since a mark, last first
 * @mark: from zs_knobs_mark(), or 0 for all of them
 *
 * For a program whose cases must each start from the same settings: the
 * changes made before @mark (zs_setup()'s) stay. A knob first changed
 * before @mark and changed again since keeps its new value.
 */
void zs_knobs_restore(int mark)
{
	int i, ret;

	for (i = zs_nr_knobs - 1; i >= mark; i--) {
		ret = zs_write_file(zs_knobs[i].path, zs_knobs[i].old);
		if (ret)
			ksft_print_msg("cleanup: cannot restore %s to '%s': %s\n",
				       zs_knobs[i].path, zs_knobs[i].old,
				       strerror(-ret));
	}
	if (mark < zs_nr_knobs)
		zs_nr_knobs = mark;
}

/* The slot of the cgroup with the most path components, or -1. */
static int zs_deepest_cgroup(void)
{
	int i, depth, best = -1, best_depth = -1;
	const char *p;

	for (i = 0; i < zs_nr_cgroups; i++) {
		if (!zs_cgroups[i][0])
			continue;
		for (depth = 0, p = zs_cgroups[i]; *p; p++)
			depth += *p == '/';
		if (depth > best_depth) {
			best = i;
			best_depth = depth;
		}
	}
	return best;
}

void zs_cleanup(void)
{
	int i, ret;

	if (!zs_cleanup_registered || getpid() != zs_owner || zs_cleaning)
		return;
	zs_cleaning = 1;

	for (i = zs_nr_hooks - 1; i >= 0; i--)
		zs_hooks[i]();

	/* Children first: the deepest path left, until none is. */
	while ((i = zs_deepest_cgroup()) >= 0) {
		ret = zs_rmdir_bounded(zs_cgroups[i], 10000);
		if (ret)
			ksft_print_msg("cleanup: cannot remove %s: %s\n",
				       zs_cgroups[i], strerror(-ret));
		zs_cgroups[i][0] = '\0';
	}
	zs_nr_cgroups = 0;

	zs_knobs_restore(0);

	if (zs_debugfs_mounted && !umount(DEBUGFS_DIR))
		zs_debugfs_mounted = false;

	zs_cleaning = 0;
}

int zs_on_cleanup(void (*fn)(void))
{
	int i;

	zs_register_cleanup();
	for (i = 0; i < zs_nr_hooks; i++)
		if (zs_hooks[i] == fn)
			return 0;
	if (zs_nr_hooks == ZS_MAX_HOOKS)
		return -ENOSPC;
	zs_hooks[zs_nr_hooks++] = fn;
	return 0;
}

/* Creates @parent/@name, first removing a leftover of an aborted run. */
char *zs_cg_create(const char *parent, const char *name)
{
	char *cg;
	int i;

	zs_register_cleanup();
	/* the slot of a cgroup zs_cg_destroy() removed, or a new one */
	for (i = 0; i < zs_nr_cgroups && zs_cgroups[i][0]; i++)
		;
	if (i == ZS_MAX_CGROUPS)
		return NULL;

	cg = cg_name(parent, name);
	if (!cg)
		return NULL;

	zs_rmdir_bounded(cg, 5000);
	if (cg_create(cg)) {
		free(cg);
		return NULL;
	}

	snprintf(zs_cgroups[i], PATH_MAX, "%s", cg);
	if (i == zs_nr_cgroups)
		zs_nr_cgroups++;
	return cg;
}

/* Kills what runs in @cg and removes it, giving up after @timeout_ms. */
int zs_cg_destroy(const char *cg, int timeout_ms)
{
	int i, ret;

	if (!cg)
		return 0;

	ret = zs_rmdir_bounded(cg, timeout_ms);
	if (!ret) {
		for (i = 0; i < zs_nr_cgroups; i++)
			if (!strcmp(zs_cgroups[i], cg))
				zs_cgroups[i][0] = '\0';
	}
	return ret;
}

/*
 * Forks a child that moves itself into @cg and exits with @fn's return.
 * _exit() keeps the child from running the test's atexit() and stdio
 * flushing.
 */
pid_t zs_cg_spawn(const char *cg, int (*fn)(void *arg), void *arg)
{
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid)
		return pid;

	if (cg_enter_current(cg))
		_exit(126);
	_exit(fn(arg));
}

struct zs_piped {
	int (*fn)(void *arg);
	void *arg;
	int close_fds[2];
};

/* Runs in the child: drops the parent's pipe ends, then runs the body. */
static int zs_piped_fn(void *arg)
{
	struct zs_piped *p = arg;

	close(p->close_fds[0]);
	close(p->close_fds[1]);
	return p->fn(p->arg);
}

/**
 * zs_cg_spawn_piped() - zs_cg_spawn() with a pipe each way
 * @cg: the cgroup the child runs in
 * @fn: the child's body
 * @arg: @fn's argument
 * @child_rd: set before the fork to the end the child reads from
 * @child_wr: set before the fork to the end the child writes to
 * @rd: set to the parent's read end, or -1 on failure
 * @wr: set to the parent's write end, or -1 on failure
 *
 * @child_rd and @child_wr usually point into @arg, so that @fn finds them.
 * @rd and @wr may point to the same places: they are set after the fork.
 * The child closes the parent's ends before it calls @fn.
 *
 * Return: the child's pid, or -1 with no end left open.
 */
pid_t zs_cg_spawn_piped(const char *cg, int (*fn)(void *arg), void *arg,
			int *child_rd, int *child_wr, int *rd, int *wr)
{
	struct zs_piped p = { .fn = fn, .arg = arg };
	int c2p[2], p2c[2];
	pid_t pid;

	if (pipe(c2p))
		goto fail;
	if (pipe(p2c)) {
		close(c2p[0]);
		close(c2p[1]);
		goto fail;
	}
	*child_rd = p2c[0];
	*child_wr = c2p[1];
	p.close_fds[0] = c2p[0];
	p.close_fds[1] = p2c[1];
	pid = zs_cg_spawn(cg, zs_piped_fn, &p);
	close(c2p[1]);
	close(p2c[0]);
	if (pid < 0) {
		close(c2p[0]);
		close(p2c[1]);
		goto fail;
	}
	*rd = c2p[0];
	*wr = p2c[1];
	return pid;
fail:
	*rd = -1;
	*wr = -1;
	return -1;
}

/**
 * zs_child_stop() - tell a child started by zs_cg_spawn_piped() to exit
 * @pid: the child
 * @wr: the parent's write end of the child's command pipe
 * @status: where to store the child's wait status, or NULL
 * @timeout_ms: how long the child may take to exit after 'X'
 *
 * Sends 'X' and reaps the child; one that is not gone after @timeout_ms
 * is killed with SIGKILL and waited for 5 s more.
 *
 * Return: 0 when the child exited by itself, else the error of the first
 * zs_wait_for_exit().
 */
int zs_child_stop(pid_t pid, int wr, int *status, int timeout_ms)
{
	int ret;

	zs_send_msg(wr, 'X');
	ret = zs_wait_for_exit(pid, status, timeout_ms);
	if (ret) {
		kill(pid, SIGKILL);
		zs_wait_for_exit(pid, status, 5000);
	}
	return ret;
}

/**
 * zs_run_cleanup() - release what a case used to talk to its child
 * @cg: the case's cgroup from zs_cg_create(), or NULL
 * @rd: the parent's read end, or -1
 * @wr: the parent's write end, or -1
 *
 * Closes the open pipe ends, then removes @cg (giving up after 10 s) and
 * frees it.
 */
void zs_run_cleanup(char *cg, int rd, int wr)
{
	if (rd >= 0)
		close(rd);
	if (wr >= 0)
		close(wr);
	zs_cg_destroy(cg, 10000);
	free(cg);
}

int zs_cg_key(const char *cg, const char *file, const char *key, long long *val)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", cg, file);
	return zs_read_key(path, key, val);
}

int zs_memstat(const char *cg, const char *field, long long *val)
{
	return zs_cg_key(cg, "memory.stat", field, val);
}

int zs_cg_ll(const char *cg, const char *file, long long *val)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", cg, file);
	return zs_read_ll(path, val);
}

/**
 * zs_wait_no_dying() - wait for the removed cgroups under a parent to go
 * @parent: the parent cgroup
 * @until_ms: the zs_now_ms() time to give up at
 *
 * Folios still charged to a removed memcg (swap cache left by its
 * writeback) keep it dying until they are reclaimed, so @parent is
 * reclaimed meanwhile: only a reference nobody drops keeps the count up.
 *
 * Return: the last nr_dying_descendants of @parent read (0 once they are
 * gone), -1 if none could be read.
 */
long long zs_wait_no_dying(const char *parent, uint64_t until_ms)
{
	long long dying = -1;

	while (!zs_cg_key(parent, "cgroup.stat", "nr_dying_descendants",
			  &dying) && dying && zs_now_ms() < until_ms) {
		cg_write(parent, "memory.reclaim", "64M");	/* -EAGAIN too */
		zs_sleep_ms(200);
	}
	return dying;
}

int zs_vmstat(const char *field, long long *val)
{
	return zs_read_key("/proc/vmstat", field, val);
}

int zs_debugfs(const char *name, long long *val)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", ZSWAP_DEBUGFS_DIR, name);
	return zs_read_ll(path, val);
}

long long zs_memstat_or(const char *cg, const char *field, long long dflt)
{
	long long val;

	return zs_memstat(cg, field, &val) ? dflt : val;
}

int zs_slowdown(void)
{
	static int factor;
	const char *val;
	char *end;
	long n;

	if (factor)
		return factor;
	val = getenv("ZSWAP_SLOWDOWN");
	if (!val) {
		factor = 1;
		return factor;
	}
	errno = 0;
	n = strtol(val, &end, 10);
	if (errno || end == val || *end || n < 1 || n > ZS_SLOWDOWN_MAX)
		ksft_exit_fail_msg("ZSWAP_SLOWDOWN=%s: a whole factor from 1 to %d, please\n",
				   val, ZS_SLOWDOWN_MAX);
	factor = n;
	return factor;
}

long long zs_debugfs_or(const char *name, long long dflt)
{
	long long val;

	return zs_debugfs(name, &val) ? dflt : val;
}

uint64_t zs_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void zs_sleep_ms(unsigned int ms)
{
	struct timespec ts = {
		.tv_sec = ms / 1000,
		.tv_nsec = (long)(ms % 1000) * 1000000,
	};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

int zs_wait_for(bool (*cond)(void *arg), void *arg, int timeout_ms,
		int interval_ms)
{
	uint64_t end = zs_now_ms() + timeout_ms;
	uint64_t now;

	for (;;) {
		if (cond(arg))
			return 0;
		now = zs_now_ms();
		if (now >= end)
			return -ETIMEDOUT;
		zs_sleep_ms(end - now < (uint64_t)interval_ms ?
			    end - now : (uint64_t)interval_ms);
	}
}

struct zs_counter_wait {
	const char *cg;
	const char *name;
	long long limit;
	long long val;
};

static bool zs_memstat_above(void *arg)
{
	struct zs_counter_wait *w = arg;

	if (zs_memstat(w->cg, w->name, &w->val))
		w->val = -1;
	return w->val > w->limit;
}

int zs_wait_for_memstat_above(const char *cg, const char *field,
			      long long above, int timeout_ms, long long *val)
{
	struct zs_counter_wait w = { .cg = cg, .name = field, .limit = above };
	int ret;

	ret = zs_wait_for(zs_memstat_above, &w, timeout_ms, 100);
	if (val)
		*val = w.val;
	return ret;
}

static bool zs_debugfs_at_most(void *arg)
{
	struct zs_counter_wait *w = arg;

	if (zs_debugfs(w->name, &w->val))
		return false;
	return w->val <= w->limit;
}

int zs_wait_for_debugfs_at_most(const char *name, long long limit,
				int timeout_ms, long long *val)
{
	struct zs_counter_wait w = { .name = name, .limit = limit, .val = -1 };
	int ret;

	ret = zs_wait_for(zs_debugfs_at_most, &w, timeout_ms, 100);
	if (val)
		*val = w.val;
	return ret;
}

/*
 * Waits for one byte on @fd. Returns the byte, -ETIMEDOUT, or -EPIPE when
 * the writer went away (a child that died).
 */
int zs_wait_for_msg(int fd, int timeout_ms)
{
	uint64_t end = zs_now_ms() + timeout_ms;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	unsigned char c;
	uint64_t now;
	ssize_t n;
	int ret;

	for (;;) {
		now = zs_now_ms();
		if (now >= end)
			return -ETIMEDOUT;
		ret = poll(&pfd, 1, end - now);
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret < 0)
			return -errno;
		if (!ret)
			return -ETIMEDOUT;

		n = read(fd, &c, 1);
		if (n == 1)
			return c;
		if (!n)
			return -EPIPE;
		if (errno != EINTR && errno != EAGAIN)
			return -errno;
	}
}

/*
 * Waits for one byte on @fd like zs_wait_for_msg(), calling @sample every
 * @interval_ms meanwhile (and once more when the byte arrives).
 */
int zs_wait_for_msg_sampling(int fd, int timeout_ms, int interval_ms,
			     void (*sample)(void *arg), void *arg)
{
	uint64_t end = zs_now_ms() + timeout_ms;
	int msg;

	do {
		msg = zs_wait_for_msg(fd, interval_ms);
		sample(arg);
		if (msg != -ETIMEDOUT)
			return msg;
	} while (zs_now_ms() < end);

	return -ETIMEDOUT;
}

/**
 * zs_zswap_peak_sample() - track the peak of memory.zswap.current
 * @arg: a struct zs_peak
 *
 * A sampler for zs_wait_for_msg_sampling(): raises @arg's peak to the
 * cgroup's memory.zswap.current when that is higher.
 */
void zs_zswap_peak_sample(void *arg)
{
	struct zs_peak *pk = arg;
	long long cur;

	if (!zs_cg_ll(pk->cg, "memory.zswap.current", &cur) && cur > pk->peak)
		pk->peak = cur;
}

int zs_send_msg(int fd, char msg)
{
	ssize_t n;

	do {
		n = write(fd, &msg, 1);
	} while (n < 0 && errno == EINTR);
	return n == 1 ? 0 : -errno;
}

int zs_wait_for_exit(pid_t pid, int *status, int timeout_ms)
{
	uint64_t end = zs_now_ms() + timeout_ms;
	pid_t ret;

	for (;;) {
		ret = waitpid(pid, status, WNOHANG);
		if (ret == pid)
			return 0;
		if (ret < 0 && errno != EINTR)
			return -errno;
		if (zs_now_ms() >= end)
			return -ETIMEDOUT;
		zs_sleep_ms(20);
	}
}

/**
 * zs_swap_active() - is a swap area in use
 * @path: the area's path, as /proc/swaps lists it
 *
 * Return: 1 when /proc/swaps lists @path, 0 when not, -1 if unreadable.
 */
int zs_swap_active(const char *path)
{
	size_t len = strlen(path);
	char *buf, *line, *save;
	int on = 0;

	buf = malloc(ZS_BIG_BUF);
	if (!buf || zs_read_file("/proc/swaps", buf, ZS_BIG_BUF) < 0) {
		free(buf);
		return -1;
	}
	for (line = strtok_r(buf, "\n", &save); line && !on;
	     line = strtok_r(NULL, "\n", &save))
		on = !strncmp(line, path, len) &&
		     (line[len] == ' ' || line[len] == '\t');
	free(buf);
	return on;
}

/* Picks the swap area the kernel fills first: the highest priority one. */
int zs_parse_swaps(struct zs_env *env)
{
	char *buf, *line, *save;
	char path[PATH_MAX], type[16];
	long long size, used;
	bool first = true;
	int prio;
	ssize_t n;

	env->nr_swaps = 0;
	env->swap_prio_tie = false;
	env->swap_size_kb = 0;
	env->swap_used_kb = 0;

	buf = malloc(ZS_BIG_BUF);
	if (!buf)
		return -ENOMEM;
	n = zs_read_file("/proc/swaps", buf, ZS_BIG_BUF);
	if (n < 0) {
		free(buf);
		return n;
	}

	/* The first line is the header. */
	line = strtok_r(buf, "\n", &save);
	while ((line = strtok_r(NULL, "\n", &save))) {
		if (sscanf(line, "%4095s %15s %lld %lld %d",
			   path, type, &size, &used, &prio) != 5)
			continue;
		env->nr_swaps++;
		if (!first && prio == env->swap_prio)
			env->swap_prio_tie = true;
		if (first || prio > env->swap_prio) {
			snprintf(env->swap_path, sizeof(env->swap_path), "%s",
				 path);
			snprintf(env->swap_type, sizeof(env->swap_type), "%s",
				 type);
			env->swap_prio = prio;
			env->swap_prio_tie = false;
			first = false;
		}
		env->swap_size_kb += size;
		env->swap_used_kb += used;
	}

	free(buf);
	return env->nr_swaps ? 0 : -ENOENT;
}

static bool zs_debugfs_is_mounted(void)
{
	char *buf, *line, *save;
	char dev[64], mnt[PATH_MAX], type[64];
	bool found = false;

	buf = malloc(4 * ZS_BIG_BUF);
	if (!buf)
		return false;
	if (zs_read_file("/proc/self/mounts", buf, 4 * ZS_BIG_BUF) < 0) {
		free(buf);
		return false;
	}

	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%63s %4095s %63s", dev, mnt, type) != 3)
			continue;
		if (!strcmp(mnt, DEBUGFS_DIR) && !strcmp(type, "debugfs")) {
			found = true;
			break;
		}
	}

	free(buf);
	return found;
}

void zs_setup(struct zs_env *env, long long min_free_swap_kb)
{
	struct sysinfo si;
	char path[PATH_MAX + 64], val[8];
	int ret;

	memset(env, 0, sizeof(*env));
	env->page_size = sysconf(_SC_PAGESIZE);
	if (env->page_size <= 0)
		env->page_size = 4096;
	env->nr_cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (env->nr_cpus <= 0)
		env->nr_cpus = 1;
	if (!sysinfo(&si))
		env->totalram = (unsigned long long)si.totalram * si.mem_unit;

	zs_register_cleanup();

	if (geteuid())
		ksft_exit_skip("must be run as root\n");

	if (access(ZSWAP_MODULE_DIR, F_OK))
		ksft_exit_skip("zswap is not available (CONFIG_ZSWAP)\n");

	if (cg_find_unified_root(env->cgroot, sizeof(env->cgroot), NULL))
		ksft_exit_skip("cgroup v2 is not mounted\n");
	if (cg_read_strstr(env->cgroot, "cgroup.controllers", "memory"))
		ksft_exit_skip("memory controller is not available\n");
	if (cg_read_strstr(env->cgroot, "cgroup.subtree_control", "memory")) {
		snprintf(path, sizeof(path), "%s/cgroup.subtree_control",
			 env->cgroot);
		if (zs_knob_set_restore(path, "+memory", "-memory"))
			ksft_exit_skip("cannot enable the memory controller\n");
	}

	if (zs_parse_swaps(env))
		ksft_exit_skip("no active swap area in /proc/swaps\n");
	if (env->swap_size_kb - env->swap_used_kb < min_free_swap_kb)
		ksft_exit_skip("need %lld KiB of free swap, have %lld KiB\n",
			       min_free_swap_kb,
			       env->swap_size_kb - env->swap_used_kb);

	/*
	 * A kernel booted with zswap off sets it up on the first enable:
	 * its debugfs directory exists only from then on.
	 */
	ret = zs_param_set("enabled", "Y");
	if (ret)
		ksft_exit_skip("cannot enable zswap: %s\n", strerror(-ret));
	snprintf(path, sizeof(path), "%s/enabled", ZSWAP_PARAM_DIR);
	if (zs_read_file(path, val, sizeof(val)) < 0 || val[0] != 'Y')
		ksft_exit_skip("zswap did not stay enabled\n");

	if (access(ZSWAP_DEBUGFS_DIR, F_OK) && !zs_debugfs_is_mounted()) {
		if (!mount("debugfs", DEBUGFS_DIR, "debugfs", 0, NULL))
			zs_debugfs_mounted = true;
	}
	if (access(ZSWAP_DEBUGFS_DIR, F_OK))
		ksft_exit_skip("no zswap counters in %s (CONFIG_DEBUG_FS)\n",
			       ZSWAP_DEBUGFS_DIR);
}

/* Maps a device number to its whole disk, where iocost is configured. */
int zs_whole_disk(dev_t dev, struct zs_disk *d)
{
	char path[PATH_MAX], buf[32];
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/partition",
		 major(dev), minor(dev));
	if (!access(path, F_OK))
		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/../dev",
			 major(dev), minor(dev));
	else
		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/dev",
			 major(dev), minor(dev));

	n = zs_read_file(path, buf, sizeof(buf));
	if (n < 0)
		return n;
	if (sscanf(buf, "%u:%u", &d->maj, &d->min) != 2)
		return -EINVAL;
	return 0;
}

/*
 * The whole disk of @env's swap area in @d, and in @dev (unless NULL) the
 * device the area is on (its partition, or a swap file's filesystem).
 * Returns 0 or a negative errno.
 */
int zs_swap_disk(const struct zs_env *env, struct zs_disk *d, dev_t *dev)
{
	struct stat st;
	dev_t area;

	if (stat(env->swap_path, &st))
		return -errno;
	area = S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev;
	if (dev)
		*dev = area;
	return zs_whole_disk(area, d);
}

bool zs_same_disk(const struct zs_disk *a, const struct zs_disk *b)
{
	return a->maj == b->maj && a->min == b->min;
}

/* Enables the io controller for the root's children; undone at exit. */
int zs_io_controller_enable(const struct zs_env *env)
{
	char path[PATH_MAX + 32];

	if (cg_read_strstr(env->cgroot, "cgroup.controllers", "io"))
		return -ENODEV;
	if (!cg_read_strstr(env->cgroot, "cgroup.subtree_control", "io"))
		return 0;
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", env->cgroot);
	return zs_knob_set_restore(path, "+io", "-io");
}

/*
 * The restore value for an io.cost.qos/model line: the old line itself, or
 * "ctrl=auto" (with the old enable state), since writing back the numbers
 * the kernel computed would make them user settings.
 */
static void zs_iocost_restore(const char *path, const struct zs_disk *d,
			      bool qos, char *out, size_t len)
{
	char buf[4096], prefix[32], *line, *save;
	int enable = 0;

	snprintf(prefix, sizeof(prefix), "%u:%u ", d->maj, d->min);
	if (qos)
		snprintf(out, len, "%u:%u enable=0 ctrl=auto", d->maj, d->min);
	else
		snprintf(out, len, "%u:%u ctrl=auto", d->maj, d->min);

	if (zs_read_file(path, buf, sizeof(buf)) < 0)
		return;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, prefix, strlen(prefix)))
			continue;
		if (strstr(line, "ctrl=user")) {
			snprintf(out, len, "%s", line);
		} else if (qos) {
			if (strstr(line, "enable=1"))
				enable = 1;
			snprintf(out, len, "%u:%u enable=%d ctrl=auto",
				 d->maj, d->min, enable);
		}
		return;
	}
}

/*
 * Writes "MAJ:MIN @setting" for @d to @path with zs_knob_set_restore(): the
 * exit puts back @restore, or what @path held if @restore is NULL.
 * Returns 0 or a negative errno.
 */
static int zs_iocost_write(const char *path, const struct zs_disk *d,
			   const char *setting, const char *restore)
{
	char val[ZS_VAL_LEN];

	snprintf(val, sizeof(val), "%u:%u %s", d->maj, d->min, setting);
	return zs_knob_set_restore(path, val, restore);
}

/*
 * Enables iocost on @d with the given io.cost.qos and io.cost.model
 * settings (without the MAJ:MIN prefix); both are put back at exit.
 * Returns 0, or -1 with @why filled in.
 */
int zs_iocost_enable(const struct zs_env *env, const struct zs_disk *d,
		     const char *qos, const char *model, char *why, size_t len)
{
	char qos_path[PATH_MAX + 16], model_path[PATH_MAX + 16];
	char restore[ZS_VAL_LEN];
	int ret;

	snprintf(qos_path, sizeof(qos_path), "%s/io.cost.qos", env->cgroot);
	snprintf(model_path, sizeof(model_path), "%s/io.cost.model",
		 env->cgroot);
	if (access(qos_path, F_OK) || access(model_path, F_OK)) {
		snprintf(why, len, "no io.cost.qos (CONFIG_BLK_CGROUP_IOCOST)");
		return -1;
	}

	zs_iocost_restore(qos_path, d, true, restore, sizeof(restore));
	ret = zs_iocost_write(qos_path, d, qos, restore);
	if (ret) {
		snprintf(why, len, "cannot enable iocost on %u:%u (\"%s\"): %s",
			 d->maj, d->min, qos, strerror(-ret));
		return -1;
	}

	zs_iocost_restore(model_path, d, false, restore, sizeof(restore));
	ret = zs_iocost_write(model_path, d, model, restore);
	if (ret) {
		snprintf(why, len, "cannot set the iocost model (\"%s\"): %s",
			 model, strerror(-ret));
		return -1;
	}
	return 0;
}

/*
 * Enables the io controller for the root's children and iocost on the
 * disk of @env's swap area (zs_iocost_enable()), so that an IO controller
 * may delay the writes of every test cgroup there; all put back at exit.
 * Returns 0, or -1 with @why filled in.
 */
int zs_iocost_on_swap(const struct zs_env *env, const char *qos,
		      const char *model, char *why, size_t len)
{
	struct zs_disk d;

	if (zs_swap_disk(env, &d, NULL)) {
		snprintf(why, len, "cannot find the disk of %s", env->swap_path);
		return -1;
	}
	if (zs_io_controller_enable(env)) {
		snprintf(why, len, "cannot enable the io controller for %s's children",
			 env->cgroot);
		return -1;
	}
	return zs_iocost_enable(env, &d, qos, model, why, len);
}

/*
 * Changes the io.cost.model and then the io.cost.qos settings of @d, after
 * zs_iocost_enable() (whose exit restore still puts back what it found).
 * Returns 0 or a negative errno.
 */
int zs_iocost_set(const struct zs_env *env, const struct zs_disk *d,
		  const char *qos, const char *model)
{
	char path[PATH_MAX + 16];
	int ret;

	snprintf(path, sizeof(path), "%s/io.cost.model", env->cgroot);
	ret = zs_iocost_write(path, d, model, NULL);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s/io.cost.qos", env->cgroot);
	return zs_iocost_write(path, d, qos, NULL);
}

/* Finds "@key=<number>" in the @d line of @cg's io.stat; -1 if absent. */
long long zs_io_stat(const char *cg, const struct zs_disk *d, const char *key)
{
	char buf[4096], prefix[32], *line, *save, *p;
	size_t klen = strlen(key);

	if (cg_read(cg, "io.stat", buf, sizeof(buf)))
		return -1;
	snprintf(prefix, sizeof(prefix), "%u:%u ", d->maj, d->min);
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, prefix, strlen(prefix)))
			continue;
		for (p = strstr(line, key); p; p = strstr(p + 1, key))
			if (p[-1] == ' ' && p[klen] == '=')
				return strtoll(p + klen + 1, NULL, 10);
	}
	return -1;
}

/* Total "full" stall in us from @cg's @res.pressure, -1 without PSI. */
long long zs_psi_full_us(const char *cg, const char *res)
{
	char file[32], buf[512], *p;

	snprintf(file, sizeof(file), "%s.pressure", res);
	if (cg_read(cg, file, buf, sizeof(buf)))
		return -1;
	p = strstr(buf, "full ");
	if (p)
		p = strstr(p, "total=");
	return p ? strtoll(p + 6, NULL, 10) : -1;
}

static bool zs_tracefs_mounted;

static void zs_tracefs_release(void)
{
	if (zs_tracefs_mounted && !umount(ZS_TRACEFS))
		zs_tracefs_mounted = false;
}

int zs_tracefs_ready(char *why, size_t len)
{
	if (!access(ZS_TRACEFS "/instances", F_OK))
		return 0;
	if (mount("tracefs", ZS_TRACEFS, "tracefs", 0, NULL)) {
		snprintf(why, len, "no tracefs at %s (CONFIG_FTRACE)", ZS_TRACEFS);
		return -1;
	}
	zs_tracefs_mounted = true;
	zs_on_cleanup(zs_tracefs_release);
	return 0;
}

/* Makes the trace instance @inst afresh. */
int zs_trace_instance(const char *inst, char *why, size_t len)
{
	rmdir(inst);
	if (mkdir(inst, 0755)) {
		snprintf(why, len, "cannot make trace instance %s: %s", inst,
			 strerror(errno));
		return -1;
	}
	return 0;
}

int zs_size_past_available(size_t over, size_t extra, size_t *size,
			   char *why, size_t len)
{
	long long avail = 0, swapfree = 0;
	size_t page = getpagesize();

	if (zs_read_key("/proc/meminfo", "MemAvailable:", &avail) ||
	    zs_read_key("/proc/meminfo", "SwapFree:", &swapfree) || avail <= 0) {
		snprintf(why, len, "no MemAvailable or SwapFree in /proc/meminfo");
		return -1;
	}
	if ((size_t)swapfree * 1024 / 2 < over + extra) {
		snprintf(why, len, "%lld K of free swap, need twice %zu K",
			 swapfree, (over + extra) >> 10);
		return -1;
	}
	*size = (size_t)avail * 1024 + over;
	*size -= *size % page;
	return 0;
}

const char *zs_pattern_name(enum zs_pattern pat)
{
	switch (pat) {
	case ZS_PAT_RANDOM:
		return "random";
	case ZS_PAT_COMPRESSIBLE:
		return "compressible";
	case ZS_PAT_SAME:
		return "same-filled";
	default:
		return "?";
	}
}

static uint64_t zs_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* xorshift64*: cheap enough for a TCG guest, random enough for lzo. */
static uint64_t zs_xorshift64s(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dULL;
}

void zs_fill_page(void *page, size_t size, enum zs_pattern pat, uint64_t seed)
{
	uint64_t *w = page;
	size_t i, n = size / sizeof(*w);
	uint64_t s = seed;
	/* never zero: xorshift would stay at 0, and zero pages skip zswap */
	uint64_t x = zs_splitmix64(&s) | 1;

	switch (pat) {
	case ZS_PAT_RANDOM:
		for (i = 0; i < n; i++)
			w[i] = zs_xorshift64s(&x);
		break;
	case ZS_PAT_COMPRESSIBLE:
		for (i = 0; i < n / 2; i++)
			w[i] = zs_xorshift64s(&x);
		memset(&w[n / 2], 0, size - n / 2 * sizeof(*w));
		break;
	case ZS_PAT_SAME:
	default:
		for (i = 0; i < n; i++)
			w[i] = x;
		break;
	}
}

/* FNV-1a, fed 64-bit words (then any tail bytes) to stay fast under TCG. */
uint64_t zs_csum(const void *buf, size_t len)
{
	const uint64_t prime = 0x100000001b3ULL;
	const uint64_t *w = buf;
	const unsigned char *b;
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i, n = len / sizeof(*w);

	for (i = 0; i < n; i++) {
		h ^= w[i];
		h *= prime;
	}
	b = (const unsigned char *)(w + n);
	for (i = 0; i < len % sizeof(*w); i++) {
		h ^= b[i];
		h *= prime;
	}
	return h;
}

/**
 * zs_map_tagged() - map anonymous memory and fill it with tagged pages
 * @size: how many bytes, a multiple of @page_size
 * @page_size: the page size
 * @tag: page i gets ZS_PAT_COMPRESSIBLE contents seeded with i, then
 *       @tag ^ i in its first word
 *
 * The mapping is private and MADV_NOHUGEPAGE: it swaps as order-0 folios.
 *
 * Return: the mapping, or NULL.
 */
char *zs_map_tagged(size_t size, size_t page_size, uint64_t tag)
{
	size_t i, npages = size / page_size;
	uint64_t *w;
	char *mem;

	mem = mmap(NULL, size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return NULL;
	madvise(mem, size, MADV_NOHUGEPAGE);

	for (i = 0; i < npages; i++) {
		zs_fill_page(mem + i * page_size, page_size,
			     ZS_PAT_COMPRESSIBLE, i);
		w = (uint64_t *)(mem + i * page_size);
		*w = tag ^ i;
	}
	return mem;
}

/**
 * zs_retag() - check the tags of zs_map_tagged() and write them again
 * @mem: the first page
 * @npages: how many pages
 * @page_size: the page size
 * @tag: the tag the pages were filled with
 *
 * Faults every page in and dirties it, so that it must be stored again.
 *
 * Return: the index of the first page with a wrong tag, or -1.
 */
long zs_retag(char *mem, size_t npages, size_t page_size, uint64_t tag)
{
	long bad = -1;
	uint64_t *w;
	size_t i;

	for (i = 0; i < npages; i++) {
		w = (uint64_t *)(mem + i * page_size);
		if (*w != (tag ^ i) && bad < 0)
			bad = i;
		*w = tag ^ i;
	}
	return bad;
}

/**
 * zs_bad_pages() - count the pages that differ from what zs_map_tagged() wrote
 * @mem: the first page
 * @npages: how many pages
 * @page_size: the page size
 * @tag: the tag the pages were filled with
 *
 * Compares every byte, not only the tag.
 *
 * Return: the number of pages that differ (all of them if no buffer).
 */
long zs_bad_pages(const char *mem, size_t npages, size_t page_size,
		  uint64_t tag)
{
	char *want = malloc(page_size);
	long bad = 0;
	size_t i;

	if (!want)
		return npages;
	for (i = 0; i < npages; i++) {
		zs_fill_page(want, page_size, ZS_PAT_COMPRESSIBLE, i);
		*(uint64_t *)want = tag ^ i;
		bad += !!memcmp(mem + i * page_size, want, page_size);
	}
	free(want);
	return bad;
}

/**
 * zs_send_check() - report a workload's byte check to its parent
 * @fd: the pipe to the parent
 * @name: the case's name, for the diagnostic line
 * @npages: the pages checked
 * @bad: the pages that differed (zs_bad_pages())
 *
 * Prints the figures and sends 'D' when every page was intact, 'X' when
 * one was not; zs_check_failed() reads the answer.
 */
void zs_send_check(int fd, const char *name, size_t npages, long bad)
{
	ksft_print_msg("%s: %zu pages checked, %ld bad\n", name, npages, bad);
	fflush(stdout);
	zs_send_msg(fd, bad ? 'X' : 'D');
}

/**
 * zs_check_failed() - did a workload's byte check fail or not happen?
 * @msg: the workload's last message (zs_send_check()), or an error
 * @ooms: its cgroup's memory.events oom_kill, or -1 if not read
 * @status: its exit status
 * @why: filled in when it returns true
 * @len: the size of @why
 *
 * A page that came back wrong, an OOM kill (the pages were not checked)
 * and a workload that ended before its check (no read was failed, so a
 * SIGBUS or a kill is a lost page) are failures.
 *
 * Return: false only if the workload reported every page intact.
 */
bool zs_check_failed(int msg, long long ooms, int status, char *why,
		     size_t len)
{
	if (msg == 'X')
		snprintf(why, len, "pages came back wrong");
	else if (ooms > 0)
		snprintf(why, len,
			 "the workload was OOM-killed (oom_kill %lld): its pages were not checked",
			 ooms);
	else if (msg != 'D')
		snprintf(why, len,
			 "the workload ended before its check (%d, status %#x): a page was lost",
			 msg, status);
	else
		return false;
	return true;
}

/* Swaps @env's area on again, at the priority it had. */
int zs_swapon(const struct zs_env *env)
{
	int flags = 0;

	if (env->swap_prio >= 0)
		flags = SWAP_FLAG_PREFER |
			((env->swap_prio << SWAP_FLAG_PRIO_SHIFT) &
			 SWAP_FLAG_PRIO_MASK);
	return swapon(env->swap_path, flags) ? -errno : 0;
}

/*
 * A zs_cg_spawn() function: swapoff(@path); 0 or the errno. It lets go of
 * the test's output first: a swapoff that never returns (it waits
 * uninterruptibly, SIGKILL or not, on a swap device reference that a bug
 * leaked) must not keep the runner's pipe open, and the runner waiting,
 * after the test reported it and exited.
 */
int zs_swapoff_fn(void *path)
{
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

	if (fd >= 0) {
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		close(fd);
	}
	return swapoff((const char *)path) ? errno : 0;
}

/*
 * After a swapoff of @env's area that failed or did not return (@off, its
 * child, or -1 if it is not running): kills it, waiting up to @ms (an
 * interrupted swapoff leaves the area on), and swaps the area on again if
 * it went off all the same, so that the programs after this one still
 * have swap. Says what it did.
 */
void zs_swapoff_abort(const struct zs_env *env, pid_t off, int ms)
{
	char path[64], stack[2048];
	int status, on;

	if (off > 0) {
		snprintf(path, sizeof(path), "/proc/%d/stack", off);
		if (zs_read_file(path, stack, sizeof(stack)) >= 0)
			ksft_print_msg("swapoff: where it waits:\n%s\n", stack);
		kill(off, SIGKILL);
		if (zs_wait_for_exit(off, &status, ms))
			ksft_print_msg("swapoff: still running %d s after SIGKILL\n",
				       ms / 1000);
	}
	on = zs_swap_active(env->swap_path);
	if (!on)
		ksft_print_msg("swapoff: %s off after all; swapon: %s\n",
			       env->swap_path,
			       zs_swapon(env) ? strerror(errno) : "done");
	else if (on < 0)
		ksft_print_msg("swapoff: cannot read /proc/swaps\n");
}

/* The KiB in use on the swap area @path, -1 if it is not listed. */
long long zs_swap_used_kb(const char *path)
{
	char *buf, *line, *save, area[PATH_MAX], type[16];
	long long size, used, ret = -1;

	buf = malloc(ZS_BIG_BUF);
	if (!buf || zs_read_file("/proc/swaps", buf, ZS_BIG_BUF) < 0) {
		free(buf);
		return -1;
	}
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%4095s %15s %lld %lld", area, type, &size,
			   &used) == 4 && !strcmp(area, path)) {
			ret = used;
			break;
		}
	}
	free(buf);
	return ret;
}

int zs_find_kthreads(const char *prefix, pid_t *pids, int max)
{
	char path[64], comm[64];
	struct dirent *de;
	int n = 0;
	pid_t pid;
	DIR *dir;

	dir = opendir("/proc");
	if (!dir)
		return 0;
	while ((de = readdir(dir)) && n < max) {
		pid = atoi(de->d_name);
		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/comm", pid);
		if (zs_read_file(path, comm, sizeof(comm)) >= 0 &&
		    !strncmp(comm, prefix, strlen(prefix)))
			pids[n++] = pid;
	}
	closedir(dir);
	return n;
}

/* Reads a file of any size; the caller frees it. NULL on error. */
char *zs_read_big(const char *path, size_t *lenp)
{
	size_t len = 0, cap = ZS_BIG_BUF;
	char *buf, *tmp;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	buf = malloc(cap);
	while (buf) {
		if (cap - len < 4096) {
			tmp = realloc(buf, cap * 2);
			if (!tmp) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = tmp;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(buf);
			buf = NULL;
			break;
		}
		if (!n)
			break;
		len += n;
	}
	close(fd);
	if (buf) {
		buf[len] = '\0';
		if (lenp)
			*lenp = len;
	}
	return buf;
}

#define ZS_SLEEP_INST		ZS_TRACEFS "/instances/zswap_sleeps"
#define ZS_SLEEP_EVENT		ZS_SLEEP_INST "/events/sched/sched_switch"
#define ZS_MAX_FRAMES		32

static char zs_sleep_cmd[1024];
static bool zs_sleep_on;

const char *zs_sleep_class_name(enum zs_sleep_class c)
{
	static const char * const names[] = {
		[ZS_SLEEP_OTHER] = "other",
		[ZS_SLEEP_BUDGET] = "a cgroup IO budget",
		[ZS_SLEEP_SWAP] = "a zswap or swap write wait (worker, cap)",
		[ZS_SLEEP_WRITEBACK] = "a folio under writeback",
		[ZS_SLEEP_RECLAIM] = "reclaim_throttle",
	};

	return c < ZS_NR_SLEEP_CLASSES ? names[c] : "?";
}

/*
 * What blocks by design and says nothing of why: the scheduler's entry
 * points and the generic wait helpers. The first frame below them is
 * the code that chose to wait.
 */
static bool zs_frame_is_primitive(const char *f)
{
	static const char * const prims[] = {
		"__schedule", "schedule", "schedule_timeout",
		"schedule_timeout_uninterruptible", "schedule_timeout_killable",
		"schedule_timeout_interruptible", "schedule_hrtimeout_range",
		"schedule_hrtimeout_range_clock", "schedule_hrtimeout",
		"io_schedule", "io_schedule_timeout", "schedule_preempt_disabled",
		"do_wait_for_common", "__wait_for_common", "wait_for_common",
		"wait_for_common_io", "wait_for_completion",
		"wait_for_completion_io", "wait_for_completion_timeout",
		"wait_for_completion_io_timeout", "wait_for_completion_killable",
		"msleep", "usleep_range_state",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(prims); i++)
		if (!strcmp(f, prims[i]))
			return true;
	return false;
}

/*
 * A wait in a cgroup IO controller, anywhere on the stack: iocost's
 * throttle, the blkcg delay iocost and io.latency set (paid at return to
 * user or by a kthread), io.latency's queue depth, blk-throttle.
 */
static bool zs_frame_is_budget(const char *f)
{
	return !strncmp(f, "ioc_rqos_throttle", 17) ||
	       !strncmp(f, "blkcg_maybe_throttle", 20) ||
	       strstr(f, "iolatency") || !strncmp(f, "blk_throtl", 10) ||
	       !strncmp(f, "throtl_", 7);
}

/* zswap's own waits, or the swap write path's (a cap on throttled IO). */
static bool zs_frame_is_swap_wait(const char *f)
{
	return !strncmp(f, "zswap_", 6) || !strncmp(f, "swap_sio", 8) ||
	       !strcmp(f, "swap_add_folio") || !strncmp(f, "swap_write", 10) ||
	       !strcmp(f, "swap_writeout") || !strcmp(f, "__swap_writepage");
}

static enum zs_sleep_class zs_sleep_classify(char frames[][64], int n)
{
	int i, first = -1;

	for (i = 0; i < n; i++)
		if (zs_frame_is_budget(frames[i]))
			return ZS_SLEEP_BUDGET;
	for (i = 0; i < n && first < 0; i++)
		if (!zs_frame_is_primitive(frames[i]))
			first = i;
	if (first < 0)
		return ZS_SLEEP_OTHER;
	if (zs_frame_is_swap_wait(frames[first]))
		return ZS_SLEEP_SWAP;
	if (!strcmp(frames[first], "reclaim_throttle"))
		return ZS_SLEEP_RECLAIM;
	for (i = first; i < n && i < first + 3; i++)
		if (strstr(frames[i], "folio_wait_writeback") ||
		    strstr(frames[i], "folio_wait_stable"))
			return ZS_SLEEP_WRITEBACK;
	return ZS_SLEEP_OTHER;
}

/**
 * zs_sleep_trace_start() - count blocking sleeps with their stacks
 * @comm_filter: a filter on prev_comm (e.g. 'prev_comm == "x"'), or NULL
 *               for every task
 * @why: the reason on failure
 * @len: the size of @why
 *
 * Return: 0, or -1 with @why filled in. zs_sleep_trace_stop() (also run
 * at exit) takes the trigger off.
 */
int zs_sleep_trace_start(const char *comm_filter, char *why, size_t len)
{
	int ret;

	if (zs_tracefs_ready(why, len))
		return -1;
	zs_on_cleanup(zs_sleep_trace_stop);
	zs_sleep_trace_stop();
	if (zs_trace_instance(ZS_SLEEP_INST, why, len))
		return -1;
	if (access(ZS_SLEEP_EVENT "/trigger", F_OK)) {
		snprintf(why, len, "no sched:sched_switch event (CONFIG_FTRACE)");
		return -1;
	}
	/* S is 1 and D is 2 in the event's prev_state; preemption is neither */
	snprintf(zs_sleep_cmd, sizeof(zs_sleep_cmd),
		 "hist:keys=prev_comm,common_stacktrace:vals=hitcount:size=16384 if (prev_state == 1 || prev_state == 2)%s%s%s",
		 comm_filter ? " && (" : "", comm_filter ? comm_filter : "",
		 comm_filter ? ")" : "");
	ret = zs_write_file(ZS_SLEEP_EVENT "/trigger", zs_sleep_cmd);
	if (ret) {
		snprintf(why, len,
			 "cannot set a stacktrace hist trigger on sched_switch (CONFIG_HIST_TRIGGERS): %s",
			 strerror(-ret));
		return -1;
	}
	zs_sleep_on = true;
	return 0;
}

void zs_sleep_trace_stop(void)
{
	char off[sizeof(zs_sleep_cmd) + 1];

	if (zs_sleep_on) {
		snprintf(off, sizeof(off), "!%s", zs_sleep_cmd);
		zs_write_file(ZS_SLEEP_EVENT "/trigger", off);
		zs_sleep_on = false;
	}
	rmdir(ZS_SLEEP_INST);
}

/* One "{ prev_comm: ..., common_stacktrace: ... } hitcount: N" entry. */
static void zs_sleep_entry(char *blk, struct zs_sleeps *s)
{
	char frames[ZS_MAX_FRAMES][64], comm[32] = "?", *p, *line, *save;
	enum zs_sleep_class c;
	long long hits;
	size_t off;
	int n = 0, i;

	p = strstr(blk, "hitcount:");
	if (!p)
		return;
	hits = strtoll(p + 9, NULL, 10);
	*p = '\0';
	p = strstr(blk, "prev_comm: ");
	if (p) {
		if (sscanf(p + 11, "%31[^,]", comm) != 1)
			strcpy(comm, "?");
		for (i = strlen(comm); i > 0 && comm[i - 1] == ' '; i--)
			comm[i - 1] = '\0';
	}
	for (line = strtok_r(blk, "\n", &save); line && n < ZS_MAX_FRAMES;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strstr(line, "+0x"))
			continue;
		while (*line == ' ')
			line++;
		if (sscanf(line, "%63[^+ ]", frames[n]) == 1)
			n++;
	}
	if (!n)
		return;
	c = zs_sleep_classify(frames, n);
	s->hits[c] += hits;
	s->total += hits;
	if (hits <= s->example_hits[c])
		return;
	s->example_hits[c] = hits;
	off = snprintf(s->example[c], ZS_STACK_LEN, "%s:", comm);
	for (i = 0; i < n && off < ZS_STACK_LEN; i++)
		off += snprintf(s->example[c] + off, ZS_STACK_LEN - off, "%s%s",
				i ? " < " : " ", frames[i]);
}

/**
 * zs_sleep_trace_read() - what zs_sleep_trace_start()'s trigger counted
 * @s: filled in
 *
 * Return: 0, or -1 when the hist cannot be read.
 */
int zs_sleep_trace_read(struct zs_sleeps *s)
{
	char *buf, *blk, *next, *p;

	memset(s, 0, sizeof(*s));
	buf = zs_read_big(ZS_SLEEP_EVENT "/hist", NULL);
	if (!buf)
		return -1;
	p = strstr(buf, "Dropped: ");
	if (p)
		s->dropped = strtoll(p + 9, NULL, 10);
	for (blk = strchr(buf, '{'); blk; blk = next) {
		next = strchr(blk + 1, '{');
		if (next)
			next[-1] = '\0';
		zs_sleep_entry(blk, s);
	}
	free(buf);
	return 0;
}

void zs_sleeps_print(const char *who, const struct zs_sleeps *s)
{
	int c;

	ksft_print_msg("%s: %lld blocking sleeps traced, %lld dropped\n", who,
		       s->total, s->dropped);
	for (c = ZS_SLEEP_BUDGET; c < ZS_NR_SLEEP_CLASSES; c++) {
		if (!s->hits[c])
			continue;
		ksft_print_msg("%s: %lld in %s, e.g. %s\n", who, s->hits[c],
			       zs_sleep_class_name(c), s->example[c]);
	}
}
