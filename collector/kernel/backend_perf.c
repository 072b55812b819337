// SPDX-License-Identifier: BSD-2-Clause
/*
 * The perf-buffer objects behind collector/kernel/backend.h, the two builds of
 * bpf/boottrace_legacy.bpf.c: the legacy object (pidtree attribution on
 * kernels as old as 4.15) and the compat object (4.18: cgroup mode too,
 * with collector/kernel/cgroups_compat.c). Each is opened from the ELF its
 * skeleton embeds, its maps found by name: one code path for both.
 * Configuration goes into the `config` map, with the tracepoint field
 * offsets read from tracefs;
 * the programs are attached through perf_event_open on the tracepoint ids
 * of the same tracefs (what libbpf would do, minus its guess of where
 * tracefs is); records come through a perf buffer, one ring per CPU.
 * Marks go on uprobe events made in tracefs uprobe_events (the uprobe PMU
 * libbpf uses is 4.17), named after the collector's pid and removed at
 * destroy, or at the next start after a SIGKILL. Plain syscall records
 * come in per-CPU batches, as the modern object's (collector/kernel/batch.c).
 * The rings lose the order between CPUs that lifecycle.c needs: what records
 * are held back is decided here, when and in what order they go in
 * collector/kernel/reorder.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/param.h>
#include <sys/syscall.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "boottrace_compat.skel.h"
#include "boottrace_legacy.skel.h"
#include "bpf/boottrace.h"
#include "bpf/boottrace_legacy.h"
#include "collector/kernel/backend.h"
#include "collector/kernel/batch.h"
#include "collector/kernel/bpfmap.h"
#include "collector/kernel/tracefs_layout.h"
#include "collector/kernel/cgroups_compat.h"
#include "collector/clock.h"
#include "collector/keyset.h"
#include "collector/kernel/proc.h"
#include "collector/kernel/profile_events.h"
#include "collector/kernel/reorder.h"
#include "collector/kernel/tracefs.h"

_Static_assert(sizeof(((struct bt_legacy_config *)0)->syscall_mask) ==
	       sizeof(((struct backend_config *)0)->syscall_mask), "syscall mask sizes");

#define MAX_PROGS 24
/* Uprobe event groups: UPROBE_GROUP<pid>, one per collector. */
#define UPROBE_GROUP "boottrace_"
/* The object's maps the backend uses, found by name (NULL: not in this build). */
struct perf_maps {
	struct bpf_map *config, *tasks, *procs, *live, *ppid_fix, *mark_starts;
	struct bpf_map *events, *batches, *lost, *scheds;
	struct bpf_map *tracked, *filter;	/* compat */
};

struct perfobj {
	struct backend b;
	struct bpf_object *obj;
	struct perf_maps m;
	int cgroup;			/* cgroup mode (compat object) */
	struct cgroups_compat cg;	/* cgroup mode: what user space does of it */
	struct perf_buffer *pb;
	struct bpf_link *links[MAX_PROGS];
	int nlinks;
	struct batches batches;		/* a visit is a syscall of this thread */
	unsigned long long pb_lost;	/* samples the perf rings dropped */
	unsigned long long samples_dropped; /* profile samples of containers not known yet */
	struct bpf_program *profile_prog; /* bt_profile (compat), or NULL */
	struct profile *profile;	/* --profile's perf events (compat) */
	struct batch_gaps gaps;		/* lost batches */
	struct reorder order;		/* the records held back (collector/kernel/reorder.h) */
	struct keyset roots;		/* pidtree: the kernel keys whose ROOT was delivered */
	/* marks: their perf events, and the uprobe events to remove after them */
	char tracefs[4096];
	char group[TRACEFS_NAME_MAX];
	struct bpf_link **mark_links;
	char (*uevents)[TRACEFS_NAME_MAX];
	size_t nuevents, nmark_links;
};

static struct perfobj *to_perfobj(struct backend *b)
{
	return (struct perfobj *)b;
}

/* --- delivery ------------------------------------------------------------ */

/*
 * A root the kernel found in place (unshare(CLONE_NEWNS)) comes without
 * its parent: the object cannot read task_struct. Ask /proc while the task
 * is likely alive, and tell the kernel the answer for its records through
 * `ppid_fix` (its `tasks` entry says ppid_pending): the kernel writes that
 * entry as the task runs, a copy written back from here could undo it.
 */
