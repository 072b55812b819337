/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * What both BPF objects (bpf/boottrace.bpf.c, bpf/boottrace_legacy.bpf.c)
 * know of a syscall by its number alone. Included after <asm/unistd_64.h>.
 */
#ifndef BT_SYSCALLS_BPF_H
#define BT_SYSCALLS_BPF_H

/* Syscalls whose detail is a path: the user pointer in argument @i, or -1. */
static __always_inline int path_arg(long nr)
{
	switch (nr) {
	case __NR_open: case __NR_execve: case __NR_creat:
		return 0;
	case __NR_openat: case __NR_openat2: case __NR_execveat:
		return 1;
	}
	return -1;
}

/*
 * Whether sys_exit reads the path of syscall @nr (returned @ret) that
 * sys_enter could not (its page was not in): the kernel has read it since.
 * Not after an exec that worked: the memory is another program's.
 */
static __always_inline int path_retry(long nr, long ret)
{
	return path_arg(nr) >= 0 && (ret < 0 || (nr != __NR_execve && nr != __NR_execveat));
}

#endif /* BT_SYSCALLS_BPF_H */
