/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Scheduler rows of the modern object (--sched on, docs/tsv-format.md):
 * one record per off-CPU interval of a traced task, written when it gets
 * a CPU back. Part of bpf/boottrace.bpf.c (included there, after
 * current_container(), reserve() and fill_hdr(), which it uses), in a
 * file of its own as details.bpf.h is.
 *
 *   sched_switch     prev leaves: its state, the time (sched_out());
 *                    next comes back: its row, with prev as the holder
 *                    (sched_in())
 *   sched_waking     the first wake since it left: the time, the context
 *                    (task, irq, softirq) and, from a task, the waker
 *   sched_wakeup_new a new task is runnable: its first interval starts,
 *                    woken by its parent
 *   sched_process_free  its state goes
 *
 * The state is in a preallocated hash keyed by tid, not in task storage:
 * sched_switch and sched_waking run under the runqueue and pi locks,
 * where creating task storage allocates (GFP_ATOMIC before 6.4, which
 * may wake kswapd: a wake-up under a runqueue lock); a preallocated
 * entry is taken from a free list. Who is traced is decided when a task
 * leaves the CPU (sched_traced()): host_rows widens it to every task
 * for a while (bpf/host.bpf.h) without touching the rest.
 */

/* --sched on. Off: bt_sched_switch only flushes; the other programs are not loaded. */
const volatile bool sched_rows = false;
/*
 * A test knob (BOOTTRACE_TEST_SKIP_SWITCH_IN=COMM, backend_modern.c): the
 * switch-ins of tasks named COMM are not written, as if the kernel had
 * not traced them, for the tests of sched_running().
 */
const volatile char test_skip_in_comm[BT_COMM_LEN];
/*
 * Off-CPU intervals whose switch-in the kernel did not trace and whose end
 * no syscall's return bounds (sched_running()): not written, counted here
 * for the collector to say at its end.
 */
__u64 sched_unended;

/* Whether comm @a is @b (NUL-padded, BT_COMM_LEN bytes). */
static __always_inline bool comm_is(const char *a, const volatile char *b)
{
	int i;

	for (i = 0; i < BT_COMM_LEN; i++) {
		if (a[i] != b[i])
			return false;
		if (!a[i])
			return true;
	}
	return true;
}

/* A wake as sched_waking saw it. */
struct bt_wake {
	__u64 ts;		/* 0: none */
	__u32 tid, pid;		/* the waker, BT_WAKE_TASK and BT_WAKE_NEW */
	__u8 kind;		/* enum bt_sched_wake */
	__u8 state;		/* the task's state at the wake ('S', 'D', 'T') */
	__u8 pad[6];
	char comm[BT_COMM_LEN];
};

struct bt_sched_task {
	__u64 key;		/* its container when it left */
	__u64 out_ts;		/* when it left the CPU; 0: on a CPU, or not seen leaving */
	__u8 state;		/* 'R', 'S', 'D', 'I', 'T' */
	__u8 pad[7];
	struct bt_wake wake;	/* the first wake since it left */
	/*
	 * A wake that came from another CPU while the task was still on its
	 * way off its own (dequeued, its sched_switch not yet traced):
	 * taken by that sched_switch, dropped at the next switch-in.
	 */
	struct bt_wake early;
	struct bt_offcpu_last offcpu;	/* where it last blocked with its stack taken */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, BT_MAX_TASKS);	/* 1 with --sched off (backend_modern.c) */
	__type(key, __u32);
	__type(value, struct bt_sched_task);
} sched_states SEC(".maps");

/* task_struct::state before 5.14, __state since */
struct task_struct___o {
	volatile long state;
} __attribute__((preserve_access_index));

#define BT_TASK_INTERRUPTIBLE	0x1
#define BT_TASK_UNINTERRUPTIBLE	0x2	/* TASK_IDLE and TASK_KILLABLE include it */
#define BT_TASK_NOLOAD		0x400	/* with UNINTERRUPTIBLE: TASK_IDLE (4.2+) */
#define BT_TASK_STOPPED_TRACED	0xc	/* __TASK_STOPPED | __TASK_TRACED */
#define BT_TASK_WAKING		0x200	/* 4.14+ */

/* The task's state word. */
static __always_inline __u32 task_state(struct task_struct *t)
{
	if (bpf_core_field_exists(t->__state))
		return t->__state;
	return BPF_CORE_READ((struct task_struct___o *)t, state);
}

