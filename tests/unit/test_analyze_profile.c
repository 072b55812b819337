// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: analyze/boot/profile.c on synthetic rows: self and total per
 * function in the boot window, recursion counted once in total, samples
 * outside the window left out, a missing stack row "[unknown]", and
 * out/profile_report.c's folded stacks (root first, _[k], ';' as ':'),
 * one line per distinct stack however many raw stacks print alike; host
 * tasks' samples (container \N) in a boot: the runtime's processes (the
 * client, its wakers, by process) counted, a stranger and a kernel thread
 * not; a sample in the collector's own BPF program one "[boottrace]"
 * frame in place of the program and its path (read/tracer.h), in another
 * tool's "[bpf]".
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analyze/boot/profile.h"
#include "analyze/out/profile_report.h"
#include "analyze/read/reader.h"

/* A row of any container: ts, container, pid, tid, ppid, comm, event, name, ret, dur, detail. */
static void row(struct timeline *tl, const char *ts, const char *ctr, const char *pid,
		const char *tid, const char *ppid, const char *comm, const char *ev,
		const char *name, const char *ret, const char *dur, const char *detail)
{
	static char buf[1024];
	struct tsv_row r;
	char err[128];
	int n;

	memset(buf, 0, sizeof(buf));
	n = snprintf(buf, sizeof(buf) - 16, "%s\t%s\t\\N\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s",
		     ts, ctr, pid, tid, ppid, comm, ev, name, ret, dur, detail);
	assert_int_equal(tsv_parse_row(buf, (size_t)n, &r, err, sizeof(err)), 0);
	assert_int_equal(timeline_add_row(tl, &r), 0);
}

/* A row of container c: ts, comm, tid, event, name, dur, detail. */
static void add(struct timeline *tl, const char *ts, const char *comm, const char *tid,
		const char *ev, const char *name, const char *dur, const char *detail)
{
	row(tl, ts, "c", tid, tid, "1", comm, ev, name, "\\N", dur, detail);
}

static long fn_self(const struct profile *p, const struct prof_ctr *pc, const char *name,
		    uint64_t *total)
{
	size_t i;

	for (i = 0; i < pc->nfns; i++)
		if (strcmp(profile_fn_name(p, pc->fns[i].fn), name) == 0) {
			*total = pc->fns[i].total;
			return (long)pc->fns[i].self;
		}
	return -1;
}

static void test_self_total_folded(void **state)
{
	struct timeline *tl = timeline__new();
	struct profile *p;
	const struct prof_ctr *pc;
	uint64_t total;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int i;

	(void)state;
	assert_non_null(tl);
	assert_int_equal(timeline_begin_file(tl), 0);
	add(tl, "100", "sh", "5", "start", "mkdir", "\\N", "/c");
	/* stack 1: leaf_a <- mid <- mid (recursion) ; stack 2: a kernel frame on top of mid */
	add(tl, "1000", "sh", "5", "stack", "1", "\\N",
	    "j:6:leaf_a j:3:mid j:3:mid j:8:root;x y");
	add(tl, "1000", "sh", "5", "stack", "2", "\\N", "k:do_work+0x10 j:3:mid j:8:root;x y");
	for (i = 0; i < 6; i++) {
		char ts[32];

		snprintf(ts, sizeof(ts), "%d", 1000 + i);
		add(tl, ts, "sh", "5", "sample", i < 4 ? "1" : "2", "1000000", "cpu=0");
	}
	add(tl, "1100", "sh", "5", "sample", "9", "1000000", "cpu=0");	/* no stack row */
	add(tl, "99999", "sh", "5", "sample", "1", "1000000", "cpu=0");	/* after the phase */
	assert_int_equal(timeline_set_phase(tl, 0, 1, 5000), 0);
	timeline_end_file(tl, 0);
	assert_int_equal(timeline_finish(tl), 0);

	p = profile__new(tl, 1, &(struct profile_opts){ .no_system = true });
	assert_non_null(p);
	assert_true(p->any);
	assert_int_equal(p->nctrs, 1);
	pc = &p->ctrs[0];
	assert_int_equal(pc->samples, 7);
	assert_int_equal(pc->cpu_ns, 7000000);
	assert_int_equal(pc->period_ns, 1000000);
	assert_int_equal(fn_self(p, pc, "leaf_a", &total), 4);
	assert_int_equal(total, 4);
	assert_int_equal(fn_self(p, pc, "mid", &total), 0);
	assert_int_equal(total, 6);	/* recursion: once per sample */
	assert_int_equal(fn_self(p, pc, "do_work", &total), 2);
	assert_int_equal(fn_self(p, pc, "[unknown]", &total), 1);
	assert_string_equal(profile_fn_module(p, pc->fns[0].fn), "[jit]");
	assert_string_equal(profile_fn_name(p, pc->fns[0].fn), "leaf_a");

	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(profile_print(f, p, "listen", NULL, 0, FMT_FOLDED, 20), 0);
	fclose(f);
	assert_string_equal(buf, "sh;root:x y;mid;mid;leaf_a 4\n"
				 "sh;root:x y;mid;do_work_[k] 2\n"
				 "sh;[unknown] 1\n");
	free(buf);
	profile__free(p);
	timeline__free(tl);
}

