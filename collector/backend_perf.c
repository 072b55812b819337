// SPDX-License-Identifier: BSD-2-Clause
/*
 * The legacy object (bpf/boottrace_legacy.bpf.c) behind collector/backend.h:
 * pidtree attribution on kernels as old as 4.15. Configuration goes into
 * the `config` map, with the tracepoint field offsets read from tracefs;
 * the programs are attached through perf_event_open on the tracepoint ids
 * of the same tracefs (what libbpf would do, minus its guess of where
 * tracefs is); records come through a perf buffer, one ring per CPU.
 * Marks go on uprobe events made in tracefs uprobe_events (the uprobe PMU
 * libbpf uses is 4.17), named after the collector's pid and removed at
 * destroy, or at the next start after a SIGKILL. Plain syscall records
 * come in per-CPU batches, as the modern object's (collector/batch.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "boottrace_legacy.skel.h"
#include "bpf/boottrace.h"
#include "bpf/boottrace_legacy.h"
#include "collector/backend.h"
#include "collector/batch.h"
#include "collector/clock.h"
#include "collector/bpfmap.h"
#include "collector/tracefs.h"

_Static_assert(sizeof(((struct bt_legacy_config *)0)->syscall_mask) ==
	       sizeof(((struct backend_config *)0)->syscall_mask), "syscall mask sizes");

#define MAX_PROGS 16
/* Uprobe event groups: UPROBE_GROUP<pid>, one per collector. */
#define UPROBE_GROUP "boottrace_"
/* The biggest record but a batch (bt_syscall_detail_event) and perf's padding, with room. */
#define RECORD_MAX 512

/*
 * Per-CPU rings carry no order between CPUs, and main.c needs two: a
 * container's BT_EV_ROOT before its records (it drops records of keys it
 * does not know), its BT_EV_GONE after them (it forgets the key). The
 * kernel writes them in that order, so the backend restores it:
 *
 *  - a record with a kernel key (BT_KEY_KERNEL) whose ROOT has not been
 *    delivered is held until the ROOT comes; if it has not come by the
 *    end of the next pass (it was lost), the record goes as it is;
 *  - a GONE read in one pass (a poll or drain of every ring) is delivered
 *    at the end of the next: everything the container's tasks wrote
 *    before the last one exited was in its ring before that pass began,
 *    for the pass that read the GONE ends by flushing every CPU's batch.
 *
 * `pass` counts the passes ended: a record read while it is P is due when
 * it is P + 2. drain() delivers everything held.
 */
struct held {
	unsigned long long pass;	/* when it was read */
	size_t size;
	__u64 data[RECORD_MAX / 8];
};

/* The kernel keys whose ROOT was delivered: open addressing, linear probing. */
struct keyset {
	__u64 *slots;			/* 0: empty (keys are never 0) */
	size_t cap, n;			/* cap: a power of two */
};

struct legacy {
	struct backend b;
	struct boottrace_legacy_bpf *skel;
	struct perf_buffer *pb;
	struct bpf_link *links[MAX_PROGS];
	int nlinks;
	struct batches batches;		/* a visit is a syscall of this thread */
	unsigned long long pb_lost;	/* samples the perf rings dropped */
	struct batch_gaps gaps;		/* lost batches */
	unsigned long long pass;
	struct held *held;
	size_t nheld, held_cap;
	struct keyset roots;
	/* marks: their perf events, and the uprobe events to remove after them */
	char tracefs[4096];
	char group[TRACEFS_NAME_MAX];
	struct bpf_link **mark_links;
	char (*uevents)[TRACEFS_NAME_MAX];
	size_t nuevents, nmark_links;
};

static struct legacy *to_legacy(struct backend *b)
{
	return (struct legacy *)b;
}

/* --- key set ------------------------------------------------------------- */

static size_t keyset_slot(const struct keyset *s, __u64 key)
{
	/* keys differ in the low and CPU bits: a multiplicative hash mixes both */
	return (size_t)((key * 0x9e3779b97f4a7c15ULL) >> 20) & (s->cap - 1);
}

static int keyset_has(const struct keyset *s, __u64 key)
{
	size_t i;

	if (!s->cap)
		return 0;
	for (i = keyset_slot(s, key); s->slots[i]; i = (i + 1) & (s->cap - 1))
		if (s->slots[i] == key)
			return 1;
	return 0;
}

