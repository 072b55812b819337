// SPDX-License-Identifier: BSD-2-Clause
/*
 * The compat object's cgroup mode in user space (collector/kernel/cgroups_compat.h).
 *
 * The filter slots: the kernel writes them with plain stores at mkdir
 * (no compare-and-swap before 5.12), and so does this file, through the
 * map. Two writers racing for one slot can leave it wrong; every write
 * here reads the slot first, and the kernel wrote the slot of a cgroup
 * before its mkdir record, so cgroups_compat_mkdir() (which puts the
 * slot right) sees any race of that cgroup's, or follows it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "collector/kernel/cgroup.h"
#include "collector/kernel/cgroups_compat.h"
#include "collector/kernel/proc.h"

int cgroups_compat_init(struct cgroups_compat *cc, struct bpf_map *tracked, struct bpf_map *filter,
			struct bpf_map *ppid_fix, int ids, int watch)
{
	memset(cc, 0, sizeof(*cc));
	cc->tracked = tracked;
	cc->filter = filter;
	cc->ppid_fix = ppid_fix;
	cc->ids = ids;
	cc->watch = watch;
	if (cgroup2_mount(cc->cg2, sizeof(cc->cg2)) < 0) {
		fprintf(stderr, "collector: no cgroup2 mount in /proc/self/mounts: cgroup mode needs one\n");
		return -ENOENT;
	}
	return 0;
}

static void paths_del(struct cgroups_compat *cc, __u64 id)
{
	size_t i;

	for (i = 0; i < cc->npaths; i++) {
		if (cc->paths[i].id != id)
			continue;
		free(cc->paths[i].path);
		cc->paths[i] = cc->paths[--cc->npaths];
		return;
	}
}

void cgroups_compat_free(struct cgroups_compat *cc)
{
	while (cc->npaths)
		paths_del(cc, cc->paths[0].id);
	free(cc->paths);
	cc->paths = NULL;
	cc->cap_paths = 0;
	keyset_free(&cc->known);
}

/* @id's filter slot says "look": @id, or BT_FILTER_SHARED when another id has it. */
static void filter_set(struct cgroups_compat *cc, __u64 id)
{
	__u32 slot = (__u32)BT_FILTER_SLOT(id);
	__u64 v = 0;

	bpf_map__lookup_elem(cc->filter, &slot, sizeof(slot), &v, sizeof(v), 0);
	if (v == id || v == BT_FILTER_SHARED)
		return;
	v = v ? BT_FILTER_SHARED : id;
	bpf_map__update_elem(cc->filter, &slot, sizeof(slot), &v, sizeof(v), BPF_ANY);
}

/* @id's slot, if it is @id's alone, is free again (a shared one stays so). */
static void filter_clear(struct cgroups_compat *cc, __u64 id)
{
	__u32 slot = (__u32)BT_FILTER_SLOT(id);
	__u64 v = 0;

	if (bpf_map__lookup_elem(cc->filter, &slot, sizeof(slot), &v, sizeof(v), 0) < 0 || v != id)
		return;
	v = 0;
	bpf_map__update_elem(cc->filter, &slot, sizeof(slot), &v, sizeof(v), BPF_ANY);
}

int cgroups_compat_track(struct cgroups_compat *cc, __u64 id)
{
	__u8 one = 1;
	int err;

	if (bpf_map__update_elem(cc->tracked, &id, sizeof(id), &one, sizeof(one), BPF_ANY) < 0)
		return -errno;
	filter_set(cc, id);
	err = keyset_add(&cc->known, id);
	if (err)
		cgroups_compat_untrack(cc, id);
	return err;
}

void cgroups_compat_untrack(struct cgroups_compat *cc, __u64 id)
{
	bpf_map__delete_elem(cc->tracked, &id, sizeof(id), 0);
	filter_clear(cc, id);
	keyset_del(&cc->known, id);
	if (!cc->ids)
		paths_del(cc, id);
}

int cgroups_compat_known(const struct cgroups_compat *cc, __u64 id)
{
	return keyset_has(&cc->known, id);
}

/* The id of cgroup @path (relative to the cgroup2 mount): 0 when it is gone. */
static __u64 id_of_path(const struct cgroups_compat *cc, const char *path)
{
	char dir[PATH_MAX + BT_CGPATH_MAX];
	unsigned long long id = 0;

	snprintf(dir, sizeof(dir), "%s%s", cc->cg2, path);
	return cgroup_id_of(dir, &id) == 0 ? id : 0;
}

