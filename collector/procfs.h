/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the perf-buffer backend asks /proc about a task, for what its
 * objects cannot read in the kernel (task_struct, without BTF).
 */
#ifndef COLLECTOR_PROCFS_H
#define COLLECTOR_PROCFS_H

#include <sys/types.h>

/*
 * proc_ids - the Tgid and PPid lines of /proc/@tid/status: 0, or -1 when
 * the task is gone (or its status has no such lines).
 */
int proc_ids(pid_t tid, pid_t *tgid, pid_t *ppid);

#endif /* COLLECTOR_PROCFS_H */
