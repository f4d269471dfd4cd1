// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * KUnit tests for zswap's shrinker writeback.
 *
 * The LRU walks run on a real list_lru holding fake entries; the writeback
 * of an entry is replaced by a static stub that returns a per-entry result
 * and records the visit, so no swap device, pool or memcg is involved.
 */
#include <kunit/test.h>
#include <kunit/static_stub.h>
#include <linux/completion.h>
#include <linux/jiffies.h>
#include <linux/list_lru.h>
#include <linux/shrinker.h>
#include <linux/swap_ops.h>
#include <linux/swapops.h>
#include <linux/workqueue.h>
#include <linux/zswap.h>

#include "../swap.h"
#include "../zswap_internal.h"

MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");

#define ZSWAP_TEST_MAX_ENTRIES	64

/**
 * struct zswap_test_dev - a fake swap device that counts submitted writes
 * @sis: the device; its ops submit into the counters below
 * @sio: the IO being gathered (one at a time, like the real context)
 * @submits: writes submitted
 * @pages: folios in them
 * @drains: LRU-add drains (zswap_wb_lru_drain())
 * @drain_submits: @submits at the last drain
 * @lru_puts: folios put on the LRU before their write was queued
 *	(zswap_wb_folio_to_lru())
 * @lru_put_folio: the last of them
 */
struct zswap_test_dev {
	struct swap_info_struct sis;
	struct swap_iocb sio;
	unsigned int submits;
	unsigned int pages;
	unsigned int drains;
	unsigned int drain_submits;
	unsigned int lru_puts;
	struct folio *lru_put_folio;
};

static void zswap_test_dev_submit_write(struct swap_io_ctx *io)
{
	struct zswap_test_dev *d = container_of(io->sis, struct zswap_test_dev, sis);

	d->submits++;
	d->pages += io->sio->nr_bvecs;
}

static const struct swap_ops zswap_test_dev_ops = {
	.submit_write = zswap_test_dev_submit_write,
};

/* The test's fake device, for stubs that are given no context. */
static struct zswap_test_dev *zswap_test_dev_of(struct kunit *test)
{
	struct kunit_resource *res;
	struct zswap_test_dev *d;

	res = kunit_find_named_resource(test, "zswap_test_dev");
	KUNIT_ASSERT_NOT_NULL(test, res);
	d = res->data;
	kunit_put_resource(res);
	return d;
}

/* Stands in for zswap_wb_lru_drain(): counts, and when. */
static void zswap_test_drain_stub(const struct zswap_walk *walk)
{
	struct zswap_test_dev *d = zswap_test_dev_of(kunit_get_current_test());

	d->drains++;
	d->drain_submits = d->submits;
}

/* Stands in for zswap_wb_folio_to_lru(): counts, and which folio. */
static void zswap_test_folio_to_lru_stub(struct folio *folio)
{
	struct zswap_test_dev *d = zswap_test_dev_of(kunit_get_current_test());

	d->lru_puts++;
	d->lru_put_folio = folio;
}

static int zswap_test_dev_init(struct kunit *test, struct zswap_test_dev *d)
{
	struct kunit_resource *res;

	d->sis.ops = &zswap_test_dev_ops;
	res = kunit_kzalloc(test, sizeof(*res), GFP_KERNEL);
	if (!res)
		return -ENOMEM;
	kunit_activate_static_stub(test, zswap_wb_lru_drain, zswap_test_drain_stub);
	kunit_activate_static_stub(test, zswap_wb_folio_to_lru,
				   zswap_test_folio_to_lru_stub);
	return kunit_add_named_resource(test, NULL, NULL, res, "zswap_test_dev", d);
}

/*
 * Queue one folio's write in @io as __swap_writepage() does: to the IO
 * being gathered, or to a new one, and submit when it is full.
 */
static void zswap_test_dev_queue(struct zswap_test_dev *d, struct swap_io_ctx *io)
{
	if (!io->sio) {
		io->sis = &d->sis;
		io->sio = &d->sio;
		d->sio.nr_bvecs = 0;
	}
	if (++io->sio->nr_bvecs == SWAP_CLUSTER_MAX) {
		/* what swap_write_submit() does, less the vmstat count */
		io->sis->ops->submit_write(io);
		io->sio = NULL;
		io->sis = NULL;
	}
}

/**
 * struct zswap_test_lru - a list_lru of fake entries and their writeback
 * @lru: the list, not memcg aware, entries on node 0
 * @entries: the fake entries; entry i has swap offset i
 * @nr_entries: how many entries were made
 * @result: what the stubbed writeback returns for entry i
 * @visits: how often writeback was attempted on entry i
 * @calls: writeback attempts in all
 * @in_walk: a walk through zswap_test_walk() or the zswap_lru_walk() stub
 *	is under way
 * @walk_ref: entry i was referenced when that walk started
 * @walk_attempts: writeback attempts on entry i during that walk
 * @revisits: visits of an entry already visited in the same walk (an
 *	entry referenced at the start was rotated before its attempt)
 * @dev: where successful writebacks queue their writes
 * @io: the swap IO context of the last writeback attempt
 * @io_changed: attempts whose context differed from the previous one's
 *	within the same walk
 * @allocs: calls of the swap cache allocation stub
 * @alloc_err: what the allocation stub's call i returns (0: a folio)
 * @alloc_gfp: the flags of allocation i
 * @alloc_submits: writes submitted before allocation i
 */
struct zswap_test_lru {
	struct list_lru lru;
	struct zswap_entry *entries[ZSWAP_TEST_MAX_ENTRIES];
	unsigned int nr_entries;
	int result[ZSWAP_TEST_MAX_ENTRIES];
	unsigned int visits[ZSWAP_TEST_MAX_ENTRIES];
	unsigned int calls;
	bool in_walk;
	bool walk_ref[ZSWAP_TEST_MAX_ENTRIES];
	unsigned int walk_attempts[ZSWAP_TEST_MAX_ENTRIES];
	unsigned int revisits;
	struct zswap_test_dev dev;
	struct swap_io_ctx *io;
	unsigned int io_changed;
	unsigned int allocs;
	int alloc_err[2];
	gfp_t alloc_gfp[2];
	unsigned int alloc_submits[2];
};

/*
 * Stands in for zswap_writeback_entry(). A successful writeback queues
 * its write in the walk's IO context and frees the entry, which unlinks it
 * from the LRU: do the same.
 */
static int zswap_test_writeback_stub(struct zswap_entry *entry,
				     swp_entry_t swpentry,
				     struct zswap_walk *walk)
{
	struct swap_io_ctx *ctx = &walk->io;
	struct kunit *test = kunit_get_current_test();
	struct zswap_test_lru *t = test->priv;
	pgoff_t i = swp_offset(swpentry);

	KUNIT_ASSERT_LT(test, i, t->nr_entries);
	t->calls++;
	t->visits[i]++;
	if (t->in_walk && (t->walk_ref[i] || t->walk_attempts[i]++))
		t->revisits++;
	if (t->in_walk && t->io && t->io != ctx)
		t->io_changed++;
	t->io = ctx;
	if (!t->result[i]) {
		zswap_test_dev_queue(&t->dev, ctx);
		list_lru_del(&t->lru, &entry->lru, 0, NULL);
	}
	return t->result[i];
}

/* One walk of the test's list, recording visits for the revisit count. */
static unsigned long zswap_test_lru_walk_one(struct zswap_test_lru *t,
					     struct zswap_walk *walk,
					     unsigned long *nr_to_walk)
{
	unsigned long freed;
	unsigned int i;

	for (i = 0; i < t->nr_entries; i++) {
		t->walk_ref[i] = t->entries[i]->referenced;
		t->walk_attempts[i] = 0;
	}
	t->io = NULL;
	t->in_walk = true;
	freed = list_lru_walk_one(&t->lru, 0, NULL, shrink_memcg_cb, walk, nr_to_walk);
	t->in_walk = false;
	return freed;
}

/* zswap_lru_walk() and zswap_lru_len() on the test's list (node 0 only). */
static unsigned long zswap_test_lru_walk_stub(struct mem_cgroup *memcg, int nid,
					      struct zswap_walk *walk,
					      unsigned long *nr_to_walk)
{
	struct zswap_test_lru *t = kunit_get_current_test()->priv;

	return nid ? 0 : zswap_test_lru_walk_one(t, walk, nr_to_walk);
}

static unsigned long zswap_test_lru_len_stub(struct mem_cgroup *memcg, int nid)
{
	struct zswap_test_lru *t = kunit_get_current_test()->priv;

	return nid ? 0 : list_lru_count_one(&t->lru, 0, NULL);
}

/* The first suite's chunk loops run whatever zswap.shrinker_enabled says. */
static bool zswap_test_allowed_always(struct mem_cgroup *memcg)
{
	return true;
}

KUNIT_DEFINE_ACTION_WRAPPER(zswap_test_list_lru_destroy, list_lru_destroy,
			    struct list_lru *);

static int zswap_test_init(struct kunit *test)
{
	struct zswap_test_lru *t;

	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_EQ(test, list_lru_init(&t->lru), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, zswap_test_list_lru_destroy,
							&t->lru), 0);
	KUNIT_ASSERT_EQ(test, zswap_test_dev_init(test, &t->dev), 0);
	test->priv = t;
	kunit_activate_static_stub(test, zswap_writeback_entry,
				   zswap_test_writeback_stub);
	kunit_activate_static_stub(test, zswap_lru_walk, zswap_test_lru_walk_stub);
	kunit_activate_static_stub(test, zswap_lru_len, zswap_test_lru_len_stub);
	kunit_activate_static_stub(test, zswap_wb_allowed, zswap_test_allowed_always);
	return 0;
}

/* Append @n entries to the LRU tail, each with writeback result @result. */
static void zswap_test_add_entries(struct kunit *test, unsigned int n,
				   bool referenced, int result)
{
	struct zswap_test_lru *t = test->priv;
	struct zswap_entry *entry;

	KUNIT_ASSERT_LE(test, t->nr_entries + n, ZSWAP_TEST_MAX_ENTRIES);
	while (n--) {
		entry = kunit_kzalloc(test, sizeof(*entry), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, entry);
		entry->swpentry = swp_entry(0, t->nr_entries);
		entry->referenced = referenced;
		INIT_LIST_HEAD(&entry->lru);
		KUNIT_ASSERT_TRUE(test, list_lru_add(&t->lru, &entry->lru, 0, NULL));
		t->result[t->nr_entries] = result;
		t->entries[t->nr_entries++] = entry;
	}
}

/* One walk of node 0 with shrink_memcg_cb(); returns the entries removed. */
static unsigned long zswap_test_walk(struct kunit *test, struct zswap_walk *walk,
				     unsigned long nr_to_walk)
{
	struct zswap_test_lru *t = test->priv;

	return zswap_test_lru_walk_one(t, walk, &nr_to_walk);
}

/* An entry already in the swap cache stops a walk that asked for it. */
static void zswap_test_shrink_memcg_cb_stops_at_swapcache(struct kunit *test)
{
	struct zswap_test_lru *t = test->priv;
	struct zswap_walk walk = { .flags = ZSWAP_WALK_STOP_ON_SWAPCACHE };

	zswap_test_add_entries(test, 1, false, -EEXIST);
	zswap_test_add_entries(test, 2, false, 0);

	KUNIT_EXPECT_EQ(test, zswap_test_walk(test, &walk, 3), 0);
	KUNIT_EXPECT_TRUE(test, walk.flags & ZSWAP_WALK_HIT_SWAPCACHE);
	KUNIT_EXPECT_EQ(test, t->calls, 1);
	KUNIT_EXPECT_EQ(test, list_lru_count_one(&t->lru, 0, NULL), 3);
}

/* Other failures neither stop the walk nor set the swap-cache flag. */
static void zswap_test_shrink_memcg_cb_no_swapcache_flag_on_other_errors(struct kunit *test)
{
	struct zswap_test_lru *t = test->priv;
	struct zswap_walk walk = { .flags = ZSWAP_WALK_STOP_ON_SWAPCACHE };

	zswap_test_add_entries(test, 1, false, 0);
	zswap_test_add_entries(test, 1, false, -ENOMEM);
	zswap_test_add_entries(test, 1, false, -EIO);
	zswap_test_add_entries(test, 1, false, 0);

	KUNIT_EXPECT_EQ(test, zswap_test_walk(test, &walk, 4), 2);
	KUNIT_EXPECT_FALSE(test, walk.flags & ZSWAP_WALK_HIT_SWAPCACHE);
	KUNIT_EXPECT_EQ(test, t->calls, 4);
	KUNIT_EXPECT_EQ(test, list_lru_count_one(&t->lru, 0, NULL), 2);
}

/* Without ZSWAP_WALK_STOP_ON_SWAPCACHE (shrink_memcg()) the walk goes on. */
static void zswap_test_shrink_memcg_cb_swapcache_ignored_unless_asked(struct kunit *test)
{
	struct zswap_test_lru *t = test->priv;
	struct zswap_walk walk = { .flags = 0 };

	zswap_test_add_entries(test, 2, false, -EEXIST);
	zswap_test_add_entries(test, 1, false, 0);

	KUNIT_EXPECT_EQ(test, zswap_test_walk(test, &walk, 3), 1);
	KUNIT_EXPECT_EQ(test, walk.flags, 0);
	KUNIT_EXPECT_EQ(test, t->calls, 3);
}

/* A referenced entry loses its mark and is rotated, not written back. */
static void zswap_test_shrink_memcg_cb_rotates_referenced(struct kunit *test)
{
	struct zswap_test_lru *t = test->priv;
	struct zswap_walk walk = { .flags = ZSWAP_WALK_STOP_ON_SWAPCACHE };

	zswap_test_add_entries(test, 1, true, 0);

	KUNIT_EXPECT_EQ(test, zswap_test_walk(test, &walk, 1), 0);
	KUNIT_EXPECT_EQ(test, t->calls, 0);
	KUNIT_EXPECT_FALSE(test, t->entries[0]->referenced);
	KUNIT_EXPECT_EQ(test, list_lru_count_one(&t->lru, 0, NULL), 1);
	KUNIT_EXPECT_EQ(test, walk.flags, ZSWAP_WALK_STOP_ON_SWAPCACHE);
}

struct zswap_test_reason_case {
	const char *name;
	enum zswap_wb_reason reason;
	unsigned int flags;
};

