/* SPDX-License-Identifier: BSD-2-Clause */
/* /proc readers: what the collector asks of running processes. */
#ifndef COLLECTOR_PROC_H
#define COLLECTOR_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* proc_ppid - the parent pid of @pid (/proc/PID/stat), or -1. */
pid_t proc_ppid(pid_t pid);

/*
 * proc_ids - the Tgid and PPid lines of /proc/@tid/status (@tid may be a
 * thread's): 0, or -1 when the task is gone.
 */
int proc_ids(pid_t tid, pid_t *tgid, pid_t *ppid);

/*
 * proc_stat_ppid - the parent pid in the text of a /proc/PID/stat, or -1.
 * comm is in parentheses and may hold anything, ')' and spaces included.
 */
pid_t proc_stat_ppid(const char *stat);

/*
 * proc_cmdline - the command line of @pid, arguments joined by spaces
 * ("runc init"), into @out. Its length, or -1 (gone, or a kernel thread).
 */
ssize_t proc_cmdline(pid_t pid, char *out, size_t n);

/* proc_comm - the comm of @pid into @out (@n bytes, without its newline): its length, or -errno. */
ssize_t proc_comm(pid_t pid, char *out, size_t n);

/* proc_cgroup2_path - @pid's cgroup v2 path ("/" for the root); 0 or -errno. */
int proc_cgroup2_path(pid_t pid, char *out, size_t n);

/*
 * proc_runtime_cgroup - the cgroup a runtime put @pid in, on any host: its
 * v2 path when that is not "/", else its v1 name=systemd path, else its v1
 * pids path (runc without a cgroupsPath nests it differently per v1
 * hierarchy; pids holds it where runc put it). 0 or -errno.
 */
int proc_runtime_cgroup(pid_t pid, char *out, size_t n);

/* cgroup_file_pick - proc_runtime_cgroup() on the text of a /proc/PID/cgroup; 0 or -ENOENT. */
int cgroup_file_pick(const char *text, char *out, size_t n);


/*
 * proc_descendants - @root and every process descending from it, from the
 * parent links in /proc, into *@out (malloc'd, the caller frees), *@n of
 * them. 0 or -errno.
 */
int proc_descendants(pid_t root, pid_t **out, size_t *n);

/*
 * descendants_of - @root and those of @pids whose parent (@ppids, the same
 * order) is among them, transitively, into @out (room for @n + 1); how many.
 * Pure: proc_descendants() runs it on what /proc says.
 */
size_t descendants_of(pid_t root, const pid_t *pids, const pid_t *ppids, size_t n, pid_t *out);

/* What /proc says of the collector itself: the process_* metrics of --metrics. */
struct proc_usage {
	unsigned long long utime, stime;	/* clock ticks (sysconf(_SC_CLK_TCK)) */
	unsigned long long starttime;		/* ticks after boot */
	unsigned long long vsize;		/* bytes */
	unsigned long long rss;			/* pages */
	long fds;				/* open, -1: unknown */
	unsigned long long btime;		/* boot, seconds since the epoch (/proc/stat), 0: unknown */
};

/*
 * proc_stat_usage - utime, stime, starttime, vsize and rss in the text of a
 * /proc/PID/stat (the other fields untouched); 0, or -1 when malformed.
 */
int proc_stat_usage(const char *stat, struct proc_usage *u);

/* proc_self_usage - all of struct proc_usage for this process; 0 or -1. */
int proc_self_usage(struct proc_usage *u);

/*
 * name_of_dead_collector - whether @name is @prefix followed by the pid of
 * a process that is gone: what a collector killed by SIGKILL left behind
 * (its cgroup parent "boottrace.<pid>", its uprobe event group
 * "boottrace_<pid>"). Digits only after the prefix.
 */
bool name_of_dead_collector(const char *name, const char *prefix);

#endif /* COLLECTOR_PROC_H */
