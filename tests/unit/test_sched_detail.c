// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: common/sched_detail.c, the detail of `sched` rows: the brief's
 * example, every wake kind, hostile comms (spaces, '=', digits, ':', a
 * whole fake detail, NUL and newline bytes) through format and parse and
 * through TSV escaping, fields in any order, unknown keys, and malformed
 * details.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/sched_detail.h"
#include "common/tsv.h"

static int parse_str(const char *s, struct sched_detail *d)
{
	return sched_detail_parse(s, strlen(s), d);
}

static void assert_str(struct sched_str got, const char *want, size_t n)
{
	assert_non_null(got.s);
	assert_int_equal(got.n, n);
	assert_memory_equal(got.s, want, n);
}

static void test_example(void **state)
{
	struct sched_detail d;

	(void)state;
	assert_int_equal(parse_str("wake=task waker=812 wpid=800 wcomm=7:dockerd holder=0 "
				   "hcomm=9:swapper/1 cpu=1", &d), 0);
	assert_int_equal(d.wake, SCHED_WAKE_TASK);
	assert_int_equal(d.waker.tid, 812);
	assert_int_equal(d.waker.pid, 800);
	assert_str(d.waker.comm, "dockerd", 7);
	assert_int_equal(d.holder.tid, 0);
	assert_int_equal(d.holder.pid, -1);
	assert_str(d.holder.comm, "swapper/1", 9);
	assert_int_equal(d.cpu, 1);
	assert_int_equal(d.cur.tid, -1);
	assert_null(d.cur.comm.s);
}

static void test_any_order_and_unknown_keys(void **state)
{
	struct sched_detail d;

	(void)state;
	assert_int_equal(parse_str("cpu=3 future=11:has= spaces hcomm=2:a  holder=9 "
				   "later=word wake=irq", &d), 0);
	assert_int_equal(d.wake, SCHED_WAKE_IRQ);
	assert_int_equal(d.cpu, 3);
	assert_int_equal(d.holder.tid, 9);
	assert_str(d.holder.comm, "a ", 2);
	assert_int_equal(d.waker.tid, -1);
	assert_null(d.waker.comm.s);
	/* empty: nothing known */
	assert_int_equal(sched_detail_parse("", 0, &d), 0);
	assert_int_equal(d.wake, SCHED_WAKE_MISSING);
	assert_int_equal(d.cpu, -1);
}

static void test_every_wake(void **state)
{
	enum sched_wake w;
	struct sched_detail d, back;
	char buf[256];
	size_t n;

	(void)state;
	for (w = SCHED_WAKE_MISSING; w <= SCHED_WAKE_UNKNOWN; w++) {
		memset(&d, 0, sizeof(d));
		d.wake = w;
		d.waker.tid = d.waker.pid = d.cur.tid = d.cur.pid = d.holder.tid = d.holder.pid = -1;
		d.cpu = 0;
		n = sched_detail_format(&d, buf, sizeof(buf));
		assert_true(n > 0);
		assert_int_equal(sched_detail_parse(buf, n, &back), 0);
		assert_int_equal(back.wake, w);
		assert_int_equal(back.cpu, 0);
	}
	assert_string_equal(sched_wake_name(SCHED_WAKE_SOFTIRQ), "softirq");
	assert_null(sched_wake_name(SCHED_WAKE_MISSING));
}

/* Format @comm as waker and holder comm, escape, unescape, parse: the same bytes. */
static void round_trip(const char *comm, size_t len)
{
	struct sched_detail d = {
		.wake = SCHED_WAKE_TASK,
		.waker = { 4194304, 4194300, { comm, len } },
		.cur = { -1, -1, { NULL, 0 } },
		.holder = { 0, -1, { comm, len } },
		.cpu = 127,
	}, back;
	char buf[256], esc[TSV_ESCAPED_MAX(256)], un[256];
	size_t n, e;
	long u;

	n = sched_detail_format(&d, buf, sizeof(buf));
	assert_true(n > 0);
	e = tsv_escape(buf, n, esc);
	assert_null(memchr(esc, '\t', e));
	assert_null(memchr(esc, '\n', e));
	u = tsv_unescape(esc, e, un);
	assert_int_equal(u, (long)n);
	assert_int_equal(sched_detail_parse(un, (size_t)u, &back), 0);
	assert_int_equal(back.wake, SCHED_WAKE_TASK);
	assert_int_equal(back.waker.tid, 4194304);
	assert_int_equal(back.waker.pid, 4194300);
	assert_str(back.waker.comm, comm, len);
	assert_int_equal(back.holder.tid, 0);
	assert_str(back.holder.comm, comm, len);
	assert_int_equal(back.cpu, 127);
}

static void test_hostile_comms(void **state)
{
	static const char *const comms[] = {
		"a b", "x=1", "12:34", "wake=irq", " cpu=9 ", "7:dockerd", "=", ":", " ",
		"9", "holder=1 hcomm", "\\N", "tab\there", "nl\nx", "\xff\xfe", "\\x41",
		"0123456789abcdef",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(comms) / sizeof(comms[0]); i++)
		round_trip(comms[i], strlen(comms[i]));
	round_trip("a\0b", 3);	/* bytes, not a C string */
	round_trip("", 0);
}

static void test_hostile_comm_cannot_forge_fields(void **state)
{
	struct sched_detail d;

	(void)state;
	/* the comm " cpu=9 wake=irq" is 15 bytes: the parser takes them all */
	assert_int_equal(parse_str("wake=task waker=5 wpid=5 wcomm=15: cpu=9 wake=irq cpu=1", &d), 0);
	assert_int_equal(d.wake, SCHED_WAKE_TASK);
	assert_str(d.waker.comm, " cpu=9 wake=irq", 15);
	assert_int_equal(d.cpu, 1);
}