/*
 * Three raw stacks that print alike (a kernel function at two offsets; a
 * name with ';' against one with ':') and a fourth that does not: two
 * lines, in order of first appearance, their counts summed (issue 28).
 */
static void test_folded_distinct(void **state)
{
	static const char *const stacks[] = {
		"k:do_work+0x10 j:3:mid j:8:root;x y",
		"j:4:leaf j:3:mid j:8:root;x y",
		"k:do_work+0x24 j:3:mid j:8:root;x y",
		"k:do_work+0x10 j:3:mid j:8:root:x y",
	};
	static const int counts[] = { 1, 2, 4, 8 };
	struct timeline *tl = timeline__new();
	struct profile *p;
	char *buf = NULL, ts[32], id[8];
	size_t len = 0;
	int i, k, t = 1000;
	FILE *f;

	(void)state;
	assert_non_null(tl);
	assert_int_equal(timeline_begin_file(tl), 0);
	add(tl, "100", "sh", "5", "start", "mkdir", "\\N", "/c");
	for (i = 0; i < 4; i++) {
		snprintf(id, sizeof(id), "%d", i + 1);
		add(tl, "1000", "sh", "5", "stack", id, "\\N", stacks[i]);
	}
	for (i = 0; i < 4; i++)
		for (k = 0; k < counts[i]; k++) {
			snprintf(ts, sizeof(ts), "%d", t++);
			snprintf(id, sizeof(id), "%d", i + 1);
			add(tl, ts, "sh", "5", "sample", id, "1000000", "cpu=0");
		}
	assert_int_equal(timeline_set_phase(tl, 0, 1, 5000), 0);
	timeline_end_file(tl, 0);
	assert_int_equal(timeline_finish(tl), 0);
	p = profile__new(tl, 1, &(struct profile_opts){ .no_system = true });
	assert_non_null(p);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(profile_print(f, p, "listen", NULL, 0, FMT_FOLDED, 20), 0);
	fclose(f);
	assert_string_equal(buf, "sh;root:x y;mid;do_work_[k] 13\n"
				 "sh;root:x y;mid;leaf 2\n");
	free(buf);
	profile__free(p);
	timeline__free(tl);
}

/* The tracer's frames: one [boottrace], self, above the syscall's entry and the app. */
static void test_tracer_frame(void **state)
{
	struct timeline *tl = timeline__new();
	struct profile *p;
	const struct prof_ctr *pc;
	uint64_t total;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_non_null(tl);
	assert_int_equal(timeline_begin_file(tl), 0);
	add(tl, "100", "sh", "5", "start", "mkdir", "\\N", "/c");
	add(tl, "1000", "sh", "5", "stack", "1", "\\N",
	    "k:bpf_ringbuf_reserve+0x5 k:bpf_prog_6deef7357e7b4530_bt_sys_enter+0x8a "
	    "k:bpf_trace_run2+0x52 k:__bpf_trace_sys_enter+0x6 k:__traceiter_sys_enter+0x2f "
	    "k:syscall_trace_enter+0xa8 k:do_syscall_64+0x44 j:5:write j:4:main");
	add(tl, "1000", "sh", "5", "stack", "2", "\\N", "k:do_syscall_64+0x44 j:5:write j:4:main");
	add(tl, "1001", "sh", "5", "sample", "1", "1000000", "cpu=0");
	add(tl, "1002", "sh", "5", "sample", "1", "1000000", "cpu=0");
	add(tl, "1000", "sh", "5", "stack", "3", "\\N",
	    "k:bpf_prog_0123456789abcdef_other+0x1 k:bpf_trace_run2+0x52 k:do_syscall_64+0x44 "
	    "j:5:write j:4:main");
	add(tl, "1003", "sh", "5", "sample", "2", "1000000", "cpu=0");
	add(tl, "1004", "sh", "5", "sample", "3", "1000000", "cpu=0");
	assert_int_equal(timeline_set_phase(tl, 0, 1, 5000), 0);
	timeline_end_file(tl, 0);
	assert_int_equal(timeline_finish(tl), 0);
	p = profile__new(tl, 1, &(struct profile_opts){ .no_system = true });
	assert_non_null(p);
	pc = &p->ctrs[0];
	assert_int_equal(fn_self(p, pc, "[boottrace]", &total), 2);
	assert_int_equal(total, 2);
	assert_string_equal(profile_fn_module(p, pc->fns[0].fn), "[boottrace]");
	assert_int_equal(fn_self(p, pc, "bpf_ringbuf_reserve", &total), -1);
	assert_int_equal(fn_self(p, pc, "bpf_trace_run2", &total), -1);
	assert_int_equal(fn_self(p, pc, "syscall_trace_enter", &total), 0);
	assert_int_equal(fn_self(p, pc, "do_syscall_64", &total), 1);
	assert_int_equal(total, 4);
	assert_int_equal(fn_self(p, pc, "[bpf]", &total), 1);	/* another tool's */
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(profile_print(f, p, "listen", NULL, 0, FMT_FOLDED, 20), 0);
	fclose(f);
	assert_string_equal(buf, "sh;main;write;do_syscall_64_[k];syscall_trace_enter_[k];[boottrace] 2\n"
				 "sh;main;write;do_syscall_64_[k] 1\n"
				 "sh;main;write;do_syscall_64_[k];[bpf] 1\n");
	free(buf);
	profile__free(p);
	timeline__free(tl);
}

