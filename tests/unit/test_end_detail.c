// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: common/end_detail.c, the detail of `end` rows: wait(2) statuses
 * (exit 3, exit 0, SIGKILL, SIGSEGV with core, a real-time signal) through
 * format and parse, keys in any order and unknown ones skipped, \N and
 * malformed details unknown; and the words analyze says them in.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "common/end_detail.h"

static int parse(const char *s, long *pid)
{
	return end_detail_parse(s, strlen(s), pid);
}

static void round_trip(unsigned wstatus, const char *want, int how)
{
	char buf[64];
	long pid;

	assert_int_equal(end_detail_format(buf, sizeof(buf), 4711, wstatus), strlen(want));
	assert_string_equal(buf, want);
	assert_int_equal(parse(buf, &pid), how);
	assert_int_equal(pid, 4711);
}

static void test_statuses(void **state)
{
	(void)state;
	round_trip(3 << 8, "init=4711 exit=3", 3);
	round_trip(0, "init=4711 exit=0", 0);
	round_trip(255 << 8, "init=4711 exit=255", 255);
	round_trip(9, "init=4711 signal=KILL", END_SIGNAL + 9);
	round_trip(11 | 0x80, "init=4711 signal=SEGV core", END_SIGNAL + 11);
	round_trip(36, "init=4711 signal=RTMIN+2", END_SIGNAL + 36);
}

static void test_parse_edges(void **state)
{
	long pid;

	(void)state;
	assert_int_equal(parse("signal=TERM future=1 init=7", &pid), END_SIGNAL + 15);
	assert_int_equal(pid, 7);
	assert_int_equal(parse("\\N", &pid), END_UNKNOWN);
	assert_int_equal(pid, -1);
	assert_int_equal(parse("", &pid), END_UNKNOWN);
	assert_int_equal(parse("exit=256", &pid), END_UNKNOWN);
	assert_int_equal(parse("exit=-1", &pid), END_UNKNOWN);
	assert_int_equal(parse("exit=3x", &pid), END_UNKNOWN);
	assert_int_equal(parse("signal=NOPE", &pid), END_UNKNOWN);
	assert_int_equal(parse("signal=RTMIN+99", &pid), END_UNKNOWN);
	assert_int_equal(parse("init=99999999999999 exit=1", &pid), 1);
	assert_int_equal(pid, -1);
	assert_int_equal(parse("  exit=4  ", &pid), 4);
	assert_int_equal(parse("=== = exit=", &pid), END_UNKNOWN);
}

static void test_words(void **state)
{
	char buf[40];

	(void)state;
	assert_string_equal(end_how_text(3, buf, sizeof(buf)), "exited 3");
	assert_string_equal(end_how_text(END_SIGNAL + 9, buf, sizeof(buf)), "killed by SIGKILL");
	assert_string_equal(end_how_text(END_UNKNOWN, buf, sizeof(buf)), "ended (how unknown)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_statuses),
		cmocka_unit_test(test_parse_edges),
		cmocka_unit_test(test_words),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
