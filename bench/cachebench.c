// SPDX-License-Identifier: GPL-2.0
/*
 * cachebench: a cache-like workload on anonymous memory.
 *
 * The cache is an array of 4 KiB values, one per page, larger than the
 * memory.max of the cgroup it runs in, so part of it lives in zswap or on
 * the swap device. Each value is about 2:1 compressible: its first half is
 * pseudo-random, its second half a short repeated pattern.
 *
 * Two phases:
 *   populate  every thread writes its slice of the values once; the time
 *             this takes is reported (it is where the memory.max pressure
 *             starts and where the zswap shrinker has to make room);
 *   run       for --duration seconds every thread picks keys with a hot/cold
 *             skew (--hot-prob percent of the operations go to --hot-pct
 *             percent of the keys) and reads (get) or rewrites (set) the
 *             value. Each operation is timed; a get also checks the key
 *             stored in the value (a mismatch is data corruption).
 *
 * If the populate phase does not finish within --populate-timeout, the run
 * phase still runs, on the values written so far (keys not yet written are
 * drawn again), and the JSON says populate_done false: the populate rate
 * (values per second) is then the figure to compare.
 *
 * An operation slower than --deadline-ms is an error (a missed deadline),
 * as a cache client would time out on it. The result is one JSON object on
 * stdout; progress goes to stderr; --timeline FILE writes per-second counts.
 *
 * Exit status: 0 done, 1 usage or setup error, 2 data corruption seen.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define PAGE_SZ		4096UL
#define WORDS		(PAGE_SZ / sizeof(uint64_t))
#define MAX_THREADS	64

/*
 * Latency histogram in microseconds: exact below 64 us, then 32 buckets per
 * power of two (about 3% resolution) up to 2^40 us.
 */
#define HIST_LINEAR	64
#define HIST_SUB_BITS	5
#define HIST_SUB	(1 << HIST_SUB_BITS)
#define HIST_OCTAVES	35
#define HIST_BUCKETS	(HIST_LINEAR + HIST_OCTAVES * HIST_SUB)

struct config {
	unsigned long size_mb;
	unsigned int threads;
	unsigned int duration_s;
	unsigned int hot_pct;
	unsigned int hot_prob;
	unsigned int write_pct;
	unsigned int deadline_ms;
	unsigned int populate_timeout_s;
	const char *timeline;
	uint64_t seed;
};

struct value_hdr {
	uint64_t key;
	uint64_t version;
};

struct worker {
	pthread_t tid;
	unsigned int id;
	uint64_t rng;
	uint64_t first, last;		/* populate slice [first, last) */
	uint64_t filled;		/* populated: [first, first + filled) */
	uint64_t ops;			/* run phase, read by the sampler */
	uint64_t misses;
	uint64_t corrupt;
	uint64_t hist[HIST_BUCKETS];
};

static struct config cfg = {
	.size_mb = 192,
	.threads = 4,
	.duration_s = 30,
	.hot_pct = 20,
	.hot_prob = 90,
	.write_pct = 10,
	.deadline_ms = 10,
	.populate_timeout_s = 600,
	.seed = 1,
};

