/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * host_tasks: the runtime's side of a boot. Rows whose container is \N
 * are of tasks outside every container (dockerd, containerd, the shim,
 * runc, the client itself), which the collector records around a boot
 * (client mode; watch mode with --sched host): their fork, exec, exit and
 * scheduler rows, not their syscalls. The timeline keeps them in a
 * container of their own per file, named \N; for each container of the
 * same file with scheduler rows, host_tasks_import() copies what of them
 * falls inside the container's window — from its earliest start row to the
 * last moment any of its tasks was seen — into the container, so the
 * critical path can follow a wake-up into the daemon that did the work
 * and, before the container's first task, back into the runtime.
 *
 * Their profile samples in the window are copied with them; those of
 * the runtime's processes (host_tasks_mark_runtime()) are the boot's.
 *
 * An imported task is marked host; a task already in the container (runc
 * init, which lived in the runtime's cgroup before it joined the
 * container's) gets the host rows of its tid merged into it instead: its
 * history before it joined. Rows are clipped to the window by time (a row
 * or interval that overlaps it is kept whole), so a daemon that lives
 * across many boots costs each boot only its rows of that boot.
 */
#ifndef ANALYZE_HOST_TASKS_H
#define ANALYZE_HOST_TASKS_H

#include "analyze/boot/timeline.h"

/*
 * host_tasks_import - copy the tasks of host container @h (finished:
 * sorted) that have rows in @c's window into @c (not yet finished). Does
 * nothing for a container without a start row or scheduler rows. 0, or
 * -1 out of memory (@c is then only fit to be freed).
 */
int host_tasks_import(struct tl_container *c, const struct tl_container *h);

/*
 * host_tasks_mark_runtime - mark the host tasks of @c of @tl (finished: its
 * tasks sorted, their parents linked) that worked for its boot: runtime
 * = true on every task of their processes. They are the client (the
 * pid of a start row whose how is @client, a timeline string id; or
 * TL_NOSTR), then, to a fixed point, the processes of the tasks that
 * woke a task of the boot (its own or one marked) after its start, made
 * one (its fork's parent), or were made by one: dockerd answering the
 * client, containerd, the shim, runc. A wake out of an uninterruptible
 * sleep (D) does not count: a lock or an I/O released, by whoever held
 * it (a stranger writing to the same file system). Kernel threads (kthreadd and its
 * children: kworkers, ksoftirqd) are never marked: they work for every
 * task. A stranger busy on the host meanwhile is none of these. 0, or
 * -1 out of memory.
 */
int host_tasks_mark_runtime(const struct timeline *tl, struct tl_container *c, uint32_t client);

/* host_tasks_is_host_name - whether container name @name (@n escaped bytes) is the hosts' (\N). */
bool host_tasks_is_host_name(const char *name, size_t n);

#endif /* ANALYZE_HOST_TASKS_H */
