/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * What only the objects built from bpf/boottrace_legacy.bpf.c (the legacy
 * object, 4.15, and its compat build, 4.18: -DBT_COMPAT) and their backend
 * (collector/kernel/backend_perf.c) share: the configuration map and the values
 * of the maps user space writes into. The records are those of
 * bpf/boottrace.h, which must be included first (a task's entry holds the
 * record of its syscall in progress). Fixed-size fields only and no
 * includes, as there.
 */
#ifndef BOOTTRACE_LEGACY_BPF_H
#define BOOTTRACE_LEGACY_BPF_H

/* bt_legacy_config.flags */
#define BT_LEGACY_WATCH		1	/* pidtree watch mode: roots by namespace */
#define BT_LEGACY_ALL_SYSCALLS	2	/* else only those in syscall_mask */
#define BT_LEGACY_NO_SYSCALLS	4
/*
 * raw_syscalls/sys_enter has id at 8 and args at 16, sys_exit id at 8 and
 * ret at 16, as user space found in tracefs (so on 4.15 and every kernel
 * since, unless the common fields grow, as they did on PREEMPT_RT trees):
 * the programs read them from the context directly, a load each, instead
 * of a bpf_probe_read each. A flag, not offsets: the verifier allows
 * constant context offsets only.
 */
#define BT_LEGACY_RAW_SYSCALLS	8
/*
 * A --start probe is attached: sched_process_fork copies a task's start
 * time to its child, sched_process_exit drops it (bpf/marks_legacy.bpf.h).
 * Without it those programs do nothing more than a load and a branch.
 */
#define BT_LEGACY_START		16
/*
 * The compat object only (bpf/cgroups_compat.bpf.h). BT_LEGACY_CGROUP:
 * cgroup mode, a task is traced when its cgroup v2 id
 * (bpf_get_current_cgroup_id, 4.18) is tracked. BT_LEGACY_CGROUP_IDS: the
 * cgroup tracepoints carry that id (a u64 since 5.5; before, the cgroup's
 * number in its hierarchy, which nothing else knows), so the kernel can
 * track a new cgroup at mkdir. BT_LEGACY_WATCH_MKDIR: watch mode, every
 * new v2 cgroup is tracked at mkdir (with BT_LEGACY_CGROUP_IDS).
 */
#define BT_LEGACY_CGROUP	32
#define BT_LEGACY_CGROUP_IDS	64
#define BT_LEGACY_WATCH_MKDIR	128
/* --sched on: sys_exit looks for a switch-in the kernel did not trace (sched_running()) */
#define BT_LEGACY_SCHED		256

/*
 * The mark programs: 4.15 has no attach cookie (bpf_get_attach_cookie is
 * 5.15), so the object has this many copies of one program, bt_mark_0 to
 * bt_mark_7, each knowing its index, which is the --mark's index (the
 * record's mark_id). More --mark and --start probes than that: a usage
 * error.
 */
#define BT_LEGACY_MAX_MARKS	8

/*
 * The per-CPU counters of the `lost` map: records lost in the kernel
 * (not made, or their perf output failed: a batch's rows are counted by
 * the collector from the gap in bt_batch.seq), and outputs that failed,
 * batches or not, which a kernel whose bpf_perf_event_output() does not
 * return its failure (4.15) leaves at 0.
 */
#define BT_LEGACY_LOST_RECORDS	0
#define BT_LEGACY_LOST_OUTPUTS	1

/*
 * The one entry of the `config` array map. Global data (.rodata, .bss)
 * needs 5.2, so the tunables live here; a program does nothing until
 * user space has set `ready`.
 *
 * Tracepoint field offsets are not ABI (sched_process_fork changed layout
 * in 6.16): user space reads them from the tracepoints' tracefs `format`
 * files. Each is a byte offset into the tracepoint's record (the program's
 * context). `exec_filename` is a __data_loc field: a 32-bit word at that
 * offset whose low 16 bits are the string's offset in the record.
 */