static const struct zswap_test_reason_case zswap_test_reason_cases[] = {
	/* the worker under memory pressure: paced, stops at warm entries, no direct reclaim */
	{ "shrinker", ZSWAP_WB_SHRINKER,
	  ZSWAP_WALK_STOP_ON_SWAPCACHE | ZSWAP_WALK_PACE | ZSWAP_WALK_NORECLAIM },
	/* in place, or the worker with no IO controller: not paced */
	{ "reclaim", ZSWAP_WB_RECLAIM,
	  ZSWAP_WALK_STOP_ON_SWAPCACHE | ZSWAP_WALK_NORECLAIM },
	/* a full pool rejects stores until it drains: never paced */
	{ "pool_limit", ZSWAP_WB_POOL_LIMIT, 0 },
	/* memory.zswap.max reached: the same */
	{ "memcg_limit", ZSWAP_WB_MEMCG_LIMIT, 0 },
};

KUNIT_ARRAY_PARAM_DESC(zswap_test_reason, zswap_test_reason_cases, name);

/*
 * Only the shrinker's worker is paced; the pool-limit paths must drain
 * the pool at full speed or zswap_store() keeps rejecting.
 */
static void zswap_test_zswap_wb_walk_flags_per_reason(struct kunit *test)
{
	const struct zswap_test_reason_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, zswap_wb_walk_flags(c->reason), c->flags);
}

/*
 * Documents the bug once-per-call scanning fixes, on the walk as stock
 * 7.3.4 does it (a budget of SWAP_CLUSTER_MAX whatever the LRU's length):
 * a short LRU of referenced entries is rotated, then walked again in the
 * same call, and entries that fail writeback are retried in a spin.
 */
static void zswap_test_shrink_memcg_cb_uncapped_walk_revisits(struct kunit *test)
{
	struct zswap_test_lru *t = test->priv;
	struct zswap_walk walk = { .flags = 0 };
	unsigned int i, most = 0;

	zswap_test_add_entries(test, 4, true, -ENOMEM);

	zswap_test_walk(test, &walk, SWAP_CLUSTER_MAX);
	for (i = 0; i < t->nr_entries; i++)
		most = max(most, t->visits[i]);
	/* every entry was rotated, then attempted again and again */
	KUNIT_EXPECT_EQ(test, t->calls, SWAP_CLUSTER_MAX - 4);
	KUNIT_EXPECT_GT(test, most, 1);
	KUNIT_EXPECT_EQ(test, t->revisits, SWAP_CLUSTER_MAX - 4);
}

/*
 * An all-referenced LRU: the worker's first run rotates every entry and
 * writes back none, without coming back to any; the second writes them
 * back.
 */
static void zswap_test_zswap_wb_chunks_all_referenced(struct kunit *test)
{
	struct zswap_test_lru *t = test->priv;
	struct zswap_wb_end debt;
	unsigned int i;

	zswap_test_add_entries(test, 4, true, 0);

	KUNIT_EXPECT_EQ(test, zswap_wb_chunks(NULL, 0, SWAP_CLUSTER_MAX,
					      ZSWAP_WB_SHRINKER, NULL, &debt), 0);
	KUNIT_EXPECT_EQ(test, t->calls, 0);
	KUNIT_EXPECT_EQ(test, t->revisits, 0);
	for (i = 0; i < t->nr_entries; i++)
		KUNIT_EXPECT_FALSE(test, t->entries[i]->referenced);

	KUNIT_EXPECT_EQ(test, zswap_wb_chunks(NULL, 0, SWAP_CLUSTER_MAX,
					      ZSWAP_WB_SHRINKER, NULL, &debt), 4);
	KUNIT_EXPECT_EQ(test, t->calls, 4);
	KUNIT_EXPECT_EQ(test, list_lru_count_one(&t->lru, 0, NULL), 0);
}

/* Entries that fail writeback are attempted once per run, not in a spin. */
static void zswap_test_zswap_wb_chunks_failing_entries_once(struct kunit *test)
{
	struct zswap_test_lru *t = test->priv;
	struct zswap_wb_end debt;
	unsigned int i;

	zswap_test_add_entries(test, 5, false, -ENOMEM);

	KUNIT_EXPECT_EQ(test, zswap_wb_chunks(NULL, 0, SWAP_CLUSTER_MAX,
					      ZSWAP_WB_SHRINKER, NULL, &debt), 0);
	for (i = 0; i < t->nr_entries; i++)
		KUNIT_EXPECT_EQ_MSG(test, t->visits[i], 1, "entry %u", i);
	KUNIT_EXPECT_EQ(test, t->revisits, 0);
}

/* An LRU longer than SWAP_CLUSTER_MAX: one chunk walks SWAP_CLUSTER_MAX. */
static void zswap_test_zswap_wb_chunks_long_lru_capped(struct kunit *test)
{
	struct zswap_test_lru *t = test->priv;
	struct zswap_wb_end debt;

	zswap_test_add_entries(test, SWAP_CLUSTER_MAX + 8, false, -ENOMEM);

	zswap_wb_chunks(NULL, 0, SWAP_CLUSTER_MAX, ZSWAP_WB_SHRINKER, NULL, &debt);
	KUNIT_EXPECT_EQ(test, t->calls, SWAP_CLUSTER_MAX);
}

/*
 * A pool limit makes room in one call even on a short LRU of entries
 * stored referenced: capped at the LRU's length, its first call only
 * rotated them and returned -EAGAIN, so zswap_store() rejected the page
 * and shrink_worker() counted a failure.
 */
static void zswap_test_shrink_memcg_pool_limit_short_lru_one_call(struct kunit *test)
{
	struct zswap_test_lru *t = test->priv;

	zswap_test_add_entries(test, 4, true, 0);

	KUNIT_EXPECT_EQ(test, shrink_memcg(NULL, ZSWAP_WB_POOL_LIMIT), 0);
	KUNIT_EXPECT_EQ(test, t->calls, 4);
	KUNIT_EXPECT_EQ(test, list_lru_count_one(&t->lru, 0, NULL), 0);
}

/* Empty LRUs are skipped and reported as -ENOENT. */
static void zswap_test_shrink_memcg_empty_lru(struct kunit *test)
{
	struct zswap_test_lru *t = test->priv;

	KUNIT_EXPECT_EQ(test, shrink_memcg(NULL, ZSWAP_WB_POOL_LIMIT), -ENOENT);
	KUNIT_EXPECT_EQ(test, t->calls, 0);
}

/* A budget of 1 visits exactly one entry. */
static void zswap_test_zswap_wb_chunks_budget_of_one(struct kunit *test)
{
	struct zswap_test_lru *t = test->priv;
	struct zswap_wb_end debt;

	zswap_test_add_entries(test, 3, false, 0);

	KUNIT_EXPECT_EQ(test, zswap_wb_chunks(NULL, 0, 1, ZSWAP_WB_SHRINKER, NULL, &debt), 1);
	KUNIT_EXPECT_EQ(test, t->calls, 1);
	KUNIT_EXPECT_EQ(test, list_lru_count_one(&t->lru, 0, NULL), 2);
}

/*
 * One worker run visits a short LRU's entries at most once, however many
 * chunks it is asked for: the first run only rotates the referenced
 * entries, the second attempts each once. Guards the once-per-call budget
 * across chunks (computing it per chunk let chunk 2 write back what chunk 1
 * had just rotated).
 */
static void zswap_test_zswap_wb_chunks_short_lru_once_per_run(struct kunit *test)
{
	struct zswap_test_lru *t = test->priv;
	struct zswap_wb_end debt;

	zswap_test_add_entries(test, 3, true, -ENOMEM);

	zswap_wb_chunks(NULL, 0, 6, ZSWAP_WB_SHRINKER, NULL, &debt);
	KUNIT_EXPECT_EQ(test, t->calls, 0);
	KUNIT_EXPECT_EQ(test, t->revisits, 0);

	zswap_wb_chunks(NULL, 0, 6, ZSWAP_WB_SHRINKER, NULL, &debt);
	KUNIT_EXPECT_EQ(test, t->calls, 3);
	KUNIT_EXPECT_EQ(test, t->revisits, 0);
}

/* The writes of one walk go out together, in one submission. */
static void zswap_test_shrink_memcg_one_write_per_walk(struct kunit *test)
{
	struct zswap_test_lru *t = test->priv;

	zswap_test_add_entries(test, 8, false, 0);

	KUNIT_EXPECT_EQ(test, shrink_memcg(NULL, ZSWAP_WB_POOL_LIMIT), 0);
	KUNIT_EXPECT_EQ(test, t->calls, 8);
	KUNIT_EXPECT_EQ(test, t->io_changed, 0);
	KUNIT_EXPECT_EQ(test, t->dev.submits, 1);
	KUNIT_EXPECT_EQ(test, t->dev.pages, 8);
}

/* A walk stopped at a swap-cache entry submits what it queued before. */
static void zswap_test_zswap_walk_batch_submits_at_swapcache_stop(struct kunit *test)
{
	struct zswap_test_lru *t = test->priv;
	unsigned long nr_to_walk = 6;
	struct zswap_walk walk;

	zswap_test_add_entries(test, 3, false, 0);
	zswap_test_add_entries(test, 1, false, -EEXIST);
	zswap_test_add_entries(test, 2, false, 0);
	zswap_walk_init(&walk, ZSWAP_WB_SHRINKER);

	KUNIT_EXPECT_EQ(test, zswap_walk_batch(NULL, 0, &walk, &nr_to_walk), 3);
	KUNIT_EXPECT_TRUE(test, walk.flags & ZSWAP_WALK_HIT_SWAPCACHE);
	KUNIT_EXPECT_NULL(test, walk.io.sio);
	KUNIT_EXPECT_EQ(test, t->dev.submits, 1);
	KUNIT_EXPECT_EQ(test, t->dev.pages, 3);
}

/* Failed entries do not end the batch; the walk submits the rest once. */
static void zswap_test_zswap_walk_batch_submits_past_errors(struct kunit *test)
{
	struct zswap_test_lru *t = test->priv;
	unsigned long nr_to_walk = 5;
	struct zswap_walk walk;

	zswap_test_add_entries(test, 1, false, 0);
	zswap_test_add_entries(test, 1, false, -ENOMEM);
	zswap_test_add_entries(test, 1, false, -EIO);
	zswap_test_add_entries(test, 2, false, 0);
	zswap_walk_init(&walk, ZSWAP_WB_POOL_LIMIT);

	KUNIT_EXPECT_EQ(test, zswap_walk_batch(NULL, 0, &walk, &nr_to_walk), 3);
	KUNIT_EXPECT_NULL(test, walk.io.sio);
	KUNIT_EXPECT_EQ(test, t->dev.submits, 1);
	KUNIT_EXPECT_EQ(test, t->dev.pages, 3);
}

/* A walk that writes nothing back submits nothing. */
static void zswap_test_zswap_walk_batch_nothing_written_nothing_submitted(struct kunit *test)
{
	struct zswap_test_lru *t = test->priv;
	unsigned long nr_to_walk = 4;
	struct zswap_walk walk;

	zswap_test_add_entries(test, 2, true, 0);
	zswap_test_add_entries(test, 2, false, -ENOMEM);
	zswap_walk_init(&walk, ZSWAP_WB_SHRINKER);

	KUNIT_EXPECT_EQ(test, zswap_walk_batch(NULL, 0, &walk, &nr_to_walk), 0);
	KUNIT_EXPECT_NULL(test, walk.io.sio);
	KUNIT_EXPECT_EQ(test, t->dev.submits, 0);
}

/* The worker's chunks are its batches: one submission per chunk. */
static void zswap_test_zswap_wb_chunks_one_write_per_chunk(struct kunit *test)
{
	struct zswap_test_lru *t = test->priv;
	struct zswap_wb_end debt;

	zswap_test_add_entries(test, 3, false, 0);

	KUNIT_EXPECT_EQ(test, zswap_wb_chunks(NULL, 0, 2, ZSWAP_WB_SHRINKER, NULL, &debt), 2);
	KUNIT_EXPECT_EQ(test, t->dev.submits, 1);
	KUNIT_EXPECT_EQ(test, zswap_wb_chunks(NULL, 0, 2, ZSWAP_WB_SHRINKER, NULL, &debt), 1);
	KUNIT_EXPECT_EQ(test, t->dev.submits, 2);
	KUNIT_EXPECT_EQ(test, t->dev.pages, 3);
}

/*
 * One drain per batch that wrote back, before the batch's write is
 * submitted, so that its folios are on the LRU before the write can end.
 */
static void zswap_test_zswap_walk_batch_drains_once_per_batch(struct kunit *test)
{
	struct zswap_test_lru *t = test->priv;
	unsigned long nr_to_walk = 8;
	struct zswap_walk walk;

	zswap_test_add_entries(test, 8, false, 0);
	zswap_walk_init(&walk, ZSWAP_WB_SHRINKER);

	KUNIT_EXPECT_EQ(test, zswap_walk_batch(NULL, 0, &walk, &nr_to_walk), 8);
	KUNIT_EXPECT_EQ(test, t->dev.drains, 1);
	KUNIT_EXPECT_EQ(test, t->dev.drain_submits, 0);
	KUNIT_EXPECT_EQ(test, t->dev.submits, 1);
}

/* A walk that wrote nothing back allocated nothing to drain. */
static void zswap_test_zswap_walk_batch_no_drain_without_writeback(struct kunit *test)
{
	struct zswap_test_lru *t = test->priv;
	unsigned long nr_to_walk = 4;
	struct zswap_walk walk;

	zswap_test_add_entries(test, 2, true, 0);
	zswap_test_add_entries(test, 2, false, -ENOMEM);
	zswap_walk_init(&walk, ZSWAP_WB_SHRINKER);

	KUNIT_EXPECT_EQ(test, zswap_walk_batch(NULL, 0, &walk, &nr_to_walk), 0);
	KUNIT_EXPECT_EQ(test, t->dev.drains, 0);
}

