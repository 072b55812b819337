/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A map from non-zero 64-bit keys (cgroup ids, container keys) to
 * pointers: open addressing, linear probing, backward-shift deletion (no
 * tombstones, so a table that sees many adds and removes, as a host that
 * boots containers all day, never fills with them). The one hash table of
 * the collector: the container table's index and the key sets of the
 * perf-buffer backend (keyset.h) are made of it.
 */
#ifndef COLLECTOR_IDMAP_H
#define COLLECTOR_IDMAP_H

#include <stddef.h>
#include <linux/types.h>

struct idmap_slot {
	__u64 key;			/* 0: empty (keys are never 0) */
	void *val;
};

struct idmap {
	struct idmap_slot *slots;
	size_t cap, n;			/* cap: a power of two, or 0 */
};

/* idmap_get - the value of @key, or NULL (an all-zero @m is empty). */
void *idmap_get(const struct idmap *m, __u64 key);

/*
 * idmap_put - map @key (not 0) to @val (not NULL), replacing what it
 * mapped to; at most half full, it grows. 0, -EINVAL, or -ENOMEM (then @m
 * is unchanged).
 */
int idmap_put(struct idmap *m, __u64 key, void *val);

/* idmap_del - remove @key if it is there. */
void idmap_del(struct idmap *m, __u64 key);

/* idmap_free - free the slots (not the values); @m is empty and usable again. */
void idmap_free(struct idmap *m);

/*
 * idmap_key_of - a key for the @n bytes at @s (a name): their FNV-1a
 * hash, never 0. Two names may share one (one in 2^64 a pair): the
 * callers say what they do then.
 */
__u64 idmap_key_of(const char *s, size_t n);

#endif /* COLLECTOR_IDMAP_H */
