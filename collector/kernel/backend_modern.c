// SPDX-License-Identifier: BSD-2-Clause
/*
 * The modern object (bpf/boottrace.bpf.c) behind collector/kernel/backend.h:
 * skeleton, rodata configuration, ring buffer, and the per-CPU batches of
 * syscall records (unpacked here; made to flush when they wait too long).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/boottrace.h"	/* the types in the skeleton */
#include "boottrace.skel.h"
#include "collector/kernel/backend.h"
#include "collector/kernel/profile_events.h"
#include "collector/kernel/batch.h"
#include "collector/clock.h"
#include "collector/kernel/bpfmap.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL	/* 6.9: a pidfd for a thread, not a process */
#endif

struct modern {
	struct backend b;
	struct boottrace_bpf *skel;
	struct ring_buffer *rb;
	struct batches pending;	/* the per-CPU batches (a visit is a task switch) */
	struct profile *profile;	/* --profile's perf events */
};

static struct modern *to_modern(struct backend *b)
{
	return (struct modern *)b;
}

/* Every record of the ring buffer: a batch is delivered record by record. */
static int on_record(void *ctx, void *data, size_t size)
{
	struct modern *m = ctx;

	if (batch_is(data, size))
		return batch_for_each(data, size, m->b.cfg.on_event, m->b.cfg.ctx);
	return m->b.cfg.on_event(m->b.cfg.ctx, data, size);
}

static int modern_poll(struct backend *b, int timeout_ms)
{
	struct modern *m = to_modern(b);
	int err = ring_buffer__poll(m->rb, timeout_ms);

	batches_flush_old(&m->pending);
	/*
	 * Wake-ups are batched (the BPF side only wakes us when wakeup_bytes
	 * wait), so the poll may time out with data there: consume it.
	 */
	if (err >= 0 || err == -EINTR)
		err = ring_buffer__consume(m->rb);
	return err < 0 && err != -EINTR ? err : 0;
}

static int modern_drain(struct backend *b)
{
	struct modern *m = to_modern(b);
	int err;

	batches_flush(&m->pending, 0);
	err = ring_buffer__consume(m->rb);
	return err < 0 ? err : 0;
}

static void filter_add(struct modern *m, __u64 id)
{
	__u64 *slot = &m->skel->bss->filter[BT_FILTER_SLOT(id)];

	if (__sync_val_compare_and_swap(slot, 0, id) != 0 && *slot != id)
		*slot = BT_FILTER_SHARED;
}

static int modern_track_cgroup(struct backend *b, __u64 id)
{
	struct modern *m = to_modern(b);
	__u8 one = 1;

	if (bpf_map__update_elem(m->skel->maps.tracked, &id, sizeof(id), &one,
				 sizeof(one), BPF_ANY) < 0)
		return -errno;
	filter_add(m, id);
	return 0;
}

static void modern_untrack_cgroup(struct backend *b, __u64 id)
{
	struct modern *m = to_modern(b);
	__u64 *slot = &m->skel->bss->filter[BT_FILTER_SLOT(id)];

	bpf_map__delete_elem(m->skel->maps.tracked, &id, sizeof(id), 0);
	__sync_val_compare_and_swap(slot, id, 0);
}

/* Task storage maps take a pidfd as the key from user space. */
static int pidfd_of(pid_t tid)
{
	int fd = (int)syscall(SYS_pidfd_open, tid, 0);

	if (fd < 0 && errno == ENOENT)	/* not a thread group leader */
		fd = (int)syscall(SYS_pidfd_open, tid, PIDFD_THREAD);
	return fd < 0 ? -errno : fd;
}

static int modern_track_task(struct backend *b, pid_t tid, __u64 key)
{
	struct modern *m = to_modern(b);
	struct bpf_map *map = m->skel->maps.sc_states;
	size_t size = bpf_map__value_size(map);
	void *val = calloc(1, size);
	int fd = pidfd_of(tid), err = 0;

	if (!val || fd < 0) {
		free(val);
		if (fd >= 0)
			close(fd);
		return fd < 0 ? fd : -ENOMEM;
	}
	((struct bt_task_key *)val)->key = key;
	/* BPF_NOEXIST: a task already in a container stays in it */
	if (bpf_map__update_elem(map, &fd, sizeof(fd), val, size, BPF_NOEXIST) < 0)
		err = -errno;
	else
		bpfmap_counter_add(m->skel->maps.live, key, 1);
	close(fd);
	free(val);
	return err;
}

