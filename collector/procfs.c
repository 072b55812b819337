// SPDX-License-Identifier: BSD-2-Clause
/* What the perf-buffer backend asks /proc about a task (collector/procfs.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/procfs.h"

int proc_ids(pid_t tid, pid_t *tgid, pid_t *ppid)
{
	char path[64], line[256];
	int got = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f) && got != 3) {
		if (!strncmp(line, "Tgid:", 5)) {
			*tgid = (pid_t)strtol(line + 5, NULL, 10);
			got |= 1;
		} else if (!strncmp(line, "PPid:", 5)) {
			*ppid = (pid_t)strtol(line + 5, NULL, 10);
			got |= 2;
		}
	}
	fclose(f);
	return got == 3 ? 0 : -1;
}
