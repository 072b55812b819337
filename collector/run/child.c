// SPDX-License-Identifier: BSD-2-Clause
/*
 * The command's process: see child.h.
 *
 * Between the fork and the exec the child does only what a container
 * runtime does there too: in the container's namespaces, make / private
 * (--unshare mount), set --user's groups and ids, exec; in pidtree mode
 * it first waits for the collector (a pipe, as runc's init waits on its
 * sync pipe). Everything else happens in the collector, before the fork:
 * the user and groups looked up (main.c; initgroups() in the child read
 * /etc/group, asked nscd, loaded libnss_systemd: ~340 rows and ~2 ms of
 * the container's), the command found on PATH (main.c), the command's
 * stdout moved to stderr when the TSV is on stdout (main.c), SIGPIPE
 * caught rather than ignored so that the exec resets it (main.c); and
 * here the child is born in its cgroup and namespaces, with the
 * collector's signal handlers reset, sharing the collector's memory
 * rather than a copy of it until its exec (clone3, below).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/types.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collector/run/child.h"
#include "collector/collector.h"

/*
 * clone3(2)'s arguments up to the cgroup fd (the kernel's
 * CLONE_ARGS_SIZE_VER2, 88 bytes), spelled out: glibc has no clone3
 * wrapper, and older headers have no struct clone_args.
 */
struct clone3_args {
	__u64 flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
	__u64 set_tid, set_tid_size, cgroup;
};

#ifndef CLONE_CLEAR_SIGHAND
#define CLONE_CLEAR_SIGHAND 0x100000000ULL	/* 5.5 */
#endif
#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP 0x200000000ULL	/* 5.7 */
#endif
#ifndef SYS_clone3
#define SYS_clone3 435				/* 5.3, the same number everywhere */
#endif
/* 32-bit x86 and arm: the calls with 32-bit ids are the ...32 ones */
#ifdef SYS_setgroups32
#define SYS_SETGROUPS SYS_setgroups32
#define SYS_SETGID SYS_setgid32
#define SYS_SETUID SYS_setuid32
#else
#define SYS_SETGROUPS SYS_setgroups
#define SYS_SETGID SYS_setgid
#define SYS_SETUID SYS_setuid
#endif

/* What the child does before its exec, decided in the collector. */
struct plan {
	struct collector *c;
	int procsfd;	/* the old way: cgroup.procs to join; -1: born there, or none */
	int pgrp;	/* no cgroup, no collector to wait for: a process group of its own */
	int unshare;	/* the old way: the namespaces to make (clone3 made them) */
	int errfd;	/* the set-up's errors (close-on-exec: EOF means exec'd) */
	int gofd;	/* pidtree: "g" when the collector has registered it */
	int gowr;	/* the collector's end of it, closed in the child: EOF is its failure */
};

/*
 * In the child, before the command runs: send "<what>: <strerror(errno)>"
 * back through @fd (the collector prints it) and _exit(@code).
 */
__attribute__((noreturn)) static void child_fail(int fd, int code, const char *what)
{
	char msg[512];
	int n = snprintf(msg, sizeof(msg), "%s: %s", what, strerror(errno));

	if (n > (int)sizeof(msg) - 1)
		n = (int)sizeof(msg) - 1;
	if (write(fd, msg, (size_t)n) < 0) { /* nothing left to do */ }
	_exit(code);
}

/*
 * The container's first process: its cgroup (the old way), its
 * namespaces, its user, the exec. The set-up up to the collector's "g"
 * (pidtree) happens before it is traced; in cgroup mode the rows start at
 * its birth (clone3) or at its join of the cgroup (the old way).
 *
 * The child of clone3 is a raw clone: glibc's fork() did not fix its
 * thread state (its tid, the thread list), so it calls nothing here that
 * uses them: set*id go straight to the kernel (glibc's wrappers would,
 * were the collector ever multi-threaded, signal its threads' tids to
 * change theirs too), and nothing allocates.
 */
