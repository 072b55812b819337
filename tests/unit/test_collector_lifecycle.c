// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: collector/run/lifecycle.c on a fake backend (the ops table of
 * collector/kernel/backend.h, which records what the kernel would track).
 * Each scenario is the records of a container's life in watch mode, as the
 * kernel sends them (cgroup mode: a runtime's parent cgroup, the
 * container's, its first task, a cgroup nested in it, the rmdirs; pidtree
 * mode: a root the kernel found, a fork, the last task gone), run once per
 * allocation it makes with that allocation failing (malloc, calloc and
 * realloc wrapped: the Makefile links this test with -Wl,--wrap), until a
 * run makes no more. After every record: nothing the kernel tracks is
 * missing from the container table (an entry nobody would ever untrack);
 * at the end: nothing tracked, nothing in the table, and each container
 * that got a start row got its end row.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <linux/types.h>

#include "bpf/boottrace.h"
#include "collector/collector.h"

/* --- allocations that fail on demand ------------------------------------------ */

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);

static long fail_in = -1;	/* the allocation to fail, counted from 0; -1: none */
static int failed;		/* it came */

static int fail_now(void)
{
	if (fail_in < 0)
		return 0;
	if (fail_in-- > 0)
		return 0;
	failed = 1;
	errno = ENOMEM;
	return 1;
}

void *__wrap_malloc(size_t n);
void *__wrap_malloc(size_t n)
{
	return fail_now() ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t size);
void *__wrap_calloc(size_t n, size_t size)
{
	return fail_now() ? NULL : __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t n);
void *__wrap_realloc(void *p, size_t n)
{
	return fail_now() ? NULL : __real_realloc(p, n);
}

/* --- the fake backend: what the kernel tracks ------------------------------- */

#define MAX_TRACKED 32

struct fake {
	struct backend b;
	unsigned long long cg[MAX_TRACKED];	/* cgroup mode: tracked cgroup ids */
	size_t ncg;
	struct { pid_t tid; unsigned long long key; } task[MAX_TRACKED];	/* pidtree */
	size_t ntask;
	int track_err;		/* track_cgroup fails with this (-errno), 0: it works */
};

static int fake_track_cgroup(struct backend *b, __u64 id)
{
	struct fake *f = (struct fake *)b;

	if (f->track_err)
		return f->track_err;
	assert_true(f->ncg < MAX_TRACKED);
	f->cg[f->ncg++] = id;
	return 0;
}

static void fake_untrack_cgroup(struct backend *b, __u64 id)
{
	struct fake *f = (struct fake *)b;
	size_t i;

	for (i = 0; i < f->ncg; i++)
		if (f->cg[i] == id) {
			f->cg[i] = f->cg[--f->ncg];
			return;
		}
}

static int fake_track_task(struct backend *b, pid_t tid, __u64 key)
{
	struct fake *f = (struct fake *)b;

	assert_true(f->ntask < MAX_TRACKED);
	f->task[f->ntask].tid = tid;
	f->task[f->ntask++].key = key;
	return 0;
}

static void fake_untrack_task(struct backend *b, pid_t tid)
{
	struct fake *f = (struct fake *)b;
	size_t i;

	for (i = 0; i < f->ntask; i++)
		if (f->task[i].tid == tid) {
			f->task[i] = f->task[--f->ntask];
			return;
		}
}

/* pidtree: the kernel drops the tasks of container @key as they exit (BT_EV_GONE) */
static void fake_gone(struct fake *f, unsigned long long key)
{
	size_t i = 0;

	while (i < f->ntask)
		if (f->task[i].key == key)
			f->task[i] = f->task[--f->ntask];
		else
			i++;
}

static unsigned long long fake_lost(struct backend *b)
{
	(void)b;
	return 0;
}

static const struct backend_ops fake_ops = {
	.name = "fake",
	.track_cgroup = fake_track_cgroup,
	.untrack_cgroup = fake_untrack_cgroup,
	.track_task = fake_track_task,
	.untrack_task = fake_untrack_task,
	.lost = fake_lost,
};

/* --- a collector in watch mode on the fake -------------------------------------- */

struct world {
	struct fake fake;
	struct collector c;
	int starts, ends;	/* start and end rows written */
};

static void count_row(void *ctx, const struct row *r)
{
	struct world *w = ctx;

	w->starts += strcmp(r->event, "start") == 0;
	w->ends += strcmp(r->event, "end") == 0;
}

static void world_init(struct world *w, enum bt_mode mode)
{
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	memset(w, 0, sizeof(*w));
	w->fake.b.ops = &fake_ops;
	w->c.be = &w->fake.b;
	w->c.mode = mode;
	w->c.out = output__new(fd, 1 << 16);
	assert_non_null(w->c.out);
	w->c.out->on_row = count_row;
	w->c.out->on_row_ctx = w;
}

