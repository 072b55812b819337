/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The one header the BPF programs and the collector share: event records
 * and constants. Fixed-size fields only and no includes, as in
 * libbpf-tools: the BPF side gets __u64 & co. from vmlinux.h, user space
 * from <linux/types.h>.
 */
#ifndef BOOTTRACE_BPF_H
#define BOOTTRACE_BPF_H

#define BT_COMM_LEN 16
/* Paths (open*, exec*) and socket addresses, as copied in the kernel. */
#define BT_DETAIL_MAX 256
/* cgroup paths as the cgroup_mkdir tracepoint gives them. */
#define BT_CGPATH_MAX 512
/* Size of the direct-mapped cgroup filter (power of two), see below. */
#define BT_FILTER_SLOTS 1024
/* The filter slot of cgroup @id. */
#define BT_FILTER_SLOT(id) ((id) & (BT_FILTER_SLOTS - 1))
/* A filter slot two tracked cgroups share: look in the tracked map. */
#define BT_FILTER_SHARED (~0ULL)
#define BT_MAX_SYSCALLS 512
/* Tracked cgroups and tracked tasks, at most. */
#define BT_MAX_CGROUPS 65536

enum bt_event_type {
	BT_EV_SYSCALL = 1,	/* struct bt_syscall_event */
	BT_EV_SYSCALL_DETAIL,	/* struct bt_syscall_detail_event */
	BT_EV_FORK,		/* struct bt_fork_event */
	BT_EV_EXEC,		/* struct bt_exec_event */
	BT_EV_EXIT,		/* struct bt_exit_event */
	BT_EV_CGROUP_MKDIR,	/* struct bt_cgroup_event */
	BT_EV_CGROUP_RMDIR,	/* struct bt_cgroup_event */
	BT_EV_MARK,		/* struct bt_mark_event */
	BT_EV_ROOT,		/* struct bt_root_event (pidtree mode) */
	BT_EV_GONE,		/* struct bt_event_hdr (pidtree mode) */
	BT_EV_BATCH,		/* struct bt_batch */
	BT_EV_SCHED,		/* struct bt_sched_event */
	BT_EV_SAMPLE,		/* struct bt_sample_event */
	BT_EV_SPAN,		/* struct bt_span_event */
	BT_EV_OFFSTACK,		/* struct bt_sample_event: a task blocks (bpf/offcpu.bpf.h) */
	BT_EV_OFFSTACK_SAME,	/* struct bt_event_hdr: it blocks where it last did */
	BT_EV_INAME,		/* struct bt_iname_event */
};

/* What bt_syscall_detail_event.detail holds. */
enum bt_detail_kind {
	BT_DETAIL_NONE,
	BT_DETAIL_PATH,		/* NUL-terminated string from the task */
	BT_DETAIL_SOCKADDR,	/* detail_len bytes of a struct sockaddr */
	/*
	 * No bytes: the fd (read, readv, write, writev) or the new fds
	 * (pipe, pipe2) are a pipe, and bt_syscall_event.ino is its inode
	 * number. In plain records (BT_EV_SYSCALL), so they stay batched.
	 */
	BT_DETAIL_PIPE,
	BT_DETAIL_FIFO,		/* the same, a named FIFO (not pipefs) */
};

/* Flags in bt_syscall_event.flags. */
#define BT_SC_NORETURN 1	/* exit/exit_group: no ret, no duration */
/*
 * bt_syscall_event.fd is the syscall's fd: listen, in the legacy and
 * compat objects, whose detail is the address bind() was given (port 0
 * when the kernel was to choose) or none (autobind): the collector finds
 * the socket's port through the fd (collector/rows/sockport.c). The modern
 * object reads it from the socket.
 */
#define BT_SC_FD 2

/*
 * Every record starts with this header. pid is the thread group id (what
 * user space calls a pid), tid the thread id, as the task's init pid
 * namespace sees them.
 */
struct bt_event_hdr {
	__u64 ts_ns;		/* bpf_ktime_get_ns(): CLOCK_MONOTONIC */
	__u64 cgroup_id;	/* the task's cgroup v2 id */
	__u32 type;		/* enum bt_event_type */
	__u32 pid;
	__u32 tid;
	__u32 ppid;
	char comm[BT_COMM_LEN];
};
_Static_assert(sizeof(struct bt_event_hdr) == 48, "bt_event_hdr layout");

