/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The container table: every cgroup (cgroup mode) or task tree (pidtree
 * mode) the collector follows, found by the key the kernel puts in
 * bt_event_hdr.cgroup_id, and the names given in this run. Pure: no I/O,
 * no BPF; what makes something a container is lifecycle.c's.
 */
#ifndef COLLECTOR_CONTAINERS_H
#define COLLECTOR_CONTAINERS_H

#include <stddef.h>

#include "collector/idmap.h"

#define CONTAINER_NAME_MAX 256

/*
 * A cgroup made while the collector watches, that no task has entered yet:
 * it becomes a container, or a part of one, with its first task (see
 * lifecycle.c). What its start row will say is kept until then.
 */
struct candidate {
	unsigned long long parent;	/* the parent cgroup's id */
	unsigned long long ts;		/* when it was made */
	long pid;			/* by whom */
	long ppid;			/* and its parent */
	int matched;			/* its path matches --cgroup's glob */
	char comm[17];
	char path[512];			/* relative to the cgroup2 mount */
};

/*
 * A container, or a cgroup nested in one (then top points at it), or a
 * candidate (cand set, top NULL). cgid is the cgroup id in cgroup mode,
 * the container key in pidtree mode: what the kernel puts in
 * bt_event_hdr.cgroup_id.
 */
struct runtime_names;

struct container {
	unsigned long long cgid;
	struct container *top;
	struct candidate *cand;
	int start_marked;	/* watch, --pid: the --start probe's start row is out */
	int run_member;		/* client mode: another container of the run's pod (client.c) */
	/*
	 * Its init, for the end row's detail (common/end_detail.h): the
	 * first exec flagged init (pid 1 of its own pid namespace), else its
	 * first exec (spawn mode's command; the legacy object cannot flag).
	 */
	long init_pid;		/* 0: no exec seen yet */
	int init_flagged;	/* init_pid's exec was flagged init */
	int init_exited;	/* its exit row was seen: init_status is its wait(2) status */
	unsigned init_status;
	/* a runtime's container whose meta row is not out yet (lifecycle.c); freed with it */
	struct runtime_names *names;
	char name[CONTAINER_NAME_MAX];
};

struct container_table {
	struct container **v;
	size_t n, cap;
	/* cgid → entry: every event looks its container up, and a host may boot thousands at once */
	struct idmap index;
	struct container *last;	/* the last one found: most events repeat it */
	/*
	 * The names given: a 64-bit hash of each → the next #N to try after
	 * it. 16 bytes a slot, at most half full: 32 to 64 bytes per name,
	 * whatever its length, until containers_forget_names(). (Two names
	 * of one hash, never seen: the second is taken as given, and gets a
	 * #N it did not need; names stay unique.)
	 */
	struct idmap names;
};

/* containers_find - the entry of @cgid, or NULL. */
struct container *containers_find(struct container_table *t, unsigned long long cgid);

/*
 * containers_add - a new entry for @cgid: nested in @top, or a container
 * of its own (@top NULL) named @name (copied; NULL: ""). The table owns it.
 * NULL on ENOMEM.
 */
struct container *containers_add(struct container_table *t, unsigned long long cgid,
				 struct container *top, const char *name);

/*
 * containers_add_candidate - a new candidate for @cgid, taking @cand
 * (malloc'd; freed with the entry). NULL on ENOMEM (@cand freed too).
 */
struct container *containers_add_candidate(struct container_table *t, unsigned long long cgid,
					   struct candidate *cand);

/*
 * containers_decide - candidate @k becomes a container named @name (@top
 * NULL) or a part of container @top; its candidate data is freed.
 */
void containers_decide(struct container *k, struct container *top, const char *name);

/* containers_remove - drop @k from the table and free it. */
void containers_remove(struct container_table *t, struct container *k);

/* containers_count_top - how many entries are containers (not nested ones, not candidates). */
size_t containers_count_top(const struct container_table *t);

/*
 * containers_unique_name - a name not given before in this file: @base,
 * then "@base#2", "@base#3"... into @out. Counted over the whole file, not
 * only live containers: a container that restarts in a cgroup of the same
 * name is another boot, another name.
 */
void containers_unique_name(struct container_table *t, const char *base, char *out, size_t n);

/*
 * containers_forget_names - forget the names given but those of the
 * containers in the table (a new file of the run begins: collector/run/rotate.c;
 * analyze joins a container across files by its name, a new boot in the
 * new file has a start row there). 0, or -1 out of memory (then names may
 * repeat within the new file).
 */
int containers_forget_names(struct container_table *t);

/* containers_free - free every entry and the table's memory; it is empty after. */
void containers_free(struct container_table *t);

#endif /* COLLECTOR_CONTAINERS_H */
