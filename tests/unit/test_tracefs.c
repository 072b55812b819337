// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: collector/kernel/tracefs.c: tracepoint format files as the legacy
 * object needs them: the 6.16 sched_process_fork layout (__data_loc
 * comms) next to the 4.15 one (char arrays), __data_loc fields, and the
 * errors: no ID, no fields, a malformed field line, a missing file. Then
 * uprobe_events as the legacy object's marks use it, on a plain file in a
 * temporary directory standing in for tracefs: the lines written, event
 * ids, the lines listed, and which groups count as left by a dead collector.
 */
#include <errno.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "collector/kernel/tracefs.h"

#define COMMON \
	"format:\n" \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n" \
	"\n"

/* Linux 6.16+ (what this machine's 6.18 has) */
static const char fork_616[] =
	"name: sched_process_fork\n"
	"ID: 366\n"
	COMMON
	"\tfield:__data_loc char[] parent_comm;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:pid_t parent_pid;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:__data_loc char[] child_comm;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:pid_t child_pid;\toffset:20;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"comm=%s pid=%d child_comm=%s child_pid=%d\", __get_str(parent_comm), "
	"REC->parent_pid, __get_str(child_comm), REC->child_pid\n";

/* Linux 4.15 */
static const char fork_415[] =
	"name: sched_process_fork\n"
	"ID: 290\n"
	COMMON
	"\tfield:char parent_comm[16];\toffset:8;\tsize:16;\tsigned:1;\n"
	"\tfield:pid_t parent_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:char child_comm[16];\toffset:28;\tsize:16;\tsigned:1;\n"
	"\tfield:pid_t child_pid;\toffset:44;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"comm=%s pid=%d child_comm=%s child_pid=%d\", REC->parent_comm, "
	"REC->parent_pid, REC->child_comm, REC->child_pid\n";

static const char sys_enter[] =
	"name: sys_enter\n"
	"ID: 443\n"
	COMMON
	"\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield:unsigned long args[6];\toffset:16;\tsize:48;\tsigned:0;\n"
	"\n"
	"print fmt: \"NR %ld (%lx, %lx, %lx, %lx, %lx, %lx)\", REC->id, REC->args[0]\n";

static const char exec_fmt[] =
	"name: sched_process_exec\n"
	"ID: 365\n"
	COMMON
	"\tfield:__data_loc char[] filename;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:pid_t old_pid;\toffset:16;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"filename=%s pid=%d old_pid=%d\", __get_str(filename), REC->pid, REC->old_pid\n";

static struct tracefs_format fmt;

static const struct tracefs_field *field(const char *name)
{
	const struct tracefs_field *f = tracefs_field(&fmt, name);

	assert_non_null(f);
	return f;
}

static void test_fork_616(void **state)
{
	const struct tracefs_field *f;

	(void)state;
	assert_int_equal(tracefs_parse_format(fork_616, &fmt, NULL), 0);
	assert_string_equal(fmt.name, "sched_process_fork");
	assert_int_equal(fmt.id, 366);
	assert_int_equal(fmt.nfields, 8);
	f = field("child_pid");
	assert_int_equal(f->offset, 20);
	assert_int_equal(f->size, 4);
	assert_int_equal(f->is_signed, 1);
	assert_int_equal(f->loc, TRACEFS_PLAIN);
	assert_string_equal(f->type, "pid_t");
	f = field("parent_comm");
	assert_int_equal(f->loc, TRACEFS_DATA_LOC);
	assert_int_equal(f->offset, 8);
	assert_int_equal(f->size, 4);
	assert_string_equal(f->type, "__data_loc char[]");
	assert_int_equal(field("parent_pid")->offset, 12);
}

static void test_fork_415(void **state)
{
	const struct tracefs_field *f;

	(void)state;
	assert_int_equal(tracefs_parse_format(fork_415, &fmt, NULL), 0);
	assert_int_equal(fmt.id, 290);
	/* the same field, elsewhere: why offsets come from tracefs */
	assert_int_equal(field("child_pid")->offset, 44);
	f = field("child_comm");
	assert_int_equal(f->loc, TRACEFS_PLAIN);
	assert_int_equal(f->size, 16);
	assert_string_equal(f->type, "char");
	assert_int_equal(field("common_pid")->offset, 4);
}

static void test_arrays_and_data_loc(void **state)
{
	const struct tracefs_field *f;

	(void)state;
	assert_int_equal(tracefs_parse_format(sys_enter, &fmt, NULL), 0);
	f = field("args");
	assert_int_equal(f->offset, 16);
	assert_int_equal(f->size, 48);
	assert_int_equal(f->is_signed, 0);
	assert_string_equal(f->type, "unsigned long");
	assert_int_equal(field("id")->size, 8);
	assert_null(tracefs_field(&fmt, "ret"));
	/* print fmt mentions REC->args: not a field */
	assert_int_equal(fmt.nfields, 6);

	assert_int_equal(tracefs_parse_format(exec_fmt, &fmt, NULL), 0);
	f = field("filename");
	assert_int_equal(f->loc, TRACEFS_DATA_LOC);
	assert_int_equal(f->offset, 8);
	assert_int_equal(field("old_pid")->offset, 16);
}

