// SPDX-License-Identifier: BSD-2-Clause
/*
 * Client mode: `collector -c GLOB [--runs N] [--until ...] -- CLIENT...`
 * times the containers a runtime's client makes somewhere else (`docker
 * run`, `podman run`, `runc run`, `ctr run`): dockerd, containerd and runc
 * make the container outside the client's process tree, so the client is
 * not traced; the collector watches as in watch mode, and each run's
 * container is the first new container whose cgroup matches GLOB while the
 * run is live. Its start rows: `client` at the client's spawn (the moment
 * the user pressed enter), then the usual `mkdir` (or `namespace`).
 *
 * A pod is one run (cgroup mode): when the run's container is one of the
 * kubelet's cgroup layout (kubepods/<qos>/pod<uid>/<id>, the systemd
 * driver's slices; collector/run/container_names.h), the run is its pod:
 * every new container in the same pod cgroup while the run is live is the run's too
 * (k->run_member: its start row is its cgroup's mkdir, the client's spawn
 * is the sandbox's), --until's event is any of theirs (the app's listen),
 * --until kills the pod cgroup's tasks, and the run is over when the pod
 * cgroup is empty: a CRI client (crictl run, the tests' cri_client.py)
 * boots one pod a run, its sandbox, init and app containers, through
 * containerd.
 *
 * A run ends when the client has exited and its container is over (its
 * cgroup empty or removed; pidtree: its last task gone). --until stops the
 * container by killing its tasks (cgroup.kill; pidtree: its pid 1, which
 * takes its pid namespace along), not through the client: docker, podman
 * and runc clients pass SIGTERM to the container's pid 1, which ignores it
 * (a pid namespace's init has no default action), and then the client
 * exits or waits while the container runs on. Then the client exits by
 * itself (docker run --rm removes the container first); one that does not
 * within GRACE_NS is killed.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collector/kernel/cgroup.h"
#include "collector/run/container_names.h"
#include "collector/run/child.h"
#include "collector/clock.h"
#include "collector/collector.h"
#include "collector/run/runs.h"

/* The command line joined by spaces, for the client start row's detail. */
static void command_line(char **argv, char *out, size_t n)
{
	size_t len = 0;

	out[0] = '\0';
	for (; *argv && len + 1 < n; argv++)
		len += (size_t)snprintf(out + len, n - len, "%s%s", len ? " " : "", *argv);
}

/*
 * Whether @path (relative to the cgroup2 mount) is a pod's container:
 * then its pod's cgroup, the directory above it, into @pod (@n bytes).
 */
static int pod_of(const char *path, char *pod, size_t n)
{
	const char *slash = strrchr(path, '/');
	struct kube_path kp;

	if (!slash || slash == path || !cgroup_path_kube(path, strlen(path), &kp) ||
	    !kp.pod_uid[0] || kp.conmon || (size_t)(slash - path) >= n)
		return 0;
	memcpy(pod, path, (size_t)(slash - path));
	pod[slash - path] = '\0';
	return 1;
}

void client_claim(struct collector *c, struct container *k, const char *path, pid_t pid1)
{
	struct client_run *run = &c->client;
	size_t pl = strlen(run->path);
	char cmd[1024];
	const char *base;

	if (!run->live)
		return;
	if (run->have && run->pod && strncmp(path, run->path, pl) == 0 && path[pl] == '/') {
		k->run_member = 1;	/* the pod's next container */
		return;
	}
	if (run->have) {
		loop_status_clear(c);
		fprintf(stderr, "collector: run %d: another new cgroup matched %s while it ran: %s (%s), "
			"traced as a container of its own\n", run->n, c->opt.cgroup_glob, k->name, path);
		return;
	}
	run->have = 1;
	run->pid1 = pid1;
	snprintf(run->path, sizeof(run->path), "%s", path);
	if (c->mode == BT_MODE_CGROUP && pod_of(path, run->path, sizeof(run->path)))
		run->pod = 1;
	c->spawned = k;
	base = strrchr(c->opt.command[0], '/');
	command_line(c->opt.command, cmd, sizeof(cmd));
	lifecycle_write_start(c, k, run->spawn_ts, "client", run->ch.pid,
			      base ? base + 1 : c->opt.command[0], cmd);
}