static void fill_root_parent(struct perfobj *o, struct bt_root_event *e)
{
	char comm[sizeof(e->parent_comm) + 1];
	__u32 pid = e->hdr.pid, v;
	ssize_t n;
	pid_t ppid;

	if (e->hdr.ppid || (ppid = proc_ppid((pid_t)e->hdr.tid)) <= 0)
		return;
	e->hdr.ppid = (__u32)ppid;
	/* with its NUL when it fits, as the kernel writes a comm */
	n = proc_comm(ppid, comm, sizeof(comm));
	if (n > 0)
		memcpy(e->parent_comm, comm, MIN((size_t)n + 1, sizeof(e->parent_comm)));
	v = (__u32)ppid;
	bpf_map__update_elem(o->m.ppid_fix, &pid, sizeof(pid), &v, sizeof(v), BPF_ANY);
}

/* Where every record goes, held or not; reorder.c calls it too. */
static void hand_over(void *ctx, void *data, size_t size)
{
	struct perfobj *o = ctx;
	const struct bt_event_hdr *h = data;

	o->b.cfg.on_event(o->b.cfg.ctx, data, size);
	if (size < sizeof(*h))
		return;
	if (h->type == BT_EV_GONE)
		keyset_del(&o->roots, h->cgroup_id);
	else if (h->type == BT_EV_CGROUP_RMDIR && cgroups_compat_known(&o->cg, h->cgroup_id))
		cgroups_compat_untrack(&o->cg, h->cgroup_id);	/* if lifecycle.c did not */
	else if (h->type == BT_EV_EXIT && o->cgroup)
		cgroups_compat_forget_pid(&o->cg, h->pid);
}

/*
 * cgroup mode: a cgroup's mkdir and rmdir completed (cgroups_compat.c) or
 * dropped; the records of tasks the kernel met first in a tracked cgroup
 * given their parent; the order restored as in pidtree mode.
 */
static void deliver_cgroup(struct perfobj *o, __u64 *buf, size_t size)
{
	struct bt_event_hdr *h = (struct bt_event_hdr *)buf;
	struct bt_cgroup_event *e = (struct bt_cgroup_event *)buf;
	int cg = h->type == BT_EV_CGROUP_MKDIR || h->type == BT_EV_CGROUP_RMDIR;

	if (cg && size < sizeof(*e))
		return;
	if (h->type == BT_EV_CGROUP_MKDIR) {
		/* known from here on: lifecycle.c may drop it again while it reads this */
		if (cgroups_compat_mkdir(&o->cg, e) && reorder_hold_mkdir(&o->order, buf, size) < 0) {
			hand_over(o, buf, size);
			reorder_release(&o->order, 0, h->cgroup_id);
		}
		return;
	}
	if (h->type == BT_EV_CGROUP_RMDIR) {
		if (cgroups_compat_rmdir(&o->cg, e) && reorder_hold(&o->order, buf, size) < 0)
			hand_over(o, buf, size);
		return;
	}
	/* asked now, while the task likely lives; fork records carry the parent */
	if (!h->ppid)
		cgroups_compat_fix_ppid(&o->cg, h);
	if (reorder_made(&o->order, h->cgroup_id) &&
	    reorder_hold_behind(&o->order, buf, size) == 0)
		return;
	if (!cgroups_compat_known(&o->cg, h->cgroup_id) &&
	    reorder_hold(&o->order, buf, size) == 0)
		return;
	hand_over(o, buf, size);
}

/*
 * A profile sample (compat): 2.6 KB, more than a held record can be, so
 * handed over at once when its container is known; else (the first
 * moments of a cgroup whose record has not come, a root not delivered)
 * dropped and counted lost. Its order among the rows does not matter: a
 * sample row stands alone.
 */
static void deliver_sample(struct perfobj *o, const void *raw, size_t size)
{
	struct bt_sample_event e;
	struct bt_event_hdr *h = &e.hdr;

	memset(&e, 0, sizeof(e));
	memcpy(&e, raw, MIN(size, sizeof(e)));
	if (o->cgroup) {
		cgroups_compat_fix_ppid(&o->cg, h);
		if (!cgroups_compat_known(&o->cg, h->cgroup_id)) {
			o->samples_dropped++;
			return;
		}
	} else if ((h->cgroup_id & BT_KEY_KERNEL) && !keyset_has(&o->roots, h->cgroup_id)) {
		o->samples_dropped++;
		return;
	}
	hand_over(o, &e, sizeof(e));
}