/*
 * A sleeping state as the one letter of the row. TASK_IDLE (an idle
 * kworker, rcu's kthreads: uninterruptible, but not in the load) is 'I',
 * as ps shows it; TASK_KILLABLE holds TASK_UNINTERRUPTIBLE too: 'D'; the
 * rest (frozen, rt lock wait) blocks as uninterruptibly: 'D'. 0 for
 * TASK_RUNNING.
 */
static __always_inline __u8 state_letter(__u32 s)
{
	if (s & BT_TASK_INTERRUPTIBLE)
		return 'S';
	if ((s & (BT_TASK_UNINTERRUPTIBLE | BT_TASK_NOLOAD)) ==
	    (BT_TASK_UNINTERRUPTIBLE | BT_TASK_NOLOAD))
		return 'I';
	if (s & BT_TASK_UNINTERRUPTIBLE)
		return 'D';
	if (s & BT_TASK_STOPPED_TRACED)
		return 'T';
	return s ? 'D' : 0;
}

/*
 * What context a wake comes from. The kernel's own answer, the CPU's
 * preempt count, is a per-CPU variable (__preempt_count, or
 * pcpu_hot.preempt_count in 6.2 to 6.14) that a program reaches through
 * bpf_this_cpu_ptr() on its ksym, which needs the symbol in kallsyms:
 * kernels without CONFIG_KALLSYMS_ALL (this project's CI host) refuse the
 * program. So, on every kernel:
 *
 *  - irq: this CPU is inside the handler of an interrupt whose entry and
 *    exit are traced (hardirq_on): the local APIC timer (hrtimers: a
 *    nanosleep's end, every timeout), irq_work (deferred wakes, a ring
 *    buffer's reader), function-call IPIs and the device interrupts'
 *    handlers. Needed for an interrupt that came in user mode: x86-64 runs
 *    it on the interrupted task's own stack, as if from the task;
 *  - softirq: this CPU is between softirq_entry and softirq_exit (served
 *    on the interrupt stack, or by ksoftirqd, or, PREEMPT_RT, by the task
 *    that enabled bottom halves): in_serving_softirq();
 *  - irq: the program's frame is not on the current task's kernel stack
 *    (below its pt_regs, which top it): on the CPU's interrupt (or NMI)
 *    stack, where x86-64 runs an interrupt that came in kernel mode;
 *  - unknown: on the task's stack, and the task (a user task) entered the
 *    kernel by an interrupt or an exception without error code
 *    (pt_regs.orig_ax -1, not a syscall's number), outside the traced
 *    handlers: the rest of an interrupt that came in user mode (a
 *    threaded handler's wake, after the handler returned; the vectors
 *    not traced), or the task's own way back to user space after one
 *    (signals, task work, exit);
 *  - task: the rest (a syscall, a page fault, a kernel thread).
 *
 * A threaded interrupt handler is a task (irq/N-name): the waker. The
 * pointer difference is a number to the verifier for a CAP_PERFMON
 * program (as regs_id()).
 */
#define BT_SOFTIRQ_CPUS 1024
__u8 softirq_on[BT_SOFTIRQ_CPUS];
/* Inside a traced interrupt handler, per CPU (x86: handlers do not nest, NMIs aside). */
__u8 hardirq_on[BT_SOFTIRQ_CPUS];
/* the smallest kernel stack (x86-64 THREAD_SIZE without KASAN) */
#define BT_TASK_STACK (16 << 10)
#define BT_PF_KTHREAD 0x00200000

static __always_inline __u8 wake_context(struct task_struct *cur)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(cur);
	volatile char here = 0;
	__u32 cpu = bpf_get_smp_processor_id() & (BT_SOFTIRQ_CPUS - 1);

	if (hardirq_on[cpu])
		return BT_WAKE_IRQ;
	if (softirq_on[cpu])
		return BT_WAKE_SOFTIRQ;
	if ((__u64)((const char *)regs - (const char *)&here) >= BT_TASK_STACK)
		return BT_WAKE_IRQ;
	if (!(cur->flags & BT_PF_KTHREAD) && (long)((struct bt_pt_regs *)regs)->orig_ax == -1)
		return BT_WAKE_UNKNOWN;
	return BT_WAKE_TASK;
}

SEC("tp_btf/softirq_entry")
int BPF_PROG(bt_softirq_entry, unsigned int vec)
{
	softirq_on[bpf_get_smp_processor_id() & (BT_SOFTIRQ_CPUS - 1)] = 1;
	return 0;
}

