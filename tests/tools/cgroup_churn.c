// SPDX-License-Identifier: BSD-2-Clause
/*
 * cgroup_churn DIR FROM TO COMMAND [ARG...]: boot containers FROM..TO one
 * after the other, as a runtime would but cheaply: for each, mkdir
 * DIR/cN, fork; the child enters it (writes itself to cgroup.procs) and
 * execs COMMAND; the parent waits for it, then removes DIR/cN (retrying
 * while the kernel still counts the dead task in it). For the collector's
 * soak of thousands of short containers
 * (tests/integration/test_soak_containers.sh). Exit 1 with a message when
 * a step fails.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long from, to, n, tries;
	char dir[4096], procs[4200];
	int st;

	if (argc < 5) {
		fprintf(stderr, "usage: cgroup_churn DIR FROM TO COMMAND [ARG...]\n");
		return 2;
	}
	from = atol(argv[2]);
	to = atol(argv[3]);
	for (n = from; n <= to; n++) {
		pid_t pid;

		snprintf(dir, sizeof(dir), "%s/c%ld", argv[1], n);
		snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
		if (mkdir(dir, 0755) < 0) {
			fprintf(stderr, "cgroup_churn: mkdir %s: %s\n", dir, strerror(errno));
			return 1;
		}
		pid = fork();
		if (pid < 0) {
			perror("cgroup_churn: fork");
			return 1;
		}
		if (pid == 0) {
			int fd = open(procs, O_WRONLY | O_CLOEXEC);

			if (fd < 0 || write(fd, "0", 1) != 1) {
				fprintf(stderr, "cgroup_churn: cannot enter %s: %s\n", dir, strerror(errno));
				_exit(1);
			}
			close(fd);
			execvp(argv[4], argv + 4);
			fprintf(stderr, "cgroup_churn: exec %s: %s\n", argv[4], strerror(errno));
			_exit(127);
		}
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
			fprintf(stderr, "cgroup_churn: container %ld failed\n", n);
			return 1;
		}
		/* the exited task leaves the cgroup a moment after wait returns */
		for (tries = 0; rmdir(dir) < 0; tries++) {
			struct timespec ms = { 0, 1000000 };

			if (errno != EBUSY || tries == 1000) {
				fprintf(stderr, "cgroup_churn: rmdir %s: %s\n", dir, strerror(errno));
				return 1;
			}
			nanosleep(&ms, NULL);
		}
	}
	return 0;
}