/* Where a walk's folios went: one CPU's batch, or possibly several. */
static void zswap_test_zswap_walk_note_cpu_migration(struct kunit *test)
{
	struct zswap_walk walk, moved;

	zswap_walk_init(&walk, ZSWAP_WB_SHRINKER);
	KUNIT_EXPECT_EQ(test, walk.cpu, -1);
	zswap_walk_note_cpu(&walk, 1, 1);
	zswap_walk_note_cpu(&walk, 1, 1);
	KUNIT_EXPECT_EQ(test, walk.cpu, 1);
	KUNIT_EXPECT_FALSE(test, walk.flags & ZSWAP_WALK_MIGRATED);
	/* the next folio after a move between allocations */
	zswap_walk_note_cpu(&walk, 0, 0);
	KUNIT_EXPECT_TRUE(test, walk.flags & ZSWAP_WALK_MIGRATED);

	/* a move during the first allocation */
	zswap_walk_init(&moved, ZSWAP_WB_SHRINKER);
	zswap_walk_note_cpu(&moved, 0, 1);
	KUNIT_EXPECT_TRUE(test, moved.flags & ZSWAP_WALK_MIGRATED);
}

struct zswap_test_drain_case {
	const char *name;
	int walk_cpu;
	bool migrated;
	int cpu;
	bool all;
};

static const struct zswap_test_drain_case zswap_test_drain_cases[] = {
	/* every folio in this CPU's batch: drain it alone */
	{ "same_cpu", 1, false, 1, false },
	/* the walk moved after its allocations: their batch is elsewhere */
	{ "other_cpu", 1, false, 0, true },
	/* folios in several batches: every CPU */
	{ "migrated", 1, true, 1, true },
};

KUNIT_ARRAY_PARAM_DESC(zswap_test_drain, zswap_test_drain_cases, name);

/* lru_add_drain() reaches the current CPU's batch only. */
static void zswap_test_zswap_wb_drain_all_per_cpu(struct kunit *test)
{
	const struct zswap_test_drain_case *c = test->param_value;
	struct zswap_walk walk;

	zswap_walk_init(&walk, ZSWAP_WB_SHRINKER);
	walk.cpu = c->walk_cpu;
	if (c->migrated)
		walk.flags |= ZSWAP_WALK_MIGRATED;
	KUNIT_EXPECT_EQ(test, zswap_wb_drain_all(&walk, c->cpu), c->all);
}

#define ZSWAP_TEST_FOLIO	((struct folio *)0x464f4c49UL)

struct zswap_test_sync_case {
	const char *name;
	unsigned long flags;
	bool before;
};

static const struct zswap_test_sync_case zswap_test_sync_cases[] = {
	/* an asynchronous block device: the batch's drain comes in time */
	{ "async_bdev", SWP_USED | SWP_WRITEOK | SWP_BLKDEV, false },
	/* a swap file: its writes end after their submission too */
	{ "swapfile", SWP_USED | SWP_WRITEOK | SWP_ACTIVATED, false },
	/* zram and the like: the write ends inside its submission */
	{ "sync_bdev", SWP_USED | SWP_WRITEOK | SWP_BLKDEV | SWP_SYNCHRONOUS_IO, true },
	/* other properties of a synchronous device do not change that */
	{ "sync_discard", SWP_USED | SWP_WRITEOK | SWP_BLKDEV | SWP_DISCARDABLE |
	  SWP_SOLIDSTATE | SWP_SYNCHRONOUS_IO, true },
};

KUNIT_ARRAY_PARAM_DESC(zswap_test_sync, zswap_test_sync_cases, name);

/*
 * A write that ends inside its submission needs its folio on the LRU
 * before it is queued; the batch's drain would come after it ended and
 * the folio would miss folio_rotate_reclaimable().
 */
static void zswap_test_zswap_wb_lru_before_write_rule(struct kunit *test)
{
	const struct zswap_test_sync_case *c = test->param_value;
	struct zswap_test_lru *t = test->priv;
	struct swap_info_struct *si;

	si = kunit_kzalloc(test, sizeof(*si), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, si);
	si->flags = c->flags;

	KUNIT_EXPECT_EQ(test, zswap_wb_lru_before_write(si, ZSWAP_TEST_FOLIO), c->before);
	KUNIT_EXPECT_EQ(test, t->dev.lru_puts, c->before ? 1 : 0);
	KUNIT_EXPECT_PTR_EQ(test, t->dev.lru_put_folio,
			    c->before ? ZSWAP_TEST_FOLIO : NULL);
	/* the batch's drain is not this rule's business */
	KUNIT_EXPECT_EQ(test, t->dev.drains, 0);
}

/* Stands in for the swap cache allocation: scripted, recorded. */
static struct folio *zswap_test_alloc_stub(swp_entry_t swpentry, gfp_t gfp)
{
	struct kunit *test = kunit_get_current_test();
	struct zswap_test_lru *t = test->priv;
	unsigned int i = t->allocs++;

	KUNIT_ASSERT_LT(test, i, ARRAY_SIZE(t->alloc_gfp));
	t->alloc_gfp[i] = gfp;
	t->alloc_submits[i] = t->dev.submits;
	return t->alloc_err[i] ? ERR_PTR(t->alloc_err[i]) : ZSWAP_TEST_FOLIO;
}

/**
 * struct zswap_test_alloc_case - one writeback folio allocation
 * @name: the case
 * @noreclaim: the walk is the worker's (ZSWAP_WALK_NORECLAIM)
 * @queued: folios already queued in the walk's IO
 * @err: what the first and the second allocation return (0: a folio)
 * @reclaim: the first allocation may enter direct reclaim
 * @allocs: allocations made
 * @submits: writes submitted (before the second allocation, if any)
 * @ret: what zswap_wb_alloc_folio() returns (0: a folio)
 */
struct zswap_test_alloc_case {
	const char *name;
	bool noreclaim;
	unsigned int queued;
	int err[2];
	bool reclaim;
	unsigned int allocs;
	unsigned int submits;
	int ret;
};

static const struct zswap_test_alloc_case zswap_test_alloc_cases[] = {
	/* nothing queued: nothing to wait on, reclaim as usual */
	{ "idle", false, 0, { 0 }, true, 1, 0, 0 },
	{ "idle_enomem", false, 0, { -ENOMEM }, true, 1, 0, -ENOMEM },
	/* queued folios and memory at hand: the batch grows */
	{ "queued", false, 3, { 0 }, false, 1, 0, 0 },
	/* queued and short of memory: submit first, then reclaim */
	{ "queued_enomem", false, 3, { -ENOMEM, 0 }, false, 2, 1, 0 },
	{ "queued_enomem_twice", false, 3, { -ENOMEM, -ENOMEM }, false, 2, 1, -ENOMEM },
	/* a slot already in the swap cache is no memory shortage */
	{ "queued_eexist", false, 3, { -EEXIST }, false, 1, 0, -EEXIST },
	/* the worker never reclaims, even with nothing queued */
	{ "worker_idle", true, 0, { 0 }, false, 1, 0, 0 },
	/* the worker short of memory: no reclaiming retry, it backs off */
	{ "worker_enomem", true, 3, { -ENOMEM, 0 }, false, 1, 0, -ENOMEM },
};

KUNIT_ARRAY_PARAM_DESC(zswap_test_alloc, zswap_test_alloc_cases, name);

/*
 * While the walk holds unsubmitted writes, its allocations do not enter
 * direct reclaim (which may wait on those folios' writeback); short of
 * memory, it submits them and only then allocates with GFP_KERNEL.
 */
static void zswap_test_zswap_wb_alloc_folio_rule(struct kunit *test)
{
	const struct zswap_test_alloc_case *c = test->param_value;
	struct zswap_test_lru *t = test->priv;
	struct zswap_walk walk = {
		.flags = c->noreclaim ? ZSWAP_WALK_NORECLAIM : 0,
	};
	struct swap_io_ctx *io = &walk.io;
	struct folio *folio;
	unsigned int i;

	kunit_activate_static_stub(test, zswap_swap_cache_alloc, zswap_test_alloc_stub);
	memcpy(t->alloc_err, c->err, sizeof(t->alloc_err));
	for (i = 0; i < c->queued; i++)
		zswap_test_dev_queue(&t->dev, io);

	folio = zswap_wb_alloc_folio(swp_entry(0, 1), &walk);
	/* a failed allocation is reported to the walk */
	KUNIT_EXPECT_EQ(test, !!(walk.flags & ZSWAP_WALK_NOMEM), c->ret == -ENOMEM);
	KUNIT_EXPECT_EQ(test, c->ret ? PTR_ERR(folio) : 0L, (long)c->ret);
	if (!c->ret)
		KUNIT_EXPECT_PTR_EQ(test, folio, ZSWAP_TEST_FOLIO);
	KUNIT_EXPECT_EQ(test, t->allocs, c->allocs);
	KUNIT_EXPECT_EQ(test, !!(t->alloc_gfp[0] & __GFP_DIRECT_RECLAIM), c->reclaim);
	KUNIT_EXPECT_EQ(test, t->dev.submits, c->submits);
	if (c->allocs > 1) {
		/* the retry reclaims, and only after the batch went out */
		KUNIT_EXPECT_TRUE(test, t->alloc_gfp[1] == GFP_KERNEL);
		KUNIT_EXPECT_EQ(test, t->alloc_submits[1], 1);
		KUNIT_EXPECT_NULL(test, io->sio);
		KUNIT_EXPECT_EQ(test, t->dev.pages, c->queued);
	}
}

struct zswap_test_budget_case {
	const char *name;
	unsigned long nr;
	unsigned long len;
	unsigned long budget;
};

static const struct zswap_test_budget_case zswap_test_budget_cases[] = {
	/* a budget of 0 walks nothing */
	{ "zero", 0, 10, 0 },
	/* a budget of 1 walks one entry */
	{ "one", 1, 10, 1 },
	/* exactly the length: each entry once */
	{ "length", 10, 10, 10 },
	/* more than the length: capped at the length */
	{ "over_length", 20, 10, 10 },
	/* a long LRU: capped at SWAP_CLUSTER_MAX */
	{ "long_lru", 1000, 1000, SWAP_CLUSTER_MAX },
	/* an empty LRU: nothing */
	{ "empty", 5, 0, 0 },
};

KUNIT_ARRAY_PARAM_DESC(zswap_test_budget, zswap_test_budget_cases, name);

static void zswap_test_zswap_walk_budget_rule(struct kunit *test)
{
	const struct zswap_test_budget_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, zswap_walk_budget(c->nr, c->len), c->budget);
}

static struct kunit_case zswap_test_cases[] = {
	KUNIT_CASE(zswap_test_shrink_memcg_cb_stops_at_swapcache),
	KUNIT_CASE(zswap_test_shrink_memcg_cb_no_swapcache_flag_on_other_errors),
	KUNIT_CASE(zswap_test_shrink_memcg_cb_swapcache_ignored_unless_asked),
	KUNIT_CASE(zswap_test_shrink_memcg_cb_rotates_referenced),
	KUNIT_CASE_PARAM(zswap_test_zswap_wb_walk_flags_per_reason,
			 zswap_test_reason_gen_params),
	KUNIT_CASE(zswap_test_shrink_memcg_cb_uncapped_walk_revisits),
	KUNIT_CASE(zswap_test_zswap_wb_chunks_all_referenced),
	KUNIT_CASE(zswap_test_zswap_wb_chunks_failing_entries_once),
	KUNIT_CASE(zswap_test_zswap_wb_chunks_long_lru_capped),
	KUNIT_CASE(zswap_test_shrink_memcg_pool_limit_short_lru_one_call),
	KUNIT_CASE(zswap_test_shrink_memcg_empty_lru),
	KUNIT_CASE(zswap_test_zswap_wb_chunks_budget_of_one),
	KUNIT_CASE(zswap_test_zswap_wb_chunks_short_lru_once_per_run),
	KUNIT_CASE(zswap_test_shrink_memcg_one_write_per_walk),
	KUNIT_CASE(zswap_test_zswap_walk_batch_submits_at_swapcache_stop),
	KUNIT_CASE(zswap_test_zswap_walk_batch_submits_past_errors),
	KUNIT_CASE(zswap_test_zswap_walk_batch_nothing_written_nothing_submitted),
	KUNIT_CASE(zswap_test_zswap_walk_batch_drains_once_per_batch),
	KUNIT_CASE(zswap_test_zswap_walk_batch_no_drain_without_writeback),
	KUNIT_CASE(zswap_test_zswap_walk_note_cpu_migration),
	KUNIT_CASE_PARAM(zswap_test_zswap_wb_drain_all_per_cpu,
			 zswap_test_drain_gen_params),
	KUNIT_CASE_PARAM(zswap_test_zswap_wb_lru_before_write_rule,
			 zswap_test_sync_gen_params),
	KUNIT_CASE(zswap_test_zswap_wb_chunks_one_write_per_chunk),
	KUNIT_CASE_PARAM(zswap_test_zswap_wb_alloc_folio_rule,
			 zswap_test_alloc_gen_params),
	KUNIT_CASE_PARAM(zswap_test_zswap_walk_budget_rule,
			 zswap_test_budget_gen_params),
	{}
};

static struct kunit_suite zswap_test_suite = {
	.name = "zswap",
	.init = zswap_test_init,
	.test_cases = zswap_test_cases,
};

/*
 * Deferred writeback: the claim, reference and queueing steps, the worker
 * and its chunk loop, and the reclaimer's fallback. The memcg references,
 * the queueing and the LRU walk are static stubs, so that references can
 * be counted and walks scripted. The memcg is a token never dereferenced.
 */

#define ZSWAP_TEST_MAX_WALKS	16

