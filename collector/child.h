/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The command's process, for spawn mode (the container's first process)
 * and client mode (a runtime's client): fork; in the child, join a cgroup
 * (or a process group of its own), take --unshare's namespaces and
 * --user's ids, exec. Its set-up errors come back through a pipe.
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
 * child_start - fork c->opt.command. The child joins @cgdir (NULL: makes
 * a process group of its own, which then stands for it in kill(-pid)).
 * With @go, the child waits until go(@c, pid, @arg) returned 0 in the
 * parent (pidtree mode registers it in the kernel before its first
 * instruction); a go() < 0 makes it exit 1. Returns when the child has
 * exec'd or failed (the message printed, @ch->nerr > 0): 0; -1 when the
 * fork itself failed (printed). SIGINT/SIGTERM never reach the collector's
 * handler in the child.
 */
int child_start(struct collector *c, const char *cgdir,
		int (*go)(struct collector *c, pid_t pid, void *arg), void *arg, struct child *ch);

/* child_status - wait status @st as a shell gives it: the exit code, or 128+signal. */
int child_status(int st);

/*
 * child_outcome - what a run whose command exited with @status says of
 * @ch: 0 if it ran; if it failed before its exec (child_fail()), 1 when
 * the exec failed (126, 127: the status is the collector's exit), else -1.
 */
int child_outcome(const struct child *ch, int status);

#endif /* COLLECTOR_CHILD_H */