__attribute__((noreturn)) static void child_main(void *arg)
{
	const struct plan *p = arg;
	struct collector *c = p->c;
	char self[32], what[256], go;
	int err;

	if (p->gowr >= 0)
		close(p->gowr);
	if (p->procsfd >= 0) {
		/* close-on-exec: left open, it makes no close row in the container */
		snprintf(self, sizeof(self), "%d", getpid());
		if (write(p->procsfd, self, strlen(self)) < 0)
			child_fail(p->errfd, 1, "cannot join the container's cgroup");
	}
	if (p->pgrp && setpgid(0, 0) < 0)
		child_fail(p->errfd, 1, "setpgid");
	/*
	 * pidtree: say "ready" (a NUL, which no message starts with), then
	 * wait until the collector has registered us in the kernel. The
	 * collector registers only after the NUL: all of the above makes no
	 * rows, nor (unless we are preempted in between) does this read,
	 * which is entered before.
	 */
	if (p->gofd >= 0 && (write(p->errfd, "", 1) != 1 || read(p->gofd, &go, 1) != 1))
		_exit(1);
	if (p->unshare && unshare(p->unshare) < 0)
		child_fail(p->errfd, 1, "unshare");
	if ((c->opt.unshare_flags & CLONE_NEWNS) &&
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		child_fail(p->errfd, 1, "cannot make / private in the new mount namespace");
	if (p->unshare & CLONE_NEWPID) {
		/* The new pid namespace takes our next child as its pid 1. */
		pid_t pid = fork();
		int st;

		if (pid < 0)
			child_fail(p->errfd, 1, "fork");
		if (pid > 0) {
			close(p->errfd);
			while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
				;
			_exit(child_status(st));
		}
	}
	/* --user: the container does not get the collector's privileges */
	if (c->opt.user &&
	    (syscall(SYS_SETGROUPS, (size_t)c->opt.ngroups, c->opt.groups) < 0 ||
	     syscall(SYS_SETGID, c->opt.gid) < 0 || syscall(SYS_SETUID, c->opt.uid) < 0))
		child_fail(p->errfd, 1, "cannot switch to --user");
	/*
	 * The file execvp would run. If it cannot, execvp runs what it would
	 * and says why as always: its search of PATH, its /bin/sh for a
	 * script without #! (ENOEXEC); a path it would only fail on again.
	 */
	if (c->opt.exec_path)
		execv(c->opt.exec_path, c->opt.command);
	if (!c->opt.exec_path || errno == ENOEXEC || !strchr(c->opt.command[0], '/'))
		execvp(c->opt.command[0], c->opt.command);
	err = errno;
	snprintf(what, sizeof(what), "cannot run '%s'", c->opt.command[0]);
	errno = err;
	child_fail(p->errfd, err == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC, what);
}

/*
 * The stack of a child that shares the collector's memory (clone_vfork()),
 * made by child_prepare(); NULL: every child gets a copy of the memory.
 */
static void *child_stack;
#define CHILD_STACK_SIZE (256 * 1024)

/*
 * Where the collector can, its child shares its memory until the exec,
 * as posix_spawn's does (CLONE_VM|CLONE_VFORK: the collector waits in the
 * clone until then): no copy of the collector's page tables at the clone,
 * no tear-down of them at the exec, no copy-on-write faults after. That
 * copy is the collector's own cost, which a bare fork of a small program
 * does not pay: ~0.4 ms at the clone and ~0.4 ms at the exec here. The
 * child runs child_main(@p) on child_stack; it must return into nothing,
 * so the syscall is made here, in assembly, where the child calls
 * child_main on its new stack instead of returning (the libc's syscall()
 * would return into the collector's frames). x86-64 only; not under
 * AddressSanitizer, whose checks do not know that stack. Returns as
 * clone3 does, -1 and EINVAL elsewhere.
 *
 * Not with the pidtree handshake: the collector could not register a
 * child it waits for. What the child touches of the shared memory is
 * the plan and the options (read), its own stack, and errno (the
 * collector's thread's; it reads it only when the clone failed).
 */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CHILD_NO_VFORK
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || !defined(__x86_64__)
#define CHILD_NO_VFORK
#endif
static pid_t clone_vfork(struct clone3_args *args, struct plan *p)
{
#ifdef CHILD_NO_VFORK
	(void)args;
	(void)p;
	errno = EINVAL;
	return -1;
#else
	register void (*fn)(void *) __asm__("r12") = child_main;
	register struct plan *arg __asm__("r13") = p;
	long ret;

	args->flags |= CLONE_VM | CLONE_VFORK;
	args->stack = (__u64)(unsigned long)child_stack;
	args->stack_size = CHILD_STACK_SIZE;
	/*
	 * The child starts at the instruction after the syscall with rax 0
	 * and every register but rcx and r11 as they were, on the new stack
	 * (its top, 16-byte aligned: the call's alignment).
	 */
	__asm__ volatile("syscall\n\t"
			 "test %%rax, %%rax\n\t"
			 "jnz 1f\n\t"
			 "xor %%ebp, %%ebp\n\t"
			 "mov %%r13, %%rdi\n\t"
			 "call *%%r12\n\t"
			 "ud2\n"
			 "1:"
			 : "=a"(ret)
			 : "0"((long)SYS_clone3), "D"(args), "S"(sizeof(*args)), "r"(fn), "r"(arg)
			 : "rcx", "r11", "memory");
	args->flags &= ~(__u64)(CLONE_VM | CLONE_VFORK);
	args->stack = 0;
	args->stack_size = 0;
	if (ret < 0) {
		errno = (int)-ret;
		return -1;
	}
	return (pid_t)ret;
#endif
}

/*
 * The child, born in the cgroup of @cgfd (CLONE_INTO_CGROUP, 5.7), in the
 * namespaces of @nsflags (as pid 1 itself of a new pid namespace), with
 * the collector's signal handlers reset to the default (CLONE_CLEAR_SIGHAND,
 * 5.5), sharing the collector's memory where it can (clone_vfork()): none
 * of that is left for it to do. Joining a cgroup by writing cgroup.procs
 * takes cgroup_threadgroup_rwsem for writing, which may wait for an RCU
 * grace period (0.2 ms here on 6.18), and was rows of the container; a
 * fork into the cgroup takes it for reading. The child runs
 * child_main(@p) and does not return. Returns its pid; -1 with errno
 * ENOSYS (before 5.3), E2BIG (5.3 to 5.6: the arguments are longer than
 * the kernel knows) or EINVAL (5.3, 5.4: a flag it does not know) on the
 * kernels where the old way has to do it, or another errno (printed by
 * the caller).
 */
static pid_t clone_into(int cgfd, int nsflags, struct plan *p)
{
	struct clone3_args args = {
		.flags = CLONE_CLEAR_SIGHAND | (__u64)(unsigned int)nsflags,
		.exit_signal = SIGCHLD,
	};
	pid_t pid;

	if (cgfd >= 0) {
		args.flags |= CLONE_INTO_CGROUP;
		args.cgroup = (__u64)cgfd;
	}
	if (p->gofd < 0 && child_stack) {
		pid = clone_vfork(&args, p);
		if (pid >= 0 || (errno != EINVAL && errno != E2BIG))
			return pid;
	}
	pid = (pid_t)syscall(SYS_clone3, &args, sizeof(args));
	if (pid == 0)
		child_main(p);
	return pid;
}

/*
 * The old way, where clone3 cannot (kernels before 5.7) and with
 * BOOTTRACE_TEST_NO_CLONE3=1 (tests: both ways on one kernel): fork(),
 * then the child joins its cgroup and makes its namespaces itself.
 * SIGINT/SIGTERM stay blocked across the fork until the child has dropped
 * our handler: one that reached it in between would only set the child's
 * copy of the stop flag, and the container would not stop.
 */
static pid_t fork_old(void)
{
	sigset_t stop, mask;
	pid_t pid;
	int err;

	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigprocmask(SIG_BLOCK, &stop, &mask);
	pid = fork();
	err = errno;
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
	}
	sigprocmask(SIG_SETMASK, &mask, NULL);
	errno = err;
	return pid;
}

