// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: the files of one collector run (analyze/read/runs.c puts them in
 * order of their `# part=`; analyze/boot/analysis.c joins a container
 * whose rows straddle them): a boot cut by two rotations is one boot with
 * every phase; a name given again after its container ended is another
 * boot; a container that never ends is timed at the end; rows of no
 * carried container are orphans; files of another run or of none are not
 * joined.
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
#include "analyze/read/runs.h"
#include "common/tsv.h"

#define HEAD(run, part) "# boottrace-tsv 1\n# mode=cgroup\n" run part TSV_HEADER "\n"
#define RUN(id) "# run_id=" id "\n"
#define PART(n) "# part=" n "\n"
#define R(ts, c, ev, name, ret, dur, detail) \
	ts "\t" c "\t7\t10\t10\t1\tcomm\t" ev "\t" name "\t" ret "\t" dur "\t" detail "\n"
#define TRAILER "# lost=0 events=1\n"

static const char part1[] = HEAD(RUN("abc"), PART("1"))
	R("1000", "long", "start", "mkdir", "\\N", "\\N", "/p/long")
	R("1100", "long", "exec", "\\N", "\\N", "\\N", "/bin/srv")
	R("2000", "short", "start", "mkdir", "\\N", "\\N", "/p/short")
	R("2050", "short", "exec", "\\N", "\\N", "\\N", "/bin/x")
	R("2100", "short", "end", "\\N", "\\N", "\\N", "\\N")
	R("3000", "re", "start", "mkdir", "\\N", "\\N", "/p/re")
	R("3010", "re", "exec", "\\N", "\\N", "\\N", "/bin/re")
	R("3020", "re", "end", "\\N", "\\N", "\\N", "\\N")
	TRAILER;
static const char part2[] = HEAD(RUN("abc"), PART("2"))
	R("4000", "long", "syscall", "listen", "0", "100", "0.0.0.0:80")
	R("5000", "re", "start", "mkdir", "\\N", "\\N", "/p/re")
	R("5100", "re", "exec", "\\N", "\\N", "\\N", "/bin/re")
	R("6000", "cont", "start", "mkdir", "\\N", "\\N", "/p/cont")
	R("6500", "cont", "exec", "\\N", "\\N", "\\N", "/bin/cont")
	R("6600", "stranger", "syscall", "read", "1", "5", "\\N")
	TRAILER;
static const char part3[] = HEAD(RUN("abc"), PART("3"))
	R("7000", "long", "mark", "ready", "\\N", "\\N", "usdt")
	R("7100", "re", "syscall", "listen", "0", "0", "0.0.0.0:81")
	R("7200", "long", "end", "\\N", "\\N", "\\N", "\\N")
	R("7300", "cont", "syscall", "listen", "0", "300", "0.0.0.0:82")
	TRAILER;
/* another run: a container of the same name is not joined */
static const char other[] = HEAD(RUN("xyz"), PART("2"))
	R("9000", "long", "syscall", "listen", "0", "1", "0.0.0.0:80")
	TRAILER;

static char paths[5][64];

static const char *put(int i, const char *text)
{
	int fd;

	snprintf(paths[i], sizeof(paths[i]), "/tmp/test_analyze_runs.%d.XXXXXX", i);
	fd = mkstemp(paths[i]);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return paths[i];
}

static struct analysis *read_files(char **files, int n, const char *exec_pattern)
{
	struct analyze_opts o = { .by = BY_NONE, .exec_pattern = exec_pattern };
	struct analysis *a = analysis__new(&o);
	FILE *err = fopen("/dev/null", "w");
	int i;

	assert_non_null(a);
	for (i = 0; i < n; i++)
		assert_int_equal(analysis_read(a, files[i], err), 0);
	assert_int_equal(analysis_finish(a), 0);
	fclose(err);
	return a;
}

/* The value of phase @ph of the @k-th timed container named @name, or -1. */
static int64_t phase_of(const struct analysis *a, const char *name, int k, uint32_t ph)
{
	size_t i, j, len;

	for (i = 0; i < a->nctrs; i++) {
		const char *s = strtab_str(a->ctr_names, a->ctrs[i].name, &len);

		if (len != strlen(name) || memcmp(s, name, len) || k--)
			continue;
		for (j = 0; j < a->ctrs[i].n; j++)
			if (a->cphases[a->ctrs[i].first + j].phase == ph)
				return a->cphases[a->ctrs[i].first + j].v;
		return -1;
	}
	return -2;
}