static void world_free(struct world *w)
{
	int fd = w->c.out->fd;

	output__free(w->c.out);
	close(fd);
	containers_free(&w->c.containers);
}

/* Nothing tracked in the kernel is missing from the table (nobody would untrack it). */
static void assert_nothing_astray(struct world *w, const char *after)
{
	size_t i;

	for (i = 0; i < w->fake.ncg; i++)
		if (!containers_find(&w->c.containers, w->fake.cg[i]))
			fail_msg("after %s: cgroup %llu tracked, not in the table", after, w->fake.cg[i]);
	for (i = 0; i < w->fake.ntask; i++)
		if (!containers_find(&w->c.containers, w->fake.task[i].key))
			fail_msg("after %s: task %d tracked (key %llu), no container has it", after,
				 (int)w->fake.task[i].tid, w->fake.task[i].key);
}

/* A pid no process has (above pid_max): the /proc readers find nothing. */
static pid_t no_pid(void)
{
	FILE *f = fopen("/proc/sys/kernel/pid_max", "r");
	long max = 4194304;

	if (f) {
		if (fscanf(f, "%ld", &max) != 1)
			max = 4194304;
		fclose(f);
	}
	return (pid_t)(max + 100);
}

static void hdr(struct bt_event_hdr *h, __u32 type, unsigned long long key, pid_t tid)
{
	memset(h, 0, sizeof(*h));
	h->ts_ns = 1000;
	h->type = type;
	h->cgroup_id = key;
	h->pid = h->tid = (__u32)tid;
	h->ppid = 1;
	memcpy(h->comm, "runc", 4);
}

/* The kernel made cgroup @id (under @parent, at @path): tracked, and its record. */
static void mkdir_rec(struct world *w, unsigned long long id, unsigned long long parent,
		      const char *path)
{
	struct bt_cgroup_event e;

	memset(&e, 0, sizeof(e));
	hdr(&e.hdr, BT_EV_CGROUP_MKDIR, id, 77);
	e.parent_id = parent;
	snprintf(e.path, sizeof(e.path), "%s", path);
	assert_int_equal(fake_track_cgroup(&w->fake.b, id), 0);
	assert_int_equal(records_on_event(&w->c, &e, sizeof(e)), 0);
	assert_nothing_astray(w, path);
}

static void rmdir_rec(struct world *w, unsigned long long id, const char *path)
{
	struct bt_cgroup_event e;

	memset(&e, 0, sizeof(e));
	hdr(&e.hdr, BT_EV_CGROUP_RMDIR, id, 77);
	snprintf(e.path, sizeof(e.path), "%s", path);
	assert_int_equal(records_on_event(&w->c, &e, sizeof(e)), 0);
	/* the kernel forgets a removed cgroup whatever user space did */
	fake_untrack_cgroup(&w->fake.b, id);
	assert_nothing_astray(w, path);
}

/* A task of @key (cgroup id or pidtree key) forked child @tid. */
static void fork_rec(struct world *w, unsigned long long key, pid_t tid)
{
	struct bt_fork_event e;

	memset(&e, 0, sizeof(e));
	hdr(&e.hdr, BT_EV_FORK, key, tid);
	e.parent_tid = 1;
	assert_int_equal(records_on_event(&w->c, &e, sizeof(e)), 0);
	assert_nothing_astray(w, "a fork");
}

/*
 * Cgroup mode: the runtime's parent /docker (a candidate that never holds
 * a task), the container's cgroup in it, its first task (the start row), a
 * cgroup made inside it (part of it), then the rmdirs.
 */
static void cgroup_life(struct world *w)
{
	mkdir_rec(w, 10, 1, "/docker");
	mkdir_rec(w, 100, 10, "/docker/3f2a");
	fork_rec(w, 100, 501);
	mkdir_rec(w, 101, 100, "/docker/3f2a/init.scope");
	fork_rec(w, 101, 502);
	rmdir_rec(w, 101, "/docker/3f2a/init.scope");
	rmdir_rec(w, 100, "/docker/3f2a");
	rmdir_rec(w, 10, "/docker");
}