static uint8_t *cache;
static uint64_t nkeys, nhot, perm_mult;
static uint64_t populated;		/* pages written in the populate phase */
static int phase_stop;			/* set by main: leave the current phase */
static pthread_barrier_t start_run;
static struct worker workers[MAX_THREADS];

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* xorshift64*: small, fast, good enough for keys and value bytes */
static uint64_t rnd(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/*
 * Hot keys are spread over the whole array rather than packed at its start:
 * rank r maps to page (r * perm_mult) % nkeys, a permutation since perm_mult
 * is coprime with nkeys. Ranks below nhot are hot.
 */
static uint64_t rank_to_page(uint64_t r)
{
	return (uint64_t)(((unsigned __int128)r * perm_mult) % nkeys);
}

static uint64_t draw_page(struct worker *w)
{
	uint64_t r = rnd(&w->rng);

	if (nhot && (r % 100) < cfg.hot_prob)
		return rank_to_page((r >> 8) % nhot);
	if (nkeys == nhot)
		return rank_to_page((r >> 8) % nkeys);
	return rank_to_page(nhot + (r >> 8) % (nkeys - nhot));
}

/* Has the populate phase written this page? (Its slice's owner knows.) */
static bool page_filled(uint64_t page)
{
	unsigned int t = page * cfg.threads / nkeys;

	while (t + 1 < cfg.threads && page >= workers[t].last)
		t++;
	while (t > 0 && page < workers[t].first)
		t--;
	return page < workers[t].first + workers[t].filled;
}

static uint64_t pick_page(struct worker *w)
{
	uint64_t page;

	do {
		page = draw_page(w);
	} while (!page_filled(page));
	return page;
}

/* A value: header, then half a page of random words, then a pattern. */
static void fill_value(struct worker *w, uint64_t page, uint64_t version)
{
	uint64_t *v = (uint64_t *)(cache + page * PAGE_SZ);
	struct value_hdr *h = (struct value_hdr *)v;
	size_t i;

	for (i = 2; i < WORDS / 2; i++)
		v[i] = rnd(&w->rng);
	for (; i < WORDS; i++)
		v[i] = 0x0101010101010101ULL * (page & 0xff);
	__atomic_store_n(&h->key, page, __ATOMIC_RELAXED);
	__atomic_store_n(&h->version, version, __ATOMIC_RELAXED);
}

static unsigned int hist_index(uint64_t us)
{
	unsigned int e, idx;

	if (us < HIST_LINEAR)
		return us;
	e = 63 - __builtin_clzll(us);		/* e >= 6 */
	idx = HIST_LINEAR + (e - 6) * HIST_SUB +
	      ((us >> (e - HIST_SUB_BITS)) & (HIST_SUB - 1));
	return idx < HIST_BUCKETS ? idx : HIST_BUCKETS - 1;
}

/* The upper bound of a bucket, in microseconds (percentiles round up). */
static uint64_t hist_upper(unsigned int idx)
{
	unsigned int e, sub;

	if (idx < HIST_LINEAR)
		return idx + 1;
	e = (idx - HIST_LINEAR) / HIST_SUB + 6;
	sub = (idx - HIST_LINEAR) % HIST_SUB;
	return ((uint64_t)(HIST_SUB + sub + 1)) << (e - HIST_SUB_BITS);
}

static void do_op(struct worker *w)
{
	uint64_t page = pick_page(w), t0, us;
	struct value_hdr *h = (struct value_hdr *)(cache + page * PAGE_SZ);
	bool set = (rnd(&w->rng) % 100) < cfg.write_pct;

	t0 = now_ns();
	if (set) {
		fill_value(w, page, __atomic_load_n(&h->version, __ATOMIC_RELAXED) + 1);
	} else {
		const volatile uint64_t *v = (const uint64_t *)h;
		uint64_t sum = 0;
		size_t i;

		/* touch the value's cache lines as a reader copying it would */
		for (i = 0; i < WORDS; i += 8)
			sum += v[i];
		if (__atomic_load_n(&h->key, __ATOMIC_RELAXED) != page)
			w->corrupt++;
		asm volatile("" : : "r"(sum));
	}
	us = (now_ns() - t0) / 1000;
	w->hist[hist_index(us)]++;
	if (us >= (uint64_t)cfg.deadline_ms * 1000)
		__atomic_add_fetch(&w->misses, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&w->ops, 1, __ATOMIC_RELAXED);
}

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	uint64_t p;

	for (p = w->first; p < w->last; p++) {
		if (__atomic_load_n(&phase_stop, __ATOMIC_RELAXED))
			break;
		fill_value(w, p, 0);
		w->filled++;
		__atomic_add_fetch(&populated, 1, __ATOMIC_RELAXED);
	}
	pthread_barrier_wait(&start_run);	/* main resets phase_stop */
	pthread_barrier_wait(&start_run);
	while (!__atomic_load_n(&phase_stop, __ATOMIC_RELAXED))
		do_op(w);
	return NULL;
}