static void test_unknown_cur(void **state)
{
	struct sched_detail d;

	(void)state;
	assert_int_equal(parse_str("wake=unknown cur=7 cpid=6 ccomm=2:sh cpu=0", &d), 0);
	assert_int_equal(d.wake, SCHED_WAKE_UNKNOWN);
	assert_int_equal(d.cur.tid, 7);
	assert_int_equal(d.cur.pid, 6);
	assert_str(d.cur.comm, "sh", 2);
	assert_int_equal(d.waker.tid, -1);
}

static void test_malformed(void **state)
{
	static const char *const bad[] = {
		"wake",			/* no '=' */
		"=5",			/* no key */
		"wake=sometimes",	/* not a kind */
		"wake=task wake=irq",	/* twice */
		"cpu=x",		/* not a number */
		"cpu=-1",
		"cpu=1234567890123456789",
		"wcomm=8:dockerd",	/* LEN past the end */
		"wcomm=3:dockerd",	/* not followed by a space */
		"wcomm=dockerd",	/* not LEN:BYTES */
		"waker=3:abc",		/* a string where a number goes */
		"cpu=1 ",		/* a space at the end */
		"cpu=1  wake=irq",	/* two spaces */
		" cpu=1",
		"wake=1:x",
		"ke y=1",
	};
	struct sched_detail d;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (parse_str(bad[i], &d) != -1)
			fail_msg("accepted '%s'", bad[i]);
}

static void test_format_too_small(void **state)
{
	struct sched_detail d = {
		.wake = SCHED_WAKE_NONE,
		.waker = { -1, -1, { NULL, 0 } },
		.cur = { -1, -1, { NULL, 0 } },
		.holder = { 12, -1, { "kworker/0:1", 11 } },
		.cpu = 0,
	};
	char buf[64];
	size_t n = sched_detail_format(&d, buf, sizeof(buf));

	(void)state;
	assert_int_equal(n, strlen("wake=none holder=12 hcomm=11:kworker/0:1 cpu=0"));
	assert_memory_equal(buf, "wake=none holder=12 hcomm=11:kworker/0:1 cpu=0", n);
	assert_int_equal(sched_detail_format(&d, buf, 20), 0);
	assert_int_equal(sched_detail_format(&d, buf, 0), 0);
}

/* in=inferred: written after cpu=, read back; any other value is malformed. */
static void test_in_inferred(void **state)
{
	struct sched_detail d = {
		.wake = SCHED_WAKE_IRQ,
		.waker = { -1, -1, { NULL, 0 } },
		.cur = { -1, -1, { NULL, 0 } },
		.holder = { -1, -1, { NULL, 0 } },
		.cpu = 1,
		.in_inferred = true,
	}, back;
	char buf[256];
	size_t n;

	(void)state;
	n = sched_detail_format(&d, buf, sizeof(buf));
	assert_int_equal(n, strlen("wake=irq cpu=1 in=inferred"));
	assert_memory_equal(buf, "wake=irq cpu=1 in=inferred", n);
	assert_int_equal(sched_detail_parse(buf, n, &back), 0);
	assert_true(back.in_inferred);
	assert_int_equal(sched_detail_parse("wake=irq cpu=1", 14, &back), 0);
	assert_false(back.in_inferred);
	assert_int_equal(sched_detail_parse("in=traced", 9, &back), -1);
	assert_int_equal(sched_detail_parse("in=8:inferred", 13, &back), -1);
	assert_int_equal(sched_detail_parse("in=inferred in=inferred", 23, &back), -1);
}

/* stack=: the off-CPU stack's id, written last, read back; 0 (absent) is not written. */
static void test_stack(void **state)
{
	struct sched_detail d = {
		.wake = SCHED_WAKE_TASK,
		.waker = { 7, 7, { "w", 1 } },
		.cur = { -1, -1, { NULL, 0 } },
		.holder = { -1, -1, { NULL, 0 } },
		.cpu = 0,
		.stack = 42,
	}, back;
	char buf[256];
	size_t n;

	(void)state;
	n = sched_detail_format(&d, buf, sizeof(buf));
	assert_int_equal(n, strlen("wake=task waker=7 wpid=7 wcomm=1:w cpu=0 stack=42"));
	assert_memory_equal(buf, "wake=task waker=7 wpid=7 wcomm=1:w cpu=0 stack=42", n);
	assert_int_equal(sched_detail_parse(buf, n, &back), 0);
	assert_int_equal(back.stack, 42);
	d.stack = 0;
	n = sched_detail_format(&d, buf, sizeof(buf));
	assert_null(memmem(buf, n, "stack", 5));
	assert_int_equal(sched_detail_parse(buf, n, &back), 0);
	assert_int_equal(back.stack, 0);
	assert_int_equal(sched_detail_parse("stack=x", 7, &back), -1);
	assert_int_equal(sched_detail_parse("stack=1 stack=2", 15, &back), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_example),
		cmocka_unit_test(test_any_order_and_unknown_keys),
		cmocka_unit_test(test_every_wake),
		cmocka_unit_test(test_hostile_comms),
		cmocka_unit_test(test_hostile_comm_cannot_forge_fields),
		cmocka_unit_test(test_unknown_cur),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_format_too_small),
		cmocka_unit_test(test_in_inferred),
		cmocka_unit_test(test_stack),
	};

	return cmocka_run_group_tests_name("sched_detail", tests, NULL, NULL);
}