/*
 * Host rows during the boot (--sched on): every task outside the
 * containers, from the client's spawn to the --until event or the run's
 * end, for the critical path through the runtime. --sched host has them
 * all the time (main.c).
 */
static void boot_host_rows(struct collector *c, bool on)
{
	if (c->opt.sched == SCHED_ON && c->be->ops->host_rows)
		c->be->ops->host_rows(c->be, on);
}

/* Kill the run's container: its cgroup's tasks, or its pid namespace's init. */
static void kill_container(struct collector *c, int sig)
{
	struct client_run *run = &c->client;
	char dir[2 * PATH_MAX];

	if (c->mode == BT_MODE_PIDTREE) {
		if (run->pid1 > 0)
			kill(run->pid1, sig);
		return;
	}
	snprintf(dir, sizeof(dir), "%s%s", c->cg2, run->path);
	cgroup_kill(dir, sig);
}

/* Whether the run's container is over (never seen counts as over). */
static int container_over(struct collector *c)
{
	struct client_run *run = &c->client;
	char dir[2 * PATH_MAX];

	if (!run->have || !c->spawned)
		return 1;	/* never came, or its cgroup was removed */
	if (c->mode == BT_MODE_PIDTREE)
		return c->spawned_gone;
	snprintf(dir, sizeof(dir), "%s%s", c->cg2, run->path);
	return cgroup_populated(dir) <= 0;
}

/*
 * The pod's other containers still in the table when its run ends (their
 * cgroups empty, not yet removed): their end rows now, in the run's file.
 */
static void end_members(struct collector *c)
{
	struct container_table *t = &c->containers;
	int pass;
	size_t i;

	/* the cgroups nested in them first, then they (removal moves the last entry to i) */
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < t->n;) {
			struct container *k = t->v[i];

			if (!k->top || !k->top->run_member || (pass == 0) == (k->top == k)) {
				i++;
				continue;
			}
			if (pass == 1)
				lifecycle_write_end(c, k, mono_ns());
			lifecycle_untrack(c, k->cgid);
			containers_remove(t, k);
		}
}

/*
 * One run: the client, until it has exited and its container is over.
 * 0: it ran (*@status: the client's exit status, *@how: how the boot
 * ended, its container's name in @name); 1: it could not run (126, 127);
 * -1: a failure (printed).
 */
