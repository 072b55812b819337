// SPDX-License-Identifier: BSD-2-Clause
/*
 * legacy_pidtree [--compat] tree K L M: load the legacy object through
 * backend_legacy_open() (--compat: the compat object through
 * backend_compat_open()) in pidtree mode, track_task() a child that makes
 * exactly K getppid calls, starts a thread that makes M, forks a grandchild
 * that makes L and exits 3, forks one more that a SIGTERM kills, and exits
 * 5; then check every record the backend delivered.
 *
 * legacy_pidtree [--compat] watch N: the same object in watch mode: a child that
 * unshares its mount namespace in place and a child that unshares its pid
 * namespace and forks each become a container (BT_EV_ROOT) whose N getppid
 * calls are theirs alone; a stranger's calls are nobody's.
 *
 * Prints "ok - ..." lines; exit 0 when all checks pass, 1 if one fails,
 * 77 when not root.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <asm/unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "collector/kernel/backend.h"

#define KEY 0x4242ULL
#define MAX_KEYS 16

struct counts {
	unsigned long long records, stray;
	int gone_seen;
	/* tree mode */
	unsigned long getppid_by[4];	/* child, grandchild, thread, other */
	unsigned long forks, thread_forks, exits, gones, after_gone, bad_ppid;
	unsigned int exit_codes[8];
	pid_t child, grandchild, killed;
	/* watch mode */
	__u64 keys[MAX_KEYS];
	pid_t root_pid[MAX_KEYS], root_ppid[MAX_KEYS];
	__u64 root_ns[MAX_KEYS];
	unsigned long key_getppid[MAX_KEYS], key_gone[MAX_KEYS];
	int nkeys;
};

static int failed;
static int compat;	/* --compat: the compat object, else the legacy one */

