// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the block cgroup rule that issues some bios as root.
 */
#include <kunit/test.h>
#include <linux/bio.h>

#include "../blk-cgroup.h"

struct issue_as_root_case {
	const char *name;
	blk_opf_t opf;
	bool as_root;
};

#define W	REQ_OP_WRITE

/*
 * Every combination of the three flags the rule reads, with and without an
 * unrelated flag (REQ_SYNC) that must not change the answer. Before the
 * rule learned about REQ_BACKGROUND, the two "swap+background" rows were
 * issued as root; those rows are the regression cases.
 */
static const struct issue_as_root_case issue_as_root_cases[] = {
	/* plain IO runs in its own cgroup */
	{ "none",			W,						false },
	{ "background",			W | REQ_BACKGROUND,				false },
	/* swap IO is issued as root, unless it may be throttled */
	{ "swap",			W | REQ_SWAP,					true },
	{ "swap+background",		W | REQ_SWAP | REQ_BACKGROUND,			false },
	/* metadata IO is always issued as root */
	{ "meta",			W | REQ_META,					true },
	{ "meta+background",		W | REQ_META | REQ_BACKGROUND,			true },
	{ "meta+swap",			W | REQ_META | REQ_SWAP,			true },
	{ "meta+swap+background",	W | REQ_META | REQ_SWAP | REQ_BACKGROUND,	true },
	/* an unrelated flag changes nothing */
	{ "sync",			W | REQ_SYNC,					false },
	{ "sync+background",		W | REQ_SYNC | REQ_BACKGROUND,			false },
	{ "sync+swap",			W | REQ_SYNC | REQ_SWAP,			true },
	{ "sync+swap+background",	W | REQ_SYNC | REQ_SWAP | REQ_BACKGROUND,	false },
	{ "sync+meta",			W | REQ_SYNC | REQ_META,			true },
	{ "sync+meta+background",	W | REQ_SYNC | REQ_META | REQ_BACKGROUND,	true },
	{ "sync+meta+swap",		W | REQ_SYNC | REQ_META | REQ_SWAP,		true },
	{ "sync+meta+swap+background",
		W | REQ_SYNC | REQ_META | REQ_SWAP | REQ_BACKGROUND,			true },
	/* the operation does not matter either: a swap read is issued as root */
	{ "read+swap",			REQ_OP_READ | REQ_SWAP,				true },
};

KUNIT_ARRAY_PARAM_DESC(issue_as_root, issue_as_root_cases, name);

static void blk_cgroup_test_blk_opf_issue_as_root_flags(struct kunit *test)
{
	const struct issue_as_root_case *c = test->param_value;

	KUNIT_EXPECT_EQ_MSG(test, blk_opf_issue_as_root(c->opf), c->as_root,
			    "opf %#x (%s)", (__force u32)c->opf, c->name);
}

/* bio_issue_as_root_blkg() decides by the bio's flags alone. */
static void blk_cgroup_test_bio_issue_as_root_blkg_follows_opf(struct kunit *test)
{
	struct bio *bio = kunit_kzalloc(test, sizeof(*bio), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, bio);

	bio->bi_opf = REQ_OP_WRITE | REQ_SWAP;
	KUNIT_EXPECT_TRUE(test, bio_issue_as_root_blkg(bio));

	bio->bi_opf = REQ_OP_WRITE | REQ_SWAP | REQ_BACKGROUND;
	KUNIT_EXPECT_FALSE(test, bio_issue_as_root_blkg(bio));
}

static struct kunit_case blk_cgroup_test_cases[] = {
	KUNIT_CASE_PARAM(blk_cgroup_test_blk_opf_issue_as_root_flags,
			 issue_as_root_gen_params),
	KUNIT_CASE(blk_cgroup_test_bio_issue_as_root_blkg_follows_opf),
	{}
};

static struct kunit_suite blk_cgroup_test_suite = {
	.name = "blk_cgroup",
	.test_cases = blk_cgroup_test_cases,
};

kunit_test_suite(blk_cgroup_test_suite);

MODULE_DESCRIPTION("KUnit tests for the block cgroup issue-as-root rule");
MODULE_LICENSE("GPL");
