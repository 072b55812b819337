// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: collector/kernel/reorder.c: what the perf-buffer backend holds back
 * goes out in the order main.c needs. Each case feeds records in the
 * order the rings are read (CPU 0's first) and checks the order they are
 * delivered in: c1/inner's mkdir read before c1's first records, in one
 * pass and across two; a cgroup's records read before its mkdir, and its
 * rmdir read before its mkdir; last
 * records after everything; a container's records released by its key;
 * the pass rule.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <linux/types.h>
#include <cmocka.h>

#include "bpf/boottrace.h"
#include "collector/kernel/reorder.h"

#define C1 11
#define INNER 12
#define OTHER 13

/* What was delivered: "type:cgroup@ts" per record, in order. */
struct log {
	char s[2048];
	int n;
};

static const char *type_name(__u32 type)
{
	switch (type) {
	case BT_EV_CGROUP_MKDIR: return "mkdir";
	case BT_EV_CGROUP_RMDIR: return "rmdir";
	case BT_EV_GONE: return "gone";
	case BT_EV_SYSCALL: return "row";
	default: return "?";
	}
}

static void record(void *ctx, void *data, size_t size)
{
	struct log *l = ctx;
	const struct bt_event_hdr *h = data;
	size_t len = strlen(l->s);

	assert_true(size >= sizeof(*h));
	snprintf(l->s + len, sizeof(l->s) - len, "%s%s:%llu@%llu", len ? " " : "",
		 type_name(h->type), (unsigned long long)h->cgroup_id,
		 (unsigned long long)h->ts_ns);
	l->n++;
}

static struct bt_cgroup_event ev(__u32 type, __u64 cgid, __u64 ts)
{
	struct bt_cgroup_event e;

	memset(&e, 0, sizeof(e));
	e.hdr.type = type;
	e.hdr.cgroup_id = cgid;
	e.hdr.ts_ns = ts;
	return e;
}

/* What the backend does with a record of cgroup mode, as backend_perf.c. */
static void feed(struct reorder *r, __u32 type, __u64 cgid, __u64 ts)
{
	struct bt_cgroup_event e = ev(type, cgid, ts);

	if (type == BT_EV_CGROUP_MKDIR)
		assert_int_equal(reorder_hold_mkdir(r, &e, sizeof(e)), 0);
	else if (reorder_made(r, cgid))
		assert_int_equal(reorder_hold_behind(r, &e, sizeof(e)), 0);
	else if (reorder_is_last(&e.hdr))
		assert_int_equal(reorder_hold(r, &e, sizeof(e)), 0);
	else
		record(r->ctx, &e, sizeof(e));	/* a known cgroup's: at once */
}

/* The case of the watch test, both mkdirs and c1's records due together. */
static void test_one_pass(void **state)
{
	struct log l = { "", 0 };
	struct reorder r;

	(void)state;
	reorder_init(&r, record, &l);
	/* CPU 0's ring: inner's mkdir and first row; CPU 1's: c1's */
	feed(&r, BT_EV_CGROUP_MKDIR, INNER, 300);
	feed(&r, BT_EV_SYSCALL, INNER, 310);
	feed(&r, BT_EV_CGROUP_MKDIR, C1, 100);
	feed(&r, BT_EV_SYSCALL, C1, 200);
	feed(&r, BT_EV_SYSCALL, C1, 210);
	assert_int_equal(l.n, 0);
	assert_true(reorder_waits_on_batches(&r));
	reorder_pass_end(&r, 0);
	assert_int_equal(l.n, 0);		/* due at the end of the next pass */
	feed(&r, BT_EV_SYSCALL, INNER, 320);	/* behind inner's mkdir still */
	reorder_pass_end(&r, 0);
	assert_string_equal(l.s, "mkdir:11@100 row:11@200 row:11@210 "
				 "mkdir:12@300 row:12@310 row:12@320");
	assert_false(reorder_made(&r, C1));
	assert_false(reorder_made(&r, INNER));
	assert_false(reorder_waits_on_batches(&r));
	feed(&r, BT_EV_SYSCALL, INNER, 330);	/* known now: at once */
	assert_int_equal(l.n, 7);
	reorder_free(&r);
}

/* c1's mkdir a pass earlier: its records, held behind it, go first. */
static void test_two_passes(void **state)
{
	struct log l = { "", 0 };
	struct reorder r;

	(void)state;
	reorder_init(&r, record, &l);
	feed(&r, BT_EV_CGROUP_MKDIR, C1, 100);
	reorder_pass_end(&r, 0);
	feed(&r, BT_EV_CGROUP_MKDIR, INNER, 300);
	feed(&r, BT_EV_SYSCALL, C1, 200);
	reorder_pass_end(&r, 0);
	assert_string_equal(l.s, "mkdir:11@100 row:11@200");
	reorder_pass_end(&r, 0);
	assert_string_equal(l.s, "mkdir:11@100 row:11@200 mkdir:12@300");
	reorder_free(&r);
}

/* Records of a cgroup held before its mkdir came (another ring) go behind it. */
static void test_records_before_mkdir(void **state)
{
	struct log l = { "", 0 };
	struct bt_cgroup_event e = ev(BT_EV_SYSCALL, OTHER, 510);
	struct reorder r;

	(void)state;
	reorder_init(&r, record, &l);
	assert_int_equal(reorder_hold(&r, &e, sizeof(e)), 0);	/* not known yet */
	e.hdr.ts_ns = 520;
	assert_int_equal(reorder_hold(&r, &e, sizeof(e)), 0);
	feed(&r, BT_EV_CGROUP_MKDIR, OTHER, 500);
	feed(&r, BT_EV_SYSCALL, OTHER, 530);
	reorder_pass_end(&r, 0);
	reorder_pass_end(&r, 0);
	assert_string_equal(l.s, "mkdir:13@500 row:13@510 row:13@520 row:13@530");
	reorder_free(&r);
}

/*
 * A short container's rmdir read a pass before its mkdir (CPU 1's ring
 * read after CPU 0's, which was empty when the mkdir was written): the
 * rmdir waits for the mkdir and its records, as the end row needs its
 * start (the churn of issue 30: 22 of 400 end rows lost).
 */
static void test_rmdir_before_mkdir(void **state)
{
	struct log l = { "", 0 };
	struct reorder r;

	(void)state;
	reorder_init(&r, record, &l);
	feed(&r, BT_EV_CGROUP_RMDIR, OTHER, 900);
	reorder_pass_end(&r, 0);
	assert_int_equal(l.n, 0);
	feed(&r, BT_EV_CGROUP_MKDIR, OTHER, 500);
	feed(&r, BT_EV_SYSCALL, OTHER, 510);
	reorder_pass_end(&r, 0);	/* the rmdir's time, not the mkdir's */
	assert_int_equal(l.n, 0);
	reorder_pass_end(&r, 0);
	assert_string_equal(l.s, "mkdir:13@500 row:13@510 rmdir:13@900");
	assert_int_equal(r.n, 0);
	reorder_free(&r);
}

/* A forced release (drain): everything, oldest mkdir first, last records last. */
static void test_forced(void **state)
{
	struct log l = { "", 0 };
	struct reorder r;

	(void)state;
	reorder_init(&r, record, &l);
	feed(&r, BT_EV_CGROUP_MKDIR, INNER, 300);
	feed(&r, BT_EV_CGROUP_RMDIR, INNER, 400);
	feed(&r, BT_EV_SYSCALL, INNER, 310);
	feed(&r, BT_EV_CGROUP_MKDIR, C1, 100);
	feed(&r, BT_EV_SYSCALL, C1, 200);
	reorder_pass_end(&r, 1);
	assert_string_equal(l.s, "mkdir:11@100 row:11@200 mkdir:12@300 row:12@310 rmdir:12@400");
	assert_int_equal(r.n, 0);
	reorder_free(&r);
}

/*
 * Pidtree mode: records of a key held until its first record, which
 * releases them but not its last; held records of no first record go at
 * the end of the next pass, in the order read.
 */
static void test_key_and_pass(void **state)
{
	struct log l = { "", 0 };
	struct bt_cgroup_event a = ev(BT_EV_SYSCALL, 7, 1), b = ev(BT_EV_SYSCALL, 8, 2);
	struct bt_cgroup_event gone = ev(BT_EV_GONE, 7, 3), a2 = ev(BT_EV_SYSCALL, 7, 4);
	struct reorder r;

	(void)state;
	reorder_init(&r, record, &l);
	assert_int_equal(reorder_hold(&r, &a, sizeof(a)), 0);
	assert_int_equal(reorder_hold(&r, &b, sizeof(b)), 0);
	assert_int_equal(reorder_hold(&r, &gone, sizeof(gone)), 0);
	assert_int_equal(reorder_hold(&r, &a2, sizeof(a2)), 0);
	assert_true(reorder_waits_on_batches(&r));
	reorder_release(&r, 0, 7);
	assert_string_equal(l.s, "row:7@1 row:7@4");
	reorder_pass_end(&r, 0);
	assert_int_equal(l.n, 2);
	reorder_pass_end(&r, 0);
	assert_string_equal(l.s, "row:7@1 row:7@4 row:8@2 gone:7@3");
	assert_int_equal(r.n, 0);
	reorder_free(&r);
}

/* A record too big for a slot is refused, not cut. */
static void test_sizes(void **state)
{
	char big[REORDER_RECORD_MAX + 8];
	struct log l = { "", 0 };
	struct reorder r;

	(void)state;
	memset(big, 0, sizeof(big));
	reorder_init(&r, record, &l);
	assert_int_not_equal(reorder_hold(&r, big, sizeof(big)), 0);
	assert_int_not_equal(reorder_hold(&r, big, 4), 0);
	assert_int_equal(r.n, 0);
	reorder_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_pass),
		cmocka_unit_test(test_two_passes),
		cmocka_unit_test(test_records_before_mkdir),
		cmocka_unit_test(test_rmdir_before_mkdir),
		cmocka_unit_test(test_forced),
		cmocka_unit_test(test_key_and_pass),
		cmocka_unit_test(test_sizes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