static int keyset_add(struct keyset *s, __u64 key)
{
	size_t i;

	if (keyset_has(s, key))
		return 0;
	if ((s->n + 1) * 2 > s->cap) {
		struct keyset bigger = { .cap = s->cap ? s->cap * 2 : 64 };

		bigger.slots = calloc(bigger.cap, sizeof(*bigger.slots));
		if (!bigger.slots)
			return -ENOMEM;
		for (i = 0; i < s->cap; i++)
			if (s->slots[i])
				keyset_add(&bigger, s->slots[i]);
		free(s->slots);
		*s = bigger;
	}
	for (i = keyset_slot(s, key); s->slots[i]; i = (i + 1) & (s->cap - 1))
		;
	s->slots[i] = key;
	s->n++;
	return 0;
}

static void keyset_del(struct keyset *s, __u64 key)
{
	size_t i, j, home;

	if (!s->cap)
		return;
	for (i = keyset_slot(s, key); s->slots[i] != key; i = (i + 1) & (s->cap - 1))
		if (!s->slots[i])
			return;
	/* backward-shift deletion: no tombstones */
	s->slots[i] = 0;
	s->n--;
	for (j = (i + 1) & (s->cap - 1); s->slots[j]; j = (j + 1) & (s->cap - 1)) {
		home = keyset_slot(s, s->slots[j]);
		/* move slots[j] into the hole at i if its home is not in (i, j] */
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			s->slots[i] = s->slots[j];
			s->slots[j] = 0;
			i = j;
		}
	}
}

/* --- delivery ------------------------------------------------------------ */

/* Tgid and PPid of @tid from /proc; 0 or -1. */
static int proc_ids(pid_t tid, pid_t *tgid, pid_t *ppid)
{
	char path[64], line[256];
	int got = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f) && got != 3) {
		if (!strncmp(line, "Tgid:", 5)) {
			*tgid = (pid_t)strtol(line + 5, NULL, 10);
			got |= 1;
		} else if (!strncmp(line, "PPid:", 5)) {
			*ppid = (pid_t)strtol(line + 5, NULL, 10);
			got |= 2;
		}
	}
	fclose(f);
	return got == 3 ? 0 : -1;
}

/*
 * A root the kernel found in place (unshare(CLONE_NEWNS)) comes without
 * its parent: the object cannot read task_struct. Ask /proc while the task
 * is likely alive, and tell the kernel the answer for its records through
 * `ppid_fix` (its `tasks` entry says ppid_pending): the kernel writes that
 * entry as the task runs, a copy written back from here could undo it.
 */
static void fill_root_parent(struct legacy *l, struct bt_root_event *e)
{
	pid_t tgid, ppid;
	char path[64];
	ssize_t n = 0;
	int fd;
	__u32 pid = e->hdr.pid, v;

	if (e->hdr.ppid || proc_ids((pid_t)e->hdr.tid, &tgid, &ppid) < 0 || ppid <= 0)
		return;
	e->hdr.ppid = (__u32)ppid;
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)ppid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, e->parent_comm, sizeof(e->parent_comm));
		close(fd);
	}
	if (n > 0 && e->parent_comm[n - 1] == '\n')
		e->parent_comm[n - 1] = '\0';
	v = (__u32)ppid;
	bpf_map__update_elem(l->skel->maps.ppid_fix, &pid, sizeof(pid), &v, sizeof(v), BPF_ANY);
}

static void hand_over(struct legacy *l, void *data, size_t size)
{
	const struct bt_event_hdr *h = data;

	l->b.cfg.on_event(l->b.cfg.ctx, data, size);
	if (size >= sizeof(*h) && h->type == BT_EV_GONE)
		keyset_del(&l->roots, h->cgroup_id);
}

static int hold(struct legacy *l, const void *data, size_t size)
{
	struct held *hd;

	if (l->nheld == l->held_cap) {
		size_t cap = l->held_cap ? l->held_cap * 2 : 64;
		struct held *nh = realloc(l->held, cap * sizeof(*nh));

		if (!nh)
			return -ENOMEM;
		l->held = nh;
		l->held_cap = cap;
	}
	hd = &l->held[l->nheld++];
	hd->pass = l->pass;
	hd->size = size;
	memcpy(hd->data, data, size);
	return 0;
}

