/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The order the perf-buffer objects' records lose in their per-CPU rings,
 * restored: the records collector/kernel/backend_perf.c holds back, and when and
 * in what order they go.
 *
 * The rings carry no order between CPUs, and lifecycle.c needs three: a
 * container's first record (BT_EV_ROOT in pidtree mode, BT_EV_CGROUP_MKDIR
 * in cgroup mode) before its others (it drops records of keys it does not
 * know), its last (BT_EV_GONE, BT_EV_CGROUP_RMDIR) after them (it forgets
 * the key), and in cgroup mode a cgroup's mkdir after the records its
 * parent's tasks wrote before it (lifecycle.c: a cgroup made inside a
 * container is part of it, and a parent becomes one at its first record;
 * read the other way, c1/inner was a container of its own). The kernel
 * writes them in that order; the backend holds, and this file releases:
 *
 *  - a record of a container the collector does not know yet (pidtree: a
 *    kernel key, BT_KEY_KERNEL, whose ROOT has not been delivered; cgroup
 *    mode: a cgroup neither tracked from here nor announced by its mkdir)
 *    until that first record comes (reorder_release() with its key); if it
 *    has not come by the end of the next pass (it was lost, or the cgroup
 *    is not one of ours), the record goes as it is;
 *  - a last record read in one pass (a poll or drain of every ring) until
 *    the end of the next: everything the container's tasks wrote before it
 *    was in its ring before that pass began, for the pass that read it ends
 *    by flushing every CPU's batch (reorder_waits_on_batches()); and, in
 *    cgroup mode, until its cgroup's mkdir has gone: a pass reads the rings
 *    one after another, so a short-lived cgroup's rmdir (CPU 1's ring) can
 *    be read a pass before its mkdir (CPU 0's, read empty just before the
 *    mkdir was written), and would go first, its container not known yet
 *    (no end row: 22 of 400 in a churn of short containers);
 *  - so a new cgroup's mkdir, with the records of that cgroup read before
 *    it (from another ring) or since (reorder_hold_behind()); the mkdirs
 *    due together go oldest first, each with its records.
 *
 * `pass` counts the passes ended: a record read while it is P is due when
 * it is P + 2. A forced release (drain) delivers everything held, last
 * records last.
 */
#ifndef COLLECTOR_REORDER_H
#define COLLECTOR_REORDER_H

#include <stddef.h>
#include <linux/types.h>

#include "bpf/boottrace.h"
#include "collector/keyset.h"

/* The biggest record but a batch (bt_cgroup_event) and perf's padding, with room. */
#define REORDER_RECORD_MAX 640
_Static_assert(sizeof(struct bt_cgroup_event) + 8 <= REORDER_RECORD_MAX, "REORDER_RECORD_MAX");

struct reorder_held {
	unsigned long long pass;	/* when it was read */
	size_t size;
	int behind;			/* goes right after its cgroup's held mkdir */
	int done;			/* delivered; removed before the release returns */
	__u64 data[REORDER_RECORD_MAX / 8];
};

struct reorder {
	struct reorder_held *held;
	size_t n, cap;
	unsigned long long pass;	/* passes ended */
	struct keyset made;		/* the cgroups whose mkdir is held */
	/* where a released record goes */
	void (*deliver)(void *ctx, void *data, size_t size);
	void *ctx;
};

/* reorder_init - an empty @r whose records go to @deliver(@ctx, ...). */
void reorder_init(struct reorder *r, void (*deliver)(void *ctx, void *data, size_t size),
		  void *ctx);
void reorder_free(struct reorder *r);

/* A container's last record: GONE (pidtree), a cgroup's rmdir (cgroup mode). */
int reorder_is_last(const struct bt_event_hdr *h);

/* reorder_hold - hold record @data (@size <= REORDER_RECORD_MAX): 0 or -ENOMEM. */
int reorder_hold(struct reorder *r, const void *data, size_t size);

/*
 * reorder_hold_mkdir - hold mkdir record @data; the records of its cgroup
 * held before it move behind it, in their order. 0 or -ENOMEM (nothing
 * held: deliver it now).
 */
int reorder_hold_mkdir(struct reorder *r, const void *data, size_t size);

/* reorder_made - whether cgroup @id's mkdir is held. */
int reorder_made(const struct reorder *r, __u64 id);

/*
 * reorder_hold_behind - hold a record of a cgroup reorder_made() says is
 * held, to go with its mkdir (a last record: as reorder_hold()).
 */
int reorder_hold_behind(struct reorder *r, const void *data, size_t size);

/*
 * reorder_release - deliver what is due: everything with @force (last
 * records last); with @key, the held records of that container but its
 * last (its first record came); else the end of a pass.
 */
void reorder_release(struct reorder *r, int force, __u64 key);

/* reorder_pass_end - a pass ended: count it, release what is due (all with @force). */
void reorder_pass_end(struct reorder *r, int force);

/* reorder_waits_on_batches - whether a last record or a mkdir is held. */
int reorder_waits_on_batches(const struct reorder *r);

#endif /* COLLECTOR_REORDER_H */