/*
 * The modern object's table of syscalls in flight (its .bss, so the
 * skeleton needs the type): see boottrace.bpf.c.
 */
#define BT_INFLIGHT_BITS 14
struct bt_inflight {
	__u64 regs;		/* owner: regs_id() of its pt_regs, 0: free */
	struct bt_event_hdr hdr;	/* the row's header, as at entry */
	__u32 nr;
	__u32 in_task;		/* syscalls hashed here whose state is in the task */
};
_Static_assert(sizeof(struct bt_inflight) == 64, "bt_inflight: one cache line");

/*
 * pidtree mode: what user space writes into the modern object's task
 * storage (sc_states) to trace a task: the first member of its per-task
 * state, struct sc_state (boottrace.bpf.c asserts where it lies).
 */
struct bt_task_key {
	__u64 key;		/* the container key, 0: not traced */
};

/*
 * pidtree mode: the container keys of traced tasks, cached in a
 * direct-mapped table of the modern object's .bss (see boottrace.bpf.c).
 * User space bumps taskcache_gen after it untracks a task.
 */
#define BT_TASKCACHE_BITS 12
struct bt_taskcache {
	__u64 task;		/* owner: task_id(), 0: free, BT_TASKCACHE_BUSY: being written */
	__u64 key;		/* its container key */
	__u64 gen;		/* valid while it equals taskcache_gen */
	__u64 pad;
};
#define BT_TASKCACHE_BUSY (~0ULL)
_Static_assert(sizeof(struct bt_taskcache) == 32, "bt_taskcache layout");

struct bt_syscall_event {
	struct bt_event_hdr hdr;	/* ts_ns: syscall entry */
	__u64 dur_ns;			/* entry to exit */
	__s64 ret;
	__u32 nr;
	__u16 flags;			/* BT_SC_* */
	__u8 detail_kind;		/* enum bt_detail_kind */
	__u8 pad;
	union {
		struct {
			__u32 detail_len;
			__u32 fd;	/* with BT_SC_FD, else 0 */
		};
		__u64 ino;	/* BT_DETAIL_PIPE, BT_DETAIL_FIFO */
	};
};
_Static_assert(sizeof(struct bt_syscall_event) == 80, "bt_syscall_event layout");
_Static_assert(__builtin_offsetof(struct bt_syscall_event, ino) % 8 == 0,
	       "bt_syscall_event.ino aligned");

/*
 * Plain syscall records, batched per CPU by both objects: up to
 * BT_BATCH_MAX of them go into the ring buffer (perf buffer, legacy) as
 * one record (one copy, instead of a reserve and a commit or a perf
 * output each). type sits where bt_event_hdr.type does, so a reader tells
 * a batch from a record; the collector unpacks it (collector/kernel/batch.c), and
 * on_event sees plain records only. 32, not 16: a flush is two helper
 * calls and the ring's lock (the modern object), and half as many of them
 * a row took bt_sys_exit from 111 to 106 ns a run on a getppid loop
 * (BPF statistics, medians of 10 runs each, interleaved; docs/costs.md).
 */
#define BT_BATCH_MAX 32
struct bt_batch {
	/*
	 * Legacy object: the rows and the batches its CPU's batch held and
	 * flushed before this one, written or lost (0 in the modern object):
	 * the collector counts the rows of lost batches from the gaps.
	 */
	__u64 seq;
	__u64 flushes;
	__u32 type;		/* BT_EV_BATCH */
	__u32 count;		/* records in rec[] */
	struct bt_syscall_event rec[BT_BATCH_MAX];
};
_Static_assert(__builtin_offsetof(struct bt_batch, type) ==
	       __builtin_offsetof(struct bt_event_hdr, type), "bt_batch.type");
_Static_assert(sizeof(struct bt_batch) == 24 + BT_BATCH_MAX * 80, "bt_batch layout");

struct bt_syscall_detail_event {
	struct bt_syscall_event sc;
	char detail[BT_DETAIL_MAX];
};
_Static_assert(sizeof(struct bt_syscall_detail_event) == 336,
	       "bt_syscall_detail_event layout");