static void deliver(struct perfobj *o, const void *raw, size_t size)
{
	/* perf puts samples at 4-byte alignment; records have __u64 fields */
	__u64 buf[REORDER_RECORD_MAX / 8];
	struct bt_event_hdr *h = (struct bt_event_hdr *)buf;

	if (size >= sizeof(struct bt_sample_event) &&
	    ((const struct bt_event_hdr *)raw)->type == BT_EV_SAMPLE) {
		deliver_sample(o, raw, size);
		return;
	}
	if (size > sizeof(buf))
		size = sizeof(buf);
	memcpy(buf, raw, size);
	if (size < sizeof(*h)) {
		o->b.cfg.on_event(o->b.cfg.ctx, buf, size);
		return;
	}
	if (o->cgroup) {
		deliver_cgroup(o, buf, size);
		return;
	}
	if (h->type == BT_EV_ROOT && size >= sizeof(struct bt_root_event)) {
		fill_root_parent(o, (struct bt_root_event *)buf);
		hand_over(o, buf, size);
		keyset_add(&o->roots, h->cgroup_id);
		reorder_release(&o->order, 0, h->cgroup_id);
		return;
	}
	if (h->type == BT_EV_GONE ||
	    ((h->cgroup_id & BT_KEY_KERNEL) && !keyset_has(&o->roots, h->cgroup_id))) {
		if (reorder_hold(&o->order, buf, size) == 0)
			return;
	}
	hand_over(o, buf, size);
}

/*
 * After a drain read the rings: batches the CPUs flushed that did not
 * arrive were lost, as far as anyone can tell now.
 */
static void batches_settle(struct perfobj *o)
{
	int cpu;

	if (batches_read(&o->batches) < 0)
		return;
	for (cpu = 0; cpu < o->batches.ncpus; cpu++)
		batch_gaps_settle(&o->gaps, cpu, o->batches.copy[cpu].seq,
				  o->batches.copy[cpu].flushes);
}

/* A record of a batch: a plain syscall record. */
static int deliver_batched(void *ctx, void *rec, size_t size)
{
	deliver(ctx, rec, size);
	return 0;
}

static enum bpf_perf_event_ret on_perf_event(void *ctx, int cpu, struct perf_event_header *ev)
{
	struct perfobj *o = ctx;

	if (ev->type == PERF_RECORD_SAMPLE) {
		/* PERF_SAMPLE_RAW only: u32 size, then the data (padded to 8 with the size) */
		const __u32 *size = (const __u32 *)(ev + 1);
		struct bt_batch h;

		if (batch_is(size + 1, *size)) {
			memcpy(&h, size + 1, offsetof(struct bt_batch, rec));
			batch_gaps_seen(&o->gaps, cpu, h.seq, h.flushes, h.count);
			batch_for_each(size + 1, *size, deliver_batched, o);
		} else {
			deliver(o, size + 1, *size);
		}
	} else if (ev->type == PERF_RECORD_LOST) {
		const __u64 *lost = (const __u64 *)(ev + 1);	/* id, lost */

		o->pb_lost += lost[1];
	}
	return LIBBPF_PERF_EVENT_CONT;
}

/* --- backend ops ---------------------------------------------------------- */

static int perf_poll(struct backend *b, int timeout_ms)
{
	struct perfobj *o = to_perfobj(b);
	int err = perf_buffer__poll(o->pb, timeout_ms);

	/* wake-ups come at a watermark: what waits below it is read here */
	if (err >= 0 || err == -EINTR)
		err = perf_buffer__consume(o->pb);
	reorder_pass_end(&o->order, 0);
	if (reorder_waits_on_batches(&o->order))
		batches_flush(&o->batches, 0);
	else
		batches_flush_old(&o->batches);
	return err < 0 && err != -EINTR ? err : 0;
}

static int perf_drain(struct backend *b)
{
	struct perfobj *o = to_perfobj(b);
	int err;

	batches_flush(&o->batches, 0);
	err = perf_buffer__consume(o->pb);
	batches_settle(o);
	reorder_pass_end(&o->order, 1);
	return err < 0 ? err : 0;
}

static int perf_track_cgroup(struct backend *b, __u64 cgid)
{
	struct perfobj *o = to_perfobj(b);

	if (!o->cgroup)
		return -EOPNOTSUPP;
	return cgroups_compat_track(&o->cg, cgid);
}

static void perf_untrack_cgroup(struct backend *b, __u64 cgid)
{
	struct perfobj *o = to_perfobj(b);

	if (o->cgroup)
		cgroups_compat_untrack(&o->cg, cgid);
}

