/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Scheduler rows of the legacy and compat objects (--sched on): what
 * bpf/sched.bpf.h does in the modern object, with classic tracepoints
 * (sched_switch, sched_waking (4.3+), sched_wakeup_new,
 * sched_process_free) whose fields are read at the offsets user space
 * found in tracefs. Part of bpf/boottrace_legacy.bpf.c (included there,
 * after current_task()), in a file of its own. The programs are loaded
 * with --sched on only.
 *
 * What these objects cannot tell: the context of a wake. Without BTF
 * there is no way to the CPU's preempt count or the task's stack, and the
 * tracepoint's common_flags and common_preempt_count, which hold it, are
 * where the kernel puts the pt_regs pointer for BPF (the first 8 bytes,
 * which the verifier does not let a program read). Every wake is
 * BT_WAKE_UNKNOWN, with the current task (the waker, or the task an
 * interrupt came in) in waker_*.
 *
 * Cost: sched_switch runs for every task switch of the host: three loads
 * from the context (bt_sched_switch), one `tasks` lookup (pidtree) or the cgroup filter
 * (cgroup mode) for prev, one `scheds` lookup for next.
 */

/* A traced task's off-CPU interval in progress: its tid -> this. */
struct bt_legacy_sched {
	__u64 key;		/* its container when it left */
	__u64 out_ts;		/* when it left; 0: on a CPU, or not seen leaving */
	__u64 wake_ts;		/* the first wake since, 0: none seen */
	__u32 tgid, ppid;
	__u32 waker_tid, waker_pid;
	__u8 state;		/* 'R', 'S', 'D', 'I', 'T' */
	__u8 wake;		/* enum bt_sched_wake */
	__u8 pad[6];
	char waker_comm[BT_COMM_LEN];
};

/* Preallocated: entries are made under the runqueue lock, where nothing may allocate. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, BT_MAX_TASKS);	/* 1 with --sched off (backend_perf.c) */
	__type(key, __u32);
	__type(value, struct bt_legacy_sched);
} scheds SEC(".maps");

/* sched_switch's prev_state as the tracepoint reports it (4.14+) */
#define BT_REPORT_INTERRUPTIBLE		0x01
#define BT_REPORT_UNINTERRUPTIBLE	0x02
#define BT_REPORT_STOPPED_TRACED	0x0c
#define BT_REPORT_DEAD			0x30	/* EXIT_DEAD, EXIT_ZOMBIE: its last switch */
#define BT_REPORT_IDLE			0x80	/* TASK_REPORT_IDLE (4.14+): TASK_IDLE */
#define BT_REPORT_PREEMPT		0x100	/* TASK_REPORT_MAX: preempted, still runnable */

/*
 * sched_switch's usual offsets (4.15's, and today's), for bt_sched_switch,
 * which reads them with loads; bt_sched_switch_read reads them at the
 * offsets from tracefs. User space loads one of the two: a load past the
 * end of a tracepoint's record makes the attach fail (EACCES), whether
 * the load runs or not, so the loads are only where they fit.
 */
#define SW_PREV_PID	24
#define SW_PREV_STATE	32
#define SW_NEXT_PID	56

/* A 32-bit field at a constant context offset (see ctx_long()). */
#define ctx_u32(ctx, off) ({						\
	__u64 __v;							\
	asm volatile("%[v] = *(u32 *)(%[c] + %[o])"			\
		     : [v] "=r"(__v) : [c] "r"(ctx), [o] "i"(off));	\
	(__u32)__v;							\
})

/*
 * The pid field at @off of sched_waking, sched_wakeup_new or
 * sched_process_free: by bpf_probe_read, as their layouts change
 * (sched_process_free's comm became a __data_loc field, its pid moved).
 */
static __always_inline __u32 sched_pid(void *ctx, __u32 off)
{
	__u32 pid = 0;

	ctx_read(ctx, off, &pid, sizeof(pid));
	return pid;
}

/* The row's letter for reported state @s; 0: the task is dying. */
static __always_inline __u8 report_letter(long s)
{
	if ((s & BT_REPORT_PREEMPT) || !(s & (BT_REPORT_PREEMPT - 1)))
		return 'R';
	if (s & BT_REPORT_DEAD)
		return 0;
	if (s & BT_REPORT_INTERRUPTIBLE)
		return 'S';
	if (s & BT_REPORT_STOPPED_TRACED)
		return 'T';
	if (s & BT_REPORT_IDLE)
		return 'I';
	return 'D';	/* D, P (parked) */
}