/* A new task: hdr describes the child; ppid is the parent's pid. */
struct bt_fork_event {
	struct bt_event_hdr hdr;
	__u32 parent_tid;
	__u32 is_thread;
};
_Static_assert(sizeof(struct bt_fork_event) == 56, "bt_fork_event layout");

struct bt_exec_event {
	struct bt_event_hdr hdr;
	__u32 old_tid;		/* a non-leader thread that exec'd takes the pid */
	__u32 flags;		/* BT_EXEC_* */
	char filename[BT_DETAIL_MAX];
};
_Static_assert(sizeof(struct bt_exec_event) == 312, "bt_exec_event layout");

/*
 * bt_exec_event.flags. BT_EXEC_NS_INIT: after the exec the task is pid 1 of
 * its own (deepest) pid namespace, and that namespace is not the host's
 * (its level is > 0): a container's init, as runtimes start it. The
 * legacy object cannot tell (no BTF) and leaves flags 0.
 */
#define BT_EXEC_NS_INIT 1

/* The last thread of a process exited. */
struct bt_exit_event {
	struct bt_event_hdr hdr;
	__u32 exit_code;	/* task->exit_code: a wait(2) status */
	__u32 pad;
};
_Static_assert(sizeof(struct bt_exit_event) == 56, "bt_exit_event layout");

/*
 * A cgroup v2 directory was made or removed. hdr.cgroup_id is that
 * cgroup's id, hdr.pid/comm the task that did it.
 */
struct bt_cgroup_event {
	struct bt_event_hdr hdr;
	__u64 parent_id;
	__u32 parent_tracked;	/* mkdir: inside a tracked cgroup (nested) */
	__u32 pad;
	char path[BT_CGPATH_MAX];	/* relative to the cgroup2 mount */
};
_Static_assert(sizeof(struct bt_cgroup_event) == 576, "bt_cgroup_event layout");

/*
 * A uprobe, uretprobe or USDT mark fired in a traced task. mark_id is the
 * index of the --mark (or --start) option, passed as the attach cookie.
 */
struct bt_mark_event {
	struct bt_event_hdr hdr;
	__u32 mark_id;
	__u32 flags;		/* BT_MARK_* */
};
_Static_assert(sizeof(struct bt_mark_event) == 56, "bt_mark_event layout");

/* bt_mark_event.flags */
#define BT_MARK_START 1		/* a --start probe: the container's start time */

/*
 * What both objects keep per task for --start (their mark_starts map): the
 * time its runtime thread's --start probe fired, inherited across fork.
 */
struct bt_mark_start {
	__u64 ts;	/* when the --start probe fired */
	__u32 mark_id;	/* which one */
	__u32 pad;
};
_Static_assert(sizeof(struct bt_mark_start) == 16, "bt_mark_start layout");

/*
 * pidtree mode. In this mode hdr.cgroup_id carries the container key, not
 * a cgroup id: keys below BT_KEY_KERNEL are given by user space (spawn
 * mode, --pid), keys from BT_KEY_KERNEL up by the kernel, to roots it found
 * itself in watch mode (a task that made a new pid or mount namespace).
 *
 * BT_EV_ROOT: the kernel started a container at task hdr.tid; ns_flags says
 * which namespaces made it one (CLONE_NEWPID, CLONE_NEWNS); parent_comm is
 * the runtime's. BT_EV_GONE: the last task of container hdr.cgroup_id
 * exited (hdr describes that task).
 */
#define BT_KEY_KERNEL (1ULL << 62)

/*
 * Host rows (every object, both modes): hdr.cgroup_id of a fork, exec,
 * exit or sched record of a task outside every traced container, written
 * while user space asks for them (bpf/host.bpf.h): no cgroup id, no key.
 */
#define BT_KEY_HOST (~0ULL)

struct bt_root_event {
	struct bt_event_hdr hdr;
	__u64 ns_flags;
	char parent_comm[BT_COMM_LEN];
};
_Static_assert(sizeof(struct bt_root_event) == 72, "bt_root_event layout");