static void proc_add(struct perfobj *o, __u32 tgid, __s64 n)
{
	struct bpf_map *map = o->m.procs;
	struct bt_legacy_proc p;

	if (bpf_map__lookup_elem(map, &tgid, sizeof(tgid), &p, sizeof(p), 0) < 0) {
		if (n < 0)
			return;
		memset(&p, 0, sizeof(p));
		p.born = mono_ns();
	}
	p.threads += n;
	if (p.threads > 0)
		bpf_map__update_elem(map, &tgid, sizeof(tgid), &p, sizeof(p), BPF_ANY);
	else
		bpf_map__delete_elem(map, &tgid, sizeof(tgid), 0);
}

static int perf_track_task(struct backend *b, pid_t tid, __u64 key)
{
	struct perfobj *o = to_perfobj(b);
	struct bt_legacy_task t;
	pid_t tgid, ppid;
	__u32 k = (__u32)tid;

	if (proc_ids(tid, &tgid, &ppid) < 0)
		return -ESRCH;
	/* no syscall in progress: the kernel fills the rest */
	memset(&t, 0, sizeof(t));
	t.key = key;
	t.tgid = (__u32)tgid;
	t.ppid = (__u32)ppid;
	/* BPF_NOEXIST: a task already in a container stays in it */
	if (bpf_map__update_elem(o->m.tasks, &k, sizeof(k), &t, sizeof(t), BPF_NOEXIST) < 0)
		return -errno;
	bpfmap_counter_add(o->m.live, key, 1);
	proc_add(o, t.tgid, 1);
	return 0;
}

static void perf_untrack_task(struct backend *b, pid_t tid)
{
	struct perfobj *o = to_perfobj(b);
	struct bt_legacy_task t;
	__u32 k = (__u32)tid;

	if (bpf_map__lookup_elem(o->m.tasks, &k, sizeof(k), &t, sizeof(t), 0) < 0 ||
	    bpf_map__delete_elem(o->m.tasks, &k, sizeof(k), 0) < 0)
		return;
	bpfmap_counter_add(o->m.live, t.key, -1);
	proc_add(o, t.tgid, -1);
}

static unsigned long long perf_lost(struct backend *b)
{
	struct perfobj *o = to_perfobj(b);
	struct bpf_map *lost = o->m.lost;

	return batch_gaps_lost(&o->gaps, bpfmap_percpu_sum(lost, BT_LEGACY_LOST_RECORDS),
			       bpfmap_percpu_sum(lost, BT_LEGACY_LOST_OUTPUTS), o->pb_lost) +
	       o->samples_dropped;
}

static void perf_missed(struct backend *b, struct progmiss *m)
{
	progmiss_read(to_perfobj(b)->obj, m);
}

static struct bpf_object *perf_object(struct backend *b)
{
	return to_perfobj(b)->obj;
}

static void perf_destroy(struct backend *b)
{
	struct perfobj *o = to_perfobj(b);
	size_t j;
	int i;

	if (!o)
		return;
	profile__stop(o->profile);
	/* the perf events first: an event in use cannot be removed (EBUSY) */
	for (j = 0; j < o->nmark_links; j++)
		bpf_link__destroy(o->mark_links[j]);
	for (j = 0; j < o->nuevents; j++) {
		/* closed just now: give the kernel's teardown a moment (tracefs.c) */
		int err = tracefs_uprobe_del(o->tracefs, o->group, o->uevents[j], 1000);

		if (err && err != -ENOENT)
			fprintf(stderr, "collector: cannot remove the uprobe event %s/%s: %s\n",
				o->group, o->uevents[j], strerror(-err));
	}
	free(o->mark_links);
	free(o->uevents);
	for (i = 0; i < o->nlinks; i++)
		bpf_link__destroy(o->links[i]);
	perf_buffer__free(o->pb);
	batches_free(&o->batches);
	batch_gaps_free(&o->gaps);
	bpf_object__close(o->obj);
	reorder_free(&o->order);
	keyset_free(&o->roots);
	cgroups_compat_free(&o->cg);
	free(o);
}

