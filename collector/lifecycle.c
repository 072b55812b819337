// SPDX-License-Identifier: BSD-2-Clause
/*
 * What a container is, and its start and end rows.
 *
 * cgroup mode: a cgroup v2 directory made while the collector watches
 * (the kernel tracks it at cgroup_mkdir, before any task can enter it),
 * or one nested in a container. pidtree watch mode: a task that made a
 * new pid or mount namespace (the kernel's BT_EV_ROOT). Spawn mode and
 * --pid register theirs directly (spawn.c, watch.c).
 */
#include <fnmatch.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include <linux/types.h>

#include "bpf/boottrace.h"
#include "collector/clock.h"
#include "collector/collector.h"
#include "collector/names.h"
#include "collector/proc.h"

int lifecycle_track(struct collector *c, unsigned long long id)
{
	return c->be->ops->track_cgroup(c->be, id);
}

void lifecycle_untrack(struct collector *c, unsigned long long id)
{
	if (c->mode == BT_MODE_CGROUP)
		c->be->ops->untrack_cgroup(c->be, id);
}

void lifecycle_write_start(struct collector *c, struct container *k, unsigned long long ts,
			   const char *how, long pid, const char *comm, const char *detail)
{
	struct row r = { 0 };

	r.ts_ns = ts;
	r.container = field_str(k->name);
	r.cgroup_id = c->mode == BT_MODE_CGROUP ? k->cgid : 0;
	r.pid = r.tid = pid;
	r.ppid = -1;
	r.comm = field_str(comm);
	r.event = "start";
	r.name = field_str(how);
	r.detail = field_str(detail);
	output_row(c->out, &r);
}

void lifecycle_write_end(struct collector *c, struct container *k, unsigned long long ts)
{
	struct row r = { 0 };

	r.ts_ns = ts;
	r.container = field_str(k->name);
	r.cgroup_id = c->mode == BT_MODE_CGROUP ? k->cgid : 0;
	r.pid = r.tid = r.ppid = -1;
	r.event = "end";
	output_row(c->out, &r);
}

void lifecycle_on_cgroup(struct collector *c, const struct bt_cgroup_event *e)
{
	struct container *k = containers_find(&c->containers, e->hdr.cgroup_id), *parent;
	char base[CONTAINER_NAME_MAX], name[CONTAINER_NAME_MAX];

	if (e->hdr.type == BT_EV_CGROUP_RMDIR) {
		if (!k)
			return;
		if (k->top == k)
			lifecycle_write_end(c, k, e->hdr.ts_ns);
		lifecycle_untrack(c, k->cgid);
		if (c->spawned == k)
			c->spawned = NULL;
		containers_remove(&c->containers, k);
		return;
	}
	if (k)
		return; /* registered by spawn mode already */
	parent = e->parent_tracked ? containers_find(&c->containers, e->parent_id) : NULL;
	if (parent) {
		containers_add(&c->containers, e->hdr.cgroup_id, parent->top, NULL);
		return;
	}
	if (c->opt.command || (c->opt.cgroup_glob &&
			       fnmatch(c->opt.cgroup_glob, e->path, FNM_PATHNAME) != 0)) {
		/* Not ours: the kernel tracked it in case; drop it. */
		lifecycle_untrack(c, e->hdr.cgroup_id);
		return;
	}
	container_name_from_path(e->path, base, sizeof(base));
	containers_unique_name(&c->containers, base, name, sizeof(name));
	k = containers_add(&c->containers, e->hdr.cgroup_id, NULL, name);
	if (!k)
		return;
	lifecycle_write_start(c, k, e->hdr.ts_ns, "mkdir", e->hdr.pid,
			      field_strn(e->hdr.comm, sizeof(e->hdr.comm)).s, e->path);
}

/* Whether a root the kernel found was made by the runtime --root-exec names. */
static int root_wanted(const struct collector *c, const struct bt_root_event *e)
{
	char cmd[4096], comm[BT_COMM_LEN + 1];

	if (!c->opt.root_exec)
		return 1;
	snprintf(comm, sizeof(comm), "%.*s", BT_COMM_LEN, e->parent_comm);
	if (fnmatch(c->opt.root_exec, comm, 0) == 0)
		return 1;
	/* the runtime's command line, arguments joined by spaces: "runc init" */
	if (proc_cmdline((pid_t)e->hdr.ppid, cmd, sizeof(cmd)) < 0)
		return 0;
	return fnmatch(c->opt.root_exec, cmd, 0) == 0;
}

void lifecycle_on_root(struct collector *c, const struct bt_root_event *e)
{
	char base[CONTAINER_NAME_MAX], name[CONTAINER_NAME_MAX], how[64];
	struct field comm = field_strn(e->hdr.comm, sizeof(e->hdr.comm));
	struct container *k;

	if (containers_find(&c->containers, e->hdr.cgroup_id))
		return;
	if (!root_wanted(c, e)) {
		/* its events, if any got out, count as stray */
		c->be->ops->untrack_task(c->be, (pid_t)e->hdr.tid);
		return;
	}
	snprintf(base, sizeof(base), "%.*s-%u", (int)comm.n, comm.s, e->hdr.pid);
	containers_unique_name(&c->containers, base, name, sizeof(name));
	k = containers_add(&c->containers, e->hdr.cgroup_id, NULL, name);
	if (!k)
		return;
	snprintf(how, sizeof(how), "%s%s%s",
		 e->ns_flags & CLONE_NEWPID ? "pid" : "",
		 (e->ns_flags & CLONE_NEWPID) && (e->ns_flags & CLONE_NEWNS) ? "," : "",
		 e->ns_flags & CLONE_NEWNS ? "mount" : "");
	lifecycle_write_start(c, k, e->hdr.ts_ns, "namespace", e->hdr.pid,
			      field_strn(e->parent_comm, sizeof(e->parent_comm)).s, how);
}

void lifecycle_on_gone(struct collector *c, const struct bt_event_hdr *h)
{
	struct container *k = containers_find(&c->containers, h->cgroup_id);

	if (!k)
		return;
	if (k == c->spawned) {
		c->spawned_gone = 1;	/* spawn mode writes the end row itself */
		return;
	}
	lifecycle_write_end(c, k, h->ts_ns);
	containers_remove(&c->containers, k);
}

void lifecycle_until_reached(struct collector *c, struct container *k, enum until_kind what)
{
	if (c->spawned && c->spawned == k->top && c->opt.until == what && !c->until_at)
		c->until_at = mono_ns() + c->opt.until_delay_ns;
}