static void modern_untrack_task(struct backend *b, pid_t tid)
{
	struct modern *m = to_modern(b);
	struct bpf_map *map = m->skel->maps.sc_states;
	size_t size = bpf_map__value_size(map);
	void *val = calloc(1, size);
	int fd = pidfd_of(tid);
	__u64 key;

	if (val && fd >= 0 &&
	    bpf_map__lookup_elem(map, &fd, sizeof(fd), val, size, 0) == 0 &&
	    bpf_map__delete_elem(map, &fd, sizeof(fd), 0) == 0) {
		key = ((const struct bt_task_key *)val)->key;
		if (key)
			bpfmap_counter_add(m->skel->maps.live, key, -1);
		/* after the delete: what the kernel cached of it is stale now */
		__atomic_fetch_add(&m->skel->bss->taskcache_gen, 1, __ATOMIC_SEQ_CST);
	}
	if (fd >= 0)
		close(fd);
	free(val);
}

static void modern_host_rows(struct backend *b, bool on)
{
	struct modern *m = to_modern(b);

	/* since before on: the kernel reads them in that order */
	if (on)
		__atomic_store_n(&m->skel->bss->host_rows_since, mono_ns(), __ATOMIC_SEQ_CST);
	__atomic_store_n(&m->skel->bss->host_rows, on, __ATOMIC_SEQ_CST);
}

static int modern_interp_set(struct backend *b, __u32 tgid, const struct bt_interp_proc *p)
{
	struct modern *m = to_modern(b);
	struct bpf_map *map = m->skel->maps.interp_procs;

	if (!p)
		return bpf_map__delete_elem(map, &tgid, sizeof(tgid), 0) < 0 ? -errno : 0;
	return bpf_map__update_elem(map, &tgid, sizeof(tgid), p, sizeof(*p), BPF_ANY) < 0 ? -errno : 0;
}

static int modern_hotspot_set(struct backend *b, __u32 tgid, const struct bt_hotspot_proc *p)
{
	struct modern *m = to_modern(b);
	struct bpf_map *map = m->skel->maps.hotspot_procs;

	if (!p)
		return bpf_map__delete_elem(map, &tgid, sizeof(tgid), 0) < 0 ? -errno : 0;
	return bpf_map__update_elem(map, &tgid, sizeof(tgid), p, sizeof(*p), BPF_ANY) < 0 ? -errno : 0;
}

static unsigned long long modern_lost(struct backend *b)
{
	struct modern *m = to_modern(b);

	return bpfmap_percpu_sum(m->skel->maps.lost, 0);
}

static void modern_missed(struct backend *b, struct progmiss *m)
{
	progmiss_read(to_modern(b)->skel->obj, m);
}

static unsigned long long modern_unended(struct backend *b)
{
	return __atomic_load_n(&to_modern(b)->skel->bss->sched_unended, __ATOMIC_RELAXED);
}

static struct bpf_object *modern_object(struct backend *b)
{
	return to_modern(b)->skel->obj;
}

static void modern_destroy(struct backend *b)
{
	struct modern *m = to_modern(b);

	if (!m)
		return;
	profile__stop(m->profile);
	ring_buffer__free(m->rb);
	boottrace_bpf__destroy(m->skel);
	batches_free(&m->pending);
	free(m);
}

static const struct backend_ops modern_ops = {
	.name = "modern",
	.samples = true,
	.offcpu_stacks = true,
#if defined(__x86_64__)
	.ustack_copy = true,	/* the registers are taken for x86-64 only (bpf/profile.bpf.h) */
#endif
	.poll = modern_poll,
	.drain = modern_drain,
	.track_cgroup = modern_track_cgroup,
	.untrack_cgroup = modern_untrack_cgroup,
	.track_task = modern_track_task,
	.untrack_task = modern_untrack_task,
	.host_rows = modern_host_rows,
	.interp_set = modern_interp_set,
	.hotspot_set = modern_hotspot_set,
	.lost = modern_lost,
	.missed = modern_missed,
	.unended = modern_unended,
	.object = modern_object,
	.destroy = modern_destroy,
};

struct boottrace_bpf *backend_modern_skel(struct backend *b)
{
	return b && b->ops == &modern_ops ? to_modern(b)->skel : NULL;
}