/*
 * Deliver the held records that are due (all with @force), in the order
 * they were read; with @key, only those of that container (its ROOT came).
 */
static void release(struct legacy *l, int force, __u64 key)
{
	size_t i, kept = 0;
	int gone_round;

	/* when forced, GONE records go after everything else */
	for (gone_round = 0; gone_round < (force ? 2 : 1); gone_round++) {
		for (i = 0, kept = 0; i < l->nheld; i++) {
			struct held *hd = &l->held[i];
			struct bt_event_hdr *h = (struct bt_event_hdr *)hd->data;
			int gone = h->type == BT_EV_GONE, due;

			if (key)
				due = !gone && h->cgroup_id == key;
			else if (force)
				due = gone == gone_round;
			else
				due = l->pass >= hd->pass + 2;
			if (due)
				hand_over(l, hd->data, hd->size);
			else if (kept++ != i)
				l->held[kept - 1] = *hd;
		}
		l->nheld = kept;
	}
}

static void deliver(struct legacy *l, const void *raw, size_t size)
{
	/* perf puts samples at 4-byte alignment; records have __u64 fields */
	__u64 buf[RECORD_MAX / 8];
	struct bt_event_hdr *h = (struct bt_event_hdr *)buf;

	if (size > sizeof(buf))
		size = sizeof(buf);
	memcpy(buf, raw, size);
	if (size < sizeof(*h)) {
		l->b.cfg.on_event(l->b.cfg.ctx, buf, size);
		return;
	}
	if (h->type == BT_EV_ROOT && size >= sizeof(struct bt_root_event)) {
		fill_root_parent(l, (struct bt_root_event *)buf);
		hand_over(l, buf, size);
		keyset_add(&l->roots, h->cgroup_id);
		release(l, 0, h->cgroup_id);
		return;
	}
	if (h->type == BT_EV_GONE ||
	    ((h->cgroup_id & BT_KEY_KERNEL) && !keyset_has(&l->roots, h->cgroup_id))) {
		if (hold(l, buf, size) == 0)
			return;
	}
	hand_over(l, buf, size);
}

/*
 * After a drain read the rings: batches the CPUs flushed that did not
 * arrive were lost, as far as anyone can tell now.
 */
static void batches_settle(struct legacy *l)
{
	int cpu;

	if (batches_read(&l->batches) < 0)
		return;
	for (cpu = 0; cpu < l->batches.ncpus; cpu++)
		batch_gaps_settle(&l->gaps, cpu, l->batches.copy[cpu].seq,
				  l->batches.copy[cpu].flushes);
}

/* A record of a batch: a plain syscall record. */
static int deliver_batched(void *ctx, void *rec, size_t size)
{
	deliver(ctx, rec, size);
	return 0;
}

/* Whether a GONE waits: the batches must reach the rings before it goes. */
static int gone_held(const struct legacy *l)
{
	size_t i;

	for (i = 0; i < l->nheld; i++)
		if (((const struct bt_event_hdr *)l->held[i].data)->type == BT_EV_GONE)
			return 1;
	return 0;
}

static enum bpf_perf_event_ret on_perf_event(void *ctx, int cpu, struct perf_event_header *ev)
{
	struct legacy *l = ctx;

	if (ev->type == PERF_RECORD_SAMPLE) {
		/* PERF_SAMPLE_RAW only: u32 size, then the data (padded to 8 with the size) */
		const __u32 *size = (const __u32 *)(ev + 1);
		struct bt_batch h;

		if (batch_is(size + 1, *size)) {
			memcpy(&h, size + 1, offsetof(struct bt_batch, rec));
			batch_gaps_seen(&l->gaps, cpu, h.seq, h.flushes, h.count);
			batch_for_each(size + 1, *size, deliver_batched, l);
		} else {
			deliver(l, size + 1, *size);
		}
	} else if (ev->type == PERF_RECORD_LOST) {
		const __u64 *lost = (const __u64 *)(ev + 1);	/* id, lost */

		l->pb_lost += lost[1];
	}
	return LIBBPF_PERF_EVENT_CONT;
}

