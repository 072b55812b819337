// SPDX-License-Identifier: BSD-2-Clause
/*
 * Spawn mode: run a command as a container (a fresh cgroup v2 directory,
 * optional namespaces), traced from before its first instruction, --runs
 * times, each stopped by --until.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collector/kernel/cgroup.h"
#include "collector/run/child.h"
#include "collector/clock.h"
#include "collector/collector.h"
#include "collector/kernel/marks.h"
#include "collector/run/runs.h"

/* Signal the spawned container: its cgroup, or its process group without one. */
static void signal_spawned(const char *cgdir, pid_t pid, int sig)
{
	if (!cgdir)
		kill(-pid, sig);
	else
		cgroup_kill(cgdir, sig);
}

static int spawned_empty(struct collector *c, const char *cgdir, pid_t pid)
{
	if (cgdir)
		return cgroup_populated(cgdir) == 0;
	return c->spawned_gone || (kill(-pid, 0) < 0 && errno == ESRCH);
}

/* One boot: what spawn_prepare() acquired, for the steps after it. */
struct boot {
	const char *name;
	char cgbuf[PATH_MAX + CONTAINER_NAME_MAX];
	char *cgdir;			/* NULL: no cgroup2 mount */
	int cgfd;			/* cgdir's fd, -1: none (its child is born there) */
	unsigned long long id;		/* cgroup id, or the pidtree key */
	struct container *k;
	struct child ch;		/* its first process */
	int st, reaped;
	int stopped;			/* the collector stopped it before its phase: why in how */
	enum boot_end how;		/* how it ended (spawn_finish() decides) */
};

/*
 * Undo spawn_prepare(), whatever of it is left: the container's entry and
 * its registration in the kernel, the pipes, and the cgroup with the ones
 * the container made in it (nested containers).
 */
static void spawn_unprepare(struct collector *c, struct boot *b)
{
	if (b->k) {
		lifecycle_untrack(c, b->id);
		if (c->spawned == b->k) {
			containers_remove(&c->containers, b->k);
			c->spawned = NULL;
		}
		b->k = NULL;
	}
	if (b->cgfd >= 0)
		close(b->cgfd);
	b->cgfd = -1;
	if (b->cgdir && cgroup_remove_tree(b->cgdir) < 0 && errno != ENOENT) {
		loop_status_clear(c);
		fprintf(stderr, "collector: cannot remove cgroup %s: %s\n", b->cgdir,
			strerror(errno));
	}
	b->cgdir = NULL;
}

/*
 * The container, registered in the kernel before its first instruction:
 * cgroup mode tracks the fresh cgroup before the fork; pidtree mode takes
 * a key, and the child waits until its pid is tracked (register()). 0, or -1
 * after a message with nothing left behind.
 */