static uint64_t sum_field(size_t off)
{
	uint64_t s = 0;
	unsigned int i;

	for (i = 0; i < cfg.threads; i++)
		s += __atomic_load_n((uint64_t *)((char *)&workers[i] + off),
				     __ATOMIC_RELAXED);
	return s;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * Wait until every page is populated or the timeout passes; one timeline
 * row per second. Returns the populate time in seconds.
 */
static double wait_populate(FILE *tl, bool *done)
{
	uint64_t t0 = now_ns(), last = 0, next = 1;
	double el;

	for (;;) {
		uint64_t n = __atomic_load_n(&populated, __ATOMIC_RELAXED);

		el = (now_ns() - t0) / 1e9;
		if (n >= nkeys) {
			*done = true;
			return el;
		}
		if (el >= cfg.populate_timeout_s) {
			*done = false;
			return el;
		}
		if (el >= next) {
			if (tl)
				fprintf(tl, "populate,%.1f,%lu,0\n", el,
					(unsigned long)(n - last));
			if (next % 10 == 0)
				fprintf(stderr, "cachebench: populate %lus: %lu/%lu pages\n",
					(unsigned long)next, (unsigned long)n,
					(unsigned long)nkeys);
			last = n;
			next++;
		}
		sleep_ms(50);
	}
}

/* Run for the duration; one timeline row per second. */
static double timed_run(FILE *tl)
{
	uint64_t t0 = now_ns(), last_ops = 0, last_miss = 0;
	unsigned int s;

	for (s = 1; s <= cfg.duration_s; s++) {
		uint64_t ops, miss;

		while (now_ns() - t0 < (uint64_t)s * 1000000000ULL)
			sleep_ms(20);
		ops = sum_field(offsetof(struct worker, ops));
		miss = sum_field(offsetof(struct worker, misses));
		if (tl)
			fprintf(tl, "run,%u,%lu,%lu\n", s,
				(unsigned long)(ops - last_ops),
				(unsigned long)(miss - last_miss));
		last_ops = ops;
		last_miss = miss;
	}
	__atomic_store_n(&phase_stop, 1, __ATOMIC_RELAXED);
	return (now_ns() - t0) / 1e9;
}

static uint64_t percentile(const uint64_t *hist, uint64_t total, double pct)
{
	uint64_t want = (uint64_t)(total * pct / 100.0), seen = 0;
	unsigned int i;

	if (want >= total)
		want = total - 1;
	for (i = 0; i < HIST_BUCKETS; i++) {
		seen += hist[i];
		if (seen > want)
			return hist_upper(i);
	}
	return hist_upper(HIST_BUCKETS - 1);
}

static void report(double populate_s, bool populate_done, double run_s)
{
	static uint64_t hist[HIST_BUCKETS];
	uint64_t ops = 0, misses = 0, corrupt = 0, maxb = 0;
	unsigned int i, b;

	for (i = 0; i < cfg.threads; i++) {
		ops += workers[i].ops;
		misses += workers[i].misses;
		corrupt += workers[i].corrupt;
		for (b = 0; b < HIST_BUCKETS; b++) {
			hist[b] += workers[i].hist[b];
			if (workers[i].hist[b] && b > maxb)
				maxb = b;
		}
	}
	printf("{\"size_mb\": %lu, \"threads\": %u, \"hot_pct\": %u, \"hot_prob\": %u, "
	       "\"write_pct\": %u, \"deadline_ms\": %u, \"duration_s\": %.2f, "
	       "\"populate_s\": %.2f, \"populate_done\": %s, \"populated\": %lu, "
	       "\"populate_rate\": %.1f, \"ops\": %lu, "
	       "\"ops_per_s\": %.1f, \"misses\": %lu, \"miss_pct\": %.3f, "
	       "\"corrupt\": %lu",
	       cfg.size_mb, cfg.threads, cfg.hot_pct, cfg.hot_prob, cfg.write_pct,
	       cfg.deadline_ms, run_s, populate_s, populate_done ? "true" : "false",
	       (unsigned long)populated, populate_s > 0 ? populated / populate_s : 0.0,
	       (unsigned long)ops, run_s > 0 ? ops / run_s : 0.0,
	       (unsigned long)misses, ops ? 100.0 * misses / ops : 0.0,
	       (unsigned long)corrupt);
	if (ops)
		printf(", \"p50_us\": %lu, \"p99_us\": %lu, \"p999_us\": %lu, \"max_us\": %lu",
		       (unsigned long)percentile(hist, ops, 50),
		       (unsigned long)percentile(hist, ops, 99),
		       (unsigned long)percentile(hist, ops, 99.9),
		       (unsigned long)hist_upper(maxb));
	printf("}\n");
	fflush(stdout);
}

static void usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [--size-mb N] [--threads N] [--duration S] [--hot-pct P]\n"
		"          [--hot-prob P] [--write-pct P] [--deadline-ms MS]\n"
		"          [--populate-timeout S] [--timeline FILE] [--seed N]\n",
		prog);
	exit(1);
}

static unsigned long parse_num(const char *opt, const char *s, unsigned long lo,
			       unsigned long hi)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || end == s || v < lo || v > hi) {
		fprintf(stderr, "cachebench: --%s %s: want a number in [%lu, %lu]\n",
			opt, s, lo, hi);
		exit(1);
	}
	return v;
}

