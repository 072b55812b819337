// SPDX-License-Identifier: BSD-2-Clause
/* The command's process: see child.h. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collector/cgroup.h"
#include "collector/child.h"
#include "collector/collector.h"

/*
 * In the child, before the command runs: send "<what>: <strerror(errno)>"
 * back through @fd (the collector prints it) and _exit(@code).
 */
static void child_fail(int fd, int code, const char *what)
{
	char msg[512];
	int n = snprintf(msg, sizeof(msg), "%s: %s", what, strerror(errno));

	if (n > (int)sizeof(msg) - 1)
		n = (int)sizeof(msg) - 1;
	if (write(fd, msg, (size_t)n) < 0) { /* nothing left to do */ }
	_exit(code);
}

/*
 * The container's first process: joins the cgroup, takes its namespaces,
 * execs. Errors go back through @errfd (close-on-exec: EOF means exec'd).
 */
static void child_main(struct collector *c, const char *cgdir, int errfd, int gofd)
{
	char self[32], what[256], go;
	int err;

	/* pidtree: wait until the collector has registered us in the kernel */
	if (gofd >= 0 && read(gofd, &go, 1) != 1)
		_exit(1);
	snprintf(self, sizeof(self), "%d", getpid());
	if (cgdir) {
		errno = -cgroup_write(cgdir, "cgroup.procs", self);
		if (errno)
			child_fail(errfd, 1, "cannot join the container's cgroup");
	} else if (setpgid(0, 0) < 0) {
		/* no cgroup to signal: the process group stands in for it */
		child_fail(errfd, 1, "setpgid");
	}
	if (c->stdout_is_tsv && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
		child_fail(errfd, 1, "dup2");
	if (c->opt.unshare_flags && unshare(c->opt.unshare_flags) < 0)
		child_fail(errfd, 1, "unshare");
	if ((c->opt.unshare_flags & CLONE_NEWNS) &&
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		child_fail(errfd, 1, "cannot make / private in the new mount namespace");
	if (c->opt.unshare_flags & CLONE_NEWPID) {
		/* The new pid namespace takes our next child as its pid 1. */
		pid_t pid = fork();
		int st;

		if (pid < 0)
			child_fail(errfd, 1, "fork");
		if (pid > 0) {
			close(errfd);
			while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
				;
			_exit(child_status(st));
		}
	}
	/* --user: the container does not get the collector's privileges */
	if (c->opt.user && (initgroups(c->opt.user, c->opt.gid) < 0 ||
			    setgid(c->opt.gid) < 0 || setuid(c->opt.uid) < 0))
		child_fail(errfd, 1, "cannot switch to --user");
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	execvp(c->opt.command[0], c->opt.command);
	err = errno;
	snprintf(what, sizeof(what), "cannot run '%s'", c->opt.command[0]);
	errno = err;
	child_fail(errfd, err == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC, what);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

int child_start(struct collector *c, const char *cgdir,
		int (*go)(struct collector *c, pid_t pid, void *arg), void *arg, struct child *ch)
{
	int errpipe[2] = { -1, -1 }, gopipe[2] = { -1, -1 }, err;
	sigset_t stop, mask;

	memset(ch, 0, sizeof(*ch));
	if (pipe2(errpipe, O_CLOEXEC) < 0 || (go && pipe2(gopipe, O_CLOEXEC) < 0)) {
		fprintf(stderr, "collector: pipe: %s\n", strerror(errno));
		close_fd(&errpipe[0]);
		close_fd(&errpipe[1]);
		return -1;
	}
	fflush(NULL);
	/*
	 * SIGINT/SIGTERM stay blocked across the fork until the child has
	 * dropped our handler: one that reached it in between would only set
	 * the child's copy of the stop flag, and the container would not stop.
	 */
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigprocmask(SIG_BLOCK, &stop, &mask);
	ch->pid = fork();
	if (ch->pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		sigprocmask(SIG_SETMASK, &mask, NULL);
		close(errpipe[0]);
		if (gopipe[1] >= 0)
			close(gopipe[1]);
		child_main(c, cgdir, errpipe[1], gopipe[0]);
	}
	sigprocmask(SIG_SETMASK, &mask, NULL);
	if (ch->pid < 0) {
		fprintf(stderr, "collector: fork: %s\n", strerror(errno));
		close_fd(&errpipe[0]);
		close_fd(&errpipe[1]);
		close_fd(&gopipe[0]);
		close_fd(&gopipe[1]);
		return -1;
	}
	close_fd(&errpipe[1]);
	if (go) {
		close_fd(&gopipe[0]);
		err = go(c, ch->pid, arg);
		if (err == 0 && write(gopipe[1], "g", 1) != 1)
			err = -errno;
		ch->regfail = err < 0;
		close_fd(&gopipe[1]);	/* on error the child sees EOF and exits */
	}
	ch->nerr = read(errpipe[0], ch->errmsg, sizeof(ch->errmsg) - 1);
	close_fd(&errpipe[0]);
	if (ch->nerr > 0) {
		ch->errmsg[ch->nerr] = '\0';
		loop_status_clear(c);
		fprintf(stderr, "collector: %s\n", ch->errmsg);
	}
	return 0;
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
