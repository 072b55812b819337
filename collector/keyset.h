/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A set of non-zero 64-bit keys (container keys, cgroup ids): open
 * addressing, linear probing, backward-shift deletion (no tombstones).
 * The perf-buffer backend keeps the containers it has announced in one.
 */
#ifndef COLLECTOR_KEYSET_H
#define COLLECTOR_KEYSET_H

#include <stddef.h>
#include <linux/types.h>

struct keyset {
	__u64 *slots;			/* 0: empty (keys are never 0) */
	size_t cap, n;			/* cap: a power of two, or 0 */
};

/* keyset_has - whether @key is in @s (an all-zero @s is empty). */
int keyset_has(const struct keyset *s, __u64 key);

/* keyset_add - add @key (not 0); 0, or -ENOMEM (then @s is unchanged). */
int keyset_add(struct keyset *s, __u64 key);

/* keyset_del - remove @key if it is there. */
void keyset_del(struct keyset *s, __u64 key);

/* keyset_free - free the slots; @s is empty and usable again. */
void keyset_free(struct keyset *s);

#endif /* COLLECTOR_KEYSET_H */
