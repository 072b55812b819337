// SPDX-License-Identifier: BSD-2-Clause
/*
 * nspid FILE [N]: append to FILE one line "HOSTPID NSPID", this process's
 * pid as the host sees it and as its own pid namespace does (getpid()),
 * then, with N > 0, fork a child that execs nspid FILE N-1, and wait for
 * it. What tests/integration/test_collector_nsinit.sh compares the exec
 * rows with: a row is `init` when NSPID is 1 in a namespace that is not
 * the host's (HOSTPID != NSPID).
 *
 * HOSTPID is the first pid of the NSpid line of /proc/self/status: the
 * pid in the namespace of the proc mount, which is the host's as long as
 * /proc is not mounted anew (collector --unshare pid,mount does not).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static long host_pid(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long pid = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "NSpid:", 6) == 0) {
			pid = strtol(line + 6, NULL, 10);
			break;
		}
	fclose(f);
	return pid;
}

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[2]) : 0, st;
	char next[16];
	FILE *out;
	pid_t child;

	if (argc < 2) {
		fprintf(stderr, "usage: nspid <file> [<n>]\n");
		return 2;
	}
	if (!(out = fopen(argv[1], "a"))) {
		perror("nspid: cannot open the file");
		return 1;
	}
	fprintf(out, "%ld %ld\n", host_pid(), (long)getpid());
	if (fclose(out) != 0)
		return 1;
	if (n <= 0)
		return 0;
	if ((child = fork()) < 0) {
		perror("nspid: fork");
		return 1;
	}
	if (child == 0) {
		snprintf(next, sizeof(next), "%d", n - 1);
		execl("/proc/self/exe", argv[0], argv[1], next, (char *)NULL);
		perror("nspid: exec");
		_exit(127);
	}
	if (waitpid(child, &st, 0) != child || !WIFEXITED(st))
		return 1;
	return WEXITSTATUS(st);
}
