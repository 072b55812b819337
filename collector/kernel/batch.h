/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The per-CPU batches of plain syscall records (struct bt_batch), as both
 * BPF objects keep them: unpacking one, and making the CPUs whose records
 * have waited flush theirs.
 */
#ifndef COLLECTOR_BATCH_H
#define COLLECTOR_BATCH_H

#include <sched.h>
#include <stddef.h>
#include <linux/types.h>

struct bpf_map;

/* Records wait in a CPU's batch at most about this long (batches_flush()). */
#define BATCH_MAX_AGE_NS 100000000ULL

struct batches {
	struct bpf_map *map;		/* the object's per-CPU array of struct bt_batch */
	struct bt_batch *copy;		/* a copy per CPU, as a lookup reads them */
	int ncpus;
	unsigned long long checked_ns;	/* when batches_flush() last looked */
};

/* Set up @bs for @map; 0 or -errno (then batches_flush() does nothing). */
int batches_init(struct batches *bs, struct bpf_map *map);
void batches_free(struct batches *bs);

/* Read the batches into bs->copy; 0 or -errno. */
int batches_read(struct batches *bs);

/*
 * Visit each CPU whose batch holds a record older than @max_age_ns (0:
 * any record), so that it flushes, and come back to the CPUs the
 * collector ran on.
 */
void batches_flush(struct batches *bs, unsigned long long max_age_ns);

/* batches_flush(BATCH_MAX_AGE_NS), if it last looked that long ago. */
void batches_flush_old(struct batches *bs);

/* Whether record @data (@size bytes, any alignment) is a batch. */
int batch_is(const void *data, size_t size);

/*
 * Call @fn with each record of batch @data (@size bytes, any alignment),
 * an aligned copy; 0, or @fn's first non-zero return.
 */
int batch_for_each(const void *data, size_t size,
		   int (*fn)(void *ctx, void *rec, size_t size), void *ctx);

/*
 * The legacy object's lost batches, counted from the gaps in their
 * numbers (bt_batch.seq, .flushes) per CPU: 4.15's bpf_perf_event_output()
 * does not say when it fails, and the perf ring's count of dropped
 * samples does not say how many rows a sample held.
 */
struct batch_next {
	__u64 seq, flushes;		/* of the CPU's next batch */
};

struct batch_gaps {
	struct batch_next *next;	/* per CPU */
	int ncpus;
	long long rows, batches;	/* missing: lost, or counted so by a settle */
};

int batch_gaps_init(struct batch_gaps *g, int ncpus);
void batch_gaps_free(struct batch_gaps *g);

/* A batch of @rows rows, numbered @seq and @flushes, came from @cpu's ring. */
void batch_gaps_seen(struct batch_gaps *g, int cpu, __u64 seq, __u64 flushes, __u64 rows);

/*
 * The rings are read: @cpu's batch numbers are now @seq and @flushes (what
 * its next batch will carry), and what did not arrive counts as lost. A
 * batch that arrives later all the same is taken back by batch_gaps_seen().
 */
void batch_gaps_settle(struct batch_gaps *g, int cpu, __u64 seq, __u64 flushes);

/*
 * The records lost in all: @records the kernel counted (not made, or
 * not written where it could tell), the rows of the missing batches, and
 * the samples the perf rings dropped (@dropped) that were neither
 * batches nor outputs the kernel saw fail (@failed).
 */
unsigned long long batch_gaps_lost(const struct batch_gaps *g, unsigned long long records,
				   unsigned long long failed, unsigned long long dropped);

#endif /* COLLECTOR_BATCH_H */
