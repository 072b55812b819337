// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: analyze/boot/analysis.c (phases per container, minimums over unordered
 * rows, listen by a child, --exec, --container, orphans) and the gnuplot
 * string sanitizer of analyze/out/plot.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "analyze/boot/analysis.h"
#include "common/entrypoint.h"
#include "analyze/out/plot.h"

#define HEAD "# boottrace-tsv 1\n# mode=pidtree\n" TSV_HEADER "\n"
#define R(ts, c, pid, ev, name, ret, dur, detail) \
	ts "\t" c "\t\\N\t" pid "\t" pid "\t1\tcomm\t" ev "\t" name "\t" ret "\t" dur "\t" detail "\n"

static struct analysis *load(const char *tsv, const struct analyze_opts *o, int *rc)
{
	char path[] = "/tmp/test_analyze_phases.XXXXXX";
	int fd = mkstemp(path);
	struct analysis *a;
	FILE *err = fopen("/dev/null", "w");

	assert_true(fd >= 0);
	assert_int_equal(write(fd, tsv, strlen(tsv)), (ssize_t)strlen(tsv));
	close(fd);
	a = analysis__new(o);
	assert_non_null(a);
	*rc = analysis_read(a, path, err);
	analysis_finish(a);
	unlink(path);
	fclose(err);
	return a;
}

static const char sample[] = HEAD
	/* c1: two start rows (the smaller counts), exec rows out of order,
	 * a failed listen before the good one, by a child */
	R("1100", "c1", "10", "start", "mkdir", "\\N", "\\N", "\\N")
	R("1000", "c1", "10", "start", "mkdir", "\\N", "\\N", "\\N")
	R("1500", "c1", "10", "exec", "\\N", "\\N", "\\N", "/bin/ruby")
	R("1400", "c1", "10", "exec", "\\N", "\\N", "\\N", "/bin/sh")
	R("1900", "c1", "11", "syscall", "listen", "-98", "10", "0.0.0.0:80")
	R("2000", "c1", "11", "syscall", "listen", "0", "50", "0.0.0.0:80")
	R("3000", "c1", "11", "mark", "ready", "\\N", "\\N", "\\N")
	R("2900", "c1", "11", "mark", "ready", "\\N", "\\N", "\\N")
	/* c2: no listen; a mark label of its own */
	R("5000", "c2", "20", "start", "spawn", "\\N", "\\N", "\\N")
	R("5300", "c2", "20", "exec", "\\N", "\\N", "\\N", "/bin/ruby")
	R("5400", "c2", "20", "mark", "warm", "\\N", "\\N", "\\N")
	/* orphan: rows but no start row */
	R("100", "orphan", "30", "exec", "\\N", "\\N", "\\N", "/bin/x")
	R("200", "orphan", "30", "syscall", "read", "5", "7", "\\N")
	"# lost=0 events=13\n";

static void test_phases(void **state)
{
	struct analyze_opts o = { .by = BY_NONE };
	struct analysis *a;
	int rc;

	(void)state;
	a = load(sample, &o, &rc);
	assert_int_equal(rc, 0);
	assert_int_equal(a->ncontainers, 2);
	assert_int_equal(analysis_nphases(a), 4);
	assert_string_equal(analysis_phase_name(a, 2), "ready");
	assert_string_equal(analysis_phase_name(a, 3), "warm");
	/* exec: c1 1400-1000 = 400, c2 300 */
	assert_int_equal(a->phases[PHASE_EXEC].n, 2);
	assert_int_equal(a->phases[PHASE_EXEC].v[0], 300);
	assert_int_equal(a->phases[PHASE_EXEC].v[1], 400);
	/* listen: c1 2000 + 50 - 1000 = 1050 (the failed one ignored) */
	assert_int_equal(a->phases[PHASE_LISTEN].n, 1);
	assert_int_equal(a->phases[PHASE_LISTEN].v[0], 1050);
	/* ready: the smaller mark, 2900 - 1000 */
	assert_int_equal(a->phases[2].n, 1);
	assert_int_equal(a->phases[2].v[0], 1900);
	assert_int_equal(a->phases[3].v[0], 400);
	assert_int_equal(a->orphan_rows, 2);
	assert_int_equal(a->orphan_ctrs, 1);
	analysis__free(a);
}