/* Task @tid (current) leaves the CPU at @now in reported state @s. */
static __always_inline void sched_out(struct bt_legacy_config *cfg, __u32 tid, long s, __u64 now)
{
	struct bt_legacy_task *t = bpf_map_lookup_elem(&tasks, &tid);
	struct bt_legacy_sched *st, fresh;
	__u32 tgid = t ? t->tgid : 0, ppid = t && !t->ppid_pending ? t->ppid : 0;
	__u64 key = t ? t->key : 0;
	__u8 letter = report_letter(s);

#ifdef BT_COMPAT
	if (cgroup_mode(cfg)) {
		key = current_tracked_cgroup();
		if (key && !t)
			tgid = bpf_get_current_pid_tgid() >> 32;
	}
#endif
	if (!key || !letter)
		return;
	st = bpf_map_lookup_elem(&scheds, &tid);
	if (!st) {
		__builtin_memset(&fresh, 0, sizeof(fresh));
		if (bpf_map_update_elem(&scheds, &tid, &fresh, BPF_ANY)) {
			count_lost();
			return;
		}
		st = bpf_map_lookup_elem(&scheds, &tid);
		if (!st)
			return;
	}
	st->key = key;
	st->tgid = tgid;
	st->ppid = ppid;
	st->out_ts = now;
	st->state = letter;
	st->wake = letter == 'R' ? BT_WAKE_NONE : BT_WAKE_UNSEEN;
	st->wake_ts = letter == 'R' ? now : 0;
}

/*
 * The record of task @tid's interval from its entry @st to @in (NULL when
 * it has none to write, or it is lost and counted), with @holder (0:
 * unknown) and @flags; comm and holder_comm are the caller's to fill.
 * The interval is over: the entry is off no more.
 */
static __always_inline union record *sched_row(struct bt_legacy_sched *st, __u32 tid, __u64 in,
					       __u32 holder, __u8 flags)
{
	union record *r;

	if (!st || !st->out_ts)
		return NULL;
	r = get_record();
	if (!r) {
		st->out_ts = 0;
		count_lost();
		return NULL;
	}
	r->sched.hdr.ts_ns = st->out_ts;
	r->sched.hdr.cgroup_id = st->key;
	r->sched.hdr.type = BT_EV_SCHED;
	r->sched.hdr.pid = st->tgid ? st->tgid : tid;
	r->sched.hdr.tid = tid;
	r->sched.hdr.ppid = st->ppid;
	r->sched.in_ts = in;
	r->sched.wake_ts = st->wake_ts;
	r->sched.cpu = bpf_get_smp_processor_id();
	r->sched.waker_tid = st->waker_tid;
	r->sched.waker_pid = st->waker_pid;
	r->sched.holder_tid = holder;
	r->sched.state = st->state;
	r->sched.wake = st->wake;
	r->sched.flags = flags;
	__builtin_memset(r->sched.pad, 0, sizeof(r->sched.pad));
	__builtin_memcpy(r->sched.waker_comm, st->waker_comm, sizeof(r->sched.waker_comm));
	st->out_ts = 0;
	return r;
}

/* Task @next gets the CPU at @now from @prev: its row, if it was traced leaving. */
static __always_inline void sched_in(void *ctx, struct bt_legacy_config *cfg, __u32 prev,
				     __u32 next, __u64 now)
{
	union record *r = sched_row(bpf_map_lookup_elem(&scheds, &next), next, now, prev, 0);

	if (!r)
		return;
	ctx_read(ctx, cfg->sw_next_comm, r->sched.hdr.comm, sizeof(r->sched.hdr.comm));
	ctx_read(ctx, cfg->sw_prev_comm, r->sched.holder_comm, sizeof(r->sched.holder_comm));
	emit(ctx, r, sizeof(r->sched));
}

/*
 * Task @tid (current) is running (its syscall, entered at @since, returns
 * at @now) while its entry says it is off its CPU: the kernel traced no
 * switch-in (see sched_running() in bpf/sched.bpf.h). An interval that
 * began in this syscall: its row now, ending at @now, a bound, marked
 * BT_SCHED_IN_INFERRED, without a holder. One that began before has run
 * since: dropped, as its next switch-out would.
 */