static int spawn_prepare(struct collector *c, const char *parent, struct boot *b)
{
	int err;

	if (parent[0]) {
		b->cgdir = b->cgbuf;
		snprintf(b->cgbuf, sizeof(b->cgbuf), "%s/%s", parent, b->name);
		if (mkdir(b->cgdir, 0755) < 0 && errno != EEXIST) {
			fprintf(stderr, "collector: cannot create cgroup %s: %s\n", b->cgdir,
				strerror(errno));
			b->cgdir = NULL;
			return -1;
		}
		b->cgfd = open(b->cgdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (b->cgfd < 0) {
			fprintf(stderr, "collector: cannot open cgroup %s: %s\n", b->cgdir,
				strerror(errno));
			goto fail;
		}
	}
	if (c->mode == BT_MODE_PIDTREE) {
		b->id = ++c->next_key;
	} else if ((err = cgroup_id_of(b->cgdir, &b->id)) < 0 ||
		   (err = lifecycle_track(c, b->id)) < 0) {
		fprintf(stderr, "collector: cannot register cgroup %s: %s\n", b->cgdir, strerror(-err));
		goto fail;
	}
	b->k = containers_add(&c->containers, b->id, NULL, b->name);
	if (!b->k) {
		if (c->mode == BT_MODE_CGROUP)
			lifecycle_untrack(c, b->id);
		fprintf(stderr, "collector: out of memory\n");
		goto fail;
	}
	c->spawned = b->k;
	c->spawned_gone = 0;
	c->until_at = 0;
	c->until_reached = 0;
	return 0;
fail:
	spawn_unprepare(c, b);
	return -1;
}

/* pidtree mode: the child's pid in the kernel, before its first instruction */
static int register_child(struct collector *c, pid_t pid, void *arg)
{
	const struct boot *b = arg;
	int err = c->be->ops->track_task(c->be, pid, b->id);

	if (err < 0)
		fprintf(stderr, "collector: cannot register pid %d: %s\n", pid, strerror(-err));
	return err;
}

/*
 * The start row, then the child. The start row comes first: before the
 * container runs at all (in the output buffer: it goes out after the
 * exec, not as a write of the collector's between its time and the
 * fork). With --start it waits for the probe (records.c), or the end of the
 * boot. 0, or -1 after a message (fork failed).
 */
static int spawn_fork(struct collector *c, struct boot *b)
{
	int err;

	c->spawn_ts = mono_ns();
	c->start_written = !marks_have_start(c->opt.marks);
	if (c->start_written)
		lifecycle_write_start(c, b->k, c->spawn_ts, "spawn", getpid(), "collector",
				      c->opt.command[0]);
	err = child_start(c, b->cgfd, c->mode == BT_MODE_PIDTREE ? register_child : NULL, b,
			  &b->ch);
	output_flush(c->out);
	return err;
}

/*
 * Until the container is over: its init reaped and its cgroup (or process
 * group) empty. --until, a signal, -d, --timeout or init's exit stop it:
 * SIGTERM, then SIGKILL after GRACE_NS. 0, or -errno when polling or
 * writing failed.
 */
static int spawn_wait(struct collector *c, struct boot *b)
{
	unsigned long long deadline_kill = 0, now;
	enum boot_end why;
	int err, termed = 0;

	for (;;) {
		if ((err = loop_poll_once(c, 10)) < 0)
			return err;
		if (!b->reaped && waitpid(b->ch.pid, &b->st, WNOHANG) == b->ch.pid) {
			/*
			 * init is gone: the container ends with it, at once or,
			 * with --until end+DURATION, that much later (orphans
			 * may finish their work meanwhile). It reached --until
			 * end when it ended by itself: not by the collector's
			 * SIGTERM, nor by a Ctrl-C that reached it too (a
			 * terminal signals the whole process group).
			 */
			b->reaped = 1;
			if (!termed && !collector_exiting)
				lifecycle_until_reached(c, b->k, UNTIL_END);
			if (!c->until_at)
				c->until_at = mono_ns();
		}
		now = mono_ns();
		if (!termed && runs_stop_due(c, c->spawn_ts, now, &why)) {
			if (!c->until_reached && !b->stopped) {
				b->stopped = 1;
				b->how = why;
			}
			if (!c->until_at || c->until_at > now)
				c->until_at = now;	/* a signal or -d cuts +DURATION short */
		}
		if (c->until_at && now >= c->until_at && !termed) {
			/* the child itself too: it may not have joined its cgroup yet */
			if (!b->reaped)
				kill(b->ch.pid, SIGTERM);
			signal_spawned(b->cgdir, b->ch.pid, SIGTERM);
			termed = 1;
			deadline_kill = now + GRACE_NS;
		}
		if (termed && now >= deadline_kill)
			signal_spawned(b->cgdir, b->ch.pid, SIGKILL);
		if (b->reaped && spawned_empty(c, b->cgdir, b->ch.pid))
			return 0;
	}
}

/*
 * Everything the kernel produced for this boot, then the end row; the
 * child reaped, the cgroup removed. Returns spawn_one()'s value.
 */
static int spawn_finish(struct collector *c, struct boot *b, int *status)
{
	c->be->ops->drain(c->be);
	if (c->spawned == b->k && !c->start_written) {
		loop_status_clear(c);
		fprintf(stderr, "collector: %s: the --start probe %s never fired in it; "
			"its start row is the spawn time\n", b->name,
			marks_start_spec(c->opt.marks));
		lifecycle_write_start(c, b->k, c->spawn_ts, "spawn", getpid(), "collector",
				      c->opt.command[0]);
		c->start_written = 1;
	}
	if (c->spawned == b->k) {
		/*
		 * The command is the container's first process: its wait
		 * status is its init's end when the kernel's exit record of
		 * it did not come (lost, or the init is another process)
		 */
		if (b->reaped && !b->k->init_exited) {
			lifecycle_saw_exec(b->k, b->ch.pid, 0);	/* if no exec was seen */
			lifecycle_saw_exit(b->k, b->ch.pid, (unsigned)b->st);
		}
		lifecycle_write_end(c, b->k, mono_ns());
	}
	output_flush(c->out);
	if (!b->reaped) {
		kill(b->ch.pid, SIGKILL);
		while (waitpid(b->ch.pid, &b->st, 0) < 0 && errno == EINTR)
			;
	}
	/* after the drain: a phase whose record came last counts */
	if (c->until_reached)
		b->how = BOOT_REACHED;
	else if (!b->stopped)
		b->how = BOOT_EARLY;
	spawn_unprepare(c, b);
	*status = child_status(b->st);
	if (b->ch.regfail)
		return -1;
	return child_outcome(&b->ch, *status);
}

/*
 * One boot. Returns 0 when the command ran (*@status: its exit status, or
 * 128 + signal; *@how: how the boot ended), 1 when it could not run
 * (*@status: 126 or 127, the message printed), -1 on a failure of the
 * collector or of the container's set-up (printed). Nothing of the boot is
 * left behind in any case.
 */
static int spawn_one(struct collector *c, const char *parent, const char *name, int *status,
		     enum boot_end *how)
{
	struct boot b = { .name = name, .cgfd = -1 };
	int err, r;

	if (spawn_prepare(c, parent, &b) < 0)
		return -1;
	if (spawn_fork(c, &b) < 0) {
		spawn_unprepare(c, &b);
		return -1;
	}
	err = spawn_wait(c, &b);
	r = spawn_finish(c, &b, status);
	*how = b.how;
	return err < 0 ? -1 : r;
}
/*
 * A runtime's client run as a container: what it starts is made by a
 * daemon or a shim elsewhere, and would not be traced. Say how to time
 * it, once (it may be what the user wants: the client's own cost).
 */
static void runtime_client_hint(const char *cmd)
{
	static const char *const clients[] = { "docker", "podman", "nerdctl", "ctr", "crictl" };
	const char *base = strrchr(cmd, '/');
	size_t i;

	base = base ? base + 1 : cmd;
	for (i = 0; i < sizeof(clients) / sizeof(clients[0]); i++)
		if (strcmp(base, clients[i]) == 0)
			fprintf(stderr, "collector: note: %s makes its containers outside its own process tree; "
				"to time them, give their cgroup: -c GLOB (e.g. -c '/docker/*'), see collector(8)\n",
				base);
}

int spawn_run(struct collector *c)
{
	char parent[PATH_MAX + 64], name[CONTAINER_NAME_MAX], base[CONTAINER_NAME_MAX];
	const char *slash;
	enum boot_end how = BOOT_REACHED;
	struct runs runs;
	int i, r = 0, status = 0, err = 0;

	parent[0] = '\0';
	if (c->cg2[0]) {
		cgroup_remove_stale(c->cg2);
		snprintf(parent, sizeof(parent), "%s/boottrace.%d", c->cg2, getpid());
		if (mkdir(parent, 0755) < 0) {
			fprintf(stderr, "collector: cannot create cgroup %s: %s\n", parent, strerror(errno));
			return 1;
		}
	}
	if (c->opt.name) {
		snprintf(base, sizeof(base), "%s", c->opt.name);
	} else {
		slash = strrchr(c->opt.command[0], '/');
		snprintf(base, sizeof(base), "%s", slash ? slash + 1 : c->opt.command[0]);
	}
	runtime_client_hint(c->opt.command[0]);
	child_prepare();
	runs_init(&runs, c->opt.runs);
	c->run_deadline = loop_deadline(c);
	for (i = 1; i <= c->opt.runs && !collector_exiting &&
		    !(c->run_deadline && mono_ns() >= c->run_deadline); i++) {
		if (c->opt.runs > 1)
			snprintf(name, sizeof(name), "%s-%d", base, i);
		else
			snprintf(name, sizeof(name), "%s", base);
		loop_run_begin(c);
		r = spawn_one(c, parent, name, &status, &how);
		loop_run_end(c);
		if (r < 0) {
			err = 1;
			break;
		}
		if (r > 0) /* the command cannot run: 126 or 127, whatever --until says */
			break;
		runs_boot_end(c, &runs, name, how, status, NULL);
		if (c->out->err) {
			err = 1;	/* finish_output() says why */
			break;
		}
	}
	if (parent[0])
		rmdir(parent);
	if (err)
		return 1;
	if (r > 0)
		return status;
	return runs_exit_status(c, &runs);
}