/**
 * struct zswap_test_wb - stub state for the deferred writeback cases
 * @state: the lruvec state under test
 * @tryget_ok: what the memcg tryget stub answers
 * @queue_ok: what the queue stub answers when @wq is NULL
 * @wq: if set, the queue stub queues the work on it for real
 * @allowed: what zswap_wb_allowed() answers
 * @controlled: what zswap_wb_io_controlled() answers
 * @refs: references taken minus references dropped
 * @puts: references dropped
 * @queued: successful queueings
 * @walks: LRU walks made
 * @asked: entries each walk was asked to walk
 * @walk_flags: the flags each walk was given
 * @walked: entries each walk walks (scripted; beyond the script, all asked)
 * @freed: entries each walk writes back (scripted; beyond, all walked)
 * @hit_swapcache: the walk that meets a swap-cache entry, or -1
 * @nomem: the walk whose folio allocation fails, or -1
 * @disallow_after: writeback is disallowed once this many walks are made (0: never)
 * @memalloc: whether each walk ran with reserve access (PF_MEMALLOC)
 * @running: whether the lruvec's worker was marked running during each walk
 * @active: the active memcg of each walk
 * @reclaimer: what zswap_reclaimer_of() answers
 * @progress: what the zswap_wb_wait_progress() stub answers
 * @waits: calls of that stub
 * @lru_len: what zswap_lru_len() answers
 * @started: completed when @state's work starts (zswap_test_running_work())
 * @release: lets that work return
 * @dev: where the walks queue the writes of the entries they free
 * @pays: calls of the zswap_wb_owed() stub
 * @pay_submits: for each of them, the device's submissions made before it
 * @pay_walks: for each of them, the walks made before it
 * @owe: what each of them answers, in nanoseconds
 * @claim_at_walk: if not 0, the walk stub makes a claim of this many
 *	entries during the first walk, as a shrinker would
 * @requeues: calls of the zswap_wb_requeue() stub
 * @requeue_delay: the delay of the last of them, in jiffies
 * @requeue_nid: the node of the last of them
 * @requeue_pending: what it answers without @wq (work already queued)
 * @debt: what zswap_wb_chunks() leaves to pay
 * @sleeps: calls of the zswap_wb_sleep() stub
 * @slept: the delay of the last of them, in nanoseconds
 * @dying: what the zswap_memcg_dying() stub answers
 */
struct zswap_test_wb {
	struct zswap_lruvec_state state;
	bool tryget_ok;
	bool queue_ok;
	struct workqueue_struct *wq;
	bool allowed;
	bool controlled;
	int refs;
	int puts;
	int queued;
	unsigned int walks;
	unsigned long asked[ZSWAP_TEST_MAX_WALKS];
	unsigned int walk_flags[ZSWAP_TEST_MAX_WALKS];
	long walked[ZSWAP_TEST_MAX_WALKS];
	long freed[ZSWAP_TEST_MAX_WALKS];
	int hit_swapcache;
	int nomem;
	unsigned int disallow_after;
	bool memalloc[ZSWAP_TEST_MAX_WALKS];
	bool running[ZSWAP_TEST_MAX_WALKS];
	struct mem_cgroup *active[ZSWAP_TEST_MAX_WALKS];
	struct zswap_reclaimer reclaimer;
	unsigned long progress;
	unsigned int waits;
	unsigned long lru_len;
	unsigned int pays;
	unsigned int pay_submits[ZSWAP_TEST_MAX_WALKS];
	unsigned int pay_walks[ZSWAP_TEST_MAX_WALKS];
	u64 owe[ZSWAP_TEST_MAX_WALKS];
	long claim_at_walk;
	unsigned int requeues;
	unsigned long requeue_delay;
	int requeue_nid;
	bool requeue_pending;
	struct zswap_wb_end debt;
	unsigned int sleeps;
	u64 slept;
	bool dying;
	struct completion started;
	struct completion release;
	struct zswap_test_dev dev;
};

#define ZSWAP_TEST_MEMCG	((struct mem_cgroup *)0x4d454d43UL)
/* An IO delay owed: two and a half jiffies, in nanoseconds */
#define ZSWAP_TEST_OWED		(jiffies_to_nsecs(2) + jiffies_to_nsecs(1) / 2)

static bool zswap_test_tryget_stub(struct mem_cgroup *memcg)
{
	struct zswap_test_wb *w = kunit_get_current_test()->priv;

	if (!w->tryget_ok)
		return false;
	w->refs++;
	return true;
}

static void zswap_test_put_stub(struct mem_cgroup *memcg)
{
	struct zswap_test_wb *w = kunit_get_current_test()->priv;

	w->refs--;
	w->puts++;
}

static bool zswap_test_dying_stub(struct mem_cgroup *memcg)
{
	struct zswap_test_wb *w = kunit_get_current_test()->priv;

	return w->dying;
}

static bool zswap_test_queue_stub(struct work_struct *work, int nid)
{
	struct zswap_test_wb *w = kunit_get_current_test()->priv;
	bool ok = w->wq ? queue_work(w->wq, work) : w->queue_ok;

	if (ok)
		w->queued++;
	return ok;
}

static bool zswap_test_allowed_stub(struct mem_cgroup *memcg)
{
	struct zswap_test_wb *w = kunit_get_current_test()->priv;

	return w->allowed;
}

static bool zswap_test_controlled_stub(struct mem_cgroup *memcg)
{
	struct zswap_test_wb *w = kunit_get_current_test()->priv;

	return w->controlled;
}

/*
 * Records when the worker asks what it owes: after which submission and
 * which walk; answers @owe.
 */
static u64 zswap_test_owed_stub(struct mem_cgroup *memcg,
				const struct zswap_walk *walk)
{
	struct kunit *test = kunit_get_current_test();
	struct zswap_test_wb *w = test->priv;
	u64 owed = 0;

	if (w->pays < ZSWAP_TEST_MAX_WALKS) {
		w->pay_submits[w->pays] = w->dev.submits;
		w->pay_walks[w->pays] = w->walks;
		owed = w->owe[w->pays];
	}
	w->pays++;
	return owed;
}

/* Records a payment the worker makes in its work item; sleeps nothing. */
static void zswap_test_sleep_stub(u64 delay)
{
	struct zswap_test_wb *w = kunit_get_current_test()->priv;

	w->sleeps++;
	w->slept = delay;
}

/* Delays the work on the test's workqueue if it has one. */
static bool zswap_test_requeue_stub(struct delayed_work *work, int nid,
				    unsigned long delay)
{
	struct zswap_test_wb *w = kunit_get_current_test()->priv;

	w->requeues++;
	w->requeue_delay = delay;
	w->requeue_nid = nid;
	return w->wq ? mod_delayed_work(w->wq, work, delay) : w->requeue_pending;
}

static unsigned long zswap_test_walk_stub(struct mem_cgroup *memcg, int nid,
					  struct zswap_walk *walk,
					  unsigned long *nr_to_walk)
{
	struct kunit *test = kunit_get_current_test();
	struct zswap_test_wb *w = test->priv;
	unsigned int i = w->walks++;
	unsigned long walked = *nr_to_walk, freed, j;
	struct mem_cgroup *active;

	KUNIT_ASSERT_LT(test, i, ZSWAP_TEST_MAX_WALKS);
	w->asked[i] = *nr_to_walk;
	w->walk_flags[i] = walk->flags;
	w->memalloc[i] = current->flags & PF_MEMALLOC;
	w->running[i] = READ_ONCE(w->state.wb_running);
	active = set_active_memcg(NULL);
	set_active_memcg(active);
	w->active[i] = active;
	if (w->disallow_after && w->walks >= w->disallow_after)
		w->allowed = false;
	if (w->claim_at_walk && i == 0)
		atomic_long_set(&w->state.wb_pending, w->claim_at_walk);
	if (w->nomem == i) {
		walk->flags |= ZSWAP_WALK_NOMEM;
		*nr_to_walk -= 1;
		return 0;
	}
	if (w->walked[i] >= 0)
		walked = min_t(unsigned long, walked, w->walked[i]);
	freed = w->freed[i] >= 0 ? min_t(unsigned long, walked, w->freed[i]) : walked;
	if (w->hit_swapcache == i)
		walk->flags |= ZSWAP_WALK_HIT_SWAPCACHE;
	for (j = 0; j < freed; j++)
		zswap_test_dev_queue(&w->dev, &walk->io);
	*nr_to_walk -= walked;
	return freed;
}

static struct zswap_lruvec_state *zswap_test_state_stub(struct mem_cgroup *memcg, int nid)
{
	struct zswap_test_wb *w = kunit_get_current_test()->priv;

	return &w->state;
}

static void zswap_test_reclaimer_stub(const struct shrink_control *sc,
				      struct zswap_reclaimer *r)
{
	struct zswap_test_wb *w = kunit_get_current_test()->priv;

	*r = w->reclaimer;
}

static unsigned long zswap_test_wait_stub(struct zswap_lruvec_state *state,
					  long before, long timeout)
{
	struct zswap_test_wb *w = kunit_get_current_test()->priv;

	w->waits++;
	return w->progress;
}

static unsigned long zswap_test_len_stub(struct mem_cgroup *memcg, int nid)
{
	struct zswap_test_wb *w = kunit_get_current_test()->priv;

	return w->lru_len;
}

static void zswap_test_noop_work(struct work_struct *work)
{
}

static int zswap_test_wb_init(struct kunit *test)
{
	struct zswap_test_wb *w;
	int i;

	w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w);
	INIT_DELAYED_WORK(&w->state.wb_work, zswap_test_noop_work);
	w->tryget_ok = true;
	w->queue_ok = true;
	w->allowed = true;
	w->controlled = true;
	w->hit_swapcache = -1;
	w->nomem = -1;
	w->lru_len = 1000;
	KUNIT_ASSERT_EQ(test, zswap_test_dev_init(test, &w->dev), 0);
	for (i = 0; i < ZSWAP_TEST_MAX_WALKS; i++) {
		w->walked[i] = -1;
		w->freed[i] = -1;
	}
	test->priv = w;
	kunit_activate_static_stub(test, zswap_memcg_tryget_online, zswap_test_tryget_stub);
	kunit_activate_static_stub(test, zswap_memcg_put, zswap_test_put_stub);
	kunit_activate_static_stub(test, zswap_memcg_dying, zswap_test_dying_stub);
	kunit_activate_static_stub(test, zswap_wb_queue, zswap_test_queue_stub);
	kunit_activate_static_stub(test, zswap_wb_allowed, zswap_test_allowed_stub);
	kunit_activate_static_stub(test, zswap_wb_io_controlled, zswap_test_controlled_stub);
	kunit_activate_static_stub(test, zswap_wb_owed, zswap_test_owed_stub);
	kunit_activate_static_stub(test, zswap_wb_requeue, zswap_test_requeue_stub);
	kunit_activate_static_stub(test, zswap_wb_sleep, zswap_test_sleep_stub);
	kunit_activate_static_stub(test, zswap_lru_walk, zswap_test_walk_stub);
	kunit_activate_static_stub(test, zswap_lruvec_state_of, zswap_test_state_stub);
	kunit_activate_static_stub(test, zswap_reclaimer_of, zswap_test_reclaimer_stub);
	kunit_activate_static_stub(test, zswap_lru_len, zswap_test_len_stub);
	return 0;
}

/* The first claim queues the work with one reference; a second backs off. */
static void zswap_test_zswap_wb_defer_claims_once(struct kunit *test)
{
	struct zswap_test_wb *w = test->priv;

	KUNIT_EXPECT_EQ(test, zswap_wb_defer(&w->state, ZSWAP_TEST_MEMCG, 0, 10), 0);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&w->state.wb_pending), 10);
	KUNIT_EXPECT_EQ(test, w->refs, 1);
	KUNIT_EXPECT_EQ(test, w->queued, 1);

	KUNIT_EXPECT_EQ(test, zswap_wb_defer(&w->state, ZSWAP_TEST_MEMCG, 0, 20), -EBUSY);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&w->state.wb_pending), 10);
	KUNIT_EXPECT_EQ(test, w->refs, 1);
	KUNIT_EXPECT_EQ(test, w->queued, 1);
}

/*
 * A failed tryget leaves no claim: the public RFC set the claim first and
 * left it set, so that lruvec could never defer again.
 */
static void zswap_test_zswap_wb_defer_tryget_failure_leaves_no_claim(struct kunit *test)
{
	struct zswap_test_wb *w = test->priv;

	w->tryget_ok = false;
	KUNIT_EXPECT_EQ(test, zswap_wb_defer(&w->state, ZSWAP_TEST_MEMCG, 0, 10), -ENOENT);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&w->state.wb_pending), 0);
	KUNIT_EXPECT_EQ(test, w->refs, 0);
	KUNIT_EXPECT_EQ(test, w->queued, 0);

	w->tryget_ok = true;
	KUNIT_EXPECT_EQ(test, zswap_wb_defer(&w->state, ZSWAP_TEST_MEMCG, 0, 10), 0);
	KUNIT_EXPECT_EQ(test, w->refs, 1);
}

/*
 * Work already pending (delayed while the worker pays) takes the new
 * claim when it runs: the claim stays, the reference taken for it goes.
 */
static void zswap_test_zswap_wb_defer_pending_work_keeps_claim(struct kunit *test)
{
	struct zswap_test_wb *w = test->priv;

	w->queue_ok = false;
	KUNIT_EXPECT_EQ(test, zswap_wb_defer(&w->state, ZSWAP_TEST_MEMCG, 0, 10), 0);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&w->state.wb_pending), 10);
	KUNIT_EXPECT_EQ(test, w->refs, 0);
	KUNIT_EXPECT_EQ(test, w->puts, 1);
}

struct zswap_test_blocker {
	struct work_struct work;
	struct completion started;
	struct completion release;
};

static void zswap_test_blocker_fn(struct work_struct *work)
{
	struct zswap_test_blocker *b = container_of(work, struct zswap_test_blocker, work);

	complete(&b->started);
	wait_for_completion(&b->release);
}

static void zswap_test_destroy_wq(void *data)
{
	destroy_workqueue(data);
}

static void zswap_test_cancel_work(void *data)
{
	cancel_delayed_work_sync(data);
}

/* Make the queue stub queue on an ordered workqueue of the test's own. */
static void zswap_test_use_wq(struct kunit *test)
{
	struct zswap_test_wb *w = test->priv;

	w->wq = alloc_ordered_workqueue("zswap_kunit", 0);
	KUNIT_ASSERT_NOT_NULL(test, w->wq);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, zswap_test_destroy_wq, w->wq), 0);
	/* runs first: no work is left delayed on the queue it destroys */
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, zswap_test_cancel_work,
							&w->state.wb_work), 0);
}

/* The same, with its only worker held by a blocking work item. */
static struct zswap_test_blocker *zswap_test_blocked_wq(struct kunit *test)
{
	struct zswap_test_wb *w = test->priv;
	struct zswap_test_blocker *b;

	b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b);
	zswap_test_use_wq(test);
	INIT_WORK(&b->work, zswap_test_blocker_fn);
	init_completion(&b->started);
	init_completion(&b->release);
	queue_work(w->wq, &b->work);
	KUNIT_ASSERT_GT(test, wait_for_completion_timeout(&b->started, 10 * HZ), 0);
	return b;
}