/*
 * Scheduler rows (--sched on): one off-CPU interval of a traced task,
 * written when it gets a CPU back (bpf/sched.bpf.h, bpf/sched_legacy.bpf.h).
 * hdr describes the task; hdr.ts_ns is when it left the CPU (a new task:
 * when it became runnable, sched_wakeup_new). The holder is the task that
 * had the CPU right before it (prev at its switch-in, maybe untraced).
 */
enum bt_sched_wake {
	BT_WAKE_UNSEEN,		/* no wake seen: wake_ts is 0 */
	BT_WAKE_TASK,		/* sched_waking from task context: waker_* */
	BT_WAKE_IRQ,		/* from hard interrupt (or NMI) context */
	BT_WAKE_SOFTIRQ,	/* while serving a softirq */
	BT_WAKE_NEW,		/* sched_wakeup_new: waker_* is the parent */
	BT_WAKE_NONE,		/* state R: preempted, no wake */
	BT_WAKE_UNKNOWN,	/* a wake, from a context the object cannot tell */
};

struct bt_sched_event {
	struct bt_event_hdr hdr;
	__u64 in_ts;		/* it got a CPU back */
	__u64 wake_ts;		/* the first wake after it left; 0: none seen */
	__u32 cpu;		/* the CPU it got back */
	__u32 waker_tid;	/* BT_WAKE_TASK, BT_WAKE_NEW */
	__u32 waker_pid;
	__u32 holder_tid;
	__u8 state;		/* 'R', 'S', 'D', 'I', 'T' (docs/tsv-format.md) */
	__u8 wake;		/* enum bt_sched_wake */
	__u8 flags;		/* BT_SCHED_IN_INFERRED */
	__u8 pad[5];
	char waker_comm[BT_COMM_LEN];
	char holder_comm[BT_COMM_LEN];
};
_Static_assert(sizeof(struct bt_sched_event) == 120, "bt_sched_event layout");

/*
 * bt_sched_event.flags: the kernel traced no switch-in of the task; in_ts
 * is the first sign that it ran again (its syscall returned), a bound, and
 * there is no holder. See sched_running() in bpf/sched.bpf.h.
 */
#define BT_SCHED_IN_INFERRED 0x1
/* A syscall at least this long may have blocked: its return checks for a missed switch-in. */
#define BT_SCHED_IN_CHECK_NS 5000ULL

/*
 * Profile samples (--profile): the stacks of a traced task that was on a
 * CPU when that CPU's clock event fired (bpf/profile.bpf.h). hdr describes
 * the task; hdr.ts_ns is the sample's time. kstack holds kstack_bytes / 8
 * kernel addresses, innermost first; ustack ustack_bytes / 32 user frames
 * as the kernel's struct bpf_stack_build_id: a build id and a file offset
 * (status BT_STACK_BUILD_ID_VALID), or the address (BT_STACK_BUILD_ID_IP:
 * the kernel could not read the file's build id, or no file is mapped
 * there). A negative size is bpf_get_stack()'s error: no frames.
 */
#define BT_STACK_MAX 64
#define BT_BUILD_ID_SIZE 20
#define BT_STACK_BUILD_ID_EMPTY 0
#define BT_STACK_BUILD_ID_VALID 1
#define BT_STACK_BUILD_ID_IP 2

struct bt_stack_build_id {	/* struct bpf_stack_build_id's layout (the UAPI fixes it) */
	__s32 status;
	unsigned char build_id[BT_BUILD_ID_SIZE];
	union {
		__u64 offset;
		__u64 ip;
	};
};
_Static_assert(sizeof(struct bt_stack_build_id) == 32, "bt_stack_build_id layout");

/*
 * An interpreter's own frames (bpf/interp.bpf.h), for a process the
 * collector registered in interp_procs (collector/profile/interp.c): the
 * interpreter's frame chain of the interrupted thread, innermost first.
 * For CPython 3.11, each is the frame's code object's address, bit 0 set
 * when the frame is an entry frame (the first of one call of the eval
 * loop from C: _PyInterpreterFrame.is_entry). For Ruby 3.1, each is a
 * Ruby-level control frame's instruction sequence (rb_iseq_t), bit 0 set
 * on a frame that ends one call of the VM from C (VM_FRAME_FLAG_FINISH);
 * C-method and dummy frames are left out.
 */
