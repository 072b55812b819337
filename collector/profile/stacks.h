/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --profile's stacks, each written once per file (docs/tsv-format.md,
 * Profile rows): a stack's frames, as collector/profile/frames.c wrote them, get
 * an id, 1, 2, 3..., and a `stack` row the first time; every sample names
 * the id. A table from the frames' text to the id, started over at each
 * new file (stacks_reset(); the ids start again from 1) and when it holds
 * STACKS_MAX stacks or STACKS_MAX_BYTES of frames (then the ids go on:
 * the stacks are written again as they recur, under new ids).
 */
#ifndef COLLECTOR_STACKS_H
#define COLLECTOR_STACKS_H

#include <stddef.h>
#include <stdint.h>

#define STACKS_MAX 65536
#define STACKS_MAX_BYTES (64u << 20)

struct stacks;

struct stacks *stacks__new(void);
void stacks__free(struct stacks *s);
/* stacks_reset - a new file: forget every stack, ids from 1 again. */
void stacks_reset(struct stacks *s);

/*
 * stacks_id - the id of the stack whose frames are the @n bytes at
 * @frames; *@fresh 1 when it is new (its stack row is to be written), else
 * 0. Out of memory, a new id, *@fresh 1, not remembered.
 */
uint64_t stacks_id(struct stacks *s, const char *frames, size_t n, int *fresh);

#endif /* COLLECTOR_STACKS_H */