static void test_exec_pattern(void **state)
{
	struct analyze_opts o = { .by = BY_NONE, .exec_pattern = "/bin/ru*" };
	struct analysis *a;
	int rc;

	(void)state;
	a = load(sample, &o, &rc);
	assert_int_equal(a->phases[PHASE_EXEC].v[1], 500); /* c1: 1500 - 1000 */
	analysis__free(a);
	o.exec_pattern = "/bin/sh"; /* a plain path matches itself */
	a = load(sample, &o, &rc);
	assert_int_equal(a->phases[PHASE_EXEC].n, 1);
	assert_int_equal(a->phases[PHASE_EXEC].v[0], 400);
	analysis__free(a);
}

static void test_container_glob_and_by(void **state)
{
	struct analyze_opts o = { .by = BY_SYSCALL, .container_glob = "c1" };
	struct analysis *a;
	struct group_ref *r;
	size_t n;
	int rc;

	(void)state;
	a = load(sample, &o, &rc);
	assert_int_equal(a->ncontainers, 1);
	n = analysis_groups(&a->sys, &r);
	assert_int_equal(n, 1);
	assert_string_equal(r[0].key, "listen");
	assert_int_equal(r[0].g->calls, 2);
	assert_int_equal(r[0].g->errors, 1);
	assert_true(r[0].g->total == 60);
	assert_int_equal(group_percentile(r[0].g, 99), 50);
	free(r);
	analysis__free(a);
}

static void test_malformed_exit_code(void **state)
{
	struct analyze_opts o = { .by = BY_NONE };
	struct analysis *a;
	int rc;

	(void)state;
	a = load(HEAD "1\tc\n", &o, &rc);
	assert_int_equal(rc, 2);
	analysis__free(a);
	o.reader_flags = TSV_LENIENT;
	a = load(HEAD "1\tc\n", &o, &rc);
	assert_int_equal(rc, 0);
	assert_int_equal(a->skipped, 1);
	analysis__free(a);
	a = analysis__new(&o);
	assert_int_equal(analysis_read(a, "/nonexistent/x.tsv", fopen("/dev/null", "w")), 1);
	analysis__free(a);
}

static void test_sanitize(void **state)
{
	char out[64];

	(void)state;
	plot_sanitize("web-1", 5, out, sizeof(out));
	assert_string_equal(out, "web-1");
	plot_sanitize("x\"; system(\"touch pwned\"); \"", 28, out, sizeof(out));
	assert_string_equal(out, "x?? system(?touch pwned?)? ?");
	plot_sanitize("`touch pwned2`", 14, out, sizeof(out));
	assert_string_equal(out, "?touch pwned2?");
	plot_sanitize("a'b\nc\\d@e#f$g{h}^_&", 19, out, sizeof(out));
	assert_string_equal(out, "a?b?c?d?e?f?g?h??_?");
	plot_sanitize("runc:[2:INIT]", 13, out, sizeof(out));	/* runc's comms read as they are */
	assert_string_equal(out, "runc:[2:INIT]");
	plot_sanitize("x\0y", 3, out, sizeof(out));
	assert_string_equal(out, "x?y");
	plot_sanitize("abcdef", 6, out, 4); /* cut short, terminated */
	assert_string_equal(out, "abc");
	/* UTF-8 bytes are not on the list either */
	plot_sanitize("caf\xc3\xa9", 5, out, sizeof(out));
	assert_string_equal(out, "caf??");
}

/*
 * The exec phase is the entrypoint's: runc's re-execs of itself (in the
 * cgroup or not: a race) and busybox's applet re-execs are not; an exec
 * the collector marked init wins; --exec overrides both.
 */
