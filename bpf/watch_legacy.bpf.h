/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Watch mode (pidtree) of the legacy object and its compat build: a task
 * that asks clone(2), clone3(2) or unshare(2) for a new pid or mount
 * namespace roots a container, with a key the kernel gives
 * (new_root_key()). Included by boottrace_legacy.bpf.c, after
 * marks_legacy.bpf.h (it uses the object's maps, adopt(), the syscall
 * context readers, fill_hdr_of(), emit() and mark_start_root()); bt_fork
 * and bt_exit there use its `pending` and `parents` maps.
 */

#define NS_FLAGS	(CLONE_NEWNS | CLONE_NEWPID)

/*
 * Watch mode: an untraced task's namespace requests on their way to a
 * root. clone_ns: the clone(2) in progress asks for new namespaces, its
 * child is a root; unshare_req: the unshare(2) in progress; next_child:
 * an unshare(CLONE_NEWPID) succeeded, the next child (pid 1 of the new
 * namespace) is a root.
 */
struct ns_pending {
	__u64 clone_ns;
	__u64 unshare_req;
	__u64 next_child;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct ns_pending);
} pending SEC(".maps");

/*
 * Watch mode: who forked each task while the collector ran (this object
 * cannot read task->real_parent), for a root made in place by unshare(2),
 * whose parent is the runtime. LRU: no entry is ever deleted one by one.
 * (struct parent_info is in boottrace_legacy.bpf.c: union stack_buf holds one.)
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, BT_MAX_TASKS);
	__type(key, __u32);
	__type(value, struct parent_info);
} parents SEC(".maps");

/* Watch mode: the sequence of kernel-assigned container keys. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} root_seq SEC(".maps");

/*
 * Watch mode: a key no user-space key can be. The fetch-add's result
 * would need BPF_FETCH (5.12), so the count is read after the add; two
 * CPUs may read the same count, never the same CPU twice (a CPU's reads
 * follow its own adds), hence the CPU number in the key.
 */
static __always_inline __u64 new_root_key(void)
{
	__u32 zero = 0;
	__u64 *seq = bpf_map_lookup_elem(&root_seq, &zero);

	if (!seq)
		return 0;
	__sync_fetch_and_add(seq, 1);
	return BT_KEY_KERNEL | ((__u64)bpf_get_smp_processor_id() << 40) |
	       (*seq & ((1ULL << 40) - 1));
}

/*
 * Watch mode: task @tid of process @tgid starts a container. @self: the
 * current task itself (an unshare in place), whose parent is in `parents`
 * if it was forked while we watched (else ppid 0 and no parent_comm: the
 * backend asks /proc and answers through ppid_fix); else a child of the
 * current task, not yet running. @buf: stack space (see union stack_buf).
 */
static __always_inline void make_root(void *ctx, struct bt_legacy_config *cfg, __u32 tid,
				      __u32 tgid, __u64 ns, int self, union stack_buf *buf)
{
	__u64 id = bpf_get_current_pid_tgid(), key = new_root_key();
	struct parent_info *pi = NULL;
	__u32 ppid = id >> 32;
	union record *r;

	if (self) {
		pi = bpf_map_lookup_elem(&parents, &tid);
		ppid = pi ? pi->ppid : 0;
		/* a parent user space found for an earlier life of this pid */
		if (!pi)
			bpf_map_delete_elem(&ppid_fix, &tgid);
	}
	if (!key || !adopt(cfg, tid, key, tgid, ppid, 1, self && !pi, buf))
		return;
	r = get_record();
	if (!r) {
		count_lost();
		return;
	}
	fill_hdr_of(&r->root.hdr, BT_EV_ROOT, bpf_ktime_get_ns(), key, tgid, tid, ppid);
	if (self && pi)
		bpf_probe_read(r->root.parent_comm, sizeof(r->root.parent_comm), pi->comm);
	else if (self)
		__builtin_memset(r->root.parent_comm, 0, sizeof(r->root.parent_comm));
	else
		bpf_get_current_comm(r->root.parent_comm, sizeof(r->root.parent_comm));
	r->root.ns_flags = ns;
	emit(ctx, r, sizeof(r->root));
	/* the runtime's --start time, which the root holds (self) or inherits */
	mark_start_root(ctx, cfg, (__u32)id, tid, tgid, ppid, key);
}

/* Watch mode, sys_enter of an untraced task: remember namespace requests. */
static __always_inline void watch_enter(void *ctx, struct bt_legacy_config *cfg, __u32 tid)
{
	struct ns_pending zero = {}, *p;
	unsigned long a0 = 0;
	__u64 flags = 0;
	long nr;

	nr = enter_nr(ctx, cfg);
	if (nr != __NR_clone && nr != __NR_clone3 && nr != __NR_unshare)
		return;
	if (cfg->flags & BT_LEGACY_RAW_SYSCALLS)
		a0 = ctx_long(ctx, RAW_ARGS);
	else
		ctx_read(ctx, cfg->enter_args, &a0, sizeof(a0));
	if (nr == __NR_clone3)	/* struct clone_args starts with the flags */
		bpf_probe_read(&flags, sizeof(flags), (void *)a0);
	else
		flags = a0;
	if (!(flags & NS_FLAGS))
		return;
	p = bpf_map_lookup_elem(&pending, &tid);
	if (!p) {
		bpf_map_update_elem(&pending, &tid, &zero, BPF_NOEXIST);
		p = bpf_map_lookup_elem(&pending, &tid);
		if (!p)
			return;
	}
	if (nr == __NR_unshare)
		p->unshare_req = flags & NS_FLAGS;
	else
		p->clone_ns = flags & NS_FLAGS;
}

/* Watch mode, sys_exit of an untraced task. */
static __always_inline void watch_exit(void *ctx, struct bt_legacy_config *cfg, __u32 tid,
				       long nr, union stack_buf *buf)
{
	struct ns_pending *p;
	__u64 req;
	long ret;

	if (nr != __NR_clone && nr != __NR_clone3 && nr != __NR_unshare)
		return;
	p = bpf_map_lookup_elem(&pending, &tid);
	if (!p)
		return;
	if (nr == __NR_unshare) {
		req = p->unshare_req;
		p->unshare_req = 0;
		ret = exit_ret(ctx, cfg);
		if (ret == 0 && (req & CLONE_NEWPID)) {
			/* the caller stays in its pid namespace: its next child is the container */
			p->next_child = req;
		} else if (ret == 0 && (req & CLONE_NEWNS)) {
			/* `unshare --mount CMD`: the caller itself is the container */
			make_root(ctx, cfg, tid, bpf_get_current_pid_tgid() >> 32, CLONE_NEWNS, 1, buf);
		}
	} else {
		p->clone_ns = 0;
	}
	if (!p->clone_ns && !p->unshare_req && !p->next_child)
		bpf_map_delete_elem(&pending, &tid);
}