int backend_modern_open(const struct backend_config *cfg, struct backend **out)
{
	struct modern *m = calloc(1, sizeof(*m));
	struct bpf_program *prog;
	const char *skip_in;
	int err;

	if (!m)
		return -ENOMEM;
	m->b.ops = &modern_ops;
	m->b.cfg = *cfg;
	m->skel = boottrace_bpf__open();
	if (!m->skel) {
		err = -errno;
		fprintf(stderr, "collector: cannot open the BPF object: %s\n", strerror(-err));
		goto fail;
	}
	m->skel->rodata->pidtree = cfg->mode == BT_MODE_PIDTREE;
	m->skel->rodata->exec_wakeup = cfg->spans;
	m->skel->rodata->watch_mkdir = cfg->watch && cfg->mode == BT_MODE_CGROUP;
	m->skel->rodata->watch_roots = cfg->watch && cfg->mode == BT_MODE_PIDTREE;
	m->skel->rodata->trace_all_syscalls = cfg->trace_all_syscalls;
	m->skel->rodata->trace_no_syscalls = cfg->trace_no_syscalls;
	m->skel->rodata->sched_rows = cfg->sched;
	/* a test knob (man collector, ENVIRONMENT): switch-ins of tasks so named go unwritten */
	if ((skip_in = getenv("BOOTTRACE_TEST_SKIP_SWITCH_IN")))
		strncpy((char *)m->skel->rodata->test_skip_in_comm, skip_in,
			sizeof(m->skel->rodata->test_skip_in_comm) - 1);
	m->skel->rodata->profile_period_ns = cfg->profile_hz ? profile_period_ns(cfg->profile_hz) : 0;
	/* a test knob (man collector, ENVIRONMENT): interpreter frames named from memory only */
	m->skel->rodata->inames_on = !getenv("BOOTTRACE_TEST_NO_INAMES");
	m->skel->rodata->profile_stack_bytes = cfg->profile_hz && modern_ops.ustack_copy ?
					       cfg->profile_stack : 0;
	m->skel->rodata->offcpu_stacks = cfg->offcpu_stacks;
	/*
	 * Stacks taken, their build ids remembered (bpf/buildids.bpf.h); a
	 * test knob (man collector, ENVIRONMENT): every one asked of the kernel
	 */
	m->skel->rodata->buildids_cached = (m->skel->rodata->profile_period_ns || cfg->offcpu_stacks) &&
					   !getenv("BOOTTRACE_TEST_NO_BUILD_ID_CACHE");
	m->skel->rodata->offcpu_stack_bytes = cfg->offcpu_stacks && modern_ops.ustack_copy ?
					      cfg->profile_stack : 0;
	if (!m->b.cfg.buffer_mb)
		m->b.cfg.buffer_mb = m->skel->rodata->profile_stack_bytes ||
				     m->skel->rodata->offcpu_stack_bytes ? BT_RINGBUF_MB_COPIES :
									   BT_RINGBUF_MB;
	m->skel->rodata->wakeup_bytes = (m->b.cfg.buffer_mb << 20) / 16;
	m->skel->rodata->self_tgid = (__u32)getpid();
	memcpy((void *)m->skel->rodata->syscall_mask, cfg->syscall_mask,
	       sizeof(cfg->syscall_mask));
	err = bpf_map__set_max_entries(m->skel->maps.events, (__u32)(m->b.cfg.buffer_mb << 20));
	/*
	 * The other mode's map, preallocated in full, would cost start-up
	 * time (a tenth of it, in htab_map_alloc) for nothing: one entry.
	 */
	if (!err)
		err = bpf_map__set_max_entries(cfg->mode == BT_MODE_PIDTREE ? m->skel->maps.tracked :
					       m->skel->maps.live, 1);
	/* --sched off: sched_switch only flushes batches; the rest is not loaded */
	/* --profile-unwind=dwarf|auto: an entry per CPU for the samples' stacks, 72 KB each */
	if (!err && m->skel->rodata->profile_stack_bytes) {
		int ncpu = libbpf_num_possible_cpus();

		err = ncpu > 0 ? bpf_map__set_max_entries(m->skel->maps.sample_copies, (__u32)ncpu) :
				 ncpu;
	}
	/* --offcpu-stacks on: the same for the off-CPU stacks (and offcpu_same()'s reads) */
	if (!err && m->skel->rodata->offcpu_stacks) {
		int ncpu = libbpf_num_possible_cpus();

		err = ncpu > 0 ? bpf_map__set_max_entries(m->skel->maps.offcpu_copies, (__u32)ncpu) :
				 ncpu;
	}
	if (!err && !cfg->sched)
		err = bpf_map__set_max_entries(m->skel->maps.sched_states, 1);
	/* no stacks taken, or their build ids not remembered: bpf/buildids.bpf.h's LRU maps (2.4 MB) idle */
	if (!err && !m->skel->rodata->buildids_cached) {
		err = bpf_map__set_max_entries(m->skel->maps.bid_codes, 1);
		if (!err)
			err = bpf_map__set_max_entries(m->skel->maps.bid_mms, 1);
	}
	if (err)
		goto fail;
	/*
	 * Marks are attached one by one, later, to the binaries they name;
	 * without marks their programs are not even loaded (each program
	 * verified costs start-up time).
	 */
	bpf_object__for_each_program(prog, m->skel->obj) {
		const char *sec = bpf_program__section_name(prog);

		if (!strncmp(sec, "uprobe", 6) || !strncmp(sec, "uretprobe", 9) ||
		    !strncmp(sec, "usdt", 4)) {
			bpf_program__set_autoattach(prog, false);
			bpf_program__set_autoload(prog, cfg->marks);
		}
	}
	/* --spans: attached per interpreter file later (collector/kernel/spans.c) */
	bpf_program__set_autoload(m->skel->progs.bt_span, cfg->spans);
	bpf_program__set_autoload(m->skel->progs.bt_mark_fork, cfg->start_mark);
	bpf_program__set_autoload(m->skel->progs.bt_profile, cfg->profile_hz > 0);
	bpf_program__set_autoload(m->skel->progs.bt_mark_cgroup_attach, cfg->start_mark);
	{
		/* bpf/sched.bpf.h's, but bt_sched_switch (it flushes batches) */
		struct bpf_program *sched[] = {
			m->skel->progs.bt_sched_waking, m->skel->progs.bt_sched_wakeup_new,
			m->skel->progs.bt_sched_free, m->skel->progs.bt_softirq_entry,
			m->skel->progs.bt_softirq_exit, m->skel->progs.bt_timer_entry,
			m->skel->progs.bt_timer_exit, m->skel->progs.bt_irq_work_entry,
			m->skel->progs.bt_irq_work_exit, m->skel->progs.bt_call_entry,
			m->skel->progs.bt_call_exit, m->skel->progs.bt_call_single_entry,
			m->skel->progs.bt_call_single_exit, m->skel->progs.bt_irq_entry,
			m->skel->progs.bt_irq_exit,
		};
		size_t i;

		for (i = 0; i < sizeof(sched) / sizeof(sched[0]); i++)
			bpf_program__set_autoload(sched[i], cfg->sched);
	}

	if (cfg->verbose)
		fprintf(stderr, "collector: opened in %.1f ms\n", ms_since(cfg->started_ns));
	err = boottrace_bpf__load(m->skel);
	if (cfg->verbose)
		fprintf(stderr, "collector: loaded in %.1f ms\n", ms_since(cfg->started_ns));
	if (err) {
		fprintf(stderr, "collector: cannot load the BPF programs: %s (run with -v for libbpf's log)\n",
			strerror(-err));
		goto fail;
	}
	err = boottrace_bpf__attach(m->skel);
	if (err) {
		fprintf(stderr, "collector: cannot attach the BPF programs: %s\n", strerror(-err));
		goto fail;
	}
	if (cfg->profile_hz &&
	    (err = profile__start(m->skel->progs.bt_profile, cfg->profile_hz, &m->profile)) < 0)
		goto fail;
	if (cfg->verbose)
		fprintf(stderr, "collector: attached in %.1f ms\n", ms_since(cfg->started_ns));
	m->rb = ring_buffer__new(bpf_map__fd(m->skel->maps.events), on_record, m, NULL);
	if (!m->rb) {
		err = -errno;
		fprintf(stderr, "collector: cannot set up the ring buffer: %s\n", strerror(-err));
		goto fail;
	}
	/* if it fails, batches are flushed by the CPUs' own task switches only */
	batches_init(&m->pending, m->skel->maps.pending);
	*out = &m->b;
	return 0;
fail:
	modern_destroy(&m->b);
	return err;
}