#define BT_IFRAMES_MAX 96
#define BT_IFRAME_ENTRY 1ULL

enum bt_interp_kind {
	BT_INTERP_NONE,
	BT_INTERP_PYTHON311,	/* CPython 3.11 */
	BT_INTERP_RUBY31,	/* CRuby 3.1 */
	BT_INTERP_HOTSPOT,	/* the JVM (HotSpot): struct bt_hotspot_proc, below */
	BT_INTERP_V8,		/* V8 (Node): the v8 fields of struct bt_interp_proc */
};

/*
 * What the sampling program needs of a registered interpreter (the value
 * of interp_procs, whose key is the process's tgid): where the running
 * thread's state is, and the offsets of the fields it follows.
 */
struct bt_interp_proc {
	__u32 kind;		/* enum bt_interp_kind */
	__u32 gen;		/* this registration's number: a code object named once per (pid, gen) */
	/* 3.11: &_PyRuntime.gilstate.tstate_current; Ruby: &ruby_single_main_ractor */
	__u64 tstate_addr;
	union {
		struct {	/* CPython 3.11 */
			__u16 ts_cframe;	/* PyThreadState.cframe */
			__u16 ts_tid;		/* PyThreadState.native_thread_id */
			__u16 cf_frame;		/* _PyCFrame.current_frame */
			__u16 fr_code;		/* _PyInterpreterFrame.f_code */
			__u16 fr_previous;	/* _PyInterpreterFrame.previous */
			__u16 fr_is_entry;	/* _PyInterpreterFrame.is_entry */
		};
		struct {	/* Ruby 3.1 */
			__u16 rr_running_ec;	/* rb_ractor_t.threads.running_ec */
			__u16 ec_vm_stack;	/* rb_execution_context_t.vm_stack */
			__u16 ec_vm_stack_size;	/* .vm_stack_size (VALUEs) */
			__u16 ec_cfp;		/* .cfp */
			__u16 ec_thread;	/* .thread_ptr */
			__u16 th_tid;		/* rb_thread_t.tid */
			__u16 cfp_size;		/* sizeof(rb_control_frame_t) */
			__u16 cfp_pc;		/* rb_control_frame_t.pc */
			__u16 cfp_iseq;		/* .iseq */
			__u16 cfp_ep;		/* .ep */
		};
		struct {	/* V8 (node's v8dbg_* symbols) */
			__s16 fp_function;	/* a JS frame's JSFunction, from its fp */
			__s16 fp_context;	/* its context, or a typed frame's marker (a Smi) */
			__u16 obj_map;		/* HeapObject::map */
			__u16 map_type;		/* Map::instance_type */
			__u16 fn_type_lo;	/* JS_FUNCTION_TYPE .. the last JSFunction type */
			__u16 fn_type_hi;
		};
	};
	__u32 pad2;
	/* where a code object's name parts are (BT_EV_INAME) */
	union {
		struct {	/* CPython 3.11 */
			__u16 co_firstlineno;	/* PyCodeObject's, an int */
			__u16 co_filename;	/* a str */
			__u16 co_qualname;	/* a str */
			__u16 str_length;	/* PyASCIIObject.length */
			__u16 str_state;	/* its state bits: compact 5, ascii 6 */
			__u16 str_ascii_data;	/* a compact ASCII string's bytes */
			__u16 str_utf8_length;	/* PyCompactUnicodeObject.utf8_length */
			__u16 str_utf8;		/* .utf8 */
		};
		struct {	/* Ruby 3.1 */
			__u16 iseq_body;	/* rb_iseq_t.body */
			__u16 body_pathobj;	/* rb_iseq_constant_body.location.pathobj */
			__u16 body_label;	/* .location.label */
			__u16 body_first_lineno;	/* .location.first_lineno, a Fixnum */
			__u16 str_heap_len;	/* RString.as.heap.len */
			__u16 str_heap_ptr;	/* .as.heap.ptr */
			__u16 str_embed;	/* .as.embed.ary */
			__u16 ary_embed;	/* RArray.as.ary */
			__u16 ary_heap_ptr;	/* .as.heap.ptr */
		};
	};
	/*
	 * A thread's own state when it is not the lock holder (blocked, or
	 * in C code without the GIL/GVL): the interpreter's thread list,
	 * searched for its thread id (bpf/interp.bpf.h, interp_own_*).
	 */
	union {
		struct {	/* CPython 3.11 */
			__s16 rt_interp;	/* _PyRuntime.interpreters.main, from tstate_addr */
			__u16 is_threads_head;	/* PyInterpreterState.threads.head */
			__u16 ts_next;		/* PyThreadState.next */
		};
		struct {	/* Ruby 3.1 */
			__u16 rr_threads_set;	/* rb_ractor_t.threads.set, a ccan list_head */
			__u16 th_lt_node;	/* rb_thread_t.lt_node, its list_node */
			__u16 th_ec;		/* rb_thread_t.ec */
		};
	};
};
_Static_assert(sizeof(struct bt_interp_proc) == 64, "bt_interp_proc layout");