SEC("tp_btf/softirq_exit")
int BPF_PROG(bt_softirq_exit, unsigned int vec)
{
	softirq_on[bpf_get_smp_processor_id() & (BT_SOFTIRQ_CPUS - 1)] = 0;
	return 0;
}

/* The traced interrupt handlers (see wake_context()): their entries and exits. */
static __always_inline int hardirq_set(__u8 on)
{
	hardirq_on[bpf_get_smp_processor_id() & (BT_SOFTIRQ_CPUS - 1)] = on;
	return 0;
}

/* bt_NAME_entry and bt_NAME_exit on tracepoints TP_entry and TP_exit */
#define BT_HARDIRQ(name, tp)								\
	SEC("tp_btf/" tp "_entry") int BPF_PROG(bt_##name##_entry) { return hardirq_set(1); }	\
	SEC("tp_btf/" tp "_exit") int BPF_PROG(bt_##name##_exit) { return hardirq_set(0); }

BT_HARDIRQ(timer, "local_timer")
BT_HARDIRQ(irq_work, "irq_work")
BT_HARDIRQ(call, "call_function")
BT_HARDIRQ(call_single, "call_function_single")
BT_HARDIRQ(irq, "irq_handler")

/* Wake @w: now, from the current task @cur's context (@kind unknown: @cur as cur=). */
static __always_inline void wake_fill(struct bt_wake *w, struct task_struct *cur, __u8 kind,
				      __u64 now)
{
	w->ts = now;
	w->kind = kind;
	w->tid = 0;
	w->pid = 0;
	__builtin_memset(w->comm, 0, sizeof(w->comm));
	if (kind == BT_WAKE_TASK || kind == BT_WAKE_NEW || kind == BT_WAKE_UNKNOWN) {
		w->tid = cur->pid;
		w->pid = cur->tgid;
		__builtin_memcpy(w->comm, cur->comm, sizeof(w->comm));
	}
}

/*
 * Whether task @t, leaving the CPU (it is current), gets sched rows, and
 * its container: the traced ones, and while host_rows is set the rest of
 * the host (bpf/host.bpf.h).
 */
static __always_inline bool sched_traced(struct task_struct *t, __u64 *key)
{
	return current_container(t, key) || host_task(t, key);
}

/*
 * The state of task @tid: @st if it has one (looked up already), else a
 * new one, zeroed. NULL when the map is full (counted as lost: the row
 * will not be written).
 */
static __always_inline struct bt_sched_task *state_of(__u32 tid, struct bt_sched_task *st)
{
	struct bt_sched_task fresh;

	if (!st)
		st = bpf_map_lookup_elem(&sched_states, &tid);
	if (st)
		return st;
	__builtin_memset(&fresh, 0, sizeof(fresh));
	if (bpf_map_update_elem(&sched_states, &tid, &fresh, BPF_ANY)) {
		count_lost();
		return NULL;
	}
	return bpf_map_lookup_elem(&sched_states, &tid);
}

/*
 * @prev leaves the CPU at @now (@preempt: still runnable); its stacks
 * when it blocks (offcpu_stack(), from sched_switch's @ctx).
 */
static __always_inline void sched_out(void *ctx, struct task_struct *prev, bool preempt, __u64 now)
{
	struct bt_sched_task *st;
	__u32 tid = prev->pid, s;
	__u64 key;
	__u8 letter;

	/* an exiting task's last intervals: it never comes back, or its row would come after its exit */
	if (prev->flags & BT_PF_EXITING)
		return;
	if (!sched_traced(prev, &key))
		return;
	s = task_state(prev);
	st = state_of(tid, NULL);
	if (!st)
		return;
	/* still off since it last left: that switch-in was not traced (sched_running()) */
	if (st->out_ts)
		__sync_fetch_and_add(&sched_unended, 1);
	st->key = key;
	st->out_ts = now;
	st->wake.ts = 0;
	st->wake.kind = BT_WAKE_UNSEEN;
	letter = preempt ? 0 : state_letter(s & ~BT_TASK_WAKING);
	if (!preempt && st->early.ts) {
		/* its wake came first: runnable from the moment it is off */
		st->wake = st->early;
		st->wake.ts = now;
		letter = st->early.state;
	} else if (!letter) {
		/* preempted, or never blocked (a signal was pending): runnable throughout */
		letter = 'R';
		st->wake.ts = now;
		st->wake.kind = BT_WAKE_NONE;
	}
	st->early.ts = 0;
	st->state = letter;
	offcpu_stack(ctx, prev, key, letter, now, &st->offcpu);
}

/*
 * Host rows: @next, a host task, gets the CPU and was not seen leaving it:
 * it left before host rows began (or while it was not a host task) and
 * has waited for a CPU since, without a wake seen. Its interval from
 * host_rows_since, preempted (R). Not an exiting task: its last
 * switches are never traced (sched_out()).
 */
static __always_inline bool host_unseen_in(struct task_struct *next, struct bt_sched_task *fresh)
{
	__u64 key, since = READ_ONCE(host_rows_since);

	if (!since || (next->flags & BT_PF_EXITING) || !host_task_of(next, &key))
		return false;
	__builtin_memset(fresh, 0, sizeof(*fresh));
	fresh->key = key;
	fresh->out_ts = since;
	fresh->state = 'R';
	fresh->wake.ts = since;
	fresh->wake.kind = BT_WAKE_NONE;
	return true;
}

/*
 * The row of @t's interval from @out to @in, from its state @st; @holder:
 * the task that had the CPU before it (NULL: unknown, BT_SCHED_IN_INFERRED).
 */
static __always_inline void sched_row(struct task_struct *t, struct bt_sched_task *st, __u64 out,
				      __u64 in, struct task_struct *holder)
{
	struct bt_sched_event *e = reserve(sizeof(*e));

	if (!e) {
		count_lost();
		return;
	}
	fill_hdr(&e->hdr, t, BT_EV_SCHED, out, st->key);
	e->in_ts = in;
	e->wake_ts = st->wake.kind == BT_WAKE_UNSEEN ? 0 : st->wake.ts;
	e->cpu = bpf_get_smp_processor_id();
	e->waker_tid = st->wake.tid;
	e->waker_pid = st->wake.pid;
	e->state = st->state;
	e->wake = st->wake.kind;
	__builtin_memset(e->pad, 0, sizeof(e->pad));
	__builtin_memcpy(e->waker_comm, st->wake.comm, sizeof(e->waker_comm));
	if (holder) {
		e->flags = 0;
		e->holder_tid = holder->pid;
		__builtin_memcpy(e->holder_comm, holder->comm, sizeof(e->holder_comm));
	} else {
		e->holder_tid = 0;
		e->flags = BT_SCHED_IN_INFERRED;
		__builtin_memset(e->holder_comm, 0, sizeof(e->holder_comm));
	}
	submit(e);
}

/* @next gets the CPU at @now, from @prev (the holder). */
static __always_inline void sched_in(struct task_struct *prev, struct task_struct *next, __u64 now)
{
	__u32 tid = next->pid;
	struct bt_sched_task *st = bpf_map_lookup_elem(&sched_states, &tid), fresh;
	__u64 out = 0;

	if (st) {
		st->early.ts = 0;
		out = st->out_ts;
		st->out_ts = 0;
	}
	if (!st || !out) {
		if (!READ_ONCE(host_rows) || !host_unseen_in(next, &fresh))
			return;
		st = &fresh;
		out = fresh.out_ts;
	}
	if (test_skip_in_comm[0] && comm_is(next->comm, test_skip_in_comm)) {
		/* the test of sched_running(): as if the kernel had not traced it */
		st->out_ts = out;
		return;
	}
	sched_row(next, st, out, now, prev);
}

/*
 * Task @t, traced, is running (its syscall, entered at @since, returns at
 * @now) while its state says it is off its CPU: the kernel traced no
 * switch-in. 6.18 does that now and then, for every program on
 * sched_switch (bpftrace's too): a task blocks, and the next switch it
 * appears in is its own next switch-out. An interval that began in this
 * syscall: its row now, with @now as the end: a bound (it got its CPU
 * back a little earlier), marked BT_SCHED_IN_INFERRED. Called for
 * syscalls long enough to have blocked (BT_SCHED_IN_CHECK_NS), and at a
 * host task's exec and exit (@since 0: it has no syscall rows).
 *
 * One that began before (in a syscall too short to be checked, or while
 * preempted in user mode) has run since, for a time no trace says:
 * ending it here would lay an off-CPU row over that running time and
 * across this syscall's start. It is dropped, and counted, as its next
 * switch-out would (sched_out()).
 */
static __always_inline void sched_running(struct task_struct *t, __u64 since, __u64 now)
{
	__u32 tid = t->pid;
	struct bt_sched_task *st = bpf_map_lookup_elem(&sched_states, &tid);
	__u64 out;

	if (!st || !(out = st->out_ts))
		return;
	st->early.ts = 0;
	st->out_ts = 0;
	if (out < since) {
		__sync_fetch_and_add(&sched_unended, 1);
		return;
	}
	sched_row(t, st, out, now, NULL);
}

/* tp_btf/sched_switch's part (bt_sched_switch in boottrace.bpf.c). */
static __always_inline void sched_switch(void *ctx, bool preempt, struct task_struct *prev,
					 struct task_struct *next)
{
	__u64 now;

	if (!sched_rows)
		return;
	now = bpf_ktime_get_ns();
	sched_out(ctx, prev, preempt, now);
	sched_in(prev, next, now);
}

/*
 * Host rows: @p, a host task off its CPU (neither on a CPU nor queued),
 * wakes and was not seen leaving: it left before host rows began. Its
 * interval from host_rows_since, in the state it sleeps in, woken now by
 * @cur's context. Into @st, its stale state, or a new entry.
 */
static __always_inline void host_unseen_waking(struct task_struct *p, struct task_struct *cur,
					       struct bt_sched_task *st)
{
	__u64 key, since = READ_ONCE(host_rows_since);
	__u32 tid = p->pid;
	__u8 letter;

	if (!since || p->on_rq || p->on_cpu || !host_task_of(p, &key))
		return;
	letter = state_letter(task_state(p) & ~BT_TASK_WAKING);
	if (!letter)
		return;
	st = state_of(tid, st);
	if (!st)
		return;
	st->key = key;
	st->state = letter;
	st->early.ts = 0;
	wake_fill(&st->wake, cur, wake_context(cur), bpf_ktime_get_ns());
	/* last: sched_in takes out_ts as the sign of an interval */
	WRITE_ONCE(st->out_ts, since);
}

SEC("tp_btf/sched_waking")
int BPF_PROG(bt_sched_waking, struct task_struct *p)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	__u32 tid = p->pid;
	struct bt_sched_task *st = bpf_map_lookup_elem(&sched_states, &tid);
	__u8 letter;

	if (!st || (!st->out_ts && !p->on_cpu)) {
		if (READ_ONCE(host_rows))
			host_unseen_waking(p, cur, st);
		return 0;
	}
	if (st->out_ts) {
		if (st->wake.kind == BT_WAKE_UNSEEN)
			wake_fill(&st->wake, cur, wake_context(cur), bpf_ktime_get_ns());
		return 0;
	}
	/*
	 * Not off its CPU yet: a wake from another CPU while it is between
	 * its dequeue and its sched_switch (on_rq 0, still on_cpu) belongs
	 * to the interval that switch starts. With on_rq set the task has
	 * not blocked: the wake only makes it TASK_RUNNING again.
	 */
	if (p == cur || p->on_rq || !p->on_cpu)
		return 0;
	letter = state_letter(task_state(p) & ~BT_TASK_WAKING);
	if (!letter)
		return 0;
	wake_fill(&st->early, cur, wake_context(cur), bpf_ktime_get_ns());
	st->early.state = letter;
	return 0;
}

/*
 * A new task is runnable: its first interval (name R, wake=new) starts
 * now and its parent, the current task, woke it. Traced as the child is
 * (task_container()): cgroup mode, the child's own cgroup
 * (CLONE_INTO_CGROUP puts a container's first task there from an
 * untraced parent); pidtree mode, its key, set at fork; else a host task
 * while host rows are on.
 */
SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(bt_sched_wakeup_new, struct task_struct *p)
{
	struct bt_sched_task fresh;
	__u32 tid = p->pid;
	__u64 key;

	if (!task_container(p, &key) && !host_task(p, &key))
		return 0;
	__builtin_memset(&fresh, 0, sizeof(fresh));
	fresh.key = key;
	fresh.out_ts = bpf_ktime_get_ns();
	fresh.state = 'R';
	wake_fill(&fresh.wake, bpf_get_current_task_btf(), BT_WAKE_NEW, fresh.out_ts);
	if (bpf_map_update_elem(&sched_states, &tid, &fresh, BPF_ANY))
		count_lost();
	return 0;
}

/* The task is gone for good (after its last switch): its state goes. */
SEC("tp_btf/sched_process_free")
int BPF_PROG(bt_sched_free, struct task_struct *p)
{
	__u32 tid = p->pid;

	bpf_map_delete_elem(&sched_states, &tid);
	return 0;
}
