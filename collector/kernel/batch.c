// SPDX-License-Identifier: BSD-2-Clause
/*
 * The per-CPU batches of plain syscall records (collector/kernel/batch.h). How a
 * visit flushes a CPU's batch differs by object: the modern object flushes
 * at every task switch (bt_sched_switch), and getting there is one; the
 * legacy object at every syscall exit of the collector's flush thread
 * (config.flush_tid), and sched_setaffinity(2) returns on the new CPU.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>

#include <bpf/libbpf.h>

#include "bpf/boottrace.h"
#include "collector/kernel/batch.h"
#include "collector/clock.h"

int batches_init(struct batches *bs, struct bpf_map *map)
{
	memset(bs, 0, sizeof(*bs));
	bs->map = map;
	bs->checked_ns = mono_ns();
	bs->ncpus = libbpf_num_possible_cpus();
	if (bs->ncpus <= 0 || bs->ncpus > CPU_SETSIZE)
		return -EINVAL;
	bs->copy = calloc((size_t)bs->ncpus, sizeof(*bs->copy));
	return bs->copy ? 0 : -ENOMEM;
}

void batches_free(struct batches *bs)
{
	free(bs->copy);
	bs->copy = NULL;
}

int batches_read(struct batches *bs)
{
	__u32 zero = 0;

	if (!bs->copy)
		return -ENOMEM;
	if (bpf_map__lookup_elem(bs->map, &zero, sizeof(zero), bs->copy,
				 (size_t)bs->ncpus * sizeof(*bs->copy), 0) < 0)
		return -errno;
	return 0;
}

/*
 * The copy read here is a hint (the CPUs write on): a batch flushed or
 * refilled meanwhile costs one needless trip. A batch only waits that
 * long on a CPU where a traced task runs on without another kind of
 * record (or, with the modern object, a task switch). The visit goes
 * outside the collector's affinity (taskset) too: with the legacy object
 * nothing else flushes there. A CPU its cpuset forbids keeps its records
 * until then.
 */
void batches_flush(struct batches *bs, unsigned long long max_age_ns)
{
	unsigned long long now = mono_ns();
	bool moved = false;
	cpu_set_t mine, one;
	int cpu;

	bs->checked_ns = now;
	if (batches_read(bs) < 0)
		return;
	for (cpu = 0; cpu < bs->ncpus; cpu++) {
		const struct bt_batch *p = &bs->copy[cpu];

		if (!p->count || (max_age_ns && p->rec[0].hdr.ts_ns + max_age_ns > now))
			continue;
		if (!moved && sched_getaffinity(0, sizeof(mine), &mine) < 0)
			return;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (sched_setaffinity(0, sizeof(one), &one) == 0)
			moved = true;
	}
	if (moved)
		sched_setaffinity(0, sizeof(mine), &mine);
}

void batches_flush_old(struct batches *bs)
{
	if (mono_ns() >= bs->checked_ns + BATCH_MAX_AGE_NS)
		batches_flush(bs, BATCH_MAX_AGE_NS);
}

int batch_is(const void *data, size_t size)
{
	__u32 type;

	if (size < offsetof(struct bt_batch, rec))
		return 0;
	memcpy(&type, (const char *)data + offsetof(struct bt_batch, type), sizeof(type));
	return type == BT_EV_BATCH;
}

int batch_for_each(const void *data, size_t size,
		   int (*fn)(void *ctx, void *rec, size_t size), void *ctx)
{
	const char *recs = (const char *)data + offsetof(struct bt_batch, rec);
	struct bt_syscall_event rec;
	__u32 count, i;
	int err;

	memcpy(&count, (const char *)data + offsetof(struct bt_batch, count), sizeof(count));
	for (i = 0; i < count && i < BT_BATCH_MAX &&
		    offsetof(struct bt_batch, rec) + (i + 1) * sizeof(rec) <= size; i++) {
		memcpy(&rec, recs + i * sizeof(rec), sizeof(rec));
		err = fn(ctx, &rec, sizeof(rec));
		if (err)
			return err;
	}
	return 0;
}

int batch_gaps_init(struct batch_gaps *g, int ncpus)
{
	memset(g, 0, sizeof(*g));
	if (ncpus <= 0)
		return -EINVAL;
	g->next = calloc((size_t)ncpus, sizeof(*g->next));
	if (!g->next)
		return -ENOMEM;
	g->ncpus = ncpus;
	return 0;
}

void batch_gaps_free(struct batch_gaps *g)
{
	free(g->next);
	g->next = NULL;
}

void batch_gaps_seen(struct batch_gaps *g, int cpu, __u64 seq, __u64 flushes, __u64 rows)
{
	struct batch_next *n;

	if (cpu < 0 || cpu >= g->ncpus)
		return;
	n = &g->next[cpu];
	if (rows > BT_BATCH_MAX)
		rows = BT_BATCH_MAX;
	if (seq < n->seq) {
		/* counted lost by a settle, and here after all */
		g->rows -= (long long)rows;
		g->batches--;
		return;
	}
	g->rows += (long long)(seq - n->seq);
	g->batches += (long long)(flushes - n->flushes);
	n->seq = seq + rows;
	n->flushes = flushes + 1;
}

void batch_gaps_settle(struct batch_gaps *g, int cpu, __u64 seq, __u64 flushes)
{
	struct batch_next *n;

	if (cpu < 0 || cpu >= g->ncpus)
		return;
	n = &g->next[cpu];
	if (seq <= n->seq)
		return;
	g->rows += (long long)(seq - n->seq);
	g->batches += (long long)(flushes - n->flushes);
	n->seq = seq;
	n->flushes = flushes;
}

unsigned long long batch_gaps_lost(const struct batch_gaps *g, unsigned long long records,
				   unsigned long long failed, unsigned long long dropped)
{
	/*
	 * Where the kernel saw outputs fail, it counted their records
	 * itself and failed covers every sample the rings dropped.
	 */
	long long unseen = (long long)dropped - (long long)failed - g->batches;

	return records + (unsigned long long)(g->rows > 0 ? g->rows : 0) +
	       (unsigned long long)(unseen > 0 ? unseen : 0);
}