static void test_order(void **state)
{
	char *files[6];

	(void)state;
	/* as a shell's glob gives them, with one of another run and stdin between */
	files[0] = (char *)put(2, part3);
	files[1] = (char *)put(3, other);
	files[2] = "-";
	files[3] = (char *)put(0, part1);
	files[4] = (char *)put(1, part2);
	files[5] = "/nonexistent/x.tsv";
	runs_order(files, 6);
	/* run abc at its first file's place, by part; the others keep theirs */
	assert_string_equal(files[0], paths[0]);
	assert_string_equal(files[1], paths[1]);
	assert_string_equal(files[2], paths[2]);
	assert_string_equal(files[3], paths[3]);
	assert_string_equal(files[4], "-");
	assert_string_equal(files[5], "/nonexistent/x.tsv");
	unlink(paths[0]);
	unlink(paths[1]);
	unlink(paths[2]);
	unlink(paths[3]);
}

static void test_join(void **state)
{
	char *files[4];
	struct analysis *a;
	uint32_t ready;

	(void)state;
	files[0] = (char *)put(0, part1);
	files[1] = (char *)put(1, part2);
	files[2] = (char *)put(2, part3);
	files[3] = (char *)put(3, other);
	a = read_files(files, 4, NULL);
	/* long, short, re, re, cont; the stranger and the other run's long are orphans */
	assert_int_equal(a->ncontainers, 5);
	assert_int_equal(a->orphan_ctrs, 2);
	ready = (uint32_t)strtab_find(a->phase_names, "ready", 5);
	/* long: exec in part 1, listen in part 2, its mark in part 3 */
	assert_int_equal(phase_of(a, "long", 0, PHASE_EXEC), 100);
	assert_int_equal(phase_of(a, "long", 0, PHASE_LISTEN), 3100);
	assert_int_equal(phase_of(a, "long", 0, ready), 6000);
	assert_int_equal(phase_of(a, "short", 0, PHASE_EXEC), 50);
	/* re: ended in part 1; the re of part 2 is another boot, its listen in part 3 */
	assert_int_equal(phase_of(a, "re", 0, PHASE_EXEC), 10);
	assert_int_equal(phase_of(a, "re", 0, PHASE_LISTEN), -1);
	assert_int_equal(phase_of(a, "re", 1, PHASE_EXEC), 100);
	assert_int_equal(phase_of(a, "re", 1, PHASE_LISTEN), 2100);
	/* cont never ends: timed when the run's files are done */
	assert_int_equal(phase_of(a, "cont", 0, PHASE_LISTEN), 1600);
	assert_int_equal(a->phases[PHASE_LISTEN].n, 3);
	analysis__free(a);

	/* parts 1 and 2: the run's first files, joined; re's second boot has no listen yet */
	a = read_files(files, 2, NULL);
	assert_int_equal(a->ncontainers, 5);
	assert_int_equal(phase_of(a, "long", 0, PHASE_LISTEN), 3100);
	assert_int_equal(a->phases[PHASE_LISTEN].n, 1);
	analysis__free(a);
	a = read_files(files + 1, 2, NULL);
	assert_int_equal(phase_of(a, "long", 0, PHASE_LISTEN), -2);	/* no start row: not timed */
	assert_int_equal(a->orphan_ctrs, 3);	/* long in each file, the stranger */
	analysis__free(a);
	for (int i = 0; i < 4; i++)
		unlink(paths[i]);
}

/* The same parts without a run id: each file alone, as before runs. */
static void test_no_run(void **state)
{
	static const char p1[] = HEAD("", "")
		R("1000", "long", "start", "mkdir", "\\N", "\\N", "/p/long")
		R("1100", "long", "exec", "\\N", "\\N", "\\N", "/bin/srv")
		TRAILER;
	static const char p2[] = HEAD("", "")
		R("4000", "long", "syscall", "listen", "0", "100", "0.0.0.0:80")
		TRAILER;
	char *files[2];
	struct analysis *a;

	(void)state;
	files[0] = (char *)put(0, p1);
	files[1] = (char *)put(1, p2);
	a = read_files(files, 2, NULL);
	assert_int_equal(a->ncontainers, 1);
	assert_int_equal(a->orphan_ctrs, 1);
	assert_int_equal(a->phases[PHASE_LISTEN].n, 0);
	analysis__free(a);
	unlink(paths[0]);
	unlink(paths[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_join),
		cmocka_unit_test(test_no_run),
	};

	return cmocka_run_group_tests_name("analyze_runs", tests, NULL, NULL);
}