/* --- backend ops ---------------------------------------------------------- */

static int legacy_poll(struct backend *b, int timeout_ms)
{
	struct legacy *l = to_legacy(b);
	int err = perf_buffer__poll(l->pb, timeout_ms);

	/* wake-ups come at a watermark: what waits below it is read here */
	if (err >= 0 || err == -EINTR)
		err = perf_buffer__consume(l->pb);
	l->pass++;
	release(l, 0, 0);
	if (gone_held(l))
		batches_flush(&l->batches, 0);
	else
		batches_flush_old(&l->batches);
	return err < 0 && err != -EINTR ? err : 0;
}

static int legacy_drain(struct backend *b)
{
	struct legacy *l = to_legacy(b);
	int err;

	batches_flush(&l->batches, 0);
	err = perf_buffer__consume(l->pb);
	batches_settle(l);
	l->pass++;
	release(l, 1, 0);
	return err < 0 ? err : 0;
}

static int legacy_track_cgroup(struct backend *b, __u64 cgid)
{
	(void)b;
	(void)cgid;
	return -EOPNOTSUPP;
}

static void legacy_untrack_cgroup(struct backend *b, __u64 cgid)
{
	(void)b;
	(void)cgid;
}

static void proc_add(struct legacy *l, __u32 tgid, __s64 n)
{
	struct bpf_map *map = l->skel->maps.procs;
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

static int legacy_track_task(struct backend *b, pid_t tid, __u64 key)
{
	struct legacy *l = to_legacy(b);
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
	if (bpf_map__update_elem(l->skel->maps.tasks, &k, sizeof(k), &t, sizeof(t), BPF_NOEXIST) < 0)
		return -errno;
	bpfmap_counter_add(l->skel->maps.live, key, 1);
	proc_add(l, t.tgid, 1);
	return 0;
}

static void legacy_untrack_task(struct backend *b, pid_t tid)
{
	struct legacy *l = to_legacy(b);
	struct bt_legacy_task t;
	__u32 k = (__u32)tid;

	if (bpf_map__lookup_elem(l->skel->maps.tasks, &k, sizeof(k), &t, sizeof(t), 0) < 0 ||
	    bpf_map__delete_elem(l->skel->maps.tasks, &k, sizeof(k), 0) < 0)
		return;
	bpfmap_counter_add(l->skel->maps.live, t.key, -1);
	proc_add(l, t.tgid, -1);
}

static unsigned long long legacy_lost(struct backend *b)
{
	struct legacy *l = to_legacy(b);
	struct bpf_map *lost = l->skel->maps.lost;

	return batch_gaps_lost(&l->gaps, bpfmap_percpu_sum(lost, BT_LEGACY_LOST_RECORDS),
			       bpfmap_percpu_sum(lost, BT_LEGACY_LOST_OUTPUTS), l->pb_lost);
}

static void legacy_destroy(struct backend *b)
{
	struct legacy *l = to_legacy(b);
	size_t j;
	int i;

	if (!l)
		return;
	/* the perf events first: an event in use cannot be removed (EBUSY) */
	for (j = 0; j < l->nmark_links; j++)
		bpf_link__destroy(l->mark_links[j]);
	for (j = 0; j < l->nuevents; j++) {
		/* closed just now: give the kernel's teardown a moment (tracefs.c) */
		int err = tracefs_uprobe_del(l->tracefs, l->group, l->uevents[j], 1000);

		if (err && err != -ENOENT)
			fprintf(stderr, "collector: cannot remove the uprobe event %s/%s: %s\n",
				l->group, l->uevents[j], strerror(-err));
	}
	free(l->mark_links);
	free(l->uevents);
	for (i = 0; i < l->nlinks; i++)
		bpf_link__destroy(l->links[i]);
	perf_buffer__free(l->pb);
	batches_free(&l->batches);
	batch_gaps_free(&l->gaps);
	boottrace_legacy_bpf__destroy(l->skel);
	free(l->held);
	free(l->roots.slots);
	free(l);
}

static const struct backend_ops legacy_ops = {
	.name = "legacy",
	.poll = legacy_poll,
	.drain = legacy_drain,
	.track_cgroup = legacy_track_cgroup,
	.untrack_cgroup = legacy_untrack_cgroup,
	.track_task = legacy_track_task,
	.untrack_task = legacy_untrack_task,
	.lost = legacy_lost,
	.destroy = legacy_destroy,
};

/* --- set-up --------------------------------------------------------------- */

/* The record fields the programs read, and where their offsets go. */
static const struct field_spec {
	const char *event, *field;
	unsigned int size;
	enum tracefs_loc loc;
	size_t cfg_off;
} field_specs[] = {
#define F(ev, name, sz, loc, member) { ev, name, sz, loc, offsetof(struct bt_legacy_config, member) }
	F("raw_syscalls/sys_enter", "id", 8, TRACEFS_PLAIN, enter_id),
	F("raw_syscalls/sys_enter", "args", 48, TRACEFS_PLAIN, enter_args),
	F("raw_syscalls/sys_exit", "id", 8, TRACEFS_PLAIN, exit_id),
	F("raw_syscalls/sys_exit", "ret", 8, TRACEFS_PLAIN, exit_ret),
	F("sched/sched_process_fork", "child_pid", 4, TRACEFS_PLAIN, fork_child_pid),
	F("sched/sched_process_exec", "filename", 4, TRACEFS_DATA_LOC, exec_filename),
	F("sched/sched_process_exec", "pid", 4, TRACEFS_PLAIN, exec_pid),
	F("sched/sched_process_exec", "old_pid", 4, TRACEFS_PLAIN, exec_old_pid),
	F("signal/signal_generate", "sig", 4, TRACEFS_PLAIN, sgen_sig),
	F("signal/signal_generate", "pid", 4, TRACEFS_PLAIN, sgen_pid),
	F("signal/signal_generate", "result", 4, TRACEFS_PLAIN, sgen_result),
	F("signal/signal_deliver", "sig", 4, TRACEFS_PLAIN, sdel_sig),
	F("signal/signal_deliver", "sa_handler", 8, TRACEFS_PLAIN, sdel_handler),
#undef F
};

static const char *loc_name(enum tracefs_loc loc)
{
	return loc == TRACEFS_DATA_LOC ? "a __data_loc field" :
	       loc == TRACEFS_REL_LOC ? "a __rel_loc field" : "a plain field";
}

/* Fill @cfg's offsets from the formats of the programs' tracepoints. */
static int config_offsets(struct bt_legacy_config *cfg, struct tracefs_format *fmts,
			  const char **events, int n)
{
	size_t i;
	int j;

	for (i = 0; i < sizeof(field_specs) / sizeof(field_specs[0]); i++) {
		const struct field_spec *s = &field_specs[i];
		const struct tracefs_field *f = NULL;

		for (j = 0; j < n && strcmp(events[j], s->event); j++)
			;
		if (j == n) {
			fprintf(stderr, "collector: the legacy object has no program on %s\n", s->event);
			return -ENOENT;
		}
		f = tracefs_field(&fmts[j], s->field);
		if (!f) {
			fprintf(stderr, "collector: tracepoint %s has no field '%s' (its format changed?)\n",
				s->event, s->field);
			return -ENOENT;
		}
		if (f->size != s->size || f->loc != s->loc || f->offset > 0xfff) {
			fprintf(stderr, "collector: tracepoint %s: field '%s' is %u bytes at %u, %s; "
				"the legacy object reads %u bytes, %s\n", s->event, s->field,
				f->size, f->offset, loc_name(f->loc), s->size, loc_name(s->loc));
			return -EINVAL;
		}
		*(__u32 *)((char *)cfg + s->cfg_off) = f->offset;
	}
	return 0;
}

/*
 * Whether the programs may read raw_syscalls' fields with plain loads
 * (BT_LEGACY_RAW_SYSCALLS): the verifier allows constant context offsets
 * only, so the object has them built in, and they must be what tracefs
 * says. BOOTTRACE_LEGACY_PROBE_READ=1 forces the bpf_probe_read path
 * (tests, benchmarks).
 */
static int raw_syscalls_usual(const struct bt_legacy_config *cfg)
{
	const char *env = getenv("BOOTTRACE_LEGACY_PROBE_READ");

	if (env && *env && strcmp(env, "0"))
		return 0;
	return cfg->enter_id == 8 && cfg->enter_args == 16 && cfg->exit_id == 8 &&
	       cfg->exit_ret == 16;
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
	struct legacy *l = to_legacy(b);
	struct bpf_program *prog;
	char name[32], event[TRACEFS_NAME_MAX], what[2 * TRACEFS_NAME_MAX];
	void *p;
	long id;
	int err;

	if (b->ops != &legacy_ops)
		return -EINVAL;
	snprintf(name, sizeof(name), "bt_mark_%u", idx);
	prog = idx < b->cfg.nmarks ? bpf_object__find_program_by_name(l->skel->obj, name) : NULL;
	if (!prog || bpf_program__fd(prog) < 0) {
		fprintf(stderr, "collector: the legacy object has no loaded mark program %s\n", name);
		return -ENOENT;
	}
	p = realloc(l->uevents, (l->nuevents + 1) * sizeof(*l->uevents));
	if (!p)
		return -ENOMEM;
	l->uevents = p;
	p = realloc(l->mark_links, (l->nmark_links + 1) * sizeof(*l->mark_links));
	if (!p)
		return -ENOMEM;
	l->mark_links = p;
	snprintf(event, sizeof(event), "mark%u_%zu", idx, l->nuevents);
	err = tracefs_uprobe_add(l->tracefs, l->group, event, path, offset, retprobe);
	if (err)
		return err;
	/* made: destroy() removes it, whatever happens next */
	memcpy(l->uevents[l->nuevents++], event, sizeof(event));
	snprintf(what, sizeof(what), "%s/%s", l->group, event);
	id = tracefs_event_id(l->tracefs, l->group, event);
	if (id < 0) {
		fprintf(stderr, "collector: cannot read the id of uprobe event %s in %s/events: %s\n",
			what, l->tracefs, strerror((int)-id));
		return (int)id;
	}
	err = attach_trace_event(prog, id, what, &l->mark_links[l->nmark_links]);
	if (err)
		return err;
	l->nmark_links++;
	if (b->cfg.verbose)
		fprintf(stderr, "collector: %s on %s%s:0x%llx (uprobe event %s, id %ld)\n", name,
			retprobe ? "the return of " : "", path, offset, what, id);
	return 0;
}

static struct perf_buffer *open_perf_buffer(struct legacy *l, unsigned long mb)
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
	return perf_buffer__new_raw(bpf_map__fd(l->skel->maps.events), pages, &attr,
				    on_perf_event, l, NULL);
}