#define PERF_OPS(obj_name, has_samples) {		\
	.name = obj_name,				\
	.samples = has_samples,				\
	.poll = perf_poll,				\
	.drain = perf_drain,				\
	.track_cgroup = perf_track_cgroup,		\
	.untrack_cgroup = perf_untrack_cgroup,		\
	.track_task = perf_track_task,			\
	.untrack_task = perf_untrack_task,		\
	.lost = perf_lost,				\
	.missed = perf_missed,				\
	.object = perf_object,				\
	.destroy = perf_destroy,			\
}
/* The same operations; the name says which object (the TSV's bpf_object). */
static const struct backend_ops legacy_ops = PERF_OPS("legacy", false);
static const struct backend_ops compat_ops = PERF_OPS("compat", true);

/* --- set-up --------------------------------------------------------------- */

/* Leave program @i out of the @n to attach (its autoload off): the last takes its place. */
static void drop_prog(struct bpf_program **progs, const char **events, struct tracefs_format *fmts,
		      int i, int *n)
{
	bpf_program__set_autoload(progs[i], false);
	progs[i] = progs[*n - 1];
	events[i] = events[*n - 1];
	fmts[i] = fmts[*n - 1];
	(*n)--;
}

/*
 * @prog on the trace event of id @id (a tracepoint, or a uprobe event of
 * uprobe_events): a perf event, then the program on it (PERF_EVENT_IOC_SET_BPF,
 * 4.1+, through libbpf). *@out owns the perf event. 0, or -errno after a
 * message.
 */
static int attach_trace_event(struct bpf_program *prog, long id, const char *event,
			      struct bpf_link **out)
{
	struct perf_event_attr attr;
	struct bpf_link *link;
	int pfd, err;

	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.size = sizeof(attr);
	attr.config = (__u64)id;
	/*
	 * One event, on CPU 0 for no task: the program hangs on the trace
	 * event itself and runs on every CPU; a uprobe event opened for no
	 * task fires in every process (its filter counts it system-wide).
	 */
	pfd = (int)syscall(__NR_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (pfd < 0) {
		err = -errno;
		fprintf(stderr, "collector: cannot open trace event %s: %s\n", event, strerror(-err));
		return err;
	}
	link = bpf_program__attach_perf_event(prog, pfd);
	if (!link) {
		err = -errno;
		close(pfd);
		fprintf(stderr, "collector: cannot attach %s to %s: %s\n",
			bpf_program__name(prog), event, strerror(-err));
		return err;
	}
	*out = link;	/* the link closes pfd */
	return 0;
}

int backend_perf_attach_uprobe(struct backend *b, unsigned int idx, const char *path,
				 unsigned long long offset, bool retprobe)
{
	struct perfobj *o = to_perfobj(b);
	struct bpf_program *prog;
	char name[32], event[TRACEFS_NAME_MAX], what[2 * TRACEFS_NAME_MAX];
	void *p;
	long id;
	int err;

	if (b->ops != &legacy_ops && b->ops != &compat_ops)
		return -EINVAL;
	snprintf(name, sizeof(name), "bt_mark_%u", idx);
	prog = idx < b->cfg.nmarks ? bpf_object__find_program_by_name(o->obj, name) : NULL;
	if (!prog || bpf_program__fd(prog) < 0) {
		fprintf(stderr, "collector: the %s object has no loaded mark program %s\n",
			b->ops->name, name);
		return -ENOENT;
	}
	p = realloc(o->uevents, (o->nuevents + 1) * sizeof(*o->uevents));
	if (!p)
		return -ENOMEM;
	o->uevents = p;
	p = realloc(o->mark_links, (o->nmark_links + 1) * sizeof(*o->mark_links));
	if (!p)
		return -ENOMEM;
	o->mark_links = p;
	snprintf(event, sizeof(event), "mark%u_%zu", idx, o->nuevents);
	err = tracefs_uprobe_add(o->tracefs, o->group, event, path, offset, retprobe);
	if (err)
		return err;
	/* made: destroy() removes it, whatever happens next */
	memcpy(o->uevents[o->nuevents++], event, sizeof(event));
	snprintf(what, sizeof(what), "%s/%s", o->group, event);
	id = tracefs_event_id(o->tracefs, o->group, event);
	if (id < 0) {
		fprintf(stderr, "collector: cannot read the id of uprobe event %s in %s/events: %s\n",
			what, o->tracefs, strerror((int)-id));
		return (int)id;
	}
	err = attach_trace_event(prog, id, what, &o->mark_links[o->nmark_links]);
	if (err)
		return err;
	o->nmark_links++;
	if (b->cfg.verbose)
		fprintf(stderr, "collector: %s on %s%s:0x%llx (uprobe event %s, id %ld)\n", name,
			retprobe ? "the return of " : "", path, offset, what, id);
	return 0;
}

static struct perf_buffer *open_perf_buffer(struct perfobj *o, unsigned long mb)
{
	struct perf_event_attr attr;
	long page = sysconf(_SC_PAGESIZE);
	size_t pages = 1, want = (size_t)(mb ? mb : 1) << 20;