static int client_one(struct collector *c, int n, int *status, enum boot_end *how, char *name,
		      size_t nname)
{
	struct client_run *run = &c->client;
	unsigned long long now, kill_at = 0, client_kill_at = 0;
	int st = 0, reaped = 0, err = 0, stopped = 0, host_on = 1, stopped_early = 0;
	enum boot_end why;

	memset(run, 0, sizeof(*run));
	run->n = n;
	c->spawned = NULL;
	c->spawned_gone = 0;
	c->until_at = 0;
	c->until_reached = 0;
	c->start_written = 1;
	*how = BOOT_EARLY;
	snprintf(name, nname, "run %d", n);
	boot_host_rows(c, true);
	run->spawn_ts = mono_ns();
	run->live = 1;
	if (child_start(c, -1, NULL, NULL, &run->ch) < 0) {
		boot_host_rows(c, false);
		run->live = 0;
		return -1;
	}
	for (;;) {
		if ((err = loop_poll_once(c, 10)) < 0)
			break;
		/* the boot is over at --until's event: what follows is teardown */
		if (c->until_at && host_on) {
			boot_host_rows(c, false);
			host_on = 0;
		}
		if (!reaped && waitpid(run->ch.pid, &st, WNOHANG) == run->ch.pid) {
			reaped = 1;
			/* a container may still come: its mkdir read after the exit */
			c->be->ops->drain(c->be);
			if (!run->have)
				break;
			/*
			 * --until end+DURATION: the client's own exit is the
			 * phase, and the container may outlive it (docker run
			 * -d) that much; plain end: until the container ends
			 * by itself.
			 */
			if (c->opt.until == UNTIL_END && c->opt.until_delay_ns && !stopped_early &&
			    !collector_exiting && !c->until_at) {
				c->until_reached = 1;
				c->until_at = mono_ns() + c->opt.until_delay_ns;
			}
		}
		now = mono_ns();
		/* Ctrl-C, -d, --timeout: stop the container (or the client, before it) */
		if (!stopped && runs_stop_due(c, run->spawn_ts, now, &why)) {
			if (!c->until_reached && !stopped_early) {
				stopped_early = 1;
				*how = why;
			}
			if (!c->until_at || c->until_at > now)
				c->until_at = now;
		}
		/* --until, or a stop: the container, then the client waits no longer */
		if (c->until_at && now >= c->until_at && !stopped && run->have) {
			kill_container(c, SIGTERM);
			stopped = 1;
			kill_at = now + GRACE_NS / 10;	/* a pid 1 ignores SIGTERM */
		}
		if (stopped && kill_at && now >= kill_at) {
			kill_container(c, SIGKILL);
			kill_at = 0;
			client_kill_at = now + GRACE_NS;
		}
		if (!reaped && stopped_early && !run->have && !stopped) {
			/* no container yet: stop the client itself */
			kill(-run->ch.pid, SIGTERM);
			stopped = 1;
			client_kill_at = now + GRACE_NS;
		}
		if (!reaped && client_kill_at && now >= client_kill_at) {
			kill(-run->ch.pid, SIGKILL);
			client_kill_at = 0;
		}
		if (reaped && container_over(c)) {
			/* --until end: the client and its container ended by themselves */
			if (!stopped && c->opt.until == UNTIL_END && !collector_exiting)
				c->until_reached = 1;
			break;
		}
	}
	if (host_on)
		boot_host_rows(c, false);
	if (!reaped) {
		kill(-run->ch.pid, SIGKILL);
		while (waitpid(run->ch.pid, &st, 0) < 0 && errno == EINTR)
			;
	}
	c->be->ops->drain(c->be);
	run->live = 0;
	if (c->spawned) {
		snprintf(name, nname, "run %d (%s)", n, c->spawned->name);
		lifecycle_write_end(c, c->spawned, mono_ns());
		lifecycle_untrack(c, c->spawned->cgid);
		containers_remove(&c->containers, c->spawned);
		c->spawned = NULL;
	}
	end_members(c);
	output_flush(c->out);
	if (c->until_reached)
		*how = BOOT_REACHED;
	*status = child_status(st);
	if (err < 0)
		return -1;
	return child_outcome(&run->ch, *status);
}

int client_run(struct collector *c)
{
	char name[CONTAINER_NAME_MAX + 32];
	const char *base = strrchr(c->opt.command[0], '/');
	enum boot_end how;
	struct runs runs;
	int i, r = 0, status = 0;

	base = base ? base + 1 : c->opt.command[0];
	child_prepare();
	runs_init(&runs, c->opt.runs);
	c->run_deadline = loop_deadline(c);
	for (i = 1; i <= c->opt.runs && !collector_exiting &&
		    !(c->run_deadline && mono_ns() >= c->run_deadline); i++) {
		loop_run_begin(c);
		r = client_one(c, i, &status, &how, name, sizeof(name));
		loop_run_end(c);
		if (r != 0)
			break;
		if (!c->client.have && how == BOOT_EARLY) {
			fprintf(stderr, "collector: run %d: no new cgroup matched %s while %s ran "
				"(it exited with status %d)\n", i, c->opt.cgroup_glob, c->opt.command[0],
				status);
			return 1;
		}
		runs_boot_end(c, &runs, name, how, status, base);
		if (c->out->err)
			return 1;	/* finish_output() says why */
	}
	if (r < 0)
		return 1;
	if (r > 0)
		return status;
	return runs_exit_status(c, &runs);
}
