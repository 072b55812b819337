// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: collector/kernel/batch.c: unpacking a batch of syscall records, and
 * counting the rows of lost batches from the gaps in their numbers, as a
 * kernel that says when an output fails (6.x) and one that does not
 * (4.15) report them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <linux/types.h>
#include <cmocka.h>

#include "bpf/boottrace.h"
#include "collector/kernel/batch.h"

struct seen {
	__u32 tids[BT_BATCH_MAX + 4];
	int n, stop_at;
};

static int collect(void *ctx, void *rec, size_t size)
{
	struct seen *s = ctx;
	const struct bt_syscall_event *e = rec;

	assert_int_equal(size, sizeof(*e));
	assert_int_equal((uintptr_t)rec % _Alignof(struct bt_syscall_event), 0);
	s->tids[s->n++] = e->hdr.tid;
	return s->n == s->stop_at ? -42 : 0;
}

/* A batch of @count records (tids 100, 101, ...) at @buf + 1: misaligned. */
static struct bt_batch *make_batch(char *buf, __u32 count)
{
	struct bt_batch b;
	__u32 i;

	memset(&b, 0, sizeof(b));
	b.type = BT_EV_BATCH;
	b.count = count;
	for (i = 0; i < BT_BATCH_MAX; i++) {
		b.rec[i].hdr.type = BT_EV_SYSCALL;
		b.rec[i].hdr.tid = 100 + i;
	}
	memcpy(buf + 1, &b, sizeof(b));
	return (struct bt_batch *)(buf + 1);
}

static void test_unpack(void **state)
{
	static char buf[sizeof(struct bt_batch) + 8];
	size_t head = offsetof(struct bt_batch, rec), one = sizeof(struct bt_syscall_event);
	struct bt_batch *b = make_batch(buf, 3);
	struct seen s = { .stop_at = -1 };

	(void)state;
	assert_true(batch_is(b, head + 3 * one));
	assert_int_equal(batch_for_each(b, head + 3 * one, collect, &s), 0);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.tids[0], 100);
	assert_int_equal(s.tids[2], 102);

	/* a sample cut short: only whole records */
	memset(&s, 0, sizeof(s));
	s.stop_at = -1;
	assert_int_equal(batch_for_each(b, head + 2 * one + 10, collect, &s), 0);
	assert_int_equal(s.n, 2);

	/* a count past BT_BATCH_MAX: BT_BATCH_MAX records at most */
	b = make_batch(buf, BT_BATCH_MAX + 3);
	memset(&s, 0, sizeof(s));
	s.stop_at = -1;
	assert_int_equal(batch_for_each(b, sizeof(buf) - 1, collect, &s), 0);
	assert_int_equal(s.n, BT_BATCH_MAX);

	/* the callback's error stops it */
	memset(&s, 0, sizeof(s));
	s.stop_at = 2;
	assert_int_equal(batch_for_each(b, sizeof(buf) - 1, collect, &s), -42);
	assert_int_equal(s.n, 2);
}

static void test_not_a_batch(void **state)
{
	struct bt_syscall_event e;

	(void)state;
	memset(&e, 0, sizeof(e));
	e.hdr.type = BT_EV_SYSCALL;
	assert_false(batch_is(&e, sizeof(e)));
	e.hdr.type = BT_EV_BATCH;
	assert_true(batch_is(&e, offsetof(struct bt_batch, rec)));
	assert_false(batch_is(&e, offsetof(struct bt_batch, rec) - 1));
}

static void test_no_gap(void **state)
{
	struct batch_gaps g;

	(void)state;
	assert_int_equal(batch_gaps_init(&g, 2), 0);
	batch_gaps_seen(&g, 0, 0, 0, 16);
	batch_gaps_seen(&g, 0, 16, 1, 5);
	batch_gaps_seen(&g, 1, 0, 0, 7);
	batch_gaps_seen(&g, 0, 21, 2, 16);
	batch_gaps_settle(&g, 0, 37, 3);
	batch_gaps_settle(&g, 1, 7, 1);
	assert_int_equal(g.rows, 0);
	assert_int_equal(g.batches, 0);
	assert_int_equal(batch_gaps_lost(&g, 0, 0, 0), 0);
	batch_gaps_free(&g);
}