/* Cancelling pending work drops its reference, once. */
static void zswap_test_zswap_wb_cancel_pending_puts_once(struct kunit *test)
{
	struct zswap_test_wb *w = test->priv;
	struct zswap_test_blocker *b = zswap_test_blocked_wq(test);

	KUNIT_ASSERT_EQ(test, zswap_wb_defer(&w->state, ZSWAP_TEST_MEMCG, 0, 10), 0);
	KUNIT_EXPECT_TRUE(test, zswap_wb_cancel(&w->state, ZSWAP_TEST_MEMCG));
	KUNIT_EXPECT_EQ(test, w->refs, 0);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&w->state.wb_pending), 0);

	KUNIT_EXPECT_FALSE(test, zswap_wb_cancel(&w->state, ZSWAP_TEST_MEMCG));
	KUNIT_EXPECT_EQ(test, w->puts, 1);
	complete(&b->release);
}

/* Cancelling work that was never queued drops nothing. */
static void zswap_test_zswap_wb_cancel_idle_puts_nothing(struct kunit *test)
{
	struct zswap_test_wb *w = test->priv;

	KUNIT_EXPECT_FALSE(test, zswap_wb_cancel(&w->state, ZSWAP_TEST_MEMCG));
	KUNIT_EXPECT_EQ(test, w->puts, 0);
}

/* Stands in for the worker: runs until the test releases it. */
static void zswap_test_running_work(struct work_struct *work)
{
	struct zswap_test_wb *w = container_of(to_delayed_work(work),
					       struct zswap_test_wb, state.wb_work);

	complete(&w->started);
	wait_for_completion(&w->release);
}

/* Cancelling running work drops nothing: the work drops its own reference. */
static void zswap_test_zswap_wb_cancel_running_puts_nothing(struct kunit *test)
{
	struct zswap_test_wb *w = test->priv;

	zswap_test_use_wq(test);
	init_completion(&w->started);
	init_completion(&w->release);
	INIT_DELAYED_WORK(&w->state.wb_work, zswap_test_running_work);
	KUNIT_ASSERT_EQ(test, zswap_wb_defer(&w->state, ZSWAP_TEST_MEMCG, 0, 10), 0);
	KUNIT_ASSERT_GT(test, wait_for_completion_timeout(&w->started, 10 * HZ), 0);

	KUNIT_EXPECT_FALSE(test, zswap_wb_cancel(&w->state, ZSWAP_TEST_MEMCG));
	KUNIT_EXPECT_EQ(test, w->puts, 0);
	KUNIT_EXPECT_EQ(test, w->refs, 1);
	complete(&w->release);
	flush_workqueue(w->wq);
}

/* Disabled writeback: the worker writes nothing, and still drops its reference. */
static void zswap_test_zswap_wb_run_disabled_puts(struct kunit *test)
{
	struct zswap_test_wb *w = test->priv;

	w->allowed = false;
	w->refs = 1;
	atomic_long_set(&w->state.wb_pending, 5);

	KUNIT_EXPECT_EQ(test, zswap_wb_run(&w->state, NULL, 0), 0);
	KUNIT_EXPECT_EQ(test, w->walks, 0);
	KUNIT_EXPECT_EQ(test, w->refs, 0);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&w->state.wb_pending), 0);
}

/* The worker takes the claim, writes back that much and drops its reference. */
static void zswap_test_zswap_wb_run_takes_claim(struct kunit *test)
{
	struct zswap_test_wb *w = test->priv;

	w->refs = 1;
	atomic_long_set(&w->state.wb_pending, 40);

	KUNIT_EXPECT_EQ(test, zswap_wb_run(&w->state, NULL, 0), 40);
	KUNIT_EXPECT_EQ(test, w->walks, 2);
	KUNIT_EXPECT_EQ(test, w->refs, 0);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&w->state.wb_pending), 0);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&w->state.wb_written), 40);
}

/*
 * The worker submits each chunk's writes, then asks the memcg's IO delay,
 * before it walks the next chunk: it never pays with a write queued.
 */
static void zswap_test_zswap_wb_run_submits_each_chunk(struct kunit *test)
{
	struct zswap_test_wb *w = test->priv;

	w->refs = 1;
	w->freed[0] = 20;
	atomic_long_set(&w->state.wb_pending, 40);

	KUNIT_EXPECT_EQ(test, zswap_wb_run(&w->state, NULL, 0), 28);
	KUNIT_EXPECT_EQ(test, w->walks, 2);
	KUNIT_EXPECT_EQ(test, w->dev.submits, 2);
	KUNIT_ASSERT_EQ(test, w->pays, 2);
	KUNIT_EXPECT_EQ(test, w->pay_submits[0], 1);
	KUNIT_EXPECT_EQ(test, w->pay_walks[0], 1);
	KUNIT_EXPECT_EQ(test, w->pay_submits[1], 2);
	KUNIT_EXPECT_EQ(test, w->pay_walks[1], 2);
	KUNIT_EXPECT_EQ(test, w->dev.pages, 28);
}

/*
 * With no IO controller that could throttle the memcg's writes, the worker
 * is not paced: it never sleeps on a budget between its chunks.
 */
static void zswap_test_zswap_wb_run_no_controller_not_paced(struct kunit *test)
{
	struct zswap_test_wb *w = test->priv;

	w->refs = 1;
	w->controlled = false;
	atomic_long_set(&w->state.wb_pending, 40);

	KUNIT_EXPECT_EQ(test, zswap_wb_run(&w->state, NULL, 0), 40);
	KUNIT_ASSERT_EQ(test, w->walks, 2);
	KUNIT_EXPECT_FALSE(test, w->walk_flags[0] & ZSWAP_WALK_PACE);
	KUNIT_EXPECT_FALSE(test, w->walk_flags[1] & ZSWAP_WALK_PACE);
	KUNIT_EXPECT_EQ(test, w->dev.submits, 2);
	KUNIT_EXPECT_EQ(test, w->pays, 0);
	KUNIT_EXPECT_EQ(test, w->refs, 0);
}

/* The worker drains once per chunk that wrote back, not once per entry. */
static void zswap_test_zswap_wb_run_drains_once_per_chunk(struct kunit *test)
{
	struct zswap_test_wb *w = test->priv;

	w->refs = 1;
	w->freed[1] = 0;
	atomic_long_set(&w->state.wb_pending, 3 * SWAP_CLUSTER_MAX);

	KUNIT_EXPECT_EQ(test, zswap_wb_run(&w->state, NULL, 0), 2 * SWAP_CLUSTER_MAX);
	KUNIT_EXPECT_EQ(test, w->walks, 3);
	KUNIT_EXPECT_EQ(test, w->dev.drains, 2);
}

/* An empty LRU ends the loop before any walk. */
static void zswap_test_zswap_wb_chunks_stops_on_empty_lru(struct kunit *test)
{
	struct zswap_test_wb *w = test->priv;

	w->lru_len = 0;
	KUNIT_EXPECT_EQ(test, zswap_wb_chunks(NULL, 0, 100, ZSWAP_WB_SHRINKER, NULL, &w->debt), 0);
	KUNIT_EXPECT_EQ(test, w->walks, 0);
}

/* A chunk that walks nothing ends the loop. */
static void zswap_test_zswap_wb_chunks_stops_on_no_progress(struct kunit *test)
{
	struct zswap_test_wb *w = test->priv;

	w->walked[0] = 0;
	KUNIT_EXPECT_EQ(test, zswap_wb_chunks(NULL, 0, 100, ZSWAP_WB_SHRINKER, NULL, &w->debt), 0);
	KUNIT_EXPECT_EQ(test, w->walks, 1);
}

/* A chunk that met a swap-cache entry ends the loop. */
static void zswap_test_zswap_wb_chunks_stops_at_swapcache(struct kunit *test)
{
	struct zswap_test_wb *w = test->priv;

	w->walked[0] = 3;
	w->freed[0] = 2;
	w->hit_swapcache = 0;
	KUNIT_EXPECT_EQ(test, zswap_wb_chunks(NULL, 0, 100, ZSWAP_WB_SHRINKER, NULL, &w->debt), 2);
	KUNIT_EXPECT_EQ(test, w->walks, 1);
}

/* The loop walks the claimed count and no more, in chunks. */
static void zswap_test_zswap_wb_chunks_stops_after_count(struct kunit *test)
{
	struct zswap_test_wb *w = test->priv;
	unsigned long sum = 0;
	unsigned int i;

	KUNIT_EXPECT_EQ(test, zswap_wb_chunks(NULL, 0, 70, ZSWAP_WB_SHRINKER, NULL, &w->debt), 70);
	KUNIT_EXPECT_EQ(test, w->walks, 3);
	for (i = 0; i < w->walks; i++)
		sum += w->asked[i];
	KUNIT_EXPECT_EQ(test, sum, 70);
}

/* No chunk asks for more than SWAP_CLUSTER_MAX, and every chunk is paced. */
static void zswap_test_zswap_wb_chunks_bounded_and_paced(struct kunit *test)
{
	struct zswap_test_wb *w = test->priv;
	unsigned int i;

	w->walked[0] = 5;	/* a short chunk: the loop goes on */
	zswap_wb_chunks(NULL, 0, 3 * SWAP_CLUSTER_MAX, ZSWAP_WB_SHRINKER, NULL, &w->debt);
	KUNIT_EXPECT_GE(test, w->walks, 3);
	for (i = 0; i < w->walks; i++) {
		KUNIT_EXPECT_LE(test, w->asked[i], SWAP_CLUSTER_MAX);
		KUNIT_EXPECT_TRUE(test, w->walk_flags[i] & ZSWAP_WALK_PACE);
	}
}

/* A chunk that wrote nothing back made no IO to pay for. */
static void zswap_test_zswap_wb_chunks_pays_only_after_writes(struct kunit *test)
{
	struct zswap_test_wb *w = test->priv;

	w->freed[0] = 0;
	w->freed[1] = 3;
	zswap_wb_chunks(NULL, 0, 2 * SWAP_CLUSTER_MAX, ZSWAP_WB_SHRINKER, NULL, &w->debt);
	KUNIT_ASSERT_EQ(test, w->walks, 2);
	KUNIT_ASSERT_EQ(test, w->pays, 1);
	KUNIT_EXPECT_EQ(test, w->pay_walks[0], 2);
}

/*
 * A chunk that leaves an IO delay owed ends the loop: the delay and the
 * entries not walked are returned for the worker to pay before its next
 * chunk.
 */
static void zswap_test_zswap_wb_chunks_stops_on_delay_owed(struct kunit *test)
{
	struct zswap_test_wb *w = test->priv;

	w->owe[0] = ZSWAP_TEST_OWED;
	KUNIT_EXPECT_EQ(test, zswap_wb_chunks(NULL, 0, 3 * SWAP_CLUSTER_MAX,
					      ZSWAP_WB_SHRINKER, NULL, &w->debt),
			SWAP_CLUSTER_MAX);
	KUNIT_EXPECT_EQ(test, w->walks, 1);
	KUNIT_EXPECT_EQ(test, w->dev.submits, 1);
	KUNIT_EXPECT_EQ(test, w->debt.delay, ZSWAP_TEST_OWED);
	KUNIT_EXPECT_EQ(test, w->debt.left, 2 * SWAP_CLUSTER_MAX);
}

/*
 * Less than a jiffy owed is paid in the work item, before the next chunk:
 * a requeue would wait for the next tick, up to a whole jiffy.
 */
static void zswap_test_zswap_wb_chunks_sleeps_sub_jiffy_delay(struct kunit *test)
{
	struct zswap_test_wb *w = test->priv;

	w->owe[0] = jiffies_to_nsecs(1) - 1;
	w->owe[1] = ZSWAP_TEST_OWED;
	KUNIT_EXPECT_EQ(test, zswap_wb_chunks(NULL, 0, 3 * SWAP_CLUSTER_MAX,
					      ZSWAP_WB_SHRINKER, NULL, &w->debt),
			2 * SWAP_CLUSTER_MAX);
	KUNIT_EXPECT_EQ(test, w->walks, 2);
	KUNIT_EXPECT_EQ(test, w->sleeps, 1);
	KUNIT_EXPECT_EQ(test, w->slept, jiffies_to_nsecs(1) - 1);
	KUNIT_EXPECT_EQ(test, w->debt.delay, ZSWAP_TEST_OWED);
	KUNIT_EXPECT_EQ(test, w->debt.left, SWAP_CLUSTER_MAX);
}

/*
 * A run whose last chunk owes less than a jiffy pays it in the item and
 * is not requeued.
 */
static void zswap_test_zswap_wb_run_sub_jiffy_not_requeued(struct kunit *test)
{
	struct zswap_test_wb *w = test->priv;

	w->refs = 1;
	w->owe[0] = jiffies_to_nsecs(1) - 1;
	atomic_long_set(&w->state.wb_pending, 5);

	KUNIT_EXPECT_EQ(test, zswap_wb_run(&w->state, ZSWAP_TEST_MEMCG, 0), 5);
	KUNIT_EXPECT_EQ(test, w->sleeps, 1);
	KUNIT_EXPECT_EQ(test, w->requeues, 0);
	KUNIT_EXPECT_EQ(test, w->refs, 0);
}

/* The sleep is the delay owed, at least (what the stubs stand in for). */
static void zswap_test_zswap_wb_sleep_sleeps_the_delay(struct kunit *test)
{
	u64 delay = 2 * NSEC_PER_MSEC, start;

	kunit_deactivate_static_stub(test, zswap_wb_sleep);
	start = ktime_get_ns();
	zswap_wb_sleep(delay);
	KUNIT_EXPECT_GE(test, ktime_get_ns() - start, delay);
}

/*
 * The worker pays by requeueing, not by sleeping in its slot: the run ends
 * at the chunk that owes, the work is delayed by the delay owed with the
 * run's reference, and the entries left are the claim it runs for then.
 */
