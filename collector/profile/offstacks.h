/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --offcpu-stacks: each task's stack as it blocked (a BT_EV_OFFSTACK
 * record, bpf/offcpu.bpf.h), held until the sched row of that interval
 * (written at its switch-in, later in the ring) names it: stack=ID
 * (docs/tsv-format.md, Scheduler rows). A direct-mapped table by tid: a
 * task has one interval open at a time; two tasks that collide lose
 * the older one's stack (its row says none). A task that blocks again
 * where it last did (BT_EV_OFFSTACK_SAME) names the stack it had then:
 * its slot keeps its id past the row that took it. Pure.
 */
#ifndef COLLECTOR_OFFSTACKS_H
#define COLLECTOR_OFFSTACKS_H

#include <stdint.h>

#define OFFSTACKS_BITS 12

struct offstacks {
	struct offstack {
		uint64_t ts;	/* the switch-out's time; 0: empty */
		uint64_t id;	/* its stack id; 0: none (kept after the row took it) */
		uint32_t tid;
	} e[1u << OFFSTACKS_BITS];
};

/* offstacks_put - task @tid left its CPU at @ts with stack @id. */
void offstacks_put(struct offstacks *o, uint32_t tid, uint64_t ts, uint64_t id);

/*
 * offstacks_same - task @tid left its CPU at @ts where it last did (its
 * stack the last one put): 1, or 0 when that one is not kept (another
 * task's took its slot, a new file began).
 */
int offstacks_same(struct offstacks *o, uint32_t tid, uint64_t ts);

/*
 * offstacks_take - the stack id of @tid's interval from @ts (its sched
 * row's ts_ns), forgotten; 0 when none was kept.
 */
uint64_t offstacks_take(struct offstacks *o, uint32_t tid, uint64_t ts);

#endif /* COLLECTOR_OFFSTACKS_H */
