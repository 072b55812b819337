/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A set of non-zero 64-bit keys (container keys, cgroup ids): an idmap
 * whose values only say "there". The perf-buffer backend keeps the
 * containers it has announced in one, the compat cgroups it knows in
 * another.
 */
#ifndef COLLECTOR_KEYSET_H
#define COLLECTOR_KEYSET_H

#include "collector/idmap.h"

struct keyset {
	struct idmap m;
};

/* keyset_has - whether @key is in @s (an all-zero @s is empty). */
static inline int keyset_has(const struct keyset *s, __u64 key)
{
	return idmap_get(&s->m, key) != NULL;
}

/* keyset_add - add @key (not 0); 0, -EINVAL, or -ENOMEM (then @s is unchanged). */
static inline int keyset_add(struct keyset *s, __u64 key)
{
	static char there;

	return idmap_put(&s->m, key, &there);
}

/* keyset_del - remove @key if it is there. */
static inline void keyset_del(struct keyset *s, __u64 key)
{
	idmap_del(&s->m, key);
}

/* keyset_free - free it; @s is empty and usable again. */
static inline void keyset_free(struct keyset *s)
{
	idmap_free(&s->m);
}

#endif /* COLLECTOR_KEYSET_H */