/*
 * A code object's name parts (BT_EV_INAME), read by the sampling program
 * (bpf/interp.bpf.h) the first time a process's samples show it (per
 * registration, bt_interp_proc.gen; again when another object took its
 * freed address, bpf/inames.bpf.h), before the sample that shows it is
 * written: the collector names the frames from them, not from the
 * process's memory later, where the object may be freed by then (Ruby's
 * iseq of a file's top level, once the file is loaded). label: the
 * qualname (CPython) or the iseq's label (Ruby); file: co_filename or the
 * iseq's path; line: the first line. flags say which parts were read (a
 * page not present: a perf event's program cannot fault it in).
 */
#define BT_INAME_TEXT 256
#define BT_INAME_LABEL 1	/* label read */
#define BT_INAME_FILE 2		/* file read */

struct bt_iname_event {
	struct bt_event_hdr hdr;
	__u64 code;		/* the code object's (iseq's) address, as in iframe[] (no entry bit) */
	__u32 kind;		/* enum bt_interp_kind */
	__u32 flags;		/* BT_INAME_* */
	__s64 line;
	__u16 label_len;	/* bytes in label (no NUL) */
	__u16 file_len;		/* bytes in file */
	__u32 pad;
	char label[BT_INAME_TEXT];
	char file[BT_INAME_TEXT];
};
_Static_assert(sizeof(struct bt_iname_event) == 48 + 32 + 2 * BT_INAME_TEXT, "bt_iname_event layout");

/*
 * HotSpot (BT_INTERP_HOTSPOT, bpf/hotspot.bpf.h): the JVM's frames are not
 * where a frame-pointer walk finds them (compiled Java code keeps none),
 * so the walker goes down the whole user stack itself, from the sampled
 * registers, and iframe[] holds it from where it reached the JVM's code
 * cache, innermost first. iframe[0] is BT_HS_LEAD: how many of ustack's
 * frames come first (the native frames walked to get there, which
 * bpf_get_stack()'s frame-pointer walk has the same, with build ids;
 * BT_STACK_MAX, all, when the walk never got there: a thread without
 * Java frames, or a chain broken in native code built without frame
 * pointers); then one entry a frame, its kind in bits 60-63 (BT_HS_KIND):
 *  - BT_HS_INTERP: an interpreted Java frame: bits 0-43 its Method* >> 3,
 *    bits 44-59 the bytecode index (BT_HS_BCI_NONE: not known);
 *  - BT_HS_COMPILED: in an nmethod (C1/C2 code, a native method's
 *    wrapper): bits 0-47 the pc (the sampled one first, return addresses
 *    after), which names the method and the methods inlined there;
 *  - BT_HS_STUB: in another code blob (the interpreter outside a method,
 *    StubRoutines, adapters, runtime stubs): bits 0-47 the pc;
 *  - BT_HS_NATIVE: outside the code cache (libjvm, libc below the Java
 *    frames): bits 0-47 the return address.
 * The collector names them while the JVM lives (collector/profile/hotspot.c).
 *
 * V8 (BT_INTERP_V8, bpf/v8.bpf.h) fills iframe[] the same way: BT_HS_LEAD,
 * then from the first JS frame on one entry a frame, BT_HS_V8 (a JS
 * frame: interpreted, baseline or optimized, bits 0-47 its JSFunction)
 * or BT_HS_NATIVE (any other frame: V8's builtins and stubs, node's C++,
 * bits 0-47 its pc). Named by collector/profile/v8.c.
 */
