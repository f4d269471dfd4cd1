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
#include <linux/list_lru.h>
#include <linux/swap_ops.h>
#include <linux/swapops.h>

#include "../swap.h"
#include "../zswap_internal.h"

MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");

#define ZSWAP_TEST_MAX_ENTRIES	64

/**
 * struct zswap_test_lru - a list_lru of fake entries and their writeback
 * @lru: the list, not memcg aware, entries on node 0
 * @entries: the fake entries; entry i has swap offset i
 * @nr_entries: how many entries were made
 * @result: what the stubbed writeback returns for entry i
 * @visits: how often writeback was attempted on entry i
 * @calls: writeback attempts in all
 * @throttled: writeback attempts whose swap IO context was throttled
 */
struct zswap_test_lru {
	struct list_lru lru;
	struct zswap_entry *entries[ZSWAP_TEST_MAX_ENTRIES];
	unsigned int nr_entries;
	int result[ZSWAP_TEST_MAX_ENTRIES];
	unsigned int visits[ZSWAP_TEST_MAX_ENTRIES];
	unsigned int calls;
	unsigned int throttled;
};

/*
 * Stands in for zswap_writeback_entry(). A successful writeback frees the
 * entry, which unlinks it from the LRU: do the same.
 */
static int zswap_test_writeback_stub(struct zswap_entry *entry,
				     swp_entry_t swpentry,
				     struct swap_io_ctx *ctx)
{
	struct kunit *test = kunit_get_current_test();
	struct zswap_test_lru *t = test->priv;
	pgoff_t i = swp_offset(swpentry);

	KUNIT_ASSERT_LT(test, i, t->nr_entries);
	t->calls++;
	t->visits[i]++;
	if (ctx->throttled)
		t->throttled++;
	if (!t->result[i])
		list_lru_del(&t->lru, &entry->lru, 0, NULL);
	return t->result[i];
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
	test->priv = t;
	kunit_activate_static_stub(test, zswap_writeback_entry,
				   zswap_test_writeback_stub);
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
static unsigned long zswap_test_walk(struct kunit *test, unsigned int *flags,
				     unsigned long nr_to_walk)
{
	struct zswap_test_lru *t = test->priv;

	return list_lru_walk_one(&t->lru, 0, NULL, shrink_memcg_cb, flags,
				 &nr_to_walk);
}

/* An entry already in the swap cache stops a walk that asked for it. */
static void zswap_test_shrink_memcg_cb_stops_at_swapcache(struct kunit *test)
{
	struct zswap_test_lru *t = test->priv;
	unsigned int flags = ZSWAP_WALK_STOP_ON_SWAPCACHE;

	zswap_test_add_entries(test, 1, false, -EEXIST);
	zswap_test_add_entries(test, 2, false, 0);

	KUNIT_EXPECT_EQ(test, zswap_test_walk(test, &flags, 3), 0);
	KUNIT_EXPECT_TRUE(test, flags & ZSWAP_WALK_HIT_SWAPCACHE);
	KUNIT_EXPECT_EQ(test, t->calls, 1);
	KUNIT_EXPECT_EQ(test, list_lru_count_one(&t->lru, 0, NULL), 3);
}

/* Other failures neither stop the walk nor set the swap-cache flag. */
static void zswap_test_shrink_memcg_cb_no_swapcache_flag_on_other_errors(struct kunit *test)
{
	struct zswap_test_lru *t = test->priv;
	unsigned int flags = ZSWAP_WALK_STOP_ON_SWAPCACHE;

	zswap_test_add_entries(test, 1, false, 0);
	zswap_test_add_entries(test, 1, false, -ENOMEM);
	zswap_test_add_entries(test, 1, false, -EIO);
	zswap_test_add_entries(test, 1, false, 0);

	KUNIT_EXPECT_EQ(test, zswap_test_walk(test, &flags, 4), 2);
	KUNIT_EXPECT_FALSE(test, flags & ZSWAP_WALK_HIT_SWAPCACHE);
	KUNIT_EXPECT_EQ(test, t->calls, 4);
	KUNIT_EXPECT_EQ(test, list_lru_count_one(&t->lru, 0, NULL), 2);
}

/* Without ZSWAP_WALK_STOP_ON_SWAPCACHE (shrink_memcg()) the walk goes on. */
static void zswap_test_shrink_memcg_cb_swapcache_ignored_unless_asked(struct kunit *test)
{
	struct zswap_test_lru *t = test->priv;
	unsigned int flags = 0;

	zswap_test_add_entries(test, 2, false, -EEXIST);
	zswap_test_add_entries(test, 1, false, 0);

	KUNIT_EXPECT_EQ(test, zswap_test_walk(test, &flags, 3), 1);
	KUNIT_EXPECT_EQ(test, flags, 0);
	KUNIT_EXPECT_EQ(test, t->calls, 3);
}

/* A referenced entry loses its mark and is rotated, not written back. */
static void zswap_test_shrink_memcg_cb_rotates_referenced(struct kunit *test)
{
	struct zswap_test_lru *t = test->priv;
	unsigned int flags = ZSWAP_WALK_STOP_ON_SWAPCACHE;

	zswap_test_add_entries(test, 1, true, 0);

	KUNIT_EXPECT_EQ(test, zswap_test_walk(test, &flags, 1), 0);
	KUNIT_EXPECT_EQ(test, t->calls, 0);
	KUNIT_EXPECT_FALSE(test, t->entries[0]->referenced);
	KUNIT_EXPECT_EQ(test, list_lru_count_one(&t->lru, 0, NULL), 1);
	KUNIT_EXPECT_EQ(test, flags, ZSWAP_WALK_STOP_ON_SWAPCACHE);
}

/* The walk's throttle flag reaches the swap IO context of each write. */
static void zswap_test_shrink_memcg_cb_throttle_reaches_io_ctx(struct kunit *test)
{
	struct zswap_test_lru *t = test->priv;
	unsigned int flags = ZSWAP_WALK_THROTTLE;

	zswap_test_add_entries(test, 4, false, -ENOMEM);

	zswap_test_walk(test, &flags, 2);
	KUNIT_EXPECT_EQ(test, t->calls, 2);
	KUNIT_EXPECT_EQ(test, t->throttled, 2);

	flags = 0;
	zswap_test_walk(test, &flags, 2);
	KUNIT_EXPECT_EQ(test, t->calls, 4);
	KUNIT_EXPECT_EQ(test, t->throttled, 2);
}

struct zswap_test_reason_case {
	const char *name;
	enum zswap_wb_reason reason;
	unsigned int flags;
};

static const struct zswap_test_reason_case zswap_test_reason_cases[] = {
	/* memory pressure: throttled, stops at warm entries */
	{ "shrinker", ZSWAP_WB_SHRINKER,
	  ZSWAP_WALK_STOP_ON_SWAPCACHE | ZSWAP_WALK_THROTTLE },
	/* a full pool rejects stores until it drains: never throttled */
	{ "pool_limit", ZSWAP_WB_POOL_LIMIT, 0 },
	/* memory.zswap.max reached: the same */
	{ "memcg_limit", ZSWAP_WB_MEMCG_LIMIT, 0 },
};

KUNIT_ARRAY_PARAM_DESC(zswap_test_reason, zswap_test_reason_cases, name);

/*
 * Only shrinker writeback is throttled; the pool-limit paths must drain
 * the pool at full speed or zswap_store() keeps rejecting.
 */
static void zswap_test_zswap_wb_walk_flags_per_reason(struct kunit *test)
{
	const struct zswap_test_reason_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, zswap_wb_walk_flags(c->reason), c->flags);
}