static void check(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void check(int ok, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs(ok ? "ok - " : "FAIL: ", ok ? stdout : stderr);
	vfprintf(ok ? stdout : stderr, fmt, ap);
	fputc('\n', ok ? stdout : stderr);
	va_end(ap);
	failed |= !ok;
}

static void getppids(long n)
{
	long i;

	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
}

static int key_index(struct counts *c, __u64 key)
{
	int i;

	for (i = 0; i < c->nkeys; i++)
		if (c->keys[i] == key)
			return i;
	return -1;
}

static int on_tree_event(void *ctx, void *data, size_t size)
{
	struct counts *c = ctx;
	const struct bt_event_hdr *h = data;

	if (size < sizeof(*h))
		return 0;
	c->records++;
	if (h->cgroup_id != KEY) {
		c->stray++;
		return 0;
	}
	if (c->gone_seen)
		c->after_gone++;
	switch (h->type) {
	case BT_EV_SYSCALL:
	case BT_EV_SYSCALL_DETAIL: {
		const struct bt_syscall_event *e = data;

		if (e->nr != __NR_getppid)
			break;
		if ((pid_t)h->pid == c->child && h->tid != h->pid)
			c->getppid_by[2]++;
		else if ((pid_t)h->pid == c->child)
			c->getppid_by[0]++;
		else if ((pid_t)h->pid == c->grandchild && e->ret == c->child)
			c->getppid_by[1]++;
		else
			c->getppid_by[3]++;
		if ((pid_t)h->pid == c->grandchild && (pid_t)h->ppid != c->child)
			c->bad_ppid++;
		if ((pid_t)h->pid == c->child && (pid_t)h->ppid != getpid())
			c->bad_ppid++;
		break;
	}
	case BT_EV_FORK: {
		const struct bt_fork_event *e = data;

		if (e->is_thread)
			c->thread_forks++;
		else
			c->forks++;
		if ((pid_t)h->ppid != c->child)
			c->bad_ppid++;
		break;
	}
	case BT_EV_EXIT: {
		const struct bt_exit_event *e = data;

		if (c->exits < 8)
			c->exit_codes[c->exits] = e->exit_code;
		c->exits++;
		if ((pid_t)h->pid == c->child)
			c->exit_codes[3] = e->exit_code;
		else if ((pid_t)h->pid == c->grandchild)
			c->exit_codes[4] = e->exit_code;
		else if ((pid_t)h->pid == c->killed)
			c->exit_codes[5] = e->exit_code;
		break;
	}
	case BT_EV_GONE:
		c->gones++;
		c->gone_seen = 1;
		break;
	}
	return 0;
}

static void *thread_main(void *arg)
{
	getppids((long)arg);
	return NULL;
}

/* The traced child: K calls, a thread with M, a grandchild with L, one killed. */
static void child_main(int go, long k, long l, long m, int report)
{
	pthread_t th;
	pid_t g, s;
	char b;
	int st;

	if (read(go, &b, 1) != 1)
		_exit(100);
	getppids(k);
	if (pthread_create(&th, NULL, thread_main, (void *)m) != 0)
		_exit(101);
	pthread_join(th, NULL);
	g = fork();
	if (g == 0) {
		getppids(l);
		_exit(3);
	}
	s = fork();
	if (s == 0) {
		pause();
		_exit(0);
	}
	if (write(report, &g, sizeof(g)) != sizeof(g) || write(report, &s, sizeof(s)) != sizeof(s))
		_exit(102);
	waitpid(g, &st, 0);
	kill(s, SIGTERM);
	waitpid(s, &st, 0);
	/* through exit_group, as glibc's exit does */
	_exit(5);
}

static int open_backend(struct counts *c, bool watch, int (*cb)(void *, void *, size_t),
			struct backend **be)
{
	struct backend_config cfg;
	int err;

	memset(&cfg, 0, sizeof(cfg));
	cfg.mode = BT_MODE_PIDTREE;
	cfg.watch = watch;
	cfg.trace_all_syscalls = true;
	cfg.buffer_mb = 8;
	cfg.on_event = cb;
	cfg.ctx = c;
	err = compat ? backend_compat_open(&cfg, be) : backend_legacy_open(&cfg, be);
	if (err)
		fprintf(stderr, "legacy_pidtree: backend_%s_open: %s\n", compat ? "compat" : "legacy",
			strerror(-err));
	else
		check(!strcmp((*be)->ops->name, compat ? "compat" : "legacy"), "the %s object",
		      (*be)->ops->name);
	return err;
}

static int run_tree(long k, long l, long m)
{
	struct counts c;
	struct backend *be;
	int go[2], rep[2], st;
	time_t deadline;
	pid_t pid;

	memset(&c, 0, sizeof(c));
	if (open_backend(&c, false, on_tree_event, &be))
		return 1;
	if (pipe(go) < 0 || pipe(rep) < 0)
		return 1;
	pid = fork();
	if (pid == 0) {
		close(go[1]);
		close(rep[0]);
		child_main(go[0], k, l, m, rep[1]);
	}
	close(go[0]);
	close(rep[1]);
	c.child = pid;
	check(be->ops->track_task(be, pid, KEY) == 0, "track_task(%d)", (int)pid);
	check(be->ops->track_task(be, pid, KEY + 1) == -EEXIST,
	      "a tracked task stays in its container (EEXIST)");
	if (write(go[1], "g", 1) != 1)
		return 1;
	if (read(rep[0], &c.grandchild, sizeof(pid_t)) != sizeof(pid_t) ||
	    read(rep[0], &c.killed, sizeof(pid_t)) != sizeof(pid_t))
		return 1;
	waitpid(pid, &st, 0);
	check(WIFEXITED(st) && WEXITSTATUS(st) == 5, "the child exited 5 (status %#x)", st);
	deadline = time(NULL) + 10;
	while (!c.gone_seen && time(NULL) < deadline)
		be->ops->poll(be, 50);
	be->ops->drain(be);

	check(c.getppid_by[0] == (unsigned long)k, "%lu getppid records of the child, want %ld",
	      c.getppid_by[0], k);
	check(c.getppid_by[2] == (unsigned long)m, "%lu getppid records of its thread, want %ld",
	      c.getppid_by[2], m);
	check(c.getppid_by[1] == (unsigned long)l,
	      "%lu getppid records of the grandchild (returning the child), want %ld",
	      c.getppid_by[1], l);
	check(c.getppid_by[3] == 0, "%lu getppid records of anyone else", c.getppid_by[3]);
	check(c.forks == 2 && c.thread_forks == 1, "fork records: %lu processes (want 2), %lu threads (want 1)",
	      c.forks, c.thread_forks);
	check(c.exits == 3, "%lu exit records (the child and two grandchildren), want 3", c.exits);
	check(c.exit_codes[3] == 5 << 8, "the child's exit code %#x, want %#x", c.exit_codes[3], 5 << 8);
	check(c.exit_codes[4] == 3 << 8, "the grandchild's exit code %#x, want %#x", c.exit_codes[4], 3 << 8);
	check(c.exit_codes[5] == SIGTERM, "the killed grandchild's exit code %#x, want %#x (SIGTERM)",
	      c.exit_codes[5], SIGTERM);
	check(c.gones == 1 && c.after_gone == 0, "one BT_EV_GONE (%lu), the container's last record (%lu after)",
	      c.gones, c.after_gone);
	check(c.bad_ppid == 0, "ppid right in every record (%lu wrong)", c.bad_ppid);
	check(c.stray == 0, "no record of another key (%llu)", c.stray);
	check(be->ops->lost(be) == 0, "lost %llu", be->ops->lost(be));
	be->ops->destroy(be);
	return failed;
}

static int on_watch_event(void *ctx, void *data, size_t size)
{
	struct counts *c = ctx;
	const struct bt_event_hdr *h = data;
	int i;

	if (size < sizeof(*h))
		return 0;
	c->records++;
	if (h->type == BT_EV_ROOT && size >= sizeof(struct bt_root_event)) {
		const struct bt_root_event *e = data;

		if (c->nkeys < MAX_KEYS && key_index(c, h->cgroup_id) < 0) {
			c->keys[c->nkeys] = h->cgroup_id;
			c->root_pid[c->nkeys] = (pid_t)h->pid;
			c->root_ppid[c->nkeys] = (pid_t)h->ppid;
			c->root_ns[c->nkeys] = e->ns_flags;
			c->nkeys++;
		}
		return 0;
	}
	i = key_index(c, h->cgroup_id);
	if (i < 0) {
		c->stray++;
		return 0;
	}
	if (h->type == BT_EV_GONE)
		c->key_gone[i]++;
	else if (h->type == BT_EV_SYSCALL && ((const struct bt_syscall_event *)data)->nr == __NR_getppid)
		c->key_getppid[i]++;
	return 0;
}

static int run_watch(long n)
{
	struct counts c;
	struct backend *be;
	pid_t a, b, s, g;
	int st, i, ia = -1, ib = -1, gone = 0;
	time_t deadline;

	memset(&c, 0, sizeof(c));
	if (open_backend(&c, true, on_watch_event, &be))
		return 1;
	a = fork();
	if (a == 0) {		/* `unshare --mount CMD`: the container is the task itself */
		if (unshare(CLONE_NEWNS) < 0)
			_exit(100);
		getppids(n);
		_exit(0);
	}
	b = fork();
	if (b == 0) {		/* `unshare --pid --fork`: the container is the next child */
		if (unshare(CLONE_NEWPID) < 0)
			_exit(100);
		getppids(7);	/* not in any container */
		g = fork();
		if (g == 0) {
			getppids(n);
			_exit(0);
		}
		waitpid(g, &st, 0);
		_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 1);
	}
	s = fork();
	if (s == 0) {
		getppids(n);
		_exit(0);
	}
	waitpid(a, &st, 0);
	check(WIFEXITED(st) && WEXITSTATUS(st) == 0, "unshare(CLONE_NEWNS) child exited %#x", st);
	waitpid(b, &st, 0);
	check(WIFEXITED(st) && WEXITSTATUS(st) == 0, "unshare(CLONE_NEWPID) child exited %#x", st);
	waitpid(s, &st, 0);
	deadline = time(NULL) + 10;
	while (time(NULL) < deadline) {
		be->ops->poll(be, 50);
		for (i = 0, gone = 0; i < c.nkeys; i++)
			gone += c.key_gone[i] > 0;
		if (c.nkeys >= 2 && gone >= 2)
			break;
	}
	be->ops->drain(be);
	for (i = 0; i < c.nkeys; i++) {
		if (c.root_pid[i] == a)
			ia = i;
		else if (c.root_ppid[i] == b)
			ib = i;
	}
	check(ia >= 0, "a root at the task that unshared its mount namespace (%d)", (int)a);
	check(ib >= 0, "a root at the first child of the task that unshared its pid namespace");
	if (ia >= 0) {
		check(!!(c.keys[ia] & BT_KEY_KERNEL), "its key %#llx is a kernel key", (unsigned long long)c.keys[ia]);
		check(c.root_ns[ia] == CLONE_NEWNS, "ns_flags %#llx, want CLONE_NEWNS",
		      (unsigned long long)c.root_ns[ia]);
		check(c.root_ppid[ia] == getpid(), "its parent (%d), which the object cannot read from task_struct", (int)c.root_ppid[ia]);
		check(c.key_getppid[ia] == (unsigned long)n, "%lu getppid records in it, want %ld",
		      c.key_getppid[ia], n);
		check(c.key_gone[ia] == 1, "BT_EV_GONE for it");
	}
	if (ib >= 0) {
		check(c.root_ns[ib] & CLONE_NEWPID, "ns_flags %#llx has CLONE_NEWPID",
		      (unsigned long long)c.root_ns[ib]);
		check(c.key_getppid[ib] == (unsigned long)n, "%lu getppid records in it, want %ld",
		      c.key_getppid[ib], n);
		check(c.key_gone[ib] == 1, "BT_EV_GONE for it");
	}
	if (ia >= 0 && ib >= 0)
		check(c.keys[ia] != c.keys[ib], "two keys");
	check(c.stray == 0, "no record outside the roots (%llu)", c.stray);
	check(be->ops->lost(be) == 0, "lost %llu", be->ops->lost(be));
	be->ops->destroy(be);
	return failed;
}

int main(int argc, char **argv)
{
	if (geteuid() != 0) {
		fprintf(stderr, "legacy_pidtree: needs root to load BPF\n");
		return 77;
	}
	if (argc > 1 && !strcmp(argv[1], "--compat")) {
		compat = 1;
		argv++;
		argc--;
	}
	if (argc == 5 && !strcmp(argv[1], "tree"))
		return run_tree(atol(argv[2]), atol(argv[3]), atol(argv[4]));
	if (argc == 3 && !strcmp(argv[1], "watch"))
		return run_watch(atol(argv[2]));
	fprintf(stderr, "usage: legacy_pidtree [--compat] tree <K> <L> <M> | watch <N>\n");
	return 2;
}