/* Pidtree mode: a root the kernel found (and tracks), its fork, its last task gone. */
static void pidtree_life(struct world *w)
{
	unsigned long long key = BT_KEY_KERNEL + 1;
	pid_t root = no_pid();
	struct bt_root_event e;
	struct bt_event_hdr gone;

	memset(&e, 0, sizeof(e));
	hdr(&e.hdr, BT_EV_ROOT, key, root);
	e.hdr.ppid = 0;		/* its runtime unknown: no /proc reads of a real one */
	e.ns_flags = CLONE_NEWPID;
	memcpy(e.parent_comm, "unshare", 7);
	assert_int_equal(fake_track_task(&w->fake.b, root, key), 0);
	assert_int_equal(records_on_event(&w->c, &e, sizeof(e)), 0);
	assert_nothing_astray(w, "the root");
	if (containers_find(&w->c.containers, key)) {
		/* the kernel follows the fork of a task it tracks */
		assert_int_equal(fake_track_task(&w->fake.b, root + 1, key), 0);
		fork_rec(w, key, root + 1);
	}
	hdr(&gone, BT_EV_GONE, key, root);
	fake_gone(&w->fake, key);
	assert_int_equal(records_on_event(&w->c, &gone, sizeof(gone)), 0);
	assert_nothing_astray(w, "the last task");
}

/*
 * Run @life once per allocation it makes, that one failing, then once
 * with none failing; returns how many allocations there were.
 */
static long each_allocation_fails(enum bt_mode mode, void (*life)(struct world *), int want_starts)
{
	struct world w;
	long n;

	for (n = 0;; n++) {
		world_init(&w, mode);
		failed = 0;
		fail_in = n;
		life(&w);
		fail_in = -1;
		if (w.fake.ncg || w.fake.ntask)
			fail_msg("allocation %ld failing: %zu cgroups, %zu tasks still tracked at the end",
				 n, w.fake.ncg, w.fake.ntask);
		if (w.c.containers.n)
			fail_msg("allocation %ld failing: %zu entries left in the table", n,
				 w.c.containers.n);
		if (w.starts != w.ends)
			fail_msg("allocation %ld failing: %d start rows, %d end rows", n, w.starts, w.ends);
		if (!failed)
			assert_int_equal(w.starts, want_starts);	/* the life as it should be */
		world_free(&w);
		if (!failed)
			return n;
	}
}

static void test_cgroup_allocations_fail(void **state)
{
	long n;

	(void)state;
	n = each_allocation_fails(BT_MODE_CGROUP, cgroup_life, 1);
	/* the candidates, the container, the nested cgroup, the table's growth, names */
	assert_true(n >= 5);
	print_message("cgroup mode: %ld allocations, each failed in turn\n", n);
}

static void test_pidtree_allocations_fail(void **state)
{
	long n;

	(void)state;
	n = each_allocation_fails(BT_MODE_PIDTREE, pidtree_life, 1);
	assert_true(n >= 2);
	print_message("pidtree mode: %ld allocations, each failed in turn\n", n);
}

/* A tracking the kernel refuses: the error comes back, nothing is tracked. */
static void test_track_refused(void **state)
{
	struct world w;

	(void)state;
	world_init(&w, BT_MODE_CGROUP);
	w.fake.track_err = -E2BIG;	/* the map is full */
	assert_int_equal(lifecycle_track(&w.c, 42), -E2BIG);
	assert_int_equal(w.fake.ncg, 0);
	w.fake.track_err = 0;
	assert_int_equal(lifecycle_track(&w.c, 42), 0);
	lifecycle_untrack(&w.c, 42);
	assert_int_equal(w.fake.ncg, 0);
	world_free(&w);
}

/*
 * --cgroup: a new cgroup that neither matches nor is inside what may match
 * is untracked at once; one that matches is a candidate until its rmdir,
 * which untracks it. Nothing of either stays.
 */
static void test_glob_untracks(void **state)
{
	struct world w;

	(void)state;
	world_init(&w, BT_MODE_CGROUP);
	w.c.opt.cgroup_glob = "/docker/*";
	mkdir_rec(&w, 20, 1, "/system.slice");
	mkdir_rec(&w, 30, 1, "/docker");	/* a runtime's parent: no match */
	assert_int_equal(w.fake.ncg, 0);
	assert_int_equal(w.c.containers.n, 0);
	mkdir_rec(&w, 31, 30, "/docker/3f2a");
	assert_int_equal(w.fake.ncg, 1);
	assert_non_null(containers_find(&w.c.containers, 31));
	rmdir_rec(&w, 31, "/docker/3f2a");	/* no task ever entered it */
	assert_int_equal(w.fake.ncg, 0);
	assert_int_equal(w.c.containers.n, 0);
	assert_int_equal(w.starts + w.ends, 0);
	world_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cgroup_allocations_fail),
		cmocka_unit_test(test_pidtree_allocations_fail),
		cmocka_unit_test(test_track_refused),
		cmocka_unit_test(test_glob_untracks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