#define BT_HS_KIND(v) ((unsigned)((v) >> 60))
#define BT_HS_LEAD 0ULL
#define BT_HS_INTERP 1ULL
#define BT_HS_COMPILED 2ULL
#define BT_HS_STUB 3ULL
#define BT_HS_NATIVE 4ULL
#define BT_HS_V8 5ULL		/* V8: a JS frame, bits 0-47 its JSFunction (tagged) */
#define BT_HS_PC(v) ((v) & ((1ULL << 48) - 1))
#define BT_HS_BCI_NONE 0xffffULL
#define BT_HS_METHOD(v) (((v) & ((1ULL << 44) - 1)) << 3)
#define BT_HS_BCI(v) (((v) >> 44) & 0xffff)

/* A CodeHeap of the JVM's code cache (JDK 9+: up to 3, segmented). */
#define BT_HS_HEAPS 4
struct bt_hotspot_heap {
	__u64 lo, hi;		/* CodeHeap::_memory's low and high boundaries */
	__u64 segmap;		/* CodeHeap::_segmap's low boundary: a byte a segment */
	__u32 shift;		/* CodeHeap::_log2_segment_size */
	__u32 pad;
};
_Static_assert(sizeof(struct bt_hotspot_heap) == 32, "bt_hotspot_heap layout");

/* bt_hotspot_proc.flags: how this JDK lays its fields out */
#define BT_HS_F_CODE_OFFSET 1	/* cb_code is an int offset from the blob (JDK 23+), not a pointer */
#define BT_HS_F_DEOPT_OFFSET 2	/* nm_deopt is an int offset from the blob, not a pointer */
#define BT_HS_F_FCO16 4		/* cb_frame_complete is an int16_t (JDK 23+), not an int */

/*
 * What the sampling program needs of a JVM (the value of hotspot_procs,
 * key the process's tgid): where its code is, and the offsets of the
 * fields it reads, all from the JVM's own VMStructs tables
 * (collector/profile/hotspot.c). Offsets are from the start of the
 * struct named; the interpreter frame's slots (if_*) from its fp, bytes.
 */
struct bt_hotspot_proc {
	__u64 cc_lo, cc_hi;		/* CodeCache::_low_bound, _high_bound */
	__u64 interp_lo, interp_hi;	/* the interpreter's code (AbstractInterpreter::_code) */
	struct bt_hotspot_heap heap[BT_HS_HEAPS];
	__u32 nheaps;
	__u16 flags;			/* BT_HS_F_* */
	__u16 heapblock;		/* sizeof(HeapBlock): the CodeBlob follows it */
	__u16 cb_name;			/* CodeBlob::_name */
	__u16 cb_frame_size;		/* CodeBlob::_frame_size, words */
	__u16 cb_frame_complete;	/* CodeBlob::_frame_complete_offset, from the code's start */
	__u16 cb_code;			/* CodeBlob::_code_begin, or _code_offset */
	__u16 nm_deopt;			/* the deopt handler: _deopt_handler_begin or _offset */
	__u16 nm_orig_pc;		/* nmethod::_orig_pc_offset: where a deoptimized frame keeps its pc */
	__u16 method_const;		/* Method::_constMethod */
	__u16 const_size;		/* sizeof(ConstMethod): its bytecodes follow it */
	__s16 if_method;		/* the interpreter frame's Method* */
	__s16 if_bcp;			/* its bytecode pointer (saved at calls) */
	__s16 if_sender_sp;		/* its caller's sp */
	__u16 pad[3];
};
_Static_assert(sizeof(struct bt_hotspot_proc) == 32 + 4 * 32 + 8 + 32, "bt_hotspot_proc layout");