static __always_inline void sched_running(void *ctx, __u32 tid, __u64 since, __u64 now)
{
	struct bt_legacy_sched *st = bpf_map_lookup_elem(&scheds, &tid);
	union record *r;

	if (st && st->out_ts && st->out_ts < since) {
		st->out_ts = 0;
		return;
	}
	r = sched_row(st, tid, now, 0, BT_SCHED_IN_INFERRED);
	if (!r)
		return;
	bpf_get_current_comm(r->sched.hdr.comm, sizeof(r->sched.hdr.comm));
	__builtin_memset(r->sched.holder_comm, 0, sizeof(r->sched.holder_comm));
	emit(ctx, r, sizeof(r->sched));
}

/* bt_sched_switch and bt_sched_switch_read: @loads says which. */
static __always_inline int sched_switch(void *ctx, int loads)
{
	struct bt_legacy_config *cfg = get_config();
	__u32 prev = 0, next = 0;
	long state = 0;
	__u64 now;

	if (!cfg)
		return 0;
	if (loads) {
		prev = ctx_u32(ctx, SW_PREV_PID);
		next = ctx_u32(ctx, SW_NEXT_PID);
		state = ctx_long(ctx, SW_PREV_STATE);
	} else {
		ctx_read(ctx, cfg->sw_prev_pid, &prev, sizeof(prev));
		ctx_read(ctx, cfg->sw_next_pid, &next, sizeof(next));
		ctx_read(ctx, cfg->sw_prev_state, &state, sizeof(state));
	}
	now = bpf_ktime_get_ns();
	if (prev)
		sched_out(cfg, prev, state, now);
	if (next)
		sched_in(ctx, cfg, prev, next, now);
	return 0;
}

SEC("tracepoint/sched/sched_switch")
int bt_sched_switch(void *ctx)
{
	return sched_switch(ctx, 1);
}

SEC("tracepoint/sched/sched_switch")
int bt_sched_switch_read(void *ctx)
{
	return sched_switch(ctx, 0);
}

/* The first wake since the task left: when, and the current task. */
SEC("tracepoint/sched/sched_waking")
int bt_sched_waking(void *ctx)
{
	struct bt_legacy_config *cfg = get_config();
	struct bt_legacy_sched *st;
	__u64 id;
	__u32 pid;

	if (!cfg)
		return 0;
	pid = sched_pid(ctx, cfg->wk_pid);
	st = bpf_map_lookup_elem(&scheds, &pid);
	if (!st || !st->out_ts || st->wake != BT_WAKE_UNSEEN)
		return 0;
	st->wake_ts = bpf_ktime_get_ns();
	st->wake = BT_WAKE_UNKNOWN;
	id = bpf_get_current_pid_tgid();
	st->waker_tid = (__u32)id;
	st->waker_pid = id >> 32;
	bpf_get_current_comm(st->waker_comm, sizeof(st->waker_comm));
	return 0;
}

/* A new task is runnable: its first interval, woken by its parent (current). */
SEC("tracepoint/sched/sched_wakeup_new")
int bt_sched_wakeup_new(void *ctx)
{
	struct bt_legacy_config *cfg = get_config();
	struct bt_legacy_sched fresh;
	struct bt_legacy_task *t;
	__u64 id;
	__u32 pid;

	if (!cfg)
		return 0;
	pid = sched_pid(ctx, cfg->wn_pid);
	/* made by bt_fork when its parent is traced, in both modes */
	t = bpf_map_lookup_elem(&tasks, &pid);
	if (!t)
		return 0;
	__builtin_memset(&fresh, 0, sizeof(fresh));
	fresh.key = t->key;
	fresh.tgid = t->tgid;
	fresh.ppid = t->ppid_pending ? 0 : t->ppid;
	fresh.out_ts = bpf_ktime_get_ns();
	fresh.wake_ts = fresh.out_ts;
	fresh.state = 'R';
	fresh.wake = BT_WAKE_NEW;
	id = bpf_get_current_pid_tgid();
	fresh.waker_tid = (__u32)id;
	fresh.waker_pid = id >> 32;
	bpf_get_current_comm(fresh.waker_comm, sizeof(fresh.waker_comm));
	if (bpf_map_update_elem(&scheds, &pid, &fresh, BPF_ANY))
		count_lost();
	return 0;
}

/* The task is gone for good, after its last switch: its entry goes. */
SEC("tracepoint/sched/sched_process_free")
int bt_sched_free(void *ctx)
{
	struct bt_legacy_config *cfg = get_config();
	__u32 pid;

	if (!cfg)
		return 0;
	pid = sched_pid(ctx, cfg->free_pid);
	bpf_map_delete_elem(&scheds, &pid);
	return 0;
}