static void zswap_test_zswap_wb_run_requeues_to_pay(struct kunit *test)
{
	struct zswap_test_wb *w = test->priv;

	w->refs = 1;
	w->owe[0] = ZSWAP_TEST_OWED;
	atomic_long_set(&w->state.wb_pending, 40);

	KUNIT_EXPECT_EQ(test, zswap_wb_run(&w->state, ZSWAP_TEST_MEMCG, 0),
			SWAP_CLUSTER_MAX);
	KUNIT_EXPECT_EQ(test, w->walks, 1);
	KUNIT_ASSERT_EQ(test, w->requeues, 1);
	/* rounded up: the timer fires within the last of those jiffies */
	KUNIT_EXPECT_EQ(test, w->requeue_delay, 3);
	KUNIT_EXPECT_EQ(test, w->sleeps, 0);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&w->state.wb_pending),
			40 - SWAP_CLUSTER_MAX);
	KUNIT_EXPECT_EQ(test, w->refs, 1);
	KUNIT_EXPECT_EQ(test, w->puts, 0);
	KUNIT_EXPECT_FALSE(test, w->state.wb_running);
}

/* The work is requeued to run again on its lruvec's node. */
static void zswap_test_zswap_wb_run_requeues_on_node(struct kunit *test)
{
	struct zswap_test_wb *w = test->priv;

	w->refs = 1;
	w->owe[0] = ZSWAP_TEST_OWED;
	w->requeue_nid = NUMA_NO_NODE;
	atomic_long_set(&w->state.wb_pending, 40);

	zswap_wb_run(&w->state, ZSWAP_TEST_MEMCG, 1);
	KUNIT_ASSERT_EQ(test, w->requeues, 1);
	KUNIT_EXPECT_EQ(test, w->requeue_nid, 1);
}

/*
 * The requeued work's timer is armed on the current CPU when that is of
 * the lruvec's node, and on none in particular otherwise.
 */
static void zswap_test_zswap_wb_requeue_cpu_of_node(struct kunit *test)
{
	int cpu, here, other;

	preempt_disable();
	cpu = smp_processor_id();
	here = zswap_wb_requeue_cpu(cpu_to_node(cpu));
	other = zswap_wb_requeue_cpu(cpu_to_node(cpu) + 1);
	preempt_enable();
	KUNIT_EXPECT_EQ(test, here, cpu);
	KUNIT_EXPECT_EQ(test, other, WORK_CPU_UNBOUND);
}

/*
 * The requeue as the worker makes it, on zswap's own queue: the work's
 * timer is armed on the worker's CPU, of the lruvec's node, and the work
 * queued there when it fires.
 */
static void zswap_test_zswap_wb_requeue_keeps_cpu(struct kunit *test)
{
	struct zswap_test_wb *w = test->priv;
	bool pending;
	int cpu;

	if (!zswap_wb_wq_ready())
		kunit_skip(test, "zswap is not set up (no zswap-lruvec-wb workqueue)");
	kunit_deactivate_static_stub(test, zswap_wb_requeue);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, zswap_test_cancel_work,
							&w->state.wb_work), 0);
	migrate_disable();
	cpu = smp_processor_id();
	pending = zswap_wb_requeue(&w->state.wb_work, cpu_to_node(cpu), 10 * HZ);
	migrate_enable();
	KUNIT_EXPECT_FALSE(test, pending);
	KUNIT_EXPECT_TRUE(test, delayed_work_pending(&w->state.wb_work));
	KUNIT_EXPECT_EQ(test, w->state.wb_work.cpu, cpu);
}

/* The last chunk's delay is paid too: the next run comes after it. */
static void zswap_test_zswap_wb_run_last_chunk_pays(struct kunit *test)
{
	struct zswap_test_wb *w = test->priv;

	w->refs = 1;
	w->owe[0] = ZSWAP_TEST_OWED;
	atomic_long_set(&w->state.wb_pending, 5);

	KUNIT_EXPECT_EQ(test, zswap_wb_run(&w->state, ZSWAP_TEST_MEMCG, 0), 5);
	KUNIT_EXPECT_EQ(test, w->requeues, 1);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&w->state.wb_pending), 0);
	KUNIT_EXPECT_EQ(test, w->refs, 1);
}

/*
 * A claim made during the run supersedes what the run left, and the work
 * it queued holds its own reference: the run's is dropped.
 */
static void zswap_test_zswap_wb_run_newer_claim_supersedes(struct kunit *test)
{
	struct zswap_test_wb *w = test->priv;

	w->refs = 2;
	w->owe[0] = ZSWAP_TEST_OWED;
	w->claim_at_walk = 3;
	w->requeue_pending = true;
	atomic_long_set(&w->state.wb_pending, 40);

	KUNIT_EXPECT_EQ(test, zswap_wb_run(&w->state, ZSWAP_TEST_MEMCG, 0),
			SWAP_CLUSTER_MAX);
	KUNIT_EXPECT_EQ(test, w->requeues, 1);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&w->state.wb_pending), 3);
	KUNIT_EXPECT_EQ(test, w->refs, 1);
	KUNIT_EXPECT_EQ(test, w->puts, 1);
}

/* Writeback no longer allowed (memcg offline): nothing is requeued. */
static void zswap_test_zswap_wb_run_disallowed_not_requeued(struct kunit *test)
{
	struct zswap_test_wb *w = test->priv;

	w->refs = 1;
	w->owe[0] = ZSWAP_TEST_OWED;
	w->disallow_after = 1;
	atomic_long_set(&w->state.wb_pending, 40);

	zswap_wb_run(&w->state, ZSWAP_TEST_MEMCG, 0);
	KUNIT_EXPECT_EQ(test, w->requeues, 0);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&w->state.wb_pending), 0);
	KUNIT_EXPECT_EQ(test, w->refs, 0);
}

/*
 * Memcg offline cancels work delayed for a payment and drops the reference
 * the run handed to it, once (a real delayed work on the test's queue).
 */
static void zswap_test_zswap_wb_cancel_paying_puts_once(struct kunit *test)
{
	struct zswap_test_wb *w = test->priv;

	zswap_test_use_wq(test);
	w->refs = 1;
	w->owe[0] = 10ULL * NSEC_PER_SEC;
	atomic_long_set(&w->state.wb_pending, 40);

	zswap_wb_run(&w->state, ZSWAP_TEST_MEMCG, 0);
	KUNIT_ASSERT_EQ(test, w->requeues, 1);
	KUNIT_EXPECT_TRUE(test, delayed_work_pending(&w->state.wb_work));
	KUNIT_EXPECT_EQ(test, w->refs, 1);

	KUNIT_EXPECT_TRUE(test, zswap_wb_cancel(&w->state, ZSWAP_TEST_MEMCG));
	KUNIT_EXPECT_EQ(test, w->refs, 0);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&w->state.wb_pending), 0);
	KUNIT_EXPECT_FALSE(test, zswap_wb_cancel(&w->state, ZSWAP_TEST_MEMCG));
	KUNIT_EXPECT_EQ(test, w->puts, 1);
}

/*
 * A run that ends as its memcg's offline begins (dying, not yet offline)
 * may requeue after the offline's cancel looked: it cancels its own work,
 * so that no work holds the memcg for a delay past its offline.
 */
static void zswap_test_zswap_wb_run_dying_cancels_own_requeue(struct kunit *test)
{
	struct zswap_test_wb *w = test->priv;

	zswap_test_use_wq(test);
	w->refs = 1;
	w->dying = true;
	w->owe[0] = 10ULL * NSEC_PER_SEC;
	atomic_long_set(&w->state.wb_pending, 40);

	zswap_wb_run(&w->state, ZSWAP_TEST_MEMCG, 0);
	KUNIT_EXPECT_EQ(test, w->requeues, 1);
	KUNIT_EXPECT_FALSE(test, delayed_work_pending(&w->state.wb_work));
	KUNIT_EXPECT_EQ(test, w->refs, 0);
	KUNIT_EXPECT_EQ(test, w->puts, 1);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&w->state.wb_pending), 0);
}

/* Stands in for lruvec work on the real queue: runs until released. */
struct zswap_test_side {
	struct work_struct work;
	struct completion *started;
	struct completion *release;
};

static void zswap_test_side_fn(struct work_struct *work)
{
	struct zswap_test_side *s = container_of(work, struct zswap_test_side, work);

	complete(s->started);
	wait_for_completion(s->release);
}

/*
 * Lruvec work runs on zswap_wb_wq, several items side by side, never on
 * shrink_wq (one item at a time): two held items both start, so neither
 * a held lruvec item nor a paying one holds up the pool-limit writeback.
 */
static void zswap_test_zswap_wb_queue_side_by_side(struct kunit *test)
{
	struct zswap_test_side *s;
	struct completion started, release;
	unsigned long left;
	int i;

	if (!zswap_wb_wq_ready())
		kunit_skip(test, "zswap is not set up (no zswap-lruvec-wb workqueue)");
	kunit_deactivate_static_stub(test, zswap_wb_queue);
	s = kunit_kcalloc(test, 2, sizeof(*s), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	init_completion(&started);
	init_completion(&release);
	for (i = 0; i < 2; i++) {
		INIT_WORK(&s[i].work, zswap_test_side_fn);
		s[i].started = &started;
		s[i].release = &release;
		KUNIT_EXPECT_TRUE(test, zswap_wb_queue(&s[i].work, 0));
	}
	left = wait_for_completion_timeout(&started, 10 * HZ);
	if (left)
		left = wait_for_completion_timeout(&started, 10 * HZ);
	complete_all(&release);
	for (i = 0; i < 2; i++)
		flush_work(&s[i].work);
	KUNIT_EXPECT_GT_MSG(test, left, 0, "the second item did not start beside the first");
}

struct zswap_test_struggle_case {
	const char *name;
	unsigned int busy;
	unsigned long age;
	bool struggling;
};

static const struct zswap_test_struggle_case zswap_test_struggle_cases[] = {
	/* the worker is merely busy: back off */
	{ "first_backoff", 1, 0, false },
	{ "busy_max_fresh", ZSWAP_WB_BUSY_MAX, 0, false },
	{ "lag_not_reached", 1, ZSWAP_WB_LAG, false },
	/* reclaim keeps coming back to the same claim: fall back */
	{ "busy_over_max", ZSWAP_WB_BUSY_MAX + 1, 0, true },
	/* the claim has waited too long for the worker: fall back */
	{ "lagging", 1, ZSWAP_WB_LAG + 1, true },
	{ "both", ZSWAP_WB_BUSY_MAX + 1, ZSWAP_WB_LAG + 1, true },
};

KUNIT_ARRAY_PARAM_DESC(zswap_test_struggle, zswap_test_struggle_cases, name);

/* The fallback engages only when reclaim is failing, not when the worker is busy. */
static void zswap_test_zswap_wb_struggling_rule(struct kunit *test)
{
	const struct zswap_test_struggle_case *c = test->param_value;
	unsigned long claimed_at;

	/* the same answer on both sides of a jiffies wrap */
	claimed_at = 1000;
	KUNIT_EXPECT_EQ(test, zswap_wb_struggling(c->busy, claimed_at, claimed_at + c->age),
			c->struggling);
	claimed_at = ULONG_MAX - c->age / 2;
	KUNIT_EXPECT_EQ(test, zswap_wb_struggling(c->busy, claimed_at, claimed_at + c->age),
			c->struggling);
}

/*
 * Without the worker's progress, the reclaimer writes back in place, one
 * chunk, not paced: a task pays its IO delay on its return to user space.
 */
static void zswap_test_zswap_wb_fallback_in_place(struct kunit *test)
{
	struct zswap_test_wb *w = test->priv;
	unsigned long start = jiffies;

	w->freed[0] = 7;
	KUNIT_EXPECT_EQ(test, zswap_wb_fallback(&w->state, NULL, 0, 1000, ZSWAP_FB_THROTTLED), 7);
	KUNIT_EXPECT_EQ(test, w->walks, 1);
	KUNIT_EXPECT_EQ(test, w->asked[0], SWAP_CLUSTER_MAX);
	KUNIT_EXPECT_FALSE(test, w->walk_flags[0] & ZSWAP_WALK_PACE);
	KUNIT_EXPECT_EQ(test, w->pays, 0);
	/* the wait is bounded (generous margin: this is not a timing test) */
	KUNIT_EXPECT_LE(test, jiffies - start, ZSWAP_WB_WAIT + HZ);
}

struct zswap_test_progress {
	struct delayed_work dwork;
	atomic_long_t *written;
};

static void zswap_test_progress_fn(struct work_struct *work)
{
	struct zswap_test_progress *p =
		container_of(to_delayed_work(work), struct zswap_test_progress, dwork);

	atomic_long_add(5, p->written);
	wake_up_var(p->written);
}

/* A waiting reclaimer sees what the worker writes back meanwhile. */
static void zswap_test_zswap_wb_wait_progress_sees_worker(struct kunit *test)
{
	struct zswap_test_wb *w = test->priv;
	struct zswap_test_progress *p;
	long before = atomic_long_read(&w->state.wb_written);

	p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	p->written = &w->state.wb_written;
	INIT_DELAYED_WORK(&p->dwork, zswap_test_progress_fn);
	schedule_delayed_work(&p->dwork, 1);
	/* long enough for the progress to land: the wait ends on it */
	KUNIT_EXPECT_EQ(test, zswap_wb_wait_progress(&w->state, before, 10 * HZ), 5);
	flush_delayed_work(&p->dwork);
}

/* Without progress, the wait ends at its bound and reports none. */
static void zswap_test_zswap_wb_wait_progress_times_out(struct kunit *test)
{
	struct zswap_test_wb *w = test->priv;
	long before = atomic_long_read(&w->state.wb_written);

	KUNIT_EXPECT_EQ(test, zswap_wb_wait_progress(&w->state, before, 1), 0);
}

struct zswap_test_gfp_case {
	const char *name;
	gfp_t gfp;
};

static const struct zswap_test_gfp_case zswap_test_gfp_cases[] = {
	/* reclaim that may not do IO */
	{ "noio", GFP_NOIO },
	/* reclaim that may not enter the filesystem */
	{ "nofs", GFP_NOFS },
};

KUNIT_ARRAY_PARAM_DESC(zswap_test_gfp, zswap_test_gfp_cases, name);

/* A shrink control for the scan cases: root memcg, node 0, 64 to scan. */
static struct shrink_control zswap_test_sc(gfp_t gfp)
{
	return (struct shrink_control) {
		.gfp_mask = gfp,
		.nid = 0,
		.nr_to_scan = 64,
		.nr_scanned = 64,
	};
}

static void zswap_test_require_shrinker(struct kunit *test)
{
	struct shrink_control sc = zswap_test_sc(GFP_KERNEL);
	struct zswap_test_wb *w = test->priv;

	/* the lruvec state is the test's own (stub): the live one is untouched */
	zswap_shrinker_scan(NULL, &sc);
	if (sc.nr_scanned == 0 && !w->queued)
		kunit_skip(test, "Test requires: zswap.shrinker_enabled=Y");
	atomic_long_set(&w->state.wb_pending, 0);
	w->queued = 0;
	w->refs = 0;
}

/* From NOIO/NOFS reclaim the shrinker defers nothing and writes nothing. */
static void zswap_test_zswap_shrinker_scan_noio_nofs(struct kunit *test)
{
	const struct zswap_test_gfp_case *c = test->param_value;
	struct zswap_test_wb *w = test->priv;
	struct shrink_control sc = zswap_test_sc(c->gfp);

	zswap_test_require_shrinker(test);
	KUNIT_EXPECT_EQ(test, zswap_shrinker_scan(NULL, &sc), SHRINK_STOP);
	KUNIT_EXPECT_EQ(test, sc.nr_scanned, 0);
	KUNIT_EXPECT_EQ(test, w->queued, 0);
	KUNIT_EXPECT_EQ(test, w->refs, 0);
	KUNIT_EXPECT_EQ(test, w->walks, 0);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&w->state.wb_pending), 0);
}