	if (page <= 0)
		page = 4096;
	/* a power of two pages per CPU, at most the size asked for */
	while (pages * 2 * (size_t)page <= want)
		pages *= 2;
	memset(&attr, 0, sizeof(attr));
	attr.config = PERF_COUNT_SW_BPF_OUTPUT;
	attr.type = PERF_TYPE_SOFTWARE;
	attr.sample_type = PERF_SAMPLE_RAW;
	attr.sample_period = 1;
	/*
	 * Wake the reader once a sixteenth of a ring is full, not per record
	 * (libbpf's default): the poll timeout bounds the latency.
	 */
	attr.watermark = 1;
	attr.wakeup_watermark = (__u32)(pages * (size_t)page / 16);
	return perf_buffer__new_raw(bpf_map__fd(o->m.events), pages, &attr,
				    on_perf_event, o, NULL);
}

/* The object's ELF, as its skeleton embeds it, opened (not loaded); NULL and errno. */
static struct bpf_object *open_object(int compat)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts,
		    .object_name = compat ? "boottrace_compat" : "boottrace_legacy");
	const void *elf;
	size_t size;

	elf = compat ? boottrace_compat_bpf__elf_bytes(&size) : boottrace_legacy_bpf__elf_bytes(&size);
	return bpf_object__open_mem(elf, size, &opts);
}

/* The maps by name; -ENOENT (with a message) when one the backend needs is missing. */
static int find_maps(struct perfobj *o, int compat)
{
	static const struct { const char *name; size_t off; int compat_only; } maps[] = {
#define M(name, c) { #name, offsetof(struct perf_maps, name), c }
		M(config, 0), M(tasks, 0), M(procs, 0), M(live, 0), M(ppid_fix, 0),
		M(mark_starts, 0), M(events, 0), M(batches, 0), M(lost, 0), M(scheds, 0),
		M(tracked, 1), M(filter, 1),
#undef M
	};
	size_t i;

	for (i = 0; i < sizeof(maps) / sizeof(maps[0]); i++) {
		struct bpf_map **slot = (struct bpf_map **)((char *)&o->m + maps[i].off);

		if (maps[i].compat_only && !compat)
			continue;
		*slot = bpf_object__find_map_by_name(o->obj, maps[i].name);
		if (!*slot) {
			fprintf(stderr, "collector: the %s BPF object has no map %s\n",
				o->b.ops->name, maps[i].name);
			return -ENOENT;
		}
	}
	return 0;
}

/*
 * Whether program @name of the compat object is loaded: its cgroup
 * programs in cgroup mode only, bt_cgroup_attach with a --start probe
 * only (and the record ids it needs, decided once tracefs is read); the
 * scheduler programs of both objects with --sched on only.
 */
static int prog_wanted(const char *name, const struct backend_config *cfg)
{
	if (!strncmp(name, "bt_sched_", 9))
		return cfg->sched;
	if (!strcmp(name, "bt_cgroup_attach"))
		return cfg->mode == BT_MODE_CGROUP && cfg->start_mark;
	if (!strncmp(name, "bt_cgroup_", 10))
		return cfg->mode == BT_MODE_CGROUP;
	return 1;
}

/*
 * Open, configure, load and attach the legacy object (@compat 0) or the
 * compat object (1): see backend_legacy_open() and backend_compat_open().
 */
