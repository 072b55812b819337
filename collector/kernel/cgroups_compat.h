/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The compat object's cgroup mode, the part user space does (the kernel
 * side is bpf/cgroups_compat.bpf.h): tracking a cgroup (its `tracked`
 * entry and its `filter` slot), the ids and parents of the cgroups in
 * cgroup_mkdir and cgroup_rmdir records (the classic tracepoints carry no
 * parent, and before 5.5 no id that bpf_get_current_cgroup_id returns),
 * and the parent of the tasks the kernel first met in a tracked cgroup
 * (it cannot read task_struct). collector/kernel/backend_perf.c uses it.
 */
#ifndef COLLECTOR_CGROUPS_COMPAT_H
#define COLLECTOR_CGROUPS_COMPAT_H

#include <limits.h>
#include <stddef.h>
#include <linux/types.h>

#include "bpf/boottrace.h"
#include "collector/keyset.h"

struct bpf_map;

#define CGROUPS_COMPAT_PPIDS 256

/* A tracked cgroup's path, where the records carry no id (before 5.5). */
struct cgroups_compat_path {
	__u64 id;
	char *path;
};

struct cgroups_compat {
	struct bpf_map *tracked, *filter, *ppid_fix;
	char cg2[PATH_MAX];		/* the cgroup2 mount */
	int ids;			/* the records carry ids (BT_LEGACY_CGROUP_IDS) */
	int watch;			/* every new cgroup is a candidate */
	/* the tracked cgroups the collector knows of: tracked here, or their mkdir delivered */
	struct keyset known;
	struct cgroups_compat_path *paths;
	size_t npaths, cap_paths;
	/* tgid -> ppid, a direct-mapped cache of what /proc said */
	struct { __u32 tgid, ppid; } ppids[CGROUPS_COMPAT_PPIDS];
};

/*
 * cgroups_compat_init - set @cc up for the compat object's maps; @ids:
 * its cgroup records carry cgroup ids; @watch: watch mode. 0, or -ENOENT
 * (with a message) when there is no cgroup2 mount.
 */
int cgroups_compat_init(struct cgroups_compat *cc, struct bpf_map *tracked, struct bpf_map *filter,
			struct bpf_map *ppid_fix, int ids, int watch);
void cgroups_compat_free(struct cgroups_compat *cc);

/* cgroups_compat_track - trace the tasks of cgroup @id from now on: 0 or -errno. */
int cgroups_compat_track(struct cgroups_compat *cc, __u64 id);
/* cgroups_compat_untrack - no more; what the kernel tracked itself too. */
void cgroups_compat_untrack(struct cgroups_compat *cc, __u64 id);
/* cgroups_compat_known - whether the collector knows cgroup @id as tracked. */
int cgroups_compat_known(const struct cgroups_compat *cc, __u64 id);

/*
 * cgroups_compat_mkdir - complete mkdir record @e as the modern object
 * writes it (its id when the record has none, parent_id, parent_tracked)
 * and track the cgroup if its parent is tracked or in watch mode; else
 * untrack it if the kernel did (a traced task made it elsewhere). 1: the
 * collector wants the record; 0: drop it (not wanted, or already gone).
 */
int cgroups_compat_mkdir(struct cgroups_compat *cc, struct bt_cgroup_event *e);

/*
 * cgroups_compat_rmdir - complete rmdir record @e (its id, from the path
 * of the mkdir when the record has none). 1: it has an id (a known
 * cgroup's, or one whose mkdir record is not read yet); 0: drop (before
 * 5.5, the path of no tracked cgroup).
 */
int cgroups_compat_rmdir(struct cgroups_compat *cc, struct bt_cgroup_event *e);

/*
 * cgroups_compat_fix_ppid - a record's header without a parent (ppid 0:
 * a task first met in a tracked cgroup): its parent from /proc, which the
 * kernel also gets (ppid_fix) for the task's records to come.
 */
void cgroups_compat_fix_ppid(struct cgroups_compat *cc, struct bt_event_hdr *h);
/* cgroups_compat_forget_pid - process @tgid exited: its pid may be another's next. */
void cgroups_compat_forget_pid(struct cgroups_compat *cc, __u32 tgid);

#endif /* COLLECTOR_CGROUPS_COMPAT_H */