struct bt_sample_event {
	struct bt_event_hdr hdr;
	__u32 cpu;
	__u32 period_ns;	/* the CPU time one sample stands for */
	__s32 kstack_bytes;
	__s32 ustack_bytes;
	__u64 kstack[BT_STACK_MAX];
	struct bt_stack_build_id ustack[BT_STACK_MAX];
	__u32 interp_kind;	/* enum bt_interp_kind: what iframe holds */
	__u32 iframes;		/* how many of iframe[] */
	__u64 iframe[BT_IFRAMES_MAX];
};
_Static_assert(sizeof(struct bt_sample_event) == 64 + 64 * 8 + 64 * 32 + 8 + BT_IFRAMES_MAX * 8,
	       "bt_sample_event layout");

/*
 * Spans (--spans on): an interpreter's USDT probe fired in a traced task
 * (bpf/spans.bpf.h). The attach cookie says which probe: kind, phase and
 * how its arguments are laid out. The collector pairs the enters and
 * returns of each thread into span rows (collector/rows/spanrows.c).
 */
enum bt_span_kind {
	BT_SPAN_REQUIRE = 1,	/* ruby:require__entry/return */
	BT_SPAN_LOAD,		/* ruby:load__entry/return */
	BT_SPAN_IMPORT,		/* python:import__find__load__start/done */
	BT_SPAN_CLASS,		/* hotspot:class__loaded (a point: no return) */
	BT_SPAN_CLINIT,		/* hotspot:class__initialization__clinit/end/error */
	BT_SPAN_KINDS,
};

enum bt_span_phase {
	BT_SPAN_ENTER,
	BT_SPAN_RETURN,
	BT_SPAN_POINT,		/* a span of no length */
	BT_SPAN_ERROR,		/* a return that says it failed */
};

/* How the probe's arguments are laid out. */
enum bt_span_args {
	BT_SPAN_ARGS_STR,	/* (const char *name, [int found]) */
	BT_SPAN_ARGS_STR_CALLER,	/* (const char *name, const char *caller, int line) */
	BT_SPAN_ARGS_PTRLEN,	/* (const char *name, size_t len, ...): not NUL-terminated */
};

/* The cookie: kind in bits 0-7, phase 8-15, args 16-23. */
#define BT_SPAN_COOKIE(kind, phase, args) \
	((unsigned long long)(kind) | ((unsigned long long)(phase) << 8) | \
	 ((unsigned long long)(args) << 16))

#define BT_SPAN_TEXT_MAX 256

struct bt_span_event {
	struct bt_event_hdr hdr;
	__u8 kind;		/* enum bt_span_kind */
	__u8 phase;		/* enum bt_span_phase */
	__u16 name_len;		/* bytes in name (no NUL) */
	__u16 caller_len;	/* bytes in caller, 0: none */
	__u16 pad;
	__s64 arg;		/* the caller's line (ruby), found (python done), else 0 */
	char name[BT_SPAN_TEXT_MAX];	/* the file, module or class */
	char caller[BT_SPAN_TEXT_MAX];	/* the caller's file (ruby enter) */
};
_Static_assert(sizeof(struct bt_span_event) == 48 + 16 + 2 * 256, "bt_span_event layout");

/*
 * --profile-unwind=dwarf|auto with the modern object (bpf/profile.bpf.h):
 * the sample record goes on with the interrupted task's user registers
 * and the top of its user stack, as `perf record --call-graph dwarf`
 * takes them, for the collector to unwind by the files' CFI
 * (collector/profile/unwind.c) while the process lives. regs in the
 * DWARF numbering of x86-64 (rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip:
 * 0..16); stack_bytes of stack from regs[7] (sp) follow, at most
 * BT_USTACK_COPY_MAX (perf's own cap is 65528). The record is
 * sizeof(struct bt_sample_event) + sizeof(struct bt_sample_ustack) +
 * stack_bytes long.
 */
#define BT_USTACK_COPY_MAX 65536
#define BT_UREGS 17
#define BT_UREG_SP 7
#define BT_UREG_IP 16

struct bt_sample_ustack {
	__u64 regs[BT_UREGS];
	__u32 stack_bytes;
	__u32 pad;
};
_Static_assert(sizeof(struct bt_sample_ustack) == 17 * 8 + 8, "bt_sample_ustack layout");

/*
 * What the pidtree programs keep per tracked task: the container key, and
 * per container the number of live tracked tasks.
 */
#define BT_MAX_TASKS 65536

#endif /* BOOTTRACE_BPF_H */
