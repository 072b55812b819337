// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: collector/options.c: the command line. Durations with and
 * without units (one parser for -d, --timeout and --until), --until's
 * kinds and delays (end and its alias exit; listen only with a syscall
 * list that has it), --timeout's modes, the --unshare list, and the
 * options that exclude each other.
 */
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "collector/kernel/marks.h"
#include "collector/options.h"

/* Parse a command line given as a NULL-terminated list; stderr is let through. */
static enum options_result parse(struct options *o, ...)
{
	static char *argv[32];	/* o->command points into it after we return */
	int argc = 0;
	enum options_result r;
	va_list ap;

	memset(o, 0, sizeof(*o));
	argv[argc++] = "collector";
	va_start(ap, o);
	while (argc < 31 && (argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	argv[argc] = NULL;
	r = options_parse(argc, argv, o);
	return r;
}

static void test_durations(void **state)
{
	unsigned long long ns;

	(void)state;
	assert_int_equal(parse_duration_ns("2", &ns), 0);
	assert_int_equal(ns, 2000000000ULL);
	assert_int_equal(parse_duration_ns("1.5s", &ns), 0);
	assert_int_equal(ns, 1500000000ULL);
	assert_int_equal(parse_duration_ns("500ms", &ns), 0);
	assert_int_equal(ns, 500000000ULL);
	assert_int_equal(parse_duration_ns("250us", &ns), 0);
	assert_int_equal(ns, 250000ULL);
	assert_int_equal(parse_duration_ns("10ns", &ns), 0);
	assert_int_equal(ns, 10ULL);
	assert_int_equal(parse_duration_ns("5m", &ns), -1);
	assert_int_equal(parse_duration_ns("ms", &ns), -1);
	assert_int_equal(parse_duration_ns("-1", &ns), -1);
	assert_int_equal(parse_duration_ns("1e30", &ns), -1);
}

static void test_duration_option(void **state)
{
	struct options o;

	(void)state;
	assert_int_equal(parse(&o, "-d", "500ms", NULL), OPTIONS_OK);
	assert_int_equal(o.duration_ns, 500000000ULL);
	assert_int_equal(parse(&o, "--duration", "60", NULL), OPTIONS_OK);
	assert_int_equal(o.duration_ns, 60000000000ULL);
	assert_int_equal(parse(&o, "-d", "0", NULL), OPTIONS_USAGE);
	assert_int_equal(parse(&o, "-d", "soon", NULL), OPTIONS_USAGE);
}

static void test_until(void **state)
{
	struct options o;

	(void)state;
	assert_int_equal(parse(&o, "--until", "listen+500ms", "--", "true", NULL), OPTIONS_OK);
	assert_int_equal(o.until, UNTIL_LISTEN);
	assert_int_equal(o.until_delay_ns, 500000000ULL);
	assert_int_equal(parse(&o, "-u", "exec", "--", "true", NULL), OPTIONS_OK);
	assert_int_equal(o.until, UNTIL_EXEC);
	assert_int_equal(o.until_delay_ns, 0);
	assert_int_equal(parse(&o, "-u", "exit+2", "--", "true", NULL), OPTIONS_OK);
	assert_int_equal(o.until, UNTIL_END);
	assert_int_equal(o.until_delay_ns, 2000000000ULL);
	assert_int_equal(parse(&o, "-u", "never", "--", "true", NULL), OPTIONS_USAGE);
	assert_int_equal(parse(&o, "-u", "listen+", "--", "true", NULL), OPTIONS_USAGE);
	assert_int_equal(parse(&o, "-u", "listen+5m", "--", "true", NULL), OPTIONS_USAGE);
	marks__free(o.marks);
	/* mark:LABEL needs a --mark with that label */
	assert_int_equal(parse(&o, "--mark", "uprobe:/bin/true:main=ready", "-u", "mark:ready+1s",
			       "--", "true", NULL), OPTIONS_OK);
	assert_int_equal(o.until, UNTIL_MARK);
	assert_string_equal(o.until_mark, "ready");
	assert_int_equal(o.until_delay_ns, 1000000000ULL);
	marks__free(o.marks);
	assert_int_equal(parse(&o, "--mark", "uprobe:/bin/true:main=ready", "-u", "mark:other",
			       "--", "true", NULL), OPTIONS_USAGE);
	marks__free(o.marks);
}

/* --until end and exit are one phase, analyze's end; listen needs a syscall list that has it */
static void test_until_end_and_listen(void **state)
{
	struct options o;

	(void)state;
	assert_int_equal(parse(&o, "-u", "end", "--", "true", NULL), OPTIONS_OK);
	assert_int_equal(o.until, UNTIL_END);
	assert_string_equal(options_until_name(&o), "end");
	assert_int_equal(parse(&o, "-u", "exit", "--", "true", NULL), OPTIONS_OK);
	assert_int_equal(o.until, UNTIL_END);
	assert_string_equal(options_until_name(&o), "end");
	assert_int_equal(parse(&o, "-u", "end+1s", "--", "true", NULL), OPTIONS_OK);
	assert_int_equal(o.until_delay_ns, 1000000000ULL);
	assert_int_equal(parse(&o, "-u", "listen", "--", "true", NULL), OPTIONS_OK);
	assert_string_equal(options_until_name(&o), "listen");
	assert_int_equal(parse(&o, "-s", "none", "-u", "listen", "--", "true", NULL), OPTIONS_USAGE);
	assert_int_equal(parse(&o, "-s", "bind,accept", "-u", "listen", "--", "true", NULL),
			 OPTIONS_USAGE);
	/* a name that holds "listen" is not listen */
	assert_int_equal(parse(&o, "-s", "xlisten,listenx", "-u", "listen", "--", "true", NULL),
			 OPTIONS_USAGE);
	assert_int_equal(parse(&o, "-s", "bind,listen", "-u", "listen", "--", "true", NULL),
			 OPTIONS_OK);
	assert_int_equal(parse(&o, "-s", "listen", "-u", "listen+1s", "--", "true", NULL),
			 OPTIONS_OK);
	/* the other phases come without syscalls */
	assert_int_equal(parse(&o, "-s", "none", "-u", "exec", "--", "true", NULL), OPTIONS_OK);
	assert_int_equal(parse(&o, "-s", "none", "-u", "end", "--", "true", NULL), OPTIONS_OK);
}

/* --timeout: a boot's, spawn and client mode only */
static void test_timeout(void **state)
{
	struct options o;

	(void)state;
	assert_int_equal(parse(&o, "--timeout", "1.5s", "--", "true", NULL), OPTIONS_OK);
	assert_int_equal(o.timeout_ns, 1500000000ULL);
	assert_int_equal(parse(&o, "--timeout", "30", "-c", "/docker/*", "--", "docker", NULL),
			 OPTIONS_OK);
	assert_int_equal(o.timeout_ns, 30000000000ULL);
	assert_int_equal(parse(&o, "--timeout", "0", "--", "true", NULL), OPTIONS_USAGE);
	assert_int_equal(parse(&o, "--timeout", "soon", "--", "true", NULL), OPTIONS_USAGE);
	assert_int_equal(parse(&o, "--timeout", "5", NULL), OPTIONS_USAGE);	/* watch */
	assert_int_equal(parse(&o, "--timeout", "5", "-p", "1", NULL), OPTIONS_USAGE);
}

static void test_unshare(void **state)
{
	struct options o;

	(void)state;
	assert_int_equal(parse(&o, "--unshare", "pid,mount,net", "--", "true", NULL), OPTIONS_OK);
	assert_int_equal(o.unshare_flags, CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWNET);
	assert_int_equal(parse(&o, "--unshare", "uts,ipc", "--", "true", NULL), OPTIONS_OK);
	assert_int_equal(o.unshare_flags, CLONE_NEWUTS | CLONE_NEWIPC);
	assert_int_equal(parse(&o, "--unshare", "pid,user", "--", "true", NULL), OPTIONS_USAGE);
}

static void test_exclusions(void **state)
{
	struct options o;

	(void)state;
	/* spawn-only options without a command */
	assert_int_equal(parse(&o, "--runs", "3", NULL), OPTIONS_USAGE);
	assert_int_equal(parse(&o, "--name", "x", NULL), OPTIONS_USAGE);
	assert_int_equal(parse(&o, "--unshare", "pid", NULL), OPTIONS_USAGE);
	assert_int_equal(parse(&o, "--user", "nobody", NULL), OPTIONS_USAGE);
	assert_int_equal(parse(&o, "--pid", "1", "--", "true", NULL), OPTIONS_USAGE);
	assert_int_equal(parse(&o, "--root-exec", "runc*", NULL), OPTIONS_USAGE);
	assert_int_equal(parse(&o, "--mode", "pidtree", "--root-exec", "runc*", NULL), OPTIONS_OK);
	/* client mode: --cgroup with a command; spawn mode's --name, --unshare do not apply */
	assert_int_equal(parse(&o, "-c", "/docker/*", "--runs", "3", "--", "docker", "run", NULL),
			 OPTIONS_OK);
	assert_string_equal(o.cgroup_glob, "/docker/*");
	assert_int_equal(o.runs, 3);
	assert_int_equal(parse(&o, "-c", "/docker/*", "--name", "x", "--", "docker", NULL), OPTIONS_USAGE);
	assert_int_equal(parse(&o, "-c", "/d/*", "--unshare", "pid", "--", "docker", NULL), OPTIONS_USAGE);
	assert_int_equal(parse(&o, "--runs", "0", "--", "true", NULL), OPTIONS_USAGE);
	assert_int_equal(parse(&o, "--runs", "100001", "--", "true", NULL), OPTIONS_USAGE);
	assert_int_equal(parse(&o, "--ringbuf-mb", "3", NULL), OPTIONS_USAGE);
	assert_int_equal(parse(&o, "--ringbuf-mb", "64", NULL), OPTIONS_OK);
	assert_int_equal(o.ringbuf_mb, 64);
	assert_int_equal(parse(&o, "--mode", "fast", NULL), OPTIONS_USAGE);
	assert_int_equal(parse(&o, "--object", "new", NULL), OPTIONS_USAGE);
	assert_int_equal(parse(&o, "--pid", "12x", NULL), OPTIONS_USAGE);
}

static void test_command_and_defaults(void **state)
{
	struct options o;

	(void)state;
	assert_int_equal(parse(&o, "-o", "x.tsv", "--", "sh", "-c", "exit 3", NULL), OPTIONS_OK);
	assert_string_equal(o.output, "x.tsv");
	assert_non_null(o.command);
	assert_string_equal(o.command[0], "sh");
	assert_string_equal(o.command[2], "exit 3");
	assert_string_equal(o.mode, "auto");
	assert_string_equal(o.object, "auto");
	assert_string_equal(o.syscalls, "all");
	assert_int_equal(o.runs, 1);
	assert_int_equal(o.until, UNTIL_END);
	/* options after the command are the command's ("+" in the getopt string) */
	assert_int_equal(parse(&o, "true", "-d", "bogus", NULL), OPTIONS_OK);
	assert_string_equal(o.command[1], "-d");
	assert_int_equal(o.duration_ns, 0);
}

/* --sched: on by default, off, host (host rows all the time); nothing else. */
static void test_sched(void **state)
{
	struct options o;

	(void)state;
	assert_int_equal(parse(&o, NULL), OPTIONS_OK);
	assert_int_equal(o.sched, SCHED_ON);
	assert_int_equal(parse(&o, "--sched", "off", NULL), OPTIONS_OK);
	assert_int_equal(o.sched, SCHED_OFF);
	assert_int_equal(parse(&o, "--sched", "host", NULL), OPTIONS_OK);
	assert_int_equal(o.sched, SCHED_HOST);
	assert_int_equal(parse(&o, "--sched", "host", "-c", "/docker/*", "--", "docker", NULL),
			 OPTIONS_OK);
	assert_int_equal(o.sched, SCHED_HOST);
	assert_int_equal(parse(&o, "--sched", "hosts", NULL), OPTIONS_USAGE);
	assert_int_equal(parse(&o, "--sched", "", NULL), OPTIONS_USAGE);
	/* --offcpu-stacks: by the mode by default (-1: collector/main.c) */
	assert_int_equal(parse(&o, NULL), OPTIONS_OK);
	assert_int_equal(o.offcpu_stacks, -1);
	assert_int_equal(parse(&o, "--offcpu-stacks", "off", NULL), OPTIONS_OK);
	assert_int_equal(o.offcpu_stacks, 0);
	assert_int_equal(parse(&o, "--offcpu-stacks", "on", NULL), OPTIONS_OK);
	assert_int_equal(o.offcpu_stacks, 1);
	assert_int_equal(parse(&o, "--offcpu-stacks", "yes", NULL), OPTIONS_USAGE);
}

/* --profile-unwind and --profile-stack: the default is auto with 16 KiB */
static void test_profile_unwind(void **state)
{
	struct options o;

	(void)state;
	assert_int_equal(parse(&o, "--profile", NULL), OPTIONS_OK);
	assert_int_equal(o.profile_unwind, PROFILE_UNWIND_AUTO);
	assert_int_equal(o.profile_stack, 16384);
	assert_int_equal(parse(&o, "--profile-unwind", "fp", NULL), OPTIONS_OK);
	assert_int_equal(o.profile_unwind, PROFILE_UNWIND_FP);
	assert_int_equal(parse(&o, "--profile-unwind=dwarf", "--profile-stack=32K", NULL), OPTIONS_OK);
	assert_int_equal(o.profile_unwind, PROFILE_UNWIND_DWARF);
	assert_int_equal(o.profile_stack, 32768);
	assert_int_equal(parse(&o, "--profile-stack", "65536", NULL), OPTIONS_OK);
	assert_int_equal(o.profile_stack, 65536);
	assert_int_equal(parse(&o, "--profile-stack", "1024", NULL), OPTIONS_OK);
	assert_int_equal(parse(&o, "--profile-stack", "1023", NULL), OPTIONS_USAGE);
	assert_int_equal(parse(&o, "--profile-stack", "65537", NULL), OPTIONS_USAGE);
	assert_int_equal(parse(&o, "--profile-stack", "65K", NULL), OPTIONS_USAGE);
	assert_int_equal(parse(&o, "--profile-stack", "16KB", NULL), OPTIONS_USAGE);
	assert_int_equal(parse(&o, "--profile-stack", "-1", NULL), OPTIONS_USAGE);
	assert_int_equal(parse(&o, "--profile-unwind", "lbr", NULL), OPTIONS_USAGE);
}

/* --metrics, --metrics-label, --rotate: their values and what they need */
static void test_service_options(void **state)
{
	struct options o;

	(void)state;
	assert_int_equal(parse(&o, "--metrics", "9432", NULL), OPTIONS_OK);
	assert_string_equal(o.metrics, "9432");
	assert_int_equal(parse(&o, "--metrics", "[::]:9432", "--metrics-label", "entrypoint", NULL),
			 OPTIONS_OK);
	assert_int_equal(o.metrics_labels, 1);
	assert_int_equal(parse(&o, "--metrics", ":9432", NULL), OPTIONS_USAGE);
	assert_int_equal(parse(&o, "--metrics", "host:9432", NULL), OPTIONS_USAGE);
	assert_int_equal(parse(&o, "--metrics-label", "entrypoint", NULL), OPTIONS_USAGE);
	assert_int_equal(parse(&o, "--metrics", "1", "--metrics-label", "container", NULL), OPTIONS_USAGE);
	assert_int_equal(parse(&o, "-o", "x.tsv", "--rotate", "100M", NULL), OPTIONS_OK);
	assert_int_equal(o.rotate_bytes, 100ULL << 20);
	assert_int_equal(parse(&o, "-o", "x.tsv", "--rotate", "64k", NULL), OPTIONS_OK);
	assert_int_equal(o.rotate_bytes, 65536);
	assert_int_equal(parse(&o, "-o", "x.tsv", "--rotate", "2G", NULL), OPTIONS_OK);
	assert_int_equal(o.rotate_bytes, 2ULL << 30);
	assert_int_equal(parse(&o, "-o", "x.tsv", "--rotate", "1000000", NULL), OPTIONS_OK);
	assert_int_equal(o.rotate_bytes, 1000000);
	assert_int_equal(parse(&o, "-o", "x.tsv", "--rotate", "65535", NULL), OPTIONS_USAGE);
	assert_int_equal(parse(&o, "-o", "x.tsv", "--rotate", "1MB", NULL), OPTIONS_USAGE);
	assert_int_equal(parse(&o, "-o", "x.tsv", "--rotate", "-1M", NULL), OPTIONS_USAGE);
	assert_int_equal(parse(&o, "-o", "x.tsv", "--rotate", "99999999999G", NULL), OPTIONS_USAGE);
	assert_int_equal(parse(&o, "--rotate", "1M", NULL), OPTIONS_USAGE);	/* stdout */
	assert_int_equal(parse(&o, "-o", "-", "--rotate", "1M", NULL), OPTIONS_USAGE);
}

static void test_long_names(void **state)
{
	const char *const *names = options_long_names();
	size_t n = 0;
	int until = 0, help = 0;

	(void)state;
	for (; names[n]; n++) {
		until |= strcmp(names[n], "until") == 0;
		help |= strcmp(names[n], "help") == 0;
	}
	assert_true(n >= 19);
	assert_true(until && help);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_durations),
		cmocka_unit_test(test_duration_option),
		cmocka_unit_test(test_until),
		cmocka_unit_test(test_until_end_and_listen),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_unshare),
		cmocka_unit_test(test_exclusions),
		cmocka_unit_test(test_command_and_defaults),
		cmocka_unit_test(test_service_options),
		cmocka_unit_test(test_sched),
		cmocka_unit_test(test_profile_unwind),
		cmocka_unit_test(test_long_names),
	};

	return cmocka_run_group_tests_name("collector_options", tests, NULL, NULL);
}