struct zswap_test_opf_case {
	const char *name;
	unsigned long swap_flags;
	bool throttled;
	blk_opf_t opf;
};

static const struct zswap_test_opf_case zswap_test_opf_cases[] = {
	/* normal swap-out: issued as root, unchanged */
	{ "async", 0, false, REQ_OP_WRITE | REQ_SWAP },
	/* zswap shrinker writeback: may be throttled */
	{ "async_throttled", 0, true, REQ_OP_WRITE | REQ_SWAP | REQ_BACKGROUND },
	/* synchronous devices follow the same rule */
	{ "sync", SWP_SYNCHRONOUS_IO, false, REQ_OP_WRITE | REQ_SWAP },
	{ "sync_throttled", SWP_SYNCHRONOUS_IO, true,
	  REQ_OP_WRITE | REQ_SWAP | REQ_BACKGROUND },
};

KUNIT_ARRAY_PARAM_DESC(zswap_test_opf, zswap_test_opf_cases, name);

/* A throttled swap IO context writes with REQ_BACKGROUND, and keeps REQ_SWAP. */
static void zswap_test_swap_write_opf_throttled(struct kunit *test)
{
	const struct zswap_test_opf_case *c = test->param_value;
	struct swap_info_struct *sis;
	struct swap_io_ctx ctx = { .throttled = c->throttled };

	sis = kunit_kzalloc(test, sizeof(*sis), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sis);
	sis->flags = c->swap_flags;
	ctx.sis = sis;

	KUNIT_EXPECT_EQ(test, (__force u32)swap_write_opf(&ctx), (__force u32)c->opf);
}

static struct kunit_case zswap_test_cases[] = {
	KUNIT_CASE(zswap_test_shrink_memcg_cb_stops_at_swapcache),
	KUNIT_CASE(zswap_test_shrink_memcg_cb_no_swapcache_flag_on_other_errors),
	KUNIT_CASE(zswap_test_shrink_memcg_cb_swapcache_ignored_unless_asked),
	KUNIT_CASE(zswap_test_shrink_memcg_cb_rotates_referenced),
	KUNIT_CASE(zswap_test_shrink_memcg_cb_throttle_reaches_io_ctx),
	KUNIT_CASE_PARAM(zswap_test_zswap_wb_walk_flags_per_reason,
			 zswap_test_reason_gen_params),
	KUNIT_CASE_PARAM(zswap_test_swap_write_opf_throttled,
			 zswap_test_opf_gen_params),
	{}
};

static struct kunit_suite zswap_test_suite = {
	.name = "zswap",
	.init = zswap_test_init,
	.test_cases = zswap_test_cases,
};

kunit_test_suite(zswap_test_suite);

MODULE_DESCRIPTION("KUnit tests for zswap shrinker writeback");
MODULE_LICENSE("GPL");
