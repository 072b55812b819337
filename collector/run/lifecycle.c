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
#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <linux/types.h>

#include "bpf/boottrace.h"
#include "common/end_detail.h"
#include "collector/clock.h"
#include "collector/collector.h"
#include "collector/run/container_names.h"
#include "collector/kernel/proc.h"
#include "collector/run/runtime_names.h"
#include "collector/run/progress.h"

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
	if (c->progress && k == c->spawned)
		progress_start(c->progress, ts);
}

/*
 * Bundle searches per container: one per task, at the first row of each
 * (runc's [0:PARENT] and [1:CHILD] are gone when their rows are read; its
 * init lives on), and at the entrypoint's exec.
 */
#define NAMES_TRIES 8

void lifecycle_names_begin(struct collector *c, struct container *k, const char *path,
			   long maker, long maker_parent)
{
	struct runtime_names *rn = malloc(sizeof(*rn));

	(void)c;
	if (!rn || !runtime_names_from_path(path, rn)) {
		free(rn);
		return;
	}
	rn->maker = (pid_t)maker;
	rn->maker_parent = (pid_t)maker_parent;
	free(k->names);
	k->names = rn;
}

static void write_names(struct collector *c, struct container *k, unsigned long long ts)
{
	struct runtime_names *rn = k->names;
	char detail[META_NKEYS * (RUNTIME_NAME_MAX + 32)];
	struct row r = { 0 };

	k->names = NULL;
	r.ts_ns = ts;
	r.container = field_str(k->name);
	r.cgroup_id = c->mode == BT_MODE_CGROUP ? k->cgid : 0;
	r.pid = r.tid = r.ppid = -1;
	r.event = "meta";
	r.name = field_str(rn->source);
	r.detail.s = detail;
	r.detail.n = meta_format(&rn->m, detail, sizeof(detail));
	if (r.detail.n)
		output_row(c->out, &r);
	free(rn);
}

void lifecycle_names(struct collector *c, struct container *k, unsigned long long ts, long pid,
		     bool last)
{
	struct runtime_names *rn = k->names;

	if (pid == rn->last_pid && !last)
		return;
	rn->last_pid = (pid_t)pid;
	rn->tries++;
	if (runtime_names_from_bundle(rn, (pid_t)pid) || rn->tries >= NAMES_TRIES || last)
		write_names(c, k, ts);
}

void lifecycle_write_end(struct collector *c, struct container *k, unsigned long long ts)
{
	struct row r = { 0 };
	char how[64];

	if (k->names)
		write_names(c, k, ts);

	r.ts_ns = ts;
	r.container = field_str(k->name);
	r.cgroup_id = c->mode == BT_MODE_CGROUP ? k->cgid : 0;
	r.pid = r.tid = r.ppid = -1;
	r.event = "end";
	if (k->init_exited) {
		end_detail_format(how, sizeof(how), k->init_pid, k->init_status);
		r.detail = field_str(how);
	}
	output_row(c->out, &r);
}

void lifecycle_saw_exec(struct container *k, long pid, int flagged_init)
{
	if (!k || (k->init_pid && (k->init_flagged || !flagged_init)))
		return;
	k->init_pid = pid;
	k->init_flagged = flagged_init;
	k->init_exited = 0;
}

void lifecycle_saw_exit(struct container *k, long pid, unsigned wstatus)
{
	if (k && k->init_pid == pid) {
		k->init_exited = 1;
		k->init_status = wstatus;
	}
}

/* Candidate @k becomes container @name: its start row, from its mkdir. */
static void write_start_of(struct collector *c, struct container *k, const char *name)
{
	struct candidate *cand = k->cand;

	k->cand = NULL;
	containers_decide(k, NULL, name);
	client_claim(c, k, cand->path, 0);
	lifecycle_write_start(c, k, cand->ts, "mkdir", cand->pid, cand->comm, cand->path);
	lifecycle_names_begin(c, k, cand->path, cand->pid, cand->ppid);
	free(cand);
}

/* Whether candidate @k, or a candidate above it, matches --cgroup's glob. */
static int matched_above(struct collector *c, struct container *k)
{
	int depth;

	for (depth = 0; k && k->cand && depth < 64; depth++) {
		if (k->cand->matched)
			return 1;
		k = containers_find(&c->containers, k->cand->parent);
	}
	return 0;
}

