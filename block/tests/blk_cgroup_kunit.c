// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the IO delay a blkcg's tasks sleep, or a kernel thread
 * working for the blkcg waits out before its next unit of work, when an IO
 * controller charged the blkcg more IO than it could afford.
 */
#include <kunit/test.h>
#include <linux/ktime.h>

#include "../blk-cgroup.h"

/**
 * struct throttle_case - one blkg chain and the delay it must give
 * @name: the row's name
 * @use_delay: the blkg's use_delay (negative: set by blkcg_set_delay())
 * @delay_ms: the blkg's accumulated delay
 * @parent_use_delay: the same for its parent (a child of the root)
 * @parent_delay_ms: the same for its parent
 * @slept_ms: the delay blkcg_blkg_delay() must give and
 *	blkcg_maybe_throttle_blkg() must sleep
 */
struct throttle_case {
	const char *name;
	int use_delay;
	u64 delay_ms;
	int parent_use_delay;
	u64 parent_delay_ms;
	u64 slept_ms;
};

static const struct throttle_case throttle_cases[] = {
	/* no controller asked for a delay: no sleep */
	{ "none",		0, 20,	0, 0,	0 },
	/* iocost's delay for debt (blkcg_set_delay()) is slept whole */
	{ "set_delay",		-1, 20,	0, 0,	20 },
	/* io.latency's counted delay (blkcg_use_delay()) is slept */
	{ "use_delay",		1, 20,	0, 0,	20 },
	/* a counted delay is clamped to a quarter second */
	{ "use_delay_clamped",	1, 400,	0, 0,	250 },
	/* an ancestor's larger delay is the one slept */
	{ "ancestor",		-1, 5,	-1, 30,	30 },
	/* the larger of the two, from the blkg itself */
	{ "own_larger",		-1, 30,	1, 5,	30 },
};

KUNIT_ARRAY_PARAM_DESC(throttle, throttle_cases, name);

static struct blkcg_gq *blk_cgroup_test_blkg(struct kunit *test,
					     struct blkcg_gq *parent,
					     int use_delay, u64 delay_ms)
{
	struct blkcg_gq *blkg = kunit_kzalloc(test, sizeof(*blkg), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, blkg);
	blkg->parent = parent;
	atomic_set(&blkg->use_delay, use_delay);
	atomic64_set(&blkg->delay_nsec, delay_ms * NSEC_PER_MSEC);
	/* a fresh delay: nothing of it has decayed yet */
	atomic64_set(&blkg->delay_start, ktime_get_ns());
	return blkg;
}

/*
 * The delay owed is the largest of the blkg's and its ancestors' below the
 * root, clamped when it is counted: what zswap's writeback worker waits
 * out, its work requeued, before its next chunk (blkcg_io_delay()).
 */
static void blk_cgroup_test_blkcg_blkg_delay_largest_clamped(struct kunit *test)
{
	const struct throttle_case *c = test->param_value;
	struct blkcg_gq *root, *parent, *blkg;

	root = blk_cgroup_test_blkg(test, NULL, -1, 1000);
	parent = blk_cgroup_test_blkg(test, root, c->parent_use_delay,
				      c->parent_delay_ms);
	blkg = blk_cgroup_test_blkg(test, parent, c->use_delay, c->delay_ms);

	KUNIT_EXPECT_EQ(test, blkcg_blkg_delay(blkg, ktime_get_ns()),
			c->slept_ms * NSEC_PER_MSEC);
}

/*
 * A task returning to user space sleeps that delay (this test's kthread
 * stands in for it).
 */
static void blk_cgroup_test_blkcg_maybe_throttle_blkg_delay(struct kunit *test)
{
	const struct throttle_case *c = test->param_value;
	struct blkcg_gq *root, *parent, *blkg;
	u64 start, slept, took;

	root = blk_cgroup_test_blkg(test, NULL, -1, 1000);
	parent = blk_cgroup_test_blkg(test, root, c->parent_use_delay,
				      c->parent_delay_ms);
	blkg = blk_cgroup_test_blkg(test, parent, c->use_delay, c->delay_ms);

	start = ktime_get_ns();
	slept = blkcg_maybe_throttle_blkg(blkg, false);
	took = ktime_get_ns() - start;

	KUNIT_EXPECT_EQ(test, slept, c->slept_ms * NSEC_PER_MSEC);
	/* it really slept that long (a lower bound only: no timing test) */
	KUNIT_EXPECT_GE(test, took, c->slept_ms * NSEC_PER_MSEC);
}

static struct kunit_case blk_cgroup_test_cases[] = {
	KUNIT_CASE_PARAM(blk_cgroup_test_blkcg_blkg_delay_largest_clamped,
			 throttle_gen_params),
	KUNIT_CASE_PARAM(blk_cgroup_test_blkcg_maybe_throttle_blkg_delay,
			 throttle_gen_params),
	{}
};

static struct kunit_suite blk_cgroup_test_suite = {
	.name = "blk_cgroup",
	.test_cases = blk_cgroup_test_cases,
};

kunit_test_suite(blk_cgroup_test_suite);

MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");
MODULE_DESCRIPTION("KUnit tests for the block cgroup IO delay");
MODULE_LICENSE("GPL");
