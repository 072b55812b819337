/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The command's process, for spawn mode (the container's first process)
 * and client mode (a runtime's client): clone3 it into its cgroup and
 * --unshare's namespaces, sharing the collector's memory until its exec
 * where it can (the old way: fork, and the child joins and unshares
 * itself), or a process group of its own without a cgroup; in the child,
 * --user's groups and ids, exec. Its set-up errors come back through a
 * pipe.
 */
#ifndef COLLECTOR_CHILD_H
#define COLLECTOR_CHILD_H

#include <stdbool.h>
#include <sys/types.h>

struct collector;

/*
 * The exit status when the command cannot run, as env(1), timeout(1) and
 * the shells (POSIX, "Command Search and Execution") give it: 127 when it
 * is not there, 126 when it is there but cannot be executed (EACCES for a
 * file without x or a directory, ENOEXEC, ETXTBSY, ...). A failure to set
 * up the container before that is the collector's own: exit 1.
 */
#define EXIT_CANNOT_EXEC 126
#define EXIT_NOT_FOUND 127

/* How long a command has between SIGTERM and SIGKILL (--until, Ctrl-C). */
#define GRACE_NS (2ULL * 1000000000ULL)

struct child {
	pid_t pid;
	bool regfail;		/* the go() callback failed: the child exits 1 */
	ssize_t nerr;		/* > 0: the child failed before its exec, errmsg says why */
	char errmsg[512];
};

/*
 * child_start - start c->opt.command (c->opt.exec_path, --user's ids and
 * groups as main resolved them). The child is in the cgroup v2 directory
 * of fd @cgfd from its birth where the kernel can (5.7), else joins it
 * before anything else (-1: no cgroup; it gets a process group of its
 * own, which then stands for it in kill(-pid)). With @go, the child waits
 * until go(@c, pid, @arg) returned 0 in the parent (pidtree mode registers
 * it in the kernel before its first instruction); a go() < 0 makes it exit
 * 1. Returns when the child has exec'd or failed (the message printed,
 * @ch->nerr > 0): 0; -1 when it could not be started (printed).
 * SIGINT/SIGTERM never reach the collector's handler in the child.
 * BOOTTRACE_TEST_NO_CLONE3=1 forces the old way (fork) for tests.
 */
int child_start(struct collector *c, int cgfd,
		int (*go)(struct collector *c, pid_t pid, void *arg), void *arg, struct child *ch);

/*
 * child_prepare - once the backend is open, before the first
 * child_start(): keep the collector's kernel buffers (the BPF ring buffer
 * and mmapped maps, 17 MiB here, or the perf buffers) out of the children
 * it forks (MADV_DONTFORK; copying their page tables at the fork and
 * tearing them down at the exec took ~0.9 ms of each start -> exec, for
 * buffers the child never reads), and make the stack of the children that
 * share the collector's memory until their exec. Cannot fail: without
 * /proc or the stack, the children only cost more.
 */
void child_prepare(void);

/* child_status - wait status @st as a shell gives it: the exit code, or 128+signal. */
int child_status(int st);

/*
 * child_outcome - what a run whose command exited with @status says of
 * @ch: 0 if it ran; if it failed before its exec (child_fail()), 1 when
 * the exec failed (126, 127: the status is the collector's exit), else -1.
 */
int child_outcome(const struct child *ch, int status);

#endif /* COLLECTOR_CHILD_H */