static void parse_args(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "size-mb", required_argument, NULL, 's' },
		{ "threads", required_argument, NULL, 't' },
		{ "duration", required_argument, NULL, 'd' },
		{ "hot-pct", required_argument, NULL, 'H' },
		{ "hot-prob", required_argument, NULL, 'p' },
		{ "write-pct", required_argument, NULL, 'w' },
		{ "deadline-ms", required_argument, NULL, 'D' },
		{ "populate-timeout", required_argument, NULL, 'P' },
		{ "timeline", required_argument, NULL, 'T' },
		{ "seed", required_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's': cfg.size_mb = parse_num("size-mb", optarg, 1, 1 << 20); break;
		case 't': cfg.threads = parse_num("threads", optarg, 1, MAX_THREADS); break;
		case 'd': cfg.duration_s = parse_num("duration", optarg, 1, 86400); break;
		case 'H': cfg.hot_pct = parse_num("hot-pct", optarg, 0, 100); break;
		case 'p': cfg.hot_prob = parse_num("hot-prob", optarg, 0, 100); break;
		case 'w': cfg.write_pct = parse_num("write-pct", optarg, 0, 100); break;
		case 'D': cfg.deadline_ms = parse_num("deadline-ms", optarg, 1, 3600000); break;
		case 'P': cfg.populate_timeout_s = parse_num("populate-timeout", optarg, 1, 86400); break;
		case 'T': cfg.timeline = optarg; break;
		case 'S': cfg.seed = parse_num("seed", optarg, 1, ~0UL); break;
		default: usage(argv[0]);
		}
	}
	if (optind != argc)
		usage(argv[0]);
}

static void setup_cache(void)
{
	size_t len;
	unsigned int i;

	nkeys = cfg.size_mb * (1024 * 1024 / PAGE_SZ);
	nhot = nkeys * cfg.hot_pct / 100;
	for (perm_mult = nkeys / 2 + 7919; gcd(perm_mult, nkeys) != 1; perm_mult++)
		;
	len = nkeys * PAGE_SZ;
	cache = mmap(NULL, len, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (cache == MAP_FAILED) {
		perror("cachebench: mmap");
		exit(1);
	}
	/* 4 KiB pages: THP would change what reclaim and zswap see */
	madvise(cache, len, MADV_NOHUGEPAGE);
	for (i = 0; i < cfg.threads; i++) {
		workers[i].id = i;
		workers[i].rng = cfg.seed * 0x9E3779B97F4A7C15ULL + i + 1;
		workers[i].first = nkeys * i / cfg.threads;
		workers[i].last = nkeys * (i + 1) / cfg.threads;
	}
}

int main(int argc, char **argv)
{
	FILE *tl = NULL;
	bool done;
	double pop_s, run_s = 0;
	unsigned int i;
	int err;

	parse_args(argc, argv);
	setup_cache();
	if (cfg.timeline) {
		tl = fopen(cfg.timeline, "w");
		if (!tl) {
			perror(cfg.timeline);
			return 1;
		}
		setvbuf(tl, NULL, _IOLBF, 0);
		fprintf(tl, "phase,t,count,misses\n");
	}
	pthread_barrier_init(&start_run, NULL, cfg.threads + 1);
	for (i = 0; i < cfg.threads; i++) {
		err = pthread_create(&workers[i].tid, NULL, worker_fn, &workers[i]);
		if (err) {
			fprintf(stderr, "cachebench: pthread_create: %s\n", strerror(err));
			return 1;
		}
	}
	fprintf(stderr, "cachebench: %lu MiB, %u threads, populating\n",
		cfg.size_mb, cfg.threads);
	pop_s = wait_populate(tl, &done);
	__atomic_store_n(&phase_stop, 1, __ATOMIC_RELAXED);
	pthread_barrier_wait(&start_run);	/* populate over in every thread */
	__atomic_store_n(&phase_stop, 0, __ATOMIC_RELAXED);
	fprintf(stderr, "cachebench: populate %s in %.1f s (%lu/%lu values)\n",
		done ? "done" : "TIMED OUT", pop_s, (unsigned long)populated,
		(unsigned long)nkeys);
	if (!populated) {
		fprintf(stderr, "cachebench: nothing populated, no run phase\n");
		__atomic_store_n(&phase_stop, 1, __ATOMIC_RELAXED);
	}
	pthread_barrier_wait(&start_run);	/* workers read filled, phase_stop */
	if (populated)
		run_s = timed_run(tl);
	for (i = 0; i < cfg.threads; i++)
		pthread_join(workers[i].tid, NULL);
	report(pop_s, done, run_s);
	if (tl)
		fclose(tl);
	if (sum_field(offsetof(struct worker, corrupt)))
		return 2;
	return 0;
}