void lifecycle_on_cgroup(struct collector *c, const struct bt_cgroup_event *e)
{
	struct container *k = containers_find(&c->containers, e->hdr.cgroup_id), *parent;
	struct candidate *cand;
	struct field comm;
	int matched;

	if (e->hdr.type == BT_EV_CGROUP_RMDIR) {
		if (!k)
			return;
		/* a candidate never held a task: it was never a container */
		if (!k->cand && k->top == k)
			lifecycle_write_end(c, k, e->hdr.ts_ns);
		lifecycle_untrack(c, k->cgid);
		if (c->spawned == k)
			c->spawned = NULL;
		containers_remove(&c->containers, k);
		return;
	}
	if (k)
		return; /* registered by spawn mode already */
	parent = containers_find(&c->containers, e->parent_id);
	if (parent && !parent->cand) {
		/* made inside a container (systemd, docker-in-docker): part of it */
		if (!containers_add(&c->containers, e->hdr.cgroup_id, parent->top, NULL))
			lifecycle_untrack(c, e->hdr.cgroup_id);	/* ENOMEM: its rows are lost */
		return;
	}
	if (c->opt.command && !c->opt.cgroup_glob) {
		/* spawn mode: only what is made inside its containers */
		lifecycle_untrack(c, e->hdr.cgroup_id);
		return;
	}
	matched = c->opt.cgroup_glob && fnmatch(c->opt.cgroup_glob, e->path, FNM_PATHNAME) == 0;
	if (c->opt.cgroup_glob && !matched && !matched_above(c, parent)) {
		/* Not ours, nor inside what may be ours: the kernel tracked it in case. */
		lifecycle_untrack(c, e->hdr.cgroup_id);
		return;
	}
	/*
	 * A candidate until a task enters it: a runtime makes its parents
	 * (/docker, /libpod_parent, kubepods-*.slice, a --cgroup-parent)
	 * before the container's own cgroup, and puts no task in them.
	 */
	/*
	 * Out of memory here or at the add: the kernel tracks it since its
	 * mkdir, and nothing would ever untrack it (its rmdir finds no entry).
	 */
	cand = calloc(1, sizeof(*cand));
	if (!cand) {
		lifecycle_untrack(c, e->hdr.cgroup_id);
		return;
	}
	cand->parent = e->parent_id;
	cand->ts = e->hdr.ts_ns;
	cand->pid = e->hdr.pid;
	cand->ppid = e->hdr.ppid;
	cand->matched = matched;
	comm = field_strn(e->hdr.comm, sizeof(e->hdr.comm));
	snprintf(cand->comm, sizeof(cand->comm), "%.*s", (int)comm.n, comm.s);
	snprintf(cand->path, sizeof(cand->path), "%.*s", (int)sizeof(e->path), e->path);
	if (!containers_add_candidate(&c->containers, e->hdr.cgroup_id, cand))
		lifecycle_untrack(c, e->hdr.cgroup_id);
}

/* CRI-O's crio-conmon-<id>.scope holds conmon, the container's monitor, not the container. */
static bool is_conmon(const char *path)
{
	struct kube_path kp;

	return cgroup_path_kube(path, strlen(path), &kp) && kp.conmon;
}

/*
 * Candidate @k had its first task. Its container: an ancestor that is a
 * container already; else, with --cgroup, the nearest of @k and its
 * candidate ancestors whose path matches the glob; else @k itself.
 */
struct container *lifecycle_decide(struct collector *c, struct container *k)
{
	char base[CONTAINER_NAME_MAX], name[CONTAINER_NAME_MAX];
	struct container *a, *x = c->opt.cgroup_glob ? NULL : k, *up;
	int depth;