/*
 * A fresh claim hands the work to the worker without walking, and reports
 * it scanned: returning SHRINK_STOP made vmscan defer the handed-off work
 * again into nr_deferred on every call.
 */
static void zswap_test_zswap_shrinker_scan_defers_as_scanned(struct kunit *test)
{
	struct zswap_test_wb *w = test->priv;
	struct shrink_control sc = zswap_test_sc(GFP_KERNEL);

	zswap_test_require_shrinker(test);
	KUNIT_EXPECT_EQ(test, zswap_shrinker_scan(NULL, &sc), 0);
	KUNIT_EXPECT_EQ(test, sc.nr_scanned, 64);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&w->state.wb_pending), 64);
	KUNIT_EXPECT_EQ(test, w->queued, 1);
	KUNIT_EXPECT_EQ(test, w->refs, 1);
	KUNIT_EXPECT_EQ(test, w->walks, 0);
}

/* A new claim starts its own busy count and age. */
static void zswap_test_zswap_shrinker_scan_new_claim_resets_busy(struct kunit *test)
{
	struct zswap_test_wb *w = test->priv;
	struct shrink_control sc = zswap_test_sc(GFP_KERNEL);

	zswap_test_require_shrinker(test);
	atomic_set(&w->state.wb_busy, ZSWAP_WB_BUSY_MAX + 3);
	w->state.wb_claimed_at = jiffies - 10 * ZSWAP_WB_LAG;
	KUNIT_EXPECT_EQ(test, zswap_shrinker_scan(NULL, &sc), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&w->state.wb_busy), 0);
	KUNIT_EXPECT_FALSE(test, time_after(jiffies, w->state.wb_claimed_at + ZSWAP_WB_LAG));

	/* so the next call that finds the claim pending merely backs off */
	w->reclaimer = (struct zswap_reclaimer) { .own_charge = true, .limit = true,
						  .controlled = true };
	KUNIT_EXPECT_EQ(test, zswap_shrinker_scan(NULL, &sc), 0);
	KUNIT_EXPECT_EQ(test, sc.nr_scanned, 64);
	KUNIT_EXPECT_EQ(test, w->walks, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&w->state.wb_busy), 1);
}

/*
 * Make the claim pending and old, so that the next scan finds reclaim
 * struggling.
 */
static void zswap_test_struggling_claim(struct kunit *test)
{
	struct zswap_test_wb *w = test->priv;

	zswap_test_require_shrinker(test);
	atomic_long_set(&w->state.wb_pending, 10);
	w->state.wb_claimed_at = jiffies - 2 * ZSWAP_WB_LAG;
	kunit_activate_static_stub(test, zswap_wb_wait_progress, zswap_test_wait_stub);
}

struct zswap_test_caller_case {
	const char *name;
	struct zswap_reclaimer r;
	enum zswap_wb_fallback mode;
};

/* The rows up to no_controller are for a memcg an IO controller may throttle. */
static const struct zswap_test_caller_case zswap_test_caller_cases[] = {
	/* kswapd reclaims for everyone: unthrottled, as stock */
	{ "kswapd", { .kswapd = true, .kthread = true, .limit = true,
		      .controlled = true }, ZSWAP_FB_UNTHROTTLED },
	{ "kswapd_root_charge", { .kswapd = true, .kthread = true, .own_charge = true,
				  .limit = true, .controlled = true }, ZSWAP_FB_UNTHROTTLED },
	/* a task at its memcg's limit, reclaiming that memcg: its own charge */
	{ "own_limit_reclaim", { .own_charge = true, .limit = true, .controlled = true },
	  ZSWAP_FB_THROTTLED },
	/* a task of another cgroup reclaiming this one */
	{ "other_cgroup_reclaim", { .limit = true, .controlled = true },
	  ZSWAP_FB_UNTHROTTLED },
	/* global direct reclaim by a task of the memcg, under no limit */
	{ "global_reclaim", { .own_charge = true, .controlled = true },
	  ZSWAP_FB_UNTHROTTLED },
	/* memory.reclaim written by a task outside the memcg */
	{ "memory_reclaim", { .controlled = true }, ZSWAP_FB_UNTHROTTLED },
	/* shrink_worker()'s folio allocation reclaiming: pool-limit path */
	{ "shrink_worker_retry", { .kthread = true, .limit = true, .controlled = true },
	  ZSWAP_FB_BACKOFF },
	/* any other kthread, even charging to the memcg */
	{ "kworker_active_memcg", { .kthread = true, .own_charge = true, .limit = true,
				    .controlled = true }, ZSWAP_FB_BACKOFF },
	/* no IO controller: its own limit reclaim does not wait for the worker */
	{ "no_controller", { .own_charge = true, .limit = true }, ZSWAP_FB_UNTHROTTLED },
	/* no IO controller: other kthreads still back off, without waiting */
	{ "no_controller_kworker", { .kthread = true, .own_charge = true, .limit = true },
	  ZSWAP_FB_BACKOFF },
};

KUNIT_ARRAY_PARAM_DESC(zswap_test_caller, zswap_test_caller_cases, name);

/* Only a task reclaiming for its own charge sleeps on the memcg's IO budget. */
static void zswap_test_zswap_wb_fallback_mode_per_caller(struct kunit *test)
{
	const struct zswap_test_caller_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, zswap_wb_fallback_mode(&c->r), c->mode);
}

struct zswap_test_target_case {
	const char *name;
	bool target;
	bool proactive;
	bool limit;
};

/* What vmscan passes in struct shrink_control, and what zswap makes of it. */
static const struct zswap_test_target_case zswap_test_target_cases[] = {
	/* try_to_free_mem_cgroup_pages() for a charge */
	{ "limit_reclaim", .target = true, .limit = true },
	/* kswapd and global direct reclaim: no target */
	{ "global_reclaim" },
	/* memory.reclaim: a target, but proactive */
	{ "memory_reclaim", .target = true, .proactive = true },
	/* drop_caches: proactive, no target */
	{ "drop_caches", .proactive = true },
};

KUNIT_ARRAY_PARAM_DESC(zswap_test_target, zswap_test_target_cases, name);

/*
 * Limit reclaim is what vmscan says it is: the memcg being shrunk is the
 * root, so its usage says nothing, and only the reclaim's target and kind
 * can make the row a limit reclaim.
 */
static void zswap_test_zswap_reclaimer_of_limit_from_vmscan(struct kunit *test)
{
	const struct zswap_test_target_case *c = test->param_value;
	struct shrink_control sc = zswap_test_sc(GFP_KERNEL);
	struct zswap_reclaimer r = { };

	if (!IS_ENABLED(CONFIG_MEMCG))
		kunit_skip(test, "Test requires: CONFIG_MEMCG");
#ifdef CONFIG_MEMCG
	sc.memcg = root_mem_cgroup;
	sc.target_memcg = c->target ? root_mem_cgroup : NULL;
#endif
	sc.proactive = c->proactive;
	kunit_deactivate_static_stub(test, zswap_reclaimer_of);

	zswap_reclaimer_of(&sc, &r);
	KUNIT_EXPECT_EQ(test, r.limit, c->limit);
	KUNIT_EXPECT_TRUE(test, r.kthread);
	KUNIT_EXPECT_FALSE(test, r.kswapd);
}

/*
 * Struggling reclaim engages the fallback as its caller allows: the public
 * RFC's OOM under a throttled worker came from never falling back, so the
 * call of the fallback in the scan is pinned here.
 */
static void zswap_test_zswap_shrinker_scan_fallback_per_caller(struct kunit *test)
{
	const struct zswap_test_caller_case *c = test->param_value;
	struct zswap_test_wb *w = test->priv;
	struct shrink_control sc = zswap_test_sc(GFP_KERNEL);
	unsigned long ret;

	zswap_test_struggling_claim(test);
	w->reclaimer = c->r;
	ret = zswap_shrinker_scan(NULL, &sc);
	KUNIT_EXPECT_EQ(test, sc.nr_scanned, 64);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&w->state.wb_pending), 10);
	switch (c->mode) {
	case ZSWAP_FB_BACKOFF:
		KUNIT_EXPECT_EQ(test, ret, 0);
		KUNIT_EXPECT_EQ(test, w->walks, 0);
		KUNIT_EXPECT_EQ(test, w->waits, 0);
		break;
	case ZSWAP_FB_UNTHROTTLED:
		/* no wait on the paced worker, a chunk in place at once */
		KUNIT_EXPECT_EQ(test, ret, SWAP_CLUSTER_MAX);
		KUNIT_EXPECT_EQ(test, w->waits, 0);
		KUNIT_ASSERT_EQ(test, w->walks, 1);
		KUNIT_EXPECT_FALSE(test, w->walk_flags[0] & ZSWAP_WALK_PACE);
		break;
	case ZSWAP_FB_THROTTLED:
		/* a bounded wait, then a chunk in place: never paced in reclaim */
		KUNIT_EXPECT_EQ(test, ret, SWAP_CLUSTER_MAX);
		KUNIT_EXPECT_EQ(test, w->waits, 1);
		KUNIT_ASSERT_EQ(test, w->walks, 1);
		KUNIT_EXPECT_FALSE(test, w->walk_flags[0] & ZSWAP_WALK_PACE);
		break;
	}
}

/*
 * Where no IO controller may delay the memcg's writes, the shrinker writes
 * back in place, in batched chunks: no claim, no reference, no worker and
 * nothing paced. The worker could not charge its folios at memory.max.
 */
static void zswap_test_zswap_shrinker_scan_no_controller_in_place(struct kunit *test)
{
	struct zswap_test_wb *w = test->priv;
	struct shrink_control sc = zswap_test_sc(GFP_KERNEL);
	unsigned int i;

	zswap_test_require_shrinker(test);
	w->controlled = false;
	KUNIT_EXPECT_EQ(test, zswap_shrinker_scan(NULL, &sc), 64);
	KUNIT_EXPECT_EQ(test, sc.nr_scanned, 64);
	KUNIT_EXPECT_EQ(test, w->queued, 0);
	KUNIT_EXPECT_EQ(test, w->refs, 0);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&w->state.wb_pending), 0);
	KUNIT_EXPECT_EQ(test, w->pays, 0);
	KUNIT_EXPECT_EQ(test, w->dev.pages, 64);
	KUNIT_ASSERT_EQ(test, w->walks, 2);
	for (i = 0; i < w->walks; i++) {
		KUNIT_EXPECT_EQ(test, w->asked[i], SWAP_CLUSTER_MAX);
		KUNIT_EXPECT_FALSE(test, w->walk_flags[i] & ZSWAP_WALK_PACE);
	}
}

/*
 * A pending claim that looks struggling makes no task wait for the worker
 * where no IO controller is set up, even one reclaiming its own limit.
 */
static void zswap_test_zswap_shrinker_scan_no_controller_never_waits(struct kunit *test)
{
	struct zswap_test_wb *w = test->priv;
	struct shrink_control sc = zswap_test_sc(GFP_KERNEL);

	zswap_test_struggling_claim(test);
	w->controlled = false;
	w->reclaimer = (struct zswap_reclaimer) { .own_charge = true, .limit = true,
						  .controlled = true };
	KUNIT_EXPECT_EQ(test, zswap_shrinker_scan(NULL, &sc), 64);
	KUNIT_EXPECT_EQ(test, w->waits, 0);
	KUNIT_EXPECT_EQ(test, w->walks, 2);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&w->state.wb_pending), 10);
}

/* In place, a walk that frees nothing stops the shrinker's call, as stock. */
static void zswap_test_zswap_wb_inplace_nothing_stops(struct kunit *test)
{
	struct zswap_test_wb *w = test->priv;
	struct shrink_control sc = zswap_test_sc(GFP_KERNEL);

	w->walked[0] = 0;
	KUNIT_EXPECT_EQ(test, zswap_wb_inplace(&sc), SHRINK_STOP);
	KUNIT_EXPECT_EQ(test, w->walks, 1);
	KUNIT_EXPECT_EQ(test, w->dev.submits, 0);
}

/*
 * In place, a chunk that met an entry already in the swap cache stops the
 * shrinker's call with SHRINK_STOP, as stock zswap's walk does, and what
 * it wrote before is submitted all the same.
 */
static void zswap_test_zswap_shrinker_scan_inplace_warm_stops(struct kunit *test)
{
	struct zswap_test_wb *w = test->priv;
	struct shrink_control sc = zswap_test_sc(GFP_KERNEL);

	zswap_test_require_shrinker(test);
	w->controlled = false;
	w->walked[0] = 5;
	w->freed[0] = 4;
	w->hit_swapcache = 0;
	KUNIT_EXPECT_EQ(test, zswap_shrinker_scan(NULL, &sc), SHRINK_STOP);
	KUNIT_EXPECT_EQ(test, w->walks, 1);
	KUNIT_EXPECT_EQ(test, w->dev.pages, 4);
	KUNIT_EXPECT_EQ(test, w->queued, 0);
}

/*
 * zswap_wb_inplace() itself stops at a warm entry, whatever the shrinker's
 * knob says: the walk's end reaches the shrinker's return value.
 */