static void test_rel_loc_and_pointers(void **state)
{
	static const char text[] =
		"ID: 7\n"
		"\tfield:__rel_loc char[] name;\toffset:8;\tsize:4;\tsigned:0;\n"
		"\tfield:int * parent_tidptr;\toffset:16;\tsize:8;\tsigned:0;\n"
		"\tfield:const char * msg;\toffset:24;\tsize:8;\tsigned:0;\n";

	(void)state;
	assert_int_equal(tracefs_parse_format(text, &fmt, NULL), 0);
	assert_int_equal(field("name")->loc, TRACEFS_REL_LOC);
	assert_string_equal(field("parent_tidptr")->type, "int *");
	assert_string_equal(field("msg")->type, "const char *");
	assert_int_equal(field("msg")->offset, 24);
	assert_string_equal(fmt.name, "");
}

static void test_errors(void **state)
{
	int line = -1;

	(void)state;
	/* no ID */
	assert_int_equal(tracefs_parse_format("format:\n\tfield:int x;\toffset:8;\tsize:4;\tsigned:1;\n",
					      &fmt, &line), -EINVAL);
	/* no fields */
	assert_int_equal(tracefs_parse_format("name: x\nID: 3\nformat:\n\nprint fmt: \"\"\n", &fmt, &line),
			 -EINVAL);
	assert_int_equal(tracefs_parse_format("", &fmt, NULL), -EINVAL);
	/* field lines without offset, size, name, or with a bad number */
	line = 0;
	assert_int_equal(tracefs_parse_format("ID: 3\n\tfield:int x;\tsize:4;\n", &fmt, &line), -EINVAL);
	assert_int_equal(line, 2);
	assert_int_equal(tracefs_parse_format("ID: 3\n\tfield:int x;\toffset:8;\n", &fmt, &line), -EINVAL);
	assert_int_equal(tracefs_parse_format("ID: 3\n\tfield:;\toffset:8;\tsize:4;\n", &fmt, &line), -EINVAL);
	assert_int_equal(tracefs_parse_format("ID: 3\n\tfield:int x;\toffset:8z;\tsize:4;\n", &fmt, &line),
			 -EINVAL);
	assert_int_equal(tracefs_parse_format("ID: 3\n\tfield:int x\n", &fmt, &line), -EINVAL);
	assert_int_equal(tracefs_parse_format("ID: x3\n\tfield:int x;\toffset:8;\tsize:4;\n", &fmt, &line),
			 -EINVAL);
	assert_int_equal(line, 1);
}

static void test_too_many_fields(void **state)
{
	char *text = malloc(100 * 64 + 32), *p;
	int i, line = 0;

	(void)state;
	assert_non_null(text);
	p = text + sprintf(text, "ID: 1\n");
	for (i = 0; i <= TRACEFS_MAX_FIELDS; i++)
		p += sprintf(p, "\tfield:int f%d;\toffset:%d;\tsize:4;\tsigned:1;\n", i, 8 + 4 * i);
	assert_int_equal(tracefs_parse_format(text, &fmt, &line), -E2BIG);
	assert_int_equal(line, TRACEFS_MAX_FIELDS + 2);
	free(text);
}

static void test_missing_file(void **state)
{
	(void)state;
	/* says "tracepoint ... missing" on stderr */
	assert_int_equal(tracefs_read_format("/nonexistent-tracefs", "sched/sched_process_fork", &fmt),
			 -ENOENT);
}

/* Write @text to @dir/@rel, making the directories on the way. */
static void put_file(const char *dir, const char *rel, const char *text)
{
	char path[512];
	const char *slash;
	FILE *f;

	for (slash = strchr(rel, '/'); slash; slash = strchr(slash + 1, '/')) {
		snprintf(path, sizeof(path), "%s/%.*s", dir, (int)(slash - rel), rel);
		assert_true(mkdir(path, 0700) == 0 || errno == EEXIST);
	}
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* rm -r @dir */
static void rm_tree(const char *dir)
{
	assert_int_equal(nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS), 0);
}

static void test_read_file(void **state)
{
	char dir[] = "/tmp/test_tracefs.XXXXXX";

	(void)state;
	assert_non_null(mkdtemp(dir));
	put_file(dir, "events/sched/sched_process_fork/format", fork_616);
	assert_int_equal(tracefs_read_format(dir, "sched/sched_process_fork", &fmt), 0);
	assert_int_equal(field("child_pid")->offset, 20);
	rm_tree(dir);
}

/* The whole of @path, into @buf (NUL-terminated). */
static void slurp(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "r");
	size_t got;

	assert_non_null(f);
	got = fread(buf, 1, n - 1, f);
	buf[got] = '\0';
	fclose(f);
}