static int perf_open(const struct backend_config *cfg, struct backend **out, int compat)
{
	struct perfobj *o = calloc(1, sizeof(*o));
	struct tracefs_format *fmts = NULL;
	const char *events[MAX_PROGS];
	struct bpf_program *progs[MAX_PROGS], *prog;
	struct bt_legacy_config lc;
	char dir[4096];
	int err, n = 0, i, ids = 0;
	__u32 zero = 0;

	if (!o)
		return -ENOMEM;
	o->b.ops = compat ? &compat_ops : &legacy_ops;
	o->b.cfg = *cfg;
	reorder_init(&o->order, hand_over, o);
	o->cgroup = cfg->mode == BT_MODE_CGROUP;
	if (o->cgroup && !compat) {
		fprintf(stderr, "collector: the legacy BPF object has pidtree mode only\n");
		err = -EOPNOTSUPP;
		goto fail;
	}
	/* 1. open */
	o->obj = open_object(compat);
	if (!o->obj) {
		err = -errno;
		fprintf(stderr, "collector: cannot open the %s BPF object: %s\n", o->b.ops->name,
			strerror(-err));
		goto fail;
	}
	err = find_maps(o, compat);
	if (err)
		goto fail;
	/* 2. the tracepoints' layouts and ids, from tracefs */
	err = tracefs_dir(dir, sizeof(dir));
	if (err)
		goto fail;
	fmts = calloc(MAX_PROGS, sizeof(*fmts));
	if (!fmts) {
		err = -ENOMEM;
		goto fail;
	}
	snprintf(o->tracefs, sizeof(o->tracefs), "%s", dir);
	snprintf(o->group, sizeof(o->group), UPROBE_GROUP "%d", (int)getpid());
	/* what a collector killed by SIGKILL left (its uprobe events) */
	tracefs_uprobe_remove_stale(dir, UPROBE_GROUP);
	bpf_object__for_each_program(prog, o->obj) {
		const char *sec = bpf_program__section_name(prog);
		unsigned int idx;

		/*
		 * Mark copies: loaded as many as there are marks (each verified
		 * costs start-up time); attached later, one by one.
		 */
		if (!strcmp(sec, "uprobe") &&
		    sscanf(bpf_program__name(prog), "bt_mark_%u", &idx) == 1) {
			bpf_program__set_autoload(prog, idx < cfg->nmarks);
			continue;
		}
		/* --profile's (compat): attached to perf events of its own, last */
		if (!strcmp(sec, "perf_event")) {
			o->profile_prog = prog;
			bpf_program__set_autoload(prog, cfg->profile_hz > 0);
			continue;
		}
		if (strncmp(sec, "tracepoint/", 11) || n == MAX_PROGS) {
			fprintf(stderr, "collector: %s object: unexpected program section %s\n",
				o->b.ops->name, sec);
			err = -EINVAL;
			goto fail;
		}
		if (!prog_wanted(bpf_program__name(prog), cfg)) {
			bpf_program__set_autoload(prog, false);
			continue;
		}
		events[n] = sec + 11;
		progs[n] = prog;
		err = tracefs_read_format(dir, events[n], &fmts[n]);
		if (err)
			goto fail;
		n++;
	}
	memset(&lc, 0, sizeof(lc));
	err = tracefs_layout_config_offsets(&lc, fmts, events, n);
	if (err)
		goto fail;
	if (o->cgroup) {
		ids = tracefs_layout_cgroup_ids(&lc, fmts, events, n);
		if (ids < 0) {
			err = ids;
			goto fail;
		}
		/* --start in cgroup mode needs the id in cgroup_attach_task (5.5+) too */
		i = tracefs_layout_event_index(events, n, "cgroup/cgroup_attach_task");
		if (i >= 0 && ids && tracefs_layout_plain_u64(tracefs_field(&fmts[i], "dst_id"))) {
			lc.att_id = tracefs_field(&fmts[i], "dst_id")->offset;
		} else if (i >= 0) {
			drop_prog(progs, events, fmts, i, &n);
		}
	}
	/* one of the two sched_switch programs */
	for (i = 0; i < n; i++) {
		const char *name = bpf_program__name(progs[i]);

		if ((!strcmp(name, "bt_sched_switch") && !tracefs_layout_sched_usual(&lc)) ||
		    (!strcmp(name, "bt_sched_switch_read") && tracefs_layout_sched_usual(&lc)))
			drop_prog(progs, events, fmts, i--, &n);
	}
	lc.flags = (cfg->watch && !o->cgroup ? BT_LEGACY_WATCH : 0) |
		   (cfg->trace_all_syscalls ? BT_LEGACY_ALL_SYSCALLS : 0) |
		   (cfg->trace_no_syscalls ? BT_LEGACY_NO_SYSCALLS : 0) |
		   (tracefs_layout_raw_syscalls_usual(&lc) ? BT_LEGACY_RAW_SYSCALLS : 0) |
		   (cfg->mark_start_mask ? BT_LEGACY_START : 0) |
		   (o->cgroup ? BT_LEGACY_CGROUP : 0) |
		   (ids ? BT_LEGACY_CGROUP_IDS : 0) |
		   (cfg->watch && o->cgroup ? BT_LEGACY_WATCH_MKDIR : 0) |
		   (cfg->sched ? BT_LEGACY_SCHED : 0);
	lc.mark_start_mask = cfg->mark_start_mask;
	lc.profile_period_ns = o->profile_prog && cfg->profile_hz ?
			       profile_period_ns(cfg->profile_hz) : 0;
	/* this thread polls: its syscalls flush batches (init pid namespace assumed, as for tids) */
	lc.flush_tid = (__u32)syscall(SYS_gettid);
	memcpy(lc.syscall_mask, cfg->syscall_mask, sizeof(lc.syscall_mask));
	lc.ready = 1;
	if (cfg->verbose)
		fprintf(stderr, "collector: opened in %.1f ms (tracefs at %s, raw_syscalls read %s%s)\n",
			ms_since(cfg->started_ns), dir,
			lc.flags & BT_LEGACY_RAW_SYSCALLS ? "with loads" : "with bpf_probe_read",
			!o->cgroup ? "" : ids ? ", cgroup ids from the cgroup tracepoints" :
			", cgroup ids from the paths (the cgroup tracepoints carry none)");

	/* the --start times, per task: a map of one entry without --start */
	err = bpf_map__set_max_entries(o->m.mark_starts,
				       cfg->mark_start_mask ? BT_MAX_TASKS : 1);
	/*
	 * The other mode's map, preallocated in full, would cost start-up
	 * time for nothing (as in the modern object): one entry.
	 */
	if (!err && compat)
		err = bpf_map__set_max_entries(o->cgroup ? o->m.live : o->m.tracked, 1);
	if (!err && !cfg->sched)
		err = bpf_map__set_max_entries(o->m.scheds, 1);
	if (err)
		goto fail;
	if (cfg->nmarks > BT_LEGACY_MAX_MARKS) {
		fprintf(stderr, "collector: the %s object takes at most %d marks\n",
			o->b.ops->name, BT_LEGACY_MAX_MARKS);
		err = -E2BIG;
		goto fail;
	}

	/* 3. load, configure */
	err = bpf_object__load(o->obj);
	if (cfg->verbose)
		fprintf(stderr, "collector: loaded in %.1f ms\n", ms_since(cfg->started_ns));
	if (err) {
		fprintf(stderr, "collector: cannot load the %s BPF programs: %s "
			"(run with -v for libbpf's log)\n", o->b.ops->name, strerror(-err));
		goto fail;
	}
	if (o->cgroup) {
		err = cgroups_compat_init(&o->cg, o->m.tracked, o->m.filter, o->m.ppid_fix, ids,
					  cfg->watch);
		if (err)
			goto fail;
	}
	if (bpf_map__update_elem(o->m.config, &zero, sizeof(zero), &lc, sizeof(lc),
				 BPF_ANY) < 0) {
		err = -errno;
		fprintf(stderr, "collector: cannot configure the %s BPF object: %s\n",
			o->b.ops->name, strerror(-err));
		goto fail;
	}
	err = batches_init(&o->batches, o->m.batches);
	if (err) {
		fprintf(stderr, "collector: cannot set up the per-CPU batches: %s\n", strerror(-err));
		goto fail;
	}
	err = batch_gaps_init(&o->gaps, o->batches.ncpus);
	if (err)
		goto fail;
	/* 4. the rings before the programs: a record with nowhere to go is lost */
	o->pb = open_perf_buffer(o, cfg->buffer_mb ? cfg->buffer_mb : BT_RINGBUF_MB);
	if (!o->pb) {
		err = -errno;
		fprintf(stderr, "collector: cannot set up the perf buffer: %s\n", strerror(-err));
		goto fail;
	}
	/* 5. attach */
	for (i = 0; i < n; i++) {
		err = attach_trace_event(progs[i], fmts[i].id, events[i], &o->links[o->nlinks]);
		if (err)
			goto fail;
		o->nlinks++;
	}
	if (lc.profile_period_ns &&
	    (err = profile__start(o->profile_prog, cfg->profile_hz, &o->profile)) < 0)
		goto fail;
	if (cfg->verbose)
		fprintf(stderr, "collector: attached in %.1f ms\n", ms_since(cfg->started_ns));
	free(fmts);
	*out = &o->b;
	return 0;
fail:
	free(fmts);
	perf_destroy(&o->b);
	return err;
}

int backend_legacy_open(const struct backend_config *cfg, struct backend **out)
{
	return perf_open(cfg, out, 0);
}

int backend_compat_open(const struct backend_config *cfg, struct backend **out)
{
	return perf_open(cfg, out, 1);
}
