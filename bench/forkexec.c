// SPDX-License-Identifier: BSD-2-Clause
/*
 * forkexec [-v] [-u USER] OUT N PROG [ARG...]: the bare peers of spawn
 * mode for bench/spawn.sh. N times, one after the other: take
 * CLOCK_MONOTONIC, fork (with -v: vfork, the child sharing the memory
 * until its exec, as posix_spawn's does), exec PROG in the child (with -u,
 * as USER first: setgroups, setgid, setuid, the user and its groups looked
 * up once before any fork), wait for the exec through an O_CLOEXEC pipe,
 * reap it. Appends "PID T0_NS" per child to OUT: the time taken just
 * before the pipe and the fork, as the collector takes its start row's
 * time just before its own. Run under the collector, the exec row of PID
 * is the end: the same tracepoint, clock and tracing as the spawned
 * container's.
 *
 * The least a spawner does: no cgroup, no namespaces, no handshake.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* What each child does: as USER (pw != NULL), exec argv. */
struct job {
	struct passwd *pw;
	gid_t groups[256];
	int ngroups;
	char **argv;
	int use_vfork;
};

static unsigned long long mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

/* Fork (or vfork) the child of @j; it writes to @wfd when its exec failed. */
static pid_t start(const struct job *j, int wfd)
{
	pid_t pid = j->use_vfork ? vfork() : fork();

	if (pid != 0)
		return pid;
	if (j->pw && (setgroups((size_t)j->ngroups, j->groups) < 0 || setgid(j->pw->pw_gid) < 0 ||
		      setuid(j->pw->pw_uid) < 0))
		_exit(126);
	execv(j->argv[0], j->argv);
	if (write(wfd, "x", 1) < 0) { /* the status says it too */ }
	_exit(127);
}

int main(int argc, char **argv)
{
	static struct job j = { .ngroups = 256 };
	int n, i, st, p[2];
	unsigned long long t0;
	FILE *out;
	pid_t pid;
	char c;

	if (argc > 1 && strcmp(argv[1], "-v") == 0) {
		j.use_vfork = 1;
		argv++;
		argc--;
	}
	if (argc > 2 && strcmp(argv[1], "-u") == 0) {
		j.pw = getpwnam(argv[2]);
		if (!j.pw || getgrouplist(argv[2], j.pw->pw_gid, j.groups, &j.ngroups) < 0) {
			fprintf(stderr, "forkexec: no user %s, or more than 256 groups\n", argv[2]);
			return 2;
		}
		argv += 2;
		argc -= 2;
	}
	if (argc < 4 || (n = atoi(argv[2])) < 1) {
		fprintf(stderr, "usage: forkexec [-v] [-u USER] OUT N PROG [ARG...]\n");
		return 2;
	}
	j.argv = argv + 3;
	out = fopen(argv[1], "ae");
	if (!out) {
		fprintf(stderr, "forkexec: cannot open %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	for (i = 0; i < n; i++) {
		t0 = mono_now();
		if (pipe2(p, O_CLOEXEC) < 0 || (pid = start(&j, p[1])) < 0) {
			fprintf(stderr, "forkexec: pipe2 or fork: %s\n", strerror(errno));
			return 1;
		}
		close(p[1]);
		if (read(p[0], &c, 1) != 0)
			fprintf(stderr, "forkexec: cannot run %s\n", j.argv[0]);
		close(p[0]);
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		fprintf(out, "%d %llu\n", pid, t0);
	}
	return fclose(out) == 0 ? 0 : 1;
}