/* Before 5.5: remember where tracked cgroup @id is, for its rmdir record. */
static void paths_add(struct cgroups_compat *cc, __u64 id, const char *path)
{
	struct cgroups_compat_path *p;

	if (cc->npaths == cc->cap_paths) {
		size_t cap = cc->cap_paths ? cc->cap_paths * 2 : 16;

		p = realloc(cc->paths, cap * sizeof(*p));
		if (!p)
			return;	/* its rmdir will not be seen: the collector ends it otherwise */
		cc->paths = p;
		cc->cap_paths = cap;
	}
	p = &cc->paths[cc->npaths];
	p->path = strdup(path);
	if (!p->path)
		return;
	p->id = id;
	cc->npaths++;
}

int cgroups_compat_mkdir(struct cgroups_compat *cc, struct bt_cgroup_event *e)
{
	char parent[BT_CGPATH_MAX];
	__u64 id = e->hdr.cgroup_id, pid = 0;
	__u8 v;
	int kernel_tracked;

	e->path[BT_CGPATH_MAX - 1] = '\0';
	if (!id)
		id = id_of_path(cc, e->path);
	if (!id)
		return 0;	/* made and removed before we looked: nothing ran in it */
	/* tracked from here already (spawn mode makes its cgroups): no news */
	if (cgroups_compat_known(cc, id))
		return 0;
	kernel_tracked = bpf_map__lookup_elem(cc->tracked, &id, sizeof(id), &v, sizeof(v), 0) == 0;
	if (cgroup_parent_path(e->path, parent, sizeof(parent)) == 0)
		pid = id_of_path(cc, parent);
	e->hdr.cgroup_id = id;
	e->parent_id = pid;
	e->parent_tracked = pid && cgroups_compat_known(cc, pid);
	if (e->parent_tracked || cc->watch) {
		/* what the kernel did not track yet, and a slot a race left wrong */
		if (cgroups_compat_track(cc, id) < 0)
			return 0;
		if (!cc->ids)
			paths_add(cc, id, e->path);
		return 1;
	}
	/* made by a traced task outside its container's cgroup: not ours */
	if (kernel_tracked)
		cgroups_compat_untrack(cc, id);
	return 0;
}

int cgroups_compat_rmdir(struct cgroups_compat *cc, struct bt_cgroup_event *e)
{
	__u64 id = e->hdr.cgroup_id;
	size_t i;

	e->path[BT_CGPATH_MAX - 1] = '\0';
	for (i = 0; !id && i < cc->npaths; i++)
		if (!strcmp(cc->paths[i].path, e->path))
			id = cc->paths[i].id;
	/*
	 * An id the collector does not know yet is one whose mkdir may still
	 * be in another ring (reorder.h): held all the same, it goes after
	 * that mkdir, or to a lifecycle that knows no such container.
	 */
	if (!id)
		return 0;
	e->hdr.cgroup_id = id;
	e->parent_id = 0;
	e->parent_tracked = 0;
	return 1;
}

void cgroups_compat_fix_ppid(struct cgroups_compat *cc, struct bt_event_hdr *h)
{
	pid_t ppid;
	__u32 pid = h->pid, v;
	size_t i = pid % CGROUPS_COMPAT_PPIDS;

	if (h->ppid || !pid)
		return;
	if (cc->ppids[i].tgid != pid) {
		ppid = proc_ppid((pid_t)pid);
		if (ppid < 0)
			ppid = 0;	/* gone: its rows keep ppid 0 */
		cc->ppids[i].tgid = pid;
		cc->ppids[i].ppid = (__u32)ppid;
		/* the kernel takes it at the task's next syscall (ppid_pending) */
		v = (__u32)ppid;
		if (v)
			bpf_map__update_elem(cc->ppid_fix, &pid, sizeof(pid), &v, sizeof(v), BPF_ANY);
	}
	h->ppid = cc->ppids[i].ppid;
}

void cgroups_compat_forget_pid(struct cgroups_compat *cc, __u32 tgid)
{
	size_t i = tgid % CGROUPS_COMPAT_PPIDS;

	if (cc->ppids[i].tgid == tgid)
		cc->ppids[i].tgid = 0;
	/* a new process of that pid, first met in a tracked cgroup, must not find it */
	bpf_map__delete_elem(cc->ppid_fix, &tgid, sizeof(tgid), 0);
}