static void zswap_test_zswap_wb_inplace_warm_stops(struct kunit *test)
{
	struct zswap_test_wb *w = test->priv;
	struct shrink_control sc = zswap_test_sc(GFP_KERNEL);

	w->walked[0] = 5;
	w->freed[0] = 4;
	w->hit_swapcache = 0;
	KUNIT_EXPECT_EQ(test, zswap_wb_inplace(&sc), SHRINK_STOP);
	KUNIT_EXPECT_EQ(test, w->walks, 1);
	KUNIT_EXPECT_EQ(test, w->dev.pages, 4);
	KUNIT_EXPECT_EQ(test, w->queued, 0);
}

struct zswap_test_fb_mode_case {
	const char *name;
	enum zswap_wb_fallback mode;
};

static const struct zswap_test_fb_mode_case zswap_test_fb_mode_cases[] = {
	{ "throttled", ZSWAP_FB_THROTTLED },
	{ "unthrottled", ZSWAP_FB_UNTHROTTLED },
};

KUNIT_ARRAY_PARAM_DESC(zswap_test_fb_mode, zswap_test_fb_mode_cases, name);

/*
 * A fallback that met a warm entry in place stops the call, as stock, in
 * either mode (the throttled one after its wait for the worker), and what
 * it wrote before is submitted all the same.
 */
static void zswap_test_zswap_wb_fallback_warm_stops(struct kunit *test)
{
	const struct zswap_test_fb_mode_case *c = test->param_value;
	struct zswap_test_wb *w = test->priv;

	w->walked[0] = 5;
	w->freed[0] = 4;
	w->hit_swapcache = 0;
	KUNIT_EXPECT_EQ(test, zswap_wb_fallback(&w->state, NULL, 0, 1000, c->mode),
			SHRINK_STOP);
	KUNIT_EXPECT_EQ(test, w->walks, 1);
	KUNIT_EXPECT_EQ(test, w->dev.pages, 4);
}

/* The worker's progress during the wait spares the in-place writeback. */
static void zswap_test_zswap_shrinker_scan_worker_progress(struct kunit *test)
{
	struct zswap_test_wb *w = test->priv;
	struct shrink_control sc = zswap_test_sc(GFP_KERNEL);

	zswap_test_struggling_claim(test);
	w->reclaimer = (struct zswap_reclaimer) { .own_charge = true, .limit = true,
						  .controlled = true };
	w->progress = 5;
	KUNIT_EXPECT_EQ(test, zswap_shrinker_scan(NULL, &sc), 0);
	KUNIT_EXPECT_EQ(test, w->waits, 1);
	KUNIT_EXPECT_EQ(test, w->walks, 0);
}

/*
 * A claim still being made reads ZSWAP_WB_CLAIMING: its age and busy
 * count are the previous claim's, so it must not look struggling.
 */
static void zswap_test_zswap_wb_claim_struggling_ignores_claim_in_progress(struct kunit *test)
{
	struct zswap_test_wb *w = test->priv;

	atomic_long_set(&w->state.wb_pending, ZSWAP_WB_CLAIMING);
	atomic_set(&w->state.wb_busy, ZSWAP_WB_BUSY_MAX + 3);
	w->state.wb_claimed_at = jiffies - 10 * ZSWAP_WB_LAG;
	KUNIT_EXPECT_FALSE(test, zswap_wb_claim_struggling(&w->state));
	KUNIT_EXPECT_EQ(test, atomic_read(&w->state.wb_busy), ZSWAP_WB_BUSY_MAX + 3);

	/* the same state with the claim published is struggling */
	atomic_long_set(&w->state.wb_pending, 10);
	KUNIT_EXPECT_TRUE(test, zswap_wb_claim_struggling(&w->state));
}

/* An unthrottled fallback writes one chunk in place at once, issued as root. */
static void zswap_test_zswap_wb_fallback_unthrottled(struct kunit *test)
{
	struct zswap_test_wb *w = test->priv;

	kunit_activate_static_stub(test, zswap_wb_wait_progress, zswap_test_wait_stub);
	w->freed[0] = 7;
	KUNIT_EXPECT_EQ(test, zswap_wb_fallback(&w->state, NULL, 0, 1000,
						ZSWAP_FB_UNTHROTTLED), 7);
	KUNIT_EXPECT_EQ(test, w->waits, 0);
	KUNIT_ASSERT_EQ(test, w->walks, 1);
	KUNIT_EXPECT_EQ(test, w->asked[0], SWAP_CLUSTER_MAX);
	KUNIT_EXPECT_FALSE(test, w->walk_flags[0] & ZSWAP_WALK_PACE);
}

/*
 * An unthrottled fallback leaves the LRU to a worker that is walking it:
 * two walks of one LRU split its consecutive slots between their batches
 * (pages per write bio fell from 24 to 2 in the batching selftest).
 */
static void zswap_test_zswap_wb_fallback_unthrottled_worker_running(struct kunit *test)
{
	struct zswap_test_wb *w = test->priv;

	w->state.wb_running = true;
	KUNIT_EXPECT_EQ(test, zswap_wb_fallback(&w->state, NULL, 0, 1000,
						ZSWAP_FB_UNTHROTTLED), 0);
	KUNIT_EXPECT_EQ(test, w->walks, 0);
}

/*
 * The worker runs without reserve access, with the memcg as the active
 * memcg (its allocations are charged there), and its walks never enter
 * direct reclaim: PF_MEMALLOC forced every charge past memory.max.
 */
static void zswap_test_zswap_wb_run_context(struct kunit *test)
{
	struct zswap_test_wb *w = test->priv;
	struct mem_cgroup *after;

	w->refs = 1;
	atomic_long_set(&w->state.wb_pending, 5);
	KUNIT_EXPECT_EQ(test, zswap_wb_run(&w->state, ZSWAP_TEST_MEMCG, 0), 5);
	KUNIT_ASSERT_EQ(test, w->walks, 1);
	KUNIT_EXPECT_FALSE(test, w->memalloc[0]);
	KUNIT_EXPECT_TRUE(test, w->running[0]);
	KUNIT_EXPECT_FALSE(test, w->state.wb_running);
	KUNIT_EXPECT_TRUE(test, w->walk_flags[0] & ZSWAP_WALK_NORECLAIM);
	if (IS_ENABLED(CONFIG_MEMCG))
		KUNIT_EXPECT_PTR_EQ(test, w->active[0], ZSWAP_TEST_MEMCG);
	after = set_active_memcg(NULL);
	KUNIT_EXPECT_NULL(test, after);
	KUNIT_EXPECT_FALSE(test, current->flags & PF_MEMALLOC);
}

/* A chunk that could not allocate ends the run: the worker backs off. */
static void zswap_test_zswap_wb_chunks_stops_on_nomem(struct kunit *test)
{
	struct zswap_test_wb *w = test->priv;

	w->nomem = 0;
	KUNIT_EXPECT_EQ(test, zswap_wb_chunks(NULL, 0, 100, ZSWAP_WB_SHRINKER, NULL, &w->debt), 0);
	KUNIT_EXPECT_EQ(test, w->walks, 1);
}

/* memory.zswap.writeback=0 or the shrinker switched off mid-run stops the run. */
static void zswap_test_zswap_wb_chunks_rechecks_allowed(struct kunit *test)
{
	struct zswap_test_wb *w = test->priv;

	w->disallow_after = 1;
	zswap_wb_chunks(NULL, 0, 4 * SWAP_CLUSTER_MAX, ZSWAP_WB_SHRINKER, NULL, &w->debt);
	KUNIT_EXPECT_EQ(test, w->walks, 1);
}

/*
 * Memcg offline cancels the pending work of the memcg's lruvecs and drops
 * the reference it held: the call in zswap_memcg_offline_cleanup() itself.
 */
static void zswap_test_zswap_memcg_offline_cleanup_cancels(struct kunit *test)
{
	struct zswap_test_wb *w = test->priv;
	struct zswap_test_blocker *b = zswap_test_blocked_wq(test);

	KUNIT_ASSERT_EQ(test, zswap_wb_defer(&w->state, ZSWAP_TEST_MEMCG, 0, 10), 0);
	KUNIT_ASSERT_EQ(test, w->refs, 1);
	zswap_memcg_offline_cleanup(ZSWAP_TEST_MEMCG);
	KUNIT_EXPECT_EQ(test, w->refs, 0);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&w->state.wb_pending), 0);
	complete(&b->release);
}

static struct kunit_case zswap_wb_test_cases[] = {
	KUNIT_CASE(zswap_test_zswap_wb_defer_claims_once),
	KUNIT_CASE(zswap_test_zswap_wb_defer_tryget_failure_leaves_no_claim),
	KUNIT_CASE(zswap_test_zswap_wb_defer_pending_work_keeps_claim),
	KUNIT_CASE(zswap_test_zswap_wb_cancel_pending_puts_once),
	KUNIT_CASE(zswap_test_zswap_wb_cancel_idle_puts_nothing),
	KUNIT_CASE(zswap_test_zswap_wb_cancel_running_puts_nothing),
	KUNIT_CASE(zswap_test_zswap_wb_run_disabled_puts),
	KUNIT_CASE(zswap_test_zswap_wb_run_takes_claim),
	KUNIT_CASE(zswap_test_zswap_wb_run_submits_each_chunk),
	KUNIT_CASE(zswap_test_zswap_wb_run_no_controller_not_paced),
	KUNIT_CASE(zswap_test_zswap_wb_run_drains_once_per_chunk),
	KUNIT_CASE(zswap_test_zswap_wb_chunks_stops_on_empty_lru),
	KUNIT_CASE(zswap_test_zswap_wb_chunks_stops_on_no_progress),
	KUNIT_CASE(zswap_test_zswap_wb_chunks_stops_at_swapcache),
	KUNIT_CASE(zswap_test_zswap_wb_chunks_stops_after_count),
	KUNIT_CASE(zswap_test_zswap_wb_chunks_bounded_and_paced),
	KUNIT_CASE(zswap_test_zswap_wb_chunks_pays_only_after_writes),
	KUNIT_CASE(zswap_test_zswap_wb_chunks_stops_on_delay_owed),
	KUNIT_CASE(zswap_test_zswap_wb_chunks_sleeps_sub_jiffy_delay),
	KUNIT_CASE(zswap_test_zswap_wb_run_sub_jiffy_not_requeued),
	KUNIT_CASE(zswap_test_zswap_wb_sleep_sleeps_the_delay),
	KUNIT_CASE(zswap_test_zswap_wb_run_requeues_to_pay),
	KUNIT_CASE(zswap_test_zswap_wb_run_requeues_on_node),
	KUNIT_CASE(zswap_test_zswap_wb_requeue_cpu_of_node),
	KUNIT_CASE(zswap_test_zswap_wb_requeue_keeps_cpu),
	KUNIT_CASE(zswap_test_zswap_wb_run_last_chunk_pays),
	KUNIT_CASE(zswap_test_zswap_wb_run_newer_claim_supersedes),
	KUNIT_CASE(zswap_test_zswap_wb_run_disallowed_not_requeued),
	KUNIT_CASE(zswap_test_zswap_wb_cancel_paying_puts_once),
	KUNIT_CASE(zswap_test_zswap_wb_run_dying_cancels_own_requeue),
	KUNIT_CASE(zswap_test_zswap_wb_queue_side_by_side),
	KUNIT_CASE_PARAM(zswap_test_zswap_wb_struggling_rule,
			 zswap_test_struggle_gen_params),
	KUNIT_CASE(zswap_test_zswap_wb_fallback_in_place),
	KUNIT_CASE(zswap_test_zswap_wb_wait_progress_sees_worker),
	KUNIT_CASE(zswap_test_zswap_wb_wait_progress_times_out),
	KUNIT_CASE_PARAM(zswap_test_zswap_shrinker_scan_noio_nofs,
			 zswap_test_gfp_gen_params),
	KUNIT_CASE(zswap_test_zswap_shrinker_scan_defers_as_scanned),
	KUNIT_CASE(zswap_test_zswap_shrinker_scan_new_claim_resets_busy),
	KUNIT_CASE_PARAM(zswap_test_zswap_wb_fallback_mode_per_caller,
			 zswap_test_caller_gen_params),
	KUNIT_CASE_PARAM(zswap_test_zswap_shrinker_scan_fallback_per_caller,
			 zswap_test_caller_gen_params),
	KUNIT_CASE_PARAM(zswap_test_zswap_reclaimer_of_limit_from_vmscan,
			 zswap_test_target_gen_params),
	KUNIT_CASE(zswap_test_zswap_shrinker_scan_worker_progress),
	KUNIT_CASE(zswap_test_zswap_shrinker_scan_no_controller_in_place),
	KUNIT_CASE(zswap_test_zswap_shrinker_scan_no_controller_never_waits),
	KUNIT_CASE(zswap_test_zswap_wb_inplace_nothing_stops),
	KUNIT_CASE(zswap_test_zswap_shrinker_scan_inplace_warm_stops),
	KUNIT_CASE(zswap_test_zswap_wb_inplace_warm_stops),
	KUNIT_CASE_PARAM(zswap_test_zswap_wb_fallback_warm_stops,
			 zswap_test_fb_mode_gen_params),
	KUNIT_CASE(zswap_test_zswap_wb_claim_struggling_ignores_claim_in_progress),
	KUNIT_CASE(zswap_test_zswap_wb_fallback_unthrottled),
	KUNIT_CASE(zswap_test_zswap_wb_fallback_unthrottled_worker_running),
	KUNIT_CASE(zswap_test_zswap_wb_run_context),
	KUNIT_CASE(zswap_test_zswap_wb_chunks_stops_on_nomem),
	KUNIT_CASE(zswap_test_zswap_wb_chunks_rechecks_allowed),
	KUNIT_CASE(zswap_test_zswap_memcg_offline_cleanup_cancels),
	{}
};

static struct kunit_suite zswap_wb_test_suite = {
	.name = "zswap_deferred_wb",
	.init = zswap_test_wb_init,
	.test_cases = zswap_wb_test_cases,
};

kunit_test_suites(&zswap_test_suite, &zswap_wb_test_suite);

MODULE_DESCRIPTION("KUnit tests for zswap shrinker writeback");
MODULE_LICENSE("GPL");
