/* SPDX-License-Identifier: BSD-2-Clause */
/* cgroup v2 plumbing: see cgroup.c for why this is not all libcgroup. */
#ifndef COLLECTOR_CGROUP_H
#define COLLECTOR_CGROUP_H

#include <stddef.h>

/* cgroup2_mount - the cgroup2 mount point from /proc/self/mounts; -ENOENT. */
int cgroup2_mount(char *out, size_t n);
/* cgroup_host_layout - "unified", "hybrid" or "legacy" (a literal). */
const char *cgroup_host_layout(const char *cg2);
/* cgroup_id_of - the cgroup id of directory @path; 0 or -errno. */
int cgroup_id_of(const char *path, unsigned long long *id);
/*
 * cgroup_parent_path - the parent of cgroup path @path ("/a/b" -> "/a",
 * "/a" -> "/", trailing slashes ignored) into @out (@n bytes): 0, or -1
 * for the root (or an empty path) and a parent that does not fit.
 */
int cgroup_parent_path(const char *path, char *out, size_t n);
/* cgroup_write - write @value to @dir/@file; 0 or -errno. */
int cgroup_write(const char *dir, const char *file, const char *value);
/* cgroup_signal - send @sig to every process in @dir; count or -errno. */
int cgroup_signal(const char *dir, int sig);
/*
 * cgroup_kill - send @sig to every process in @dir: SIGKILL through
 * cgroup.kill (5.14, atomic against forks), else or before it one by one.
 */
void cgroup_kill(const char *dir, int sig);
/* cgroup_populated - 1 if @dir (or a descendant) has tasks, 0 if not, -errno. */
int cgroup_populated(const char *dir);
/*
 * cgroup_remove_tree - remove @path and every cgroup under it, depth
 * first, killing the tasks still in them; 0, or -1 when @path stays.
 */
int cgroup_remove_tree(const char *path);
/*
 * cgroup_remove_stale - remove the boottrace.<pid> parents under @cg2 of
 * collectors that were killed (SIGKILL), saying so on stderr.
 */
void cgroup_remove_stale(const char *cg2);

#endif /* COLLECTOR_CGROUP_H */