static void test_runtime_samples(void **state)
{
	static const char *const stacks[] = { "j:6:client", "j:7:dockerd", "j:4:runc", "j:2:sh",
					      "j:8:stranger", "j:7:kworker" };
	struct timeline *tl = timeline__new();
	struct profile *p;
	const struct prof_ctr *pc;
	uint64_t total;
	char id[8];
	size_t i;

	(void)state;
	assert_non_null(tl);
	assert_int_equal(timeline_begin_file(tl), 0);
	for (i = 0; i < 6; i++) {
		snprintf(id, sizeof(id), "%zu", i + 1);
		row(tl, "50", "\\N", "1", "1", "0", "x", "stack", id, "\\N", "\\N", stacks[i]);
	}
	/* client mode: the client's spawn */
	row(tl, "100", "c", "10", "10", "1", "docker", "start", "client", "\\N", "\\N", "docker run");
	/* the client, woken by dockerd's thread 41 (process 40) */
	row(tl, "150", "\\N", "10", "10", "1", "docker", "sched", "S", "10", "100",
	    "wake=task waker=41 wpid=40 wcomm=7:dockerd cpu=0");
	row(tl, "200", "\\N", "10", "10", "1", "docker", "sample", "1", "\\N", "1000000", "cpu=0");
	/* dockerd: two threads, both sampled; it wakes the stranger (not followed) */
	row(tl, "300", "\\N", "40", "41", "1", "dockerd", "sample", "2", "\\N", "1000000", "cpu=0");
	row(tl, "310", "\\N", "40", "40", "1", "dockerd", "sample", "2", "\\N", "1000000", "cpu=1");
	row(tl, "320", "\\N", "50", "50", "1", "stranger", "sched", "S", "10", "100",
	    "wake=task waker=41 wpid=40 wcomm=7:dockerd cpu=1");
	row(tl, "450", "\\N", "50", "50", "1", "stranger", "sample", "5", "\\N", "1000000", "cpu=1");
	row(tl, "400", "\\N", "30", "30", "1", "runc", "sample", "3", "\\N", "1000000", "cpu=0");
	/* the container's sh, woken by runc, then by a kworker (a kernel thread: ppid 2) */
	row(tl, "500", "c", "20", "20", "30", "sh", "sched", "S", "10", "100",
	    "wake=task waker=30 wpid=30 wcomm=4:runc cpu=0");
	row(tl, "700", "c", "20", "20", "30", "sh", "sample", "4", "\\N", "1000000", "cpu=0");
	row(tl, "800", "c", "20", "20", "30", "sh", "sched", "S", "10", "40",
	    "wake=task waker=60 wpid=60 wcomm=7:kworker cpu=0");
	row(tl, "850", "\\N", "60", "60", "2", "kworker", "sample", "6", "\\N", "1000000", "cpu=0");
	assert_int_equal(timeline_set_phase(tl, (size_t)timeline_find_container(tl, "c", 1), 1, 1000),
			 0);
	timeline_end_file(tl, 0);
	assert_int_equal(timeline_finish(tl), 0);

	p = profile__new(tl, 1, &(struct profile_opts){ .no_system = true });
	assert_non_null(p);
	assert_int_equal(p->nctrs, 1);
	pc = &p->ctrs[0];
	assert_int_equal(fn_self(p, pc, "client", &total), 1);
	assert_int_equal(fn_self(p, pc, "dockerd", &total), 2);
	assert_int_equal(fn_self(p, pc, "runc", &total), 1);
	assert_int_equal(fn_self(p, pc, "sh", &total), 1);
	assert_int_equal(fn_self(p, pc, "stranger", &total), -1);
	assert_int_equal(fn_self(p, pc, "kworker", &total), -1);
	assert_int_equal(pc->samples, 5);
	profile__free(p);
	timeline__free(tl);
}

static void test_folded_name(void **state)
{
	char out[64];
	size_t n;

	(void)state;
	n = profile_folded_name("a;b\tc\nd", 7, out);
	out[n] = 0;
	assert_string_equal(out, "a:b\\tc\\nd");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_self_total_folded),
		cmocka_unit_test(test_folded_distinct),
		cmocka_unit_test(test_tracer_frame),
		cmocka_unit_test(test_runtime_samples),
		cmocka_unit_test(test_folded_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
