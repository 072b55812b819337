/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * pidtree attribution of the modern object: the container key in a task's
 * sc_state (set by user space for a container's first process, inherited
 * at fork), the `live` count that says when a container ends, the task
 * cache that finds a key without a helper call, and the roots watch mode
 * finds (a new pid or mount namespace). Part of bpf/boottrace.bpf.c
 * (included there, after fill_hdr(): it uses the object's sc_states,
 * filter, reserve(), count_lost() and fill_hdr()), in a file of its own
 * as details.bpf.h is. The `pidtree` and `watch_roots` tunables stay with
 * the object's others.
 */

/* pidtree mode: live tracked tasks per container key (BT_EV_GONE at 0). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, BT_MAX_CGROUPS);
	__type(key, __u64);
	__type(value, __s64);
} live SEC(".maps");

/* task_struct::flags: do_exit() has begun (include/linux/sched.h) */
#define BT_PF_EXITING 0x4

/* pidtree watch mode: keys for the roots the kernel finds. */
__u64 next_root_key;

/*
 * pidtree mode: a traced task's container key, where reaching it costs no
 * helper call (its task storage costs a call and a return, and more calls
 * inside: a third of what tracing a syscall cost in this mode). A
 * direct-mapped table indexed by a hash of the task's address; a slot
 * belongs to the first traced task that hashes there, until it exits
 * (bt_exit frees it); another task of that slot goes to its storage each
 * time. Only traced tasks are cached: an untraced one looks in its storage
 * as before. A slot is written by compare and swap of its owner to
 * BT_TASKCACHE_BUSY, then key and gen, then the owner; a reader checks the
 * owner before and after reading key and gen (x86 keeps loads in order, and
 * stores). User space untracks a task in its storage, then bumps
 * taskcache_gen: every slot is stale until its task's next storage look-up
 * writes it again, and a look-up that raced with the untrack wrote the
 * generation it read before it looked.
 */
struct bt_taskcache taskcache[1 << BT_TASKCACHE_BITS] __attribute__((aligned(64)));
__u64 taskcache_gen;

/* A task's address as a plain number (as regs_id()); never 0. */
static __always_inline __u64 task_id(const struct task_struct *t)
{
	return (const char *)t - (const char *)filter;
}

static __always_inline struct bt_taskcache *taskcache_slot(__u64 id)
{
	return &taskcache[(id * 0x9E3779B97F4A7C15ULL) >> (64 - BT_TASKCACHE_BITS)];
}

static __always_inline bool taskcache_get(__u64 id, __u64 *key)
{
	struct bt_taskcache *c = taskcache_slot(id);
	__u64 k, g;

	if (READ_ONCE(c->task) != id)
		return false;
	k = READ_ONCE(c->key);
	g = READ_ONCE(c->gen);
	if (READ_ONCE(c->task) != id || g != READ_ONCE(taskcache_gen))
		return false;
	*key = k;
	return true;
}

/* @gen: taskcache_gen as read before the storage look-up that found @key. */
static __always_inline void taskcache_put(__u64 id, __u64 key, __u64 gen)
{
	struct bt_taskcache *c = taskcache_slot(id);
	__u64 old = READ_ONCE(c->task);

	if (old != 0 && old != id)
		return;		/* another task's (or being written) */
	if (__sync_val_compare_and_swap(&c->task, old, BT_TASKCACHE_BUSY) != old)
		return;
	WRITE_ONCE(c->key, key);
	WRITE_ONCE(c->gen, gen);
	WRITE_ONCE(c->task, id);
}

/* Task @id exits: its slot is free (its address may be a new task's). */
static __always_inline void taskcache_drop(__u64 id)
{
	struct bt_taskcache *c = taskcache_slot(id);

	if (READ_ONCE(c->task) == id)
		__sync_val_compare_and_swap(&c->task, id, 0);
}