	for (depth = 0, a = k; a && depth < 64; depth++) {
		if (!a->cand) {
			containers_decide(k, a->top, NULL);
			return k;
		}
		if (!x && a->cand->matched)
			x = a;
		a = containers_find(&c->containers, a->cand->parent);
	}
	if (x && is_conmon(x->cand->path))
		x = NULL;
	if (!x) {
		/* under --cgroup, nothing of it matches: not ours after all */
		lifecycle_untrack(c, k->cgid);
		containers_remove(&c->containers, k);
		return NULL;
	}
	container_name_from_path(x->cand->path, base, sizeof(base));
	containers_unique_name(&c->containers, base, name, sizeof(name));
	/* x becomes the container; the candidates from k up to x are parts of it */
	for (a = k; a != x; a = up) {
		up = containers_find(&c->containers, a->cand->parent);
		containers_decide(a, x, NULL);
	}
	write_start_of(c, x, name);
	return k;
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

/*
 * The cgroup the runtime put a new root in: runc applies its cgroups
 * before nsexec's clones, so the root's is final when its event arrives.
 * The root itself (runc:[1:CHILD]) may be gone: then its pid 1, its parent.
 */
static int root_cgroup(const struct bt_root_event *e, char *out, size_t n)
{
	return proc_runtime_cgroup((pid_t)e->hdr.tid, out, n) == 0 ||
	       proc_runtime_cgroup((pid_t)e->hdr.pid, out, n) == 0 ||
	       (e->hdr.ppid && proc_runtime_cgroup((pid_t)e->hdr.ppid, out, n) == 0);
}

/*
 * Whether the runtime gave root @e the cgroup @cg of its own: the task
 * that started it is elsewhere. runc moves its init (runc:[0:PARENT], the
 * root's parent) into the container's cgroup, then clones the root; the
 * runtime is the parent's parent. An unshare from a shell stays in the
 * shell's cgroup, shared with everything else there. When the runtime is
 * gone already (the legacy object's events come later), the collector's
 * own cgroup stands in for the shell's.
 */
static int root_cgroup_own(const struct bt_root_event *e, const char *cg)
{
	char other[PATH_MAX];
	pid_t runtime = e->hdr.ppid ? proc_ppid((pid_t)e->hdr.ppid) : -1;

	if ((runtime <= 0 || proc_runtime_cgroup(runtime, other, sizeof(other)) < 0) &&
	    proc_runtime_cgroup(getpid(), other, sizeof(other)) < 0)
		return 0;
	return strcmp(other, cg) != 0;
}

void lifecycle_on_root(struct collector *c, const struct bt_root_event *e)
{
	char base[CONTAINER_NAME_MAX], name[CONTAINER_NAME_MAX], how[64], cg[PATH_MAX];
	struct field comm = field_strn(e->hdr.comm, sizeof(e->hdr.comm));
	struct container *k;
	int wanted, have_cg;

	if (containers_find(&c->containers, e->hdr.cgroup_id))
		return;
	/* its cgroup read only for a root --root-exec wants */
	wanted = root_wanted(c, e);
	have_cg = wanted && root_cgroup(e, cg, sizeof(cg));
	if (!wanted || (c->opt.cgroup_glob &&
			!(have_cg && fnmatch(c->opt.cgroup_glob, cg, FNM_PATHNAME) == 0))) {
		/* its events, if any got out, count as stray */
		c->be->ops->untrack_task(c->be, (pid_t)e->hdr.tid);
		return;
	}
	/*
	 * A runtime's container is named as cgroup mode names it (from its
	 * v1 path on a v1 host); a root in a cgroup it shares, comm-pid.
	 */
	if (!have_cg || (!container_runtime_name(cg, base, sizeof(base)) &&
			 !(root_cgroup_own(e, cg) && container_name_from_path(cg, base, sizeof(base)))))
		snprintf(base, sizeof(base), "%.*s-%u", (int)comm.n, comm.s, e->hdr.pid);
	containers_unique_name(&c->containers, base, name, sizeof(name));
	k = containers_add(&c->containers, e->hdr.cgroup_id, NULL, name);
	if (!k) {
		/* out of memory: the kernel follows the root, and nothing would stop it */
		c->be->ops->untrack_task(c->be, (pid_t)e->hdr.tid);
		return;
	}
	client_claim(c, k, have_cg ? cg : "", (pid_t)e->hdr.pid);
	snprintf(how, sizeof(how), "%s%s%s",
		 e->ns_flags & CLONE_NEWPID ? "pid" : "",
		 (e->ns_flags & CLONE_NEWPID) && (e->ns_flags & CLONE_NEWNS) ? "," : "",
		 e->ns_flags & CLONE_NEWNS ? "mount" : "");
	lifecycle_write_start(c, k, e->hdr.ts_ns, "namespace", e->hdr.pid,
			      field_strn(e->parent_comm, sizeof(e->parent_comm)).s, how);
	if (have_cg)
		lifecycle_names_begin(c, k, cg, e->hdr.ppid, 0);
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
	unsigned long long at;

	/* the run's container, or (client mode) another of its pod's */
	if (!c->spawned || (c->spawned != k->top && !(k->top && k->top->run_member)) ||
	    c->opt.until != what || c->until_reached)
		return;
	/*
	 * Also when its record comes after the boot's stop was decided (its
	 * command exited right after a listen the next poll delivers): the
	 * file has the phase, and so does the exit status.
	 */
	c->until_reached = 1;
	at = mono_ns() + c->opt.until_delay_ns;
	if (!c->until_at || at < c->until_at)
		c->until_at = at;
}
