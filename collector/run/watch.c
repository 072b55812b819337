// SPDX-License-Identifier: BSD-2-Clause
/*
 * Watch mode (every container that starts while the collector runs) and
 * --pid (a process tree that runs already, until it ends).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collector/kernel/cgroup.h"
#include "collector/clock.h"
#include "collector/collector.h"
#include "collector/run/container_names.h"
#include "collector/kernel/proc.h"

int watch_run(struct collector *c)
{
	unsigned long long end = loop_deadline(c);

	while (!collector_exiting) {
		if (loop_poll_once(c, 50) < 0)
			return 1;
		if (end && mono_ns() >= end)
			break;
	}
	c->be->ops->drain(c->be);
	return 0;
}

/* Register every thread of process @pid as part of container @key; how many. */
static int track_threads(struct collector *c, pid_t pid, unsigned long long key)
{
	char path[64];
	struct dirent *d;
	DIR *tasks;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	tasks = opendir(path);
	while (tasks && (d = readdir(tasks))) {
		pid_t tid = (pid_t)strtol(d->d_name, NULL, 10);

		if (tid > 0 && c->be->ops->track_task(c->be, tid, key) == 0)
			n++;
	}
	if (tasks)
		closedir(tasks);
	return n;
}

/*
 * pidtree --pid: register every thread of @root and of its descendants.
 * Twice over, so that a task forked by a not-yet-registered parent while
 * we walked is caught the second time (afterwards the kernel follows).
 */
static int track_tree(struct collector *c, pid_t root, unsigned long long key)
{
	int pass, err, tracked = 0;
	size_t n, i;
	pid_t *in;

	for (pass = 0; pass < 2; pass++) {
		if ((err = proc_descendants(root, &in, &n)) < 0)
			return err;
		for (i = 0; i < n; i++)
			tracked += track_threads(c, in[i], key);
		free(in);
	}
	return tracked ? 0 : -ESRCH;
}

int watch_attach(struct collector *c)
{
	char rel[PATH_MAX], cgdir[2 * PATH_MAX];
	char base[CONTAINER_NAME_MAX], name[CONTAINER_NAME_MAX];
	unsigned long long id, end = loop_deadline(c);
	struct container *k;
	int err;

	snprintf(cgdir, sizeof(cgdir), "/proc/%d", c->opt.pid);
	if (access(cgdir, F_OK) < 0) {
		fprintf(stderr, "collector: no process %d\n", c->opt.pid);
		return 1;
	}
	if (c->mode == BT_MODE_CGROUP) {
		if ((err = proc_cgroup2_path(c->opt.pid, rel, sizeof(rel))) < 0) {
			fprintf(stderr, "collector: cannot read the cgroup of process %d: %s\n",
				c->opt.pid, strerror(-err));
			return 1;
		}
		snprintf(cgdir, sizeof(cgdir), "%s%s", c->cg2, rel);
		if ((err = cgroup_id_of(cgdir, &id)) < 0 || (err = lifecycle_track(c, id)) < 0) {
			fprintf(stderr, "collector: cannot track cgroup %s: %s\n", cgdir, strerror(-err));
			return 1;
		}
		container_name_from_path(rel, base, sizeof(base));
	} else {
		id = ++c->next_key;
		snprintf(base, sizeof(base), "pid-%d", c->opt.pid);
	}
	containers_unique_name(&c->containers, base, name, sizeof(name));
	k = containers_add(&c->containers, id, NULL, name);
	if (!k) {
		lifecycle_untrack(c, id);
		fprintf(stderr, "collector: out of memory\n");
		return 1;
	}
	lifecycle_write_start(c, k, mono_ns(), "attach", c->opt.pid, "collector",
			      c->mode == BT_MODE_CGROUP ? rel : NULL);
	/* its init, for the end row: the process --pid names, which exec'd before */
	lifecycle_saw_exec(k, c->opt.pid, 1);
	if (c->mode == BT_MODE_PIDTREE && (err = track_tree(c, c->opt.pid, id)) < 0) {
		fprintf(stderr, "collector: cannot register process %d: %s\n", c->opt.pid, strerror(-err));
		return 1;
	}
	/* pidtree: lifecycle_on_gone() removes the container with its last task */
	while (!collector_exiting && c->containers.n) {
		if (loop_poll_once(c, 50) < 0)
			return 1;
		if (end && mono_ns() >= end)
			break;
		if (c->mode == BT_MODE_CGROUP && cgroup_populated(cgdir) == 0)
			break;
	}
	c->be->ops->drain(c->be);
	/* the drain may have delivered its rmdir (end row written, k freed) */
	k = containers_find(&c->containers, id);
	if (k) {
		lifecycle_write_end(c, k, mono_ns());
		lifecycle_untrack(c, id);
		containers_remove(&c->containers, k);
	}
	return 0;
}