/* pidtree mode: the container of task @t, from the cache or its storage. */
static __always_inline bool pidtree_container(struct task_struct *t, __u64 *key)
{
	__u64 id = task_id(t), gen;
	struct sc_state *st;

	if (taskcache_get(id, key))
		return true;
	gen = READ_ONCE(taskcache_gen);
	barrier();
	st = bpf_task_storage_get(&sc_states, t, 0, 0);
	if (!st || !st->key)
		return false;
	*key = st->key;
	/*
	 * Not an exiting task: bt_exit frees its slot, and a look-up after
	 * that (its last sched_switch, a wake of it) would cache it again,
	 * for a new task that gets its address once it is freed: that task
	 * then counted as this one's container (a spawned boot's exec, a
	 * runtime's next container's root, lost).
	 */
	if (!(BPF_CORE_READ(t, flags) & BT_PF_EXITING))
		taskcache_put(id, st->key, gen);
	return true;
}

/* pidtree: one more live task in container @key. */
static __always_inline void live_add(__u64 key, __s64 n)
{
	__s64 *v = bpf_map_lookup_elem(&live, &key);

	if (v)
		__sync_fetch_and_add(v, n);
	else if (n > 0)
		bpf_map_update_elem(&live, &key, &n, BPF_NOEXIST);
}

/* pidtree: @t joins container @key (its own state, inherited from nobody). */
static __always_inline bool pidtree_adopt(struct task_struct *t, __u64 key)
{
	struct sc_state *st;

	st = bpf_task_storage_get(&sc_states, t, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!st) {
		/* the task would go untraced: say so in the lost count */
		count_lost();
		return false;
	}
	st->key = key;
	st->ts = 0;
	live_add(key, 1);
	taskcache_put(task_id(t), key, READ_ONCE(taskcache_gen));
	return true;
}

static __always_inline bool same_mnt_ns(struct task_struct *a, struct task_struct *b)
{
	return BPF_CORE_READ(a, nsproxy, mnt_ns) == BPF_CORE_READ(b, nsproxy, mnt_ns);
}

/*
 * pidtree watch mode: @t starts a container, the way runtimes make one: it
 * lives in a pid or mount namespace its parent @parent does not.
 */
static __always_inline void pidtree_root(struct task_struct *parent, struct task_struct *t,
					 __u64 ns_flags)
{
	struct bt_root_event *e;
	__u64 key = BT_KEY_KERNEL | __sync_fetch_and_add(&next_root_key, 1);

	if (!pidtree_adopt(t, key))
		return;
	e = reserve(sizeof(*e));
	if (!e) {
		count_lost();
		return;
	}
	e->hdr.ts_ns = bpf_ktime_get_ns();
	e->hdr.cgroup_id = key;
	e->hdr.type = BT_EV_ROOT;
	e->hdr.pid = t->tgid;
	e->hdr.tid = t->pid;
	e->hdr.ppid = parent->tgid;
	bpf_probe_read_kernel(e->hdr.comm, sizeof(e->hdr.comm), t->comm);
	bpf_probe_read_kernel(e->parent_comm, sizeof(e->parent_comm), parent->comm);
	e->ns_flags = ns_flags;
	bpf_ringbuf_submit(e, BPF_RB_FORCE_WAKEUP);
}

#define CLONE_NEWNS 0x00020000
#define CLONE_NEWPID 0x20000000

/* pidtree: a tracked task exits; the container ends with its last one. */
static __always_inline void pidtree_exit(struct task_struct *t, __u64 key)
{
	__s64 *v = bpf_map_lookup_elem(&live, &key);
	struct bt_event_hdr *e;

	if (!v || __sync_fetch_and_add(v, -1) != 1)
		return;
	bpf_map_delete_elem(&live, &key);
	e = reserve(sizeof(*e));
	if (!e) {
		count_lost();
		return;
	}
	fill_hdr(e, t, BT_EV_GONE, bpf_ktime_get_ns(), key);
	bpf_ringbuf_submit(e, BPF_RB_FORCE_WAKEUP);
}