int backend_legacy_open(const struct backend_config *cfg, struct backend **out)
{
	struct legacy *l = calloc(1, sizeof(*l));
	struct tracefs_format *fmts = NULL;
	const char *events[MAX_PROGS];
	struct bpf_program *progs[MAX_PROGS], *prog;
	struct bt_legacy_config lc;
	char dir[4096];
	int err, n = 0, i;
	__u32 zero = 0;

	if (!l)
		return -ENOMEM;
	l->b.ops = &legacy_ops;
	l->b.cfg = *cfg;
	if (cfg->mode != BT_MODE_PIDTREE) {
		fprintf(stderr, "collector: the legacy BPF object has pidtree mode only\n");
		err = -EOPNOTSUPP;
		goto fail;
	}
	/* 1. open */
	l->skel = boottrace_legacy_bpf__open();
	if (!l->skel) {
		err = -errno;
		fprintf(stderr, "collector: cannot open the legacy BPF object: %s\n", strerror(-err));
		goto fail;
	}
	/* 2. the tracepoints' layouts and ids, from tracefs */
	err = tracefs_dir(dir, sizeof(dir));
	if (err)
		goto fail;
	fmts = calloc(MAX_PROGS, sizeof(*fmts));
	if (!fmts) {
		err = -ENOMEM;
		goto fail;
	}
	snprintf(l->tracefs, sizeof(l->tracefs), "%s", dir);
	snprintf(l->group, sizeof(l->group), UPROBE_GROUP "%d", (int)getpid());
	/* what a collector killed by SIGKILL left (its uprobe events) */
	tracefs_uprobe_remove_stale(dir, UPROBE_GROUP);
	bpf_object__for_each_program(prog, l->skel->obj) {
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
		if (strncmp(sec, "tracepoint/", 11) || n == MAX_PROGS) {
			fprintf(stderr, "collector: legacy object: unexpected program section %s\n", sec);
			err = -EINVAL;
			goto fail;
		}
		events[n] = sec + 11;
		progs[n] = prog;
		err = tracefs_read_format(dir, events[n], &fmts[n]);
		if (err)
			goto fail;
		n++;
	}
	memset(&lc, 0, sizeof(lc));
	err = config_offsets(&lc, fmts, events, n);
	if (err)
		goto fail;
	lc.flags = (cfg->watch ? BT_LEGACY_WATCH : 0) |
		   (cfg->trace_all_syscalls ? BT_LEGACY_ALL_SYSCALLS : 0) |
		   (cfg->trace_no_syscalls ? BT_LEGACY_NO_SYSCALLS : 0) |
		   (raw_syscalls_usual(&lc) ? BT_LEGACY_RAW_SYSCALLS : 0) |
		   (cfg->mark_start_mask ? BT_LEGACY_START : 0);
	lc.mark_start_mask = cfg->mark_start_mask;
	/* this thread polls: its syscalls flush batches (init pid namespace assumed, as for tids) */
	lc.flush_tid = (__u32)syscall(SYS_gettid);
	memcpy(lc.syscall_mask, cfg->syscall_mask, sizeof(lc.syscall_mask));
	lc.ready = 1;
	if (cfg->verbose)
		fprintf(stderr, "collector: opened in %.1f ms (tracefs at %s, raw_syscalls read %s)\n",
			ms_since(cfg->started_ns), dir,
			lc.flags & BT_LEGACY_RAW_SYSCALLS ? "with loads" : "with bpf_probe_read");

	/* the --start times, per task: a map of one entry without --start */
	err = bpf_map__set_max_entries(l->skel->maps.mark_starts,
				       cfg->mark_start_mask ? BT_MAX_TASKS : 1);
	if (err)
		goto fail;
	if (cfg->nmarks > BT_LEGACY_MAX_MARKS) {
		fprintf(stderr, "collector: the legacy object takes at most %d marks\n",
			BT_LEGACY_MAX_MARKS);
		err = -E2BIG;
		goto fail;
	}

	/* 3. load, configure */
	err = boottrace_legacy_bpf__load(l->skel);
	if (cfg->verbose)
		fprintf(stderr, "collector: loaded in %.1f ms\n", ms_since(cfg->started_ns));
	if (err) {
		fprintf(stderr, "collector: cannot load the legacy BPF programs: %s "
			"(run with -v for libbpf's log)\n", strerror(-err));
		goto fail;
	}
	if (bpf_map__update_elem(l->skel->maps.config, &zero, sizeof(zero), &lc, sizeof(lc),
				 BPF_ANY) < 0) {
		err = -errno;
		fprintf(stderr, "collector: cannot configure the legacy BPF object: %s\n",
			strerror(-err));
		goto fail;
	}
	err = batches_init(&l->batches, l->skel->maps.batches);
	if (err) {
		fprintf(stderr, "collector: cannot set up the per-CPU batches: %s\n", strerror(-err));
		goto fail;
	}
	err = batch_gaps_init(&l->gaps, l->batches.ncpus);
	if (err)
		goto fail;
	/* 4. the rings before the programs: a record with nowhere to go is lost */
	l->pb = open_perf_buffer(l, cfg->buffer_mb);
	if (!l->pb) {
		err = -errno;
		fprintf(stderr, "collector: cannot set up the perf buffer: %s\n", strerror(-err));
		goto fail;
	}
	/* 5. attach */
	for (i = 0; i < n; i++) {
		err = attach_trace_event(progs[i], fmts[i].id, events[i], &l->links[l->nlinks]);
		if (err)
			goto fail;
		l->nlinks++;
	}
	if (cfg->verbose)
		fprintf(stderr, "collector: attached in %.1f ms\n", ms_since(cfg->started_ns));
	free(fmts);
	*out = &l->b;
	return 0;
fail:
	free(fmts);
	legacy_destroy(&l->b);
	return err;
}