static const char runtimes[] = HEAD
	/* docker: runc's two re-execs landed in the cgroup, then the entrypoint
	 * as pid 1 of the container's namespace, then busybox's applets */
	R("1000", "docker-1", "10", "start", "mkdir", "\\N", "\\N", "/docker/1")
	R("1100", "docker-1", "11", "exec", "\\N", "\\N", "\\N", "/proc/self/exe")
	R("1200", "docker-1", "11", "exec", "\\N", "\\N", "\\N", "/dev/fd/6")
	R("1900", "docker-1", "12", "exec", "init", "\\N", "\\N", "/bin/sh")
	R("1950", "docker-1", "13", "exec", "\\N", "\\N", "\\N", "/proc/self/exe")
	/* an older file (no init): the first exec that is not the runtime's */
	R("5000", "old-2", "20", "start", "mkdir", "\\N", "\\N", "/docker/2")
	R("5100", "old-2", "21", "exec", "\\N", "\\N", "\\N", "/proc/self/fd/5")
	R("5150", "old-2", "21", "exec", "\\N", "\\N", "\\N", "/usr/sbin/runc")
	R("5600", "old-2", "22", "exec", "\\N", "\\N", "\\N", "/bin/sh")
	R("5700", "old-2", "23", "exec", "\\N", "\\N", "\\N", "/proc/self/exe")
	/* init wins over an earlier exec that is no runtime's (a hook, say) */
	R("9000", "hook-3", "30", "start", "mkdir", "\\N", "\\N", "/p/3")
	R("9100", "hook-3", "31", "exec", "\\N", "\\N", "\\N", "/usr/bin/true")
	R("9400", "hook-3", "32", "exec", "init", "\\N", "\\N", "/app/server")
	"# lost=0 events=13\n";

static void test_entrypoint_exec(void **state)
{
	struct analyze_opts o = { .by = BY_NONE };
	struct analysis *a;
	int rc;

	(void)state;
	a = load(runtimes, &o, &rc);
	assert_int_equal(rc, 0);
	assert_int_equal(a->phases[PHASE_EXEC].n, 3);
	/* sorted: old-2 600, docker-1 900, hook-3 400 → 400 600 900 */
	assert_int_equal(a->phases[PHASE_EXEC].v[0], 400);
	assert_int_equal(a->phases[PHASE_EXEC].v[1], 600);
	assert_int_equal(a->phases[PHASE_EXEC].v[2], 900);
	analysis__free(a);
	/* --exec: the first match, init or not */
	o.exec_pattern = "/proc/self/*";
	a = load(runtimes, &o, &rc);
	assert_int_equal(rc, 0);
	assert_int_equal(a->phases[PHASE_EXEC].n, 2);
	assert_int_equal(a->phases[PHASE_EXEC].v[0], 100);	/* docker-1 */
	assert_int_equal(a->phases[PHASE_EXEC].v[1], 100);	/* old-2 */
	analysis__free(a);
}

static void test_runtime_execs(void **state)
{
	(void)state;
#define RT(s) entrypoint_is_runtime(s, strlen(s))
	assert_true(RT("/proc/self/exe"));
	assert_true(RT("/dev/fd/6"));
	assert_true(RT("/proc/self/fd/12"));
	assert_true(RT("/usr/bin/runc"));
	assert_true(RT("runc"));
	assert_true(RT("/usr/bin/crun"));
	assert_true(RT("/usr/bin/conmon"));
	assert_true(RT("/usr/bin/containerd-shim-runc-v2"));
	assert_false(RT("/dev/fd/"));
	assert_false(RT("/dev/fd/6x"));
	assert_false(RT("/proc/self/exe2"));
	assert_false(RT("/bin/sh"));
	assert_false(RT("/usr/bin/runc2"));
	assert_false(RT("/opt/myrunc"));
	assert_false(RT("/sbin/docker-init"));	/* tini: the container's own pid 1 */
	assert_false(RT(""));
#undef RT
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_phases),
		cmocka_unit_test(test_exec_pattern),
		cmocka_unit_test(test_container_glob_and_by),
		cmocka_unit_test(test_malformed_exit_code),
		cmocka_unit_test(test_sanitize),
		cmocka_unit_test(test_entrypoint_exec),
		cmocka_unit_test(test_runtime_execs),
	};

	return cmocka_run_group_tests_name("analyze_phases", tests, NULL, NULL);
}