static void test_uprobe_lines(void **state)
{
	char g[TRACEFS_NAME_MAX], e[TRACEFS_NAME_MAX];

	(void)state;
	assert_int_equal(tracefs_uprobe_parse_line("p:boottrace_12/mark0_0 /bin/x:0x0000000000001139\n",
						   g, e), 0);
	assert_string_equal(g, "boottrace_12");
	assert_string_equal(e, "mark0_0");
	assert_int_equal(tracefs_uprobe_parse_line("r:grp/ev /a b:0x10", g, e), 0);
	assert_string_equal(g, "grp");
	assert_string_equal(e, "ev");
	/* with a reference counter (4.20+) */
	assert_int_equal(tracefs_uprobe_parse_line("p:g/e /bin/x:0x10(0x20)", g, e), 0);
	assert_string_equal(e, "e");
	assert_int_equal(tracefs_uprobe_parse_line("", g, e), -1);
	assert_int_equal(tracefs_uprobe_parse_line("-:g/e", g, e), -1);
	assert_int_equal(tracefs_uprobe_parse_line("p:noslash /x:0x1", g, e), -1);
	assert_int_equal(tracefs_uprobe_parse_line("p:/e /x:0x1", g, e), -1);
	assert_int_equal(tracefs_uprobe_parse_line("p:g/ /x:0x1", g, e), -1);
}

static void test_uprobe_events(void **state)
{
	char dir[] = "/tmp/test_tracefs.XXXXXX", path[256], buf[4096], want[1024];
	pid_t dead;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/uprobe_events", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);

	/* adding: the 4.15 syntax, appended */
	assert_int_equal(tracefs_uprobe_add(dir, "boottrace_7", "mark0_0", "/bin/x", 0x1139, 0), 0);
	assert_int_equal(tracefs_uprobe_add(dir, "boottrace_7", "mark1_1", "/lib/y.so", 0xabc, 1), 0);
	/* a blank in the path cannot be said: refused, nothing written */
	assert_int_equal(tracefs_uprobe_add(dir, "boottrace_7", "mark2_2", "/a b", 1, 0), -EINVAL);
	assert_int_equal(tracefs_uprobe_del(dir, "boottrace_7", "mark0_0", 0), 0);
	slurp(path, buf, sizeof(buf));
	assert_string_equal(buf, "p:boottrace_7/mark0_0 /bin/x:0x1139\n"
				 "r:boottrace_7/mark1_1 /lib/y.so:0xabc\n"
				 "-:boottrace_7/mark0_0\n");

	/* a group of a process that is gone, one of this live process, a stranger's */
	dead = fork();
	assert_true(dead >= 0);
	if (dead == 0)
		_exit(0);
	assert_int_equal(waitpid(dead, NULL, 0), dead);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "p:boottrace_%d/mark0_0 /bin/x:0x0000000000001139\n", (int)dead);
	fprintf(f, "p:boottrace_%d/mark0_0 /bin/x:0x0000000000001139\n", (int)getpid());
	fprintf(f, "p:other_%d/e /bin/x:0x0000000000001139\n", (int)dead);
	fprintf(f, "p:boottrace_x%d/e /bin/x:0x0000000000001139\n", (int)dead);
	fprintf(f, "r:boottrace_%d/mark1_1 /bin/x:0x0000000000001139\n", (int)dead);
	fclose(f);
	assert_int_equal(tracefs_uprobe_remove_stale(dir, "boottrace_"), 2);
	slurp(path, buf, sizeof(buf));
	snprintf(want, sizeof(want), "-:boottrace_%d/mark0_0\n-:boottrace_%d/mark1_1\n", (int)dead,
		 (int)dead);
	assert_non_null(strstr(buf, want));
	assert_int_equal(strlen(strstr(buf, want)), strlen(want));	/* and nothing else */
	unlink(path);
	/* no uprobe_events (a kernel without uprobes): nothing to do */
	assert_int_equal(tracefs_uprobe_remove_stale(dir, "boottrace_"), 0);
	/* says "this kernel has no uprobes" on stderr */
	assert_int_equal(tracefs_uprobe_add(dir, "g", "e", "/bin/x", 1, 0), -ENOENT);

	/* ids */
	put_file(dir, "events/g/e/id", "2326\n");
	assert_int_equal(tracefs_event_id(dir, "g", "e"), 2326);
	assert_int_equal(tracefs_event_id(dir, "g", "nope"), -ENOENT);
	rm_tree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fork_616),
		cmocka_unit_test(test_fork_415),
		cmocka_unit_test(test_arrays_and_data_loc),
		cmocka_unit_test(test_rel_loc_and_pointers),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_too_many_fields),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_read_file),
		cmocka_unit_test(test_uprobe_lines),
		cmocka_unit_test(test_uprobe_events),
	};

	return cmocka_run_group_tests_name("collector_tracefs", tests, NULL, NULL);
}