static void test_gap_between(void **state)
{
	struct batch_gaps g;

	(void)state;
	assert_int_equal(batch_gaps_init(&g, 2), 0);
	batch_gaps_seen(&g, 1, 0, 0, 16);
	/* batches 1 (16 rows) and 2 (4 rows) of CPU 1 never came */
	batch_gaps_seen(&g, 1, 36, 3, 16);
	assert_int_equal(g.rows, 20);
	assert_int_equal(g.batches, 2);
	/* CPU 0 on its own */
	batch_gaps_seen(&g, 0, 0, 0, 9);
	assert_int_equal(g.rows, 20);
	batch_gaps_free(&g);
}

static void test_gap_at_the_end(void **state)
{
	struct batch_gaps g;

	(void)state;
	assert_int_equal(batch_gaps_init(&g, 1), 0);
	batch_gaps_seen(&g, 0, 0, 0, 16);
	/* the last two batches (16 + 3 rows) were flushed and never read */
	batch_gaps_settle(&g, 0, 35, 3);
	assert_int_equal(g.rows, 19);
	assert_int_equal(g.batches, 2);
	/* ... but the last one was only late: taken back */
	batch_gaps_seen(&g, 0, 32, 2, 3);
	assert_int_equal(g.rows, 16);
	assert_int_equal(g.batches, 1);
	/* and the count goes on from the settled numbers */
	batch_gaps_seen(&g, 0, 35, 3, 16);
	assert_int_equal(g.rows, 16);
	batch_gaps_free(&g);
}

static void test_cpu_out_of_range(void **state)
{
	struct batch_gaps g;

	(void)state;
	assert_int_equal(batch_gaps_init(&g, 1), 0);
	batch_gaps_seen(&g, 1, 50, 5, 1);
	batch_gaps_seen(&g, -1, 50, 5, 1);
	batch_gaps_settle(&g, 3, 50, 5);
	assert_int_equal(g.rows, 0);
	batch_gaps_free(&g);
}

/*
 * A kernel that says when bpf_perf_event_output() fails: 3 batches (40
 * rows) and 5 single records lost. The BPF side counted the 5 records
 * and the 8 failed outputs; the ring dropped 8 samples, which it reports
 * too, maybe only in part yet: nothing counts twice.
 */
static void test_lost_kernel_tells(void **state)
{
	struct batch_gaps g;

	(void)state;
	assert_int_equal(batch_gaps_init(&g, 1), 0);
	batch_gaps_seen(&g, 0, 40, 3, 16);
	assert_int_equal(batch_gaps_lost(&g, 5, 8, 8), 45);
	assert_int_equal(batch_gaps_lost(&g, 5, 8, 2), 45);
	assert_int_equal(batch_gaps_lost(&g, 5, 8, 0), 45);
	batch_gaps_free(&g);
}

/*
 * 4.15: the helper never fails as far as the program knows. The same
 * losses: the ring dropped 8 samples, 3 of them batches (the gaps say
 * so), so 5 single records; plus 2 records the kernel did not make.
 */
static void test_lost_kernel_silent(void **state)
{
	struct batch_gaps g;

	(void)state;
	assert_int_equal(batch_gaps_init(&g, 1), 0);
	batch_gaps_seen(&g, 0, 40, 3, 16);
	assert_int_equal(batch_gaps_lost(&g, 2, 0, 8), 2 + 40 + 5);
	/* the ring's report not in yet: never negative */
	assert_int_equal(batch_gaps_lost(&g, 2, 0, 1), 2 + 40);
	batch_gaps_free(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unpack),
		cmocka_unit_test(test_not_a_batch),
		cmocka_unit_test(test_no_gap),
		cmocka_unit_test(test_gap_between),
		cmocka_unit_test(test_gap_at_the_end),
		cmocka_unit_test(test_cpu_out_of_range),
		cmocka_unit_test(test_lost_kernel_tells),
		cmocka_unit_test(test_lost_kernel_silent),
	};

	return cmocka_run_group_tests_name("collector_batch", tests, NULL, NULL);
}
