// SPDX-License-Identifier: GPL-2.0
/*
 * Bad values written to zswap's knobs get an error and change nothing.
 *
 * The series changes how writeback runs behind zswap's module parameters
 * and the memcg's memory.zswap.* files; none of them may accept a value
 * it cannot mean. One case per row of the table below: the knob's value
 * is read, the bad value written, and the case fails unless the write
 * returned an error and the knob reads as before. A value accepted by
 * mistake is put back at exit like every knob the tests change.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kselftest.h"
#include "cgroup_util.h"
#include "zswap_util.h"

static struct zs_env env;

struct bad_input {
	const char *file;	/* a zswap parameter, or a memcg file ("memory.") */
	const char *value;
};

static const struct bad_input rows[] = {
	{ "enabled", "maybe" },
	{ "enabled", "2" },
	{ "shrinker_enabled", "maybe" },
	{ "shrinker_enabled", "2" },
	{ "max_pool_percent", "abc" },
	{ "max_pool_percent", "-1" },
	{ "accept_threshold_percent", "-5" },
	{ "accept_threshold_percent", "abc" },
	{ "compressor", "no-such-compressor" },
	{ "memory.zswap.max", "abc" },
	{ "memory.zswap.max", "-1" },
	{ "memory.zswap.writeback", "2" },
	{ "memory.zswap.writeback", "abc" },
};

/* Writes @r's bad value; KSFT_PASS if refused and nothing changed. */
static int run_row(const char *cg, const struct bad_input *r, char *why,
		   size_t len)
{
	char path[PATH_MAX], before[ZS_VAL_LEN], after[ZS_VAL_LEN];
	int ret;

	if (!strncmp(r->file, "memory.", 7))
		snprintf(path, sizeof(path), "%s/%s", cg, r->file);
	else
		snprintf(path, sizeof(path), "%s/%s", ZSWAP_PARAM_DIR, r->file);
	if (zs_read_file(path, before, sizeof(before)) < 0) {
		snprintf(why, len, "cannot read %s", r->file);
		return KSFT_SKIP;
	}
	ret = zs_knob_set(path, r->value);
	if (zs_read_file(path, after, sizeof(after)) < 0) {
		snprintf(why, len, "cannot read %s back", r->file);
		return KSFT_FAIL;
	}
	if (!ret) {
		snprintf(why, len, "\"%s\" was accepted (now \"%s\")", r->value,
			 strtok(after, "\n"));
		return KSFT_FAIL;
	}
	if (strcmp(before, after)) {
		snprintf(why, len, "refused (%s), but the value changed", strerror(-ret));
		return KSFT_FAIL;
	}
	return KSFT_PASS;
}

int main(void)
{
	char why[512], name[96];
	unsigned int i;
	char *cg;

	ksft_print_header();
	zs_setup(&env, 0);
	cg = zs_cg_create(env.cgroot, "zswap_bad_input");
	if (!cg)
		ksft_exit_skip("cannot create a cgroup\n");
	ksft_set_plan(ARRAY_SIZE(rows));

	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		snprintf(why, sizeof(why), ZS_NOT_RUN);
		snprintf(name, sizeof(name), "bad_input:%s=%s", rows[i].file,
			 rows[i].value);
		zs_report(run_row(cg, &rows[i], why, sizeof(why)), name, why);
	}
	zs_run_cleanup(cg, -1, -1);
	ksft_finished();
}