void child_prepare(void)
{
	FILE *f = fopen("/proc/self/maps", "re");
	unsigned long lo, hi;
	char *line = NULL, *stack;
	size_t n = 0;

	if (f) {	/* without it, the children only cost more */
		while (getline(&line, &n, f) > 0)
			if ((strstr(line, " anon_inode:bpf-map") ||
			     strstr(line, " anon_inode:[perf_event]")) &&
			    sscanf(line, "%lx-%lx", &lo, &hi) == 2)
				madvise((void *)lo, hi - lo, MADV_DONTFORK);
		free(line);
		fclose(f);
	}
#ifndef CHILD_NO_VFORK
	/* a page below it that faults rather than the memory under it */
	if (!child_stack) {
		n = (size_t)sysconf(_SC_PAGESIZE);
		stack = mmap(NULL, CHILD_STACK_SIZE + n, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
		if (stack != MAP_FAILED && mprotect(stack, n, PROT_NONE) == 0)
			child_stack = stack + n;
	}
#else
	(void)stack;
#endif
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

int child_start(struct collector *c, int cgfd,
		int (*go)(struct collector *c, pid_t pid, void *arg), void *arg, struct child *ch)
{
	int errpipe[2] = { -1, -1 }, gopipe[2] = { -1, -1 }, err;
	ssize_t n = 0;
	struct plan p = { .procsfd = -1, .pgrp = cgfd < 0 && !go };

	memset(ch, 0, sizeof(*ch));
	if (pipe2(errpipe, O_CLOEXEC) < 0 || (go && pipe2(gopipe, O_CLOEXEC) < 0)) {
		fprintf(stderr, "collector: pipe: %s\n", strerror(errno));
		close_fd(&errpipe[0]);
		close_fd(&errpipe[1]);
		return -1;
	}
	p.c = c;
	p.errfd = errpipe[1];
	p.gofd = gopipe[0];
	p.gowr = gopipe[1];
	fflush(NULL);
	errno = ENOSYS;
	ch->pid = test_knob("BOOTTRACE_TEST_NO_CLONE3") ? -1 :
		  clone_into(cgfd, c->opt.unshare_flags, &p);
	if (ch->pid < 0 && (errno == ENOSYS || errno == E2BIG || errno == EINVAL)) {
		p.unshare = c->opt.unshare_flags;
		if (cgfd >= 0) {
			p.procsfd = openat(cgfd, "cgroup.procs", O_WRONLY | O_CLOEXEC);
			if (p.procsfd < 0) {
				fprintf(stderr, "collector: cannot open the container's cgroup.procs: %s\n",
					strerror(errno));
				goto fail;
			}
		}
		ch->pid = fork_old();
		if (ch->pid == 0)
			child_main(&p);
	}
	if (ch->pid < 0) {
		fprintf(stderr, "collector: fork: %s\n", strerror(errno));
		goto fail;
	}
	close_fd(&p.procsfd);
	close_fd(&errpipe[1]);
	/* what the child does without a collector to wait for, done here too (the shells' way) */
	if (cgfd < 0)
		setpgid(ch->pid, ch->pid);
	if (go) {
		close_fd(&gopipe[0]);
		/* its "ready" (a NUL), or the start of its message, or EOF */
		while ((n = read(errpipe[0], ch->errmsg, 1)) < 0 && errno == EINTR)
			;
		if (n < 0)
			n = 0;
		else if (n == 1 && ch->errmsg[0] == '\0') {
			n = 0;
			err = go(c, ch->pid, arg);
			if (err == 0 && write(gopipe[1], "g", 1) != 1)
				err = -errno;
			ch->regfail = err < 0;
		}
		close_fd(&gopipe[1]);	/* on error the child sees EOF and exits */
	}
	ch->nerr = read(errpipe[0], ch->errmsg + n, sizeof(ch->errmsg) - 1 - (size_t)n);
	ch->nerr = ch->nerr < 0 ? n : ch->nerr + n;
	close_fd(&errpipe[0]);
	if (ch->nerr > 0) {
		ch->errmsg[ch->nerr] = '\0';
		loop_status_clear(c);
		fprintf(stderr, "collector: %s\n", ch->errmsg);
	}
	return 0;
fail:
	close_fd(&p.procsfd);
	close_fd(&errpipe[0]);
	close_fd(&errpipe[1]);
	close_fd(&gopipe[0]);
	close_fd(&gopipe[1]);
	return -1;
}

int child_status(int st)
{
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int child_outcome(const struct child *ch, int status)
{
	if (ch->nerr <= 0)
		return 0;
	return status == EXIT_CANNOT_EXEC || status == EXIT_NOT_FOUND ? 1 : -1;
}