struct bt_legacy_config {
	__u32 ready;
	__u32 flags;			/* BT_LEGACY_* */
	__u64 syscall_mask[BT_MAX_SYSCALLS / 64];
	/* raw_syscalls/sys_enter: long id; unsigned long args[6] */
	__u32 enter_id, enter_args;
	/* raw_syscalls/sys_exit: long id; long ret */
	__u32 exit_id, exit_ret;
	/* sched/sched_process_fork: pid_t child_pid */
	__u32 fork_child_pid;
	/* sched/sched_process_exec: __data_loc char[] filename; pid_t pid, old_pid */
	__u32 exec_filename, exec_pid, exec_old_pid;
	/* signal/signal_generate: int sig; pid_t pid; int result */
	__u32 sgen_sig, sgen_pid, sgen_result;
	/* signal/signal_deliver: int sig; unsigned long sa_handler */
	__u32 sdel_sig, sdel_handler;
	/*
	 * compat object: cgroup/cgroup_mkdir and cgroup_rmdir (one event
	 * class): int root; u64 id (or int, before 5.5); __data_loc char[] path
	 */
	__u32 cg_root, cg_id, cg_path;
	/* compat object: cgroup/cgroup_attach_task: int dst_root; u64 dst_id; int pid */
	__u32 att_root, att_id, att_pid;
	/* bit i: bt_mark_i is the --start probe (BT_LEGACY_MAX_MARKS bits) */
	__u32 mark_start_mask;
	/*
	 * The collector thread whose syscalls flush the batch of the CPU
	 * they return on (`batches` in the object); untracked, as its tid
	 * in the init pid namespace.
	 */
	__u32 flush_tid;
	/*
	 * --sched on. sched/sched_switch: char prev_comm[16]; pid_t prev_pid;
	 * long prev_state; char next_comm[16]; pid_t next_pid
	 */
	__u32 sw_prev_comm, sw_prev_pid, sw_prev_state, sw_next_comm, sw_next_pid;
	/* pid_t pid of sched/sched_waking, sched_wakeup_new, sched_process_free */
	__u32 wk_pid, wn_pid, free_pid;
	/* --profile (compat object): the CPU time a sample stands for, ns; 0 off */
	__u32 profile_period_ns;
};
_Static_assert(sizeof(struct bt_legacy_config) == 192, "bt_legacy_config layout");

/*
 * `tasks`: tid -> the task's container, and its syscall in progress. A
 * task is traced iff its tid is in the map. `tgid` is the process whose
 * thread count (`procs`) the task is charged to; `ppid` the parent
 * process's pid when the task was forked (the legacy object cannot read
 * task_struct: an orphan keeps it), 0 when unknown; then `ppid_pending`
 * says the kernel takes it from `ppid_fix` (tgid -> ppid, written by user
 * space) once user space has found it in /proc. User space makes entries
 * with everything else 0 and never rewrites one: the kernel writes the
 * rest while the task runs.
 *
 * The rest is the syscall in progress, from sys_enter to sys_exit, in
 * the one lookup each program needs anyway; its record is built in
 * place (rec.sc.hdr.ts_ns, the entry time, is 0 when none is in
 * progress; rec.sc.nr, detail_kind, detail_len and detail are set at
 * entry) and handed to bpf_perf_event_output from there.
 */
struct bt_legacy_task {
	__u64 key;
	__u32 tgid;
	__u32 ppid;
	union {
		__u64 clone_flags;	/* clone, clone3, fork, vfork: for sched_process_fork */
		__u64 path;		/* open*, exec*: the path, if unread at entry */
	};
	__u32 fd;			/* bind, listen */
	__u16 want;			/* the syscall filter wants the record */
	__u16 ppid_pending;		/* ppid 0: look in ppid_fix */
	struct bt_syscall_detail_event rec;
};
_Static_assert(sizeof(struct bt_legacy_task) == 368, "bt_legacy_task layout");

/* bt_legacy_proc.exit_how: what set exit_code; a higher one is final. */
#define BT_LEGACY_EXIT_NONE	0
#define BT_LEGACY_EXIT_LEADER	1	/* exit(2) by the thread group leader */
#define BT_LEGACY_EXIT_FINAL	2	/* exit_group(2) or a fatal signal */

/*
 * `procs`: tgid -> its live traced threads; at 0 the process has exited
 * (BT_EV_EXIT). `born` tells a pid's lives apart (it keys the bind
 * addresses kept for listen()). exit_code is a wait(2) status, best effort
 * (see the object).
 */
struct bt_legacy_proc {
	__s64 threads;
	__u64 born;
	__u32 exit_code;
	__u32 exit_how;			/* BT_LEGACY_EXIT_* */
	__u32 last_sig;			/* last default-fatal signal sent to it */
	__u32 pad;
};

#endif /* BOOTTRACE_LEGACY_BPF_H */
