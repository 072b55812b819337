/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What a syscall row tells beyond the syscall (its `detail`): the path of
 * open* and exec*, the address a socket listens on, the pipe behind an fd,
 * read from the task. Part of bpf/boottrace.bpf.c (included there, after
 * its maps and struct sc_state), in a file of its own as marks.bpf.h is.
 */

/*
 * Reading kernel memory the cheap way: bpf_rdonly_cast() (6.2) makes a
 * pointer an untrusted BTF pointer, through which fields are plain loads
 * (a fault reads 0), where BPF_CORE_READ() makes a helper call per field
 * (a call and a return: dear under return-stack mitigations). Not loads
 * through a trusted pointer (bpf_get_current_task_btf()'s): the verifier
 * checks each of those by looking type names up in the kernel's BTF, a
 * scan each (see current_cgroup_id_direct()), which untrusted ones skip.
 * The kernel version (.kconfig, which libbpf fills from uname) is a
 * constant to the verifier: it checks one of the two ways, and drops the
 * other, with the call that is missing before 6.2.
 */
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym __weak;
extern unsigned int LINUX_KERNEL_VERSION __kconfig;
#define HAVE_RDONLY_CAST (LINUX_KERNEL_VERSION >= KERNEL_VERSION(6, 2, 0))
/* @p as an untrusted pointer to @type (HAVE_RDONLY_CAST), else as it is */
#define KCAST(p, type) \
	((type *)(HAVE_RDONLY_CAST ? bpf_rdonly_cast((p), bpf_core_type_id_kernel(type)) : \
				     (void *)(p)))
/* @p->@field, @p from KCAST(): a plain load, else a helper call */
#define KREAD(p, field) (HAVE_RDONLY_CAST ? (p)->field : BPF_CORE_READ((p), field))

/*
 * The file behind fd @fd of task @t, or NULL. Its fd table may grow
 * meanwhile (expand_fdtable() copies, and frees the old one after an RCU
 * grace period, which the tracepoint's RCU read lock holds off).
 */
static __always_inline struct file *task_fd_file(struct task_struct *t, unsigned long fd)
{
	struct task_struct *u = KCAST(t, struct task_struct);
	struct files_struct *files = KREAD(u, files);
	struct fdtable *fdt = KREAD(files, fdt);
	struct file **fds, *f;

	if (!fdt || fd >= KREAD(fdt, max_fds))
		return NULL;
	fds = KREAD(fdt, fd);
	if (bpf_probe_read_kernel(&f, sizeof(f), &fds[fd]))
		return NULL;
	return f;
}

#define S_IFMT 00170000
#define S_IFIFO 0010000
#define PIPEFS_MAGIC 0x50495045

/* Syscalls whose row tells the pipe behind their fd (pipe_detail()). */
static __always_inline bool pipe_syscall(__u32 nr)
{
	/* read 0, write 1, readv 19, writev 20, pipe 22: one test for the low ones */
	return (nr < 32 && ((1u << nr) & ((1u << __NR_read) | (1u << __NR_write) |
					    (1u << __NR_readv) | (1u << __NR_writev) |
					    (1u << __NR_pipe)))) ||
	       nr == __NR_pipe2;
}

/*
 * The row of syscall @nr (pipe_syscall()) gets the pipe behind its fd:
 * BT_DETAIL_PIPE or BT_DETAIL_FIFO in e->detail_kind and the inode number
 * in e->ino, or nothing when the fd is not a pipe. Looked up at exit, with
 * the fd still in the registers: a read that blocked is written then, and
 * pipe and pipe2 have made their fds only then. A read's file is pinned
 * while it runs, so the fd still names it at exit, unless another thread
 * of the process closed or replaced that fd meanwhile.
 */
static __always_inline void pipe_detail(struct bt_syscall_event *e, struct pt_regs *regs,
					__u32 nr, long ret)
{
	unsigned long fd = syscall_arg(regs, 0);
	struct super_block *sb;
	struct inode *in;
	struct file *f;
	int fds[2];

	if (nr == __NR_pipe || nr == __NR_pipe2) {
		/* both ends share the inode: the first is enough */
		if (ret != 0 || bpf_probe_read_user(fds, sizeof(fds), (const void *)fd))
			return;
		fd = fds[0];
	}
	f = task_fd_file(bpf_get_current_task_btf(), fd);
	if (!f)
		return;
	f = KCAST(f, struct file);
	in = KREAD(f, f_inode);
	if ((KREAD(in, i_mode) & S_IFMT) != S_IFIFO)
		return;
	e->ino = KREAD(in, i_ino);
	sb = KREAD(in, i_sb);
	e->detail_kind = KREAD(sb, s_magic) == PIPEFS_MAGIC ? BT_DETAIL_PIPE : BT_DETAIL_FIFO;
}

/*
 * The path argument of syscall @nr (path_arg()) into st->detail. It fails
 * when the string's page is not in memory yet (this program cannot wait
 * for a page fault): the first use of a string in a fresh binary's data.
 */
static __always_inline void read_path(struct sc_state *st, struct pt_regs *regs, long nr)
{
	unsigned long ptr;
	int len;

	ptr = syscall_arg(regs, path_arg(nr) == 0 ? 0 : 1);
	len = bpf_probe_read_user_str(st->detail, sizeof(st->detail), (const void *)ptr);
	if (len > 0) {
		st->detail_kind = BT_DETAIL_PATH;
		st->detail_len = len;
	}
}

/*
 * The local address of the listening socket @fd of the current task, built
 * as a struct sockaddr in st->detail: listen(2) carries no address, and the
 * port may have been chosen by the kernel (autobind).
 */
static __always_inline void read_listen_addr(struct task_struct *t, struct sc_state *st)
{
	struct file *f = task_fd_file(t, (unsigned int)st->arg0);
	struct socket *sock;
	struct sock *sk;
	__u16 family, port;

	if (!f)
		return;
	sock = BPF_CORE_READ(f, private_data);
	sk = BPF_CORE_READ(sock, sk);
	if (!sk)
		return;
	family = BPF_CORE_READ(sk, __sk_common.skc_family);
	port = BPF_CORE_READ(sk, __sk_common.skc_num);
	if (family == AF_INET) {
		struct bt_sockaddr_in *a = (void *)st->detail;

		a->family = AF_INET;
		a->port = bpf_htons(port);
		a->addr = BPF_CORE_READ(sk, __sk_common.skc_rcv_saddr);
		st->detail_len = sizeof(*a);
	} else if (family == AF_INET6) {
		struct bt_sockaddr_in6 *a = (void *)st->detail;

		a->family = AF_INET6;
		a->port = bpf_htons(port);
		BPF_CORE_READ_INTO(&a->addr, sk, __sk_common.skc_v6_rcv_saddr);
		st->detail_len = sizeof(*a);
	} else if (family == AF_UNIX) {
		struct unix_address *ua = BPF_CORE_READ((struct unix_sock *)sk, addr);
		int len;

		if (!ua)
			return;
		len = BPF_CORE_READ(ua, len);
		if (len <= 0)
			return;
		if (len > 128)
			len = 128;
		if (bpf_probe_read_kernel(st->detail, len & 0xff,
					  &ua->name))
			return;
		st->detail_len = len;
	} else {
		return;
	}
	st->detail_kind = BT_DETAIL_SOCKADDR;
}
