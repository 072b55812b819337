// SPDX-License-Identifier: BSD-2-Clause
/* A set of non-zero 64-bit keys (collector/keyset.h). */
#include <errno.h>
#include <stdlib.h>

#include "collector/keyset.h"

static size_t keyset_slot(const struct keyset *s, __u64 key)
{
	/*
	 * Kernel container keys differ in their low and CPU bits, cgroup ids
	 * in their low bits: a multiplicative hash mixes both.
	 */
	return (size_t)((key * 0x9e3779b97f4a7c15ULL) >> 20) & (s->cap - 1);
}

int keyset_has(const struct keyset *s, __u64 key)
{
	size_t i;

	if (!s->cap || !key)
		return 0;
	for (i = keyset_slot(s, key); s->slots[i]; i = (i + 1) & (s->cap - 1))
		if (s->slots[i] == key)
			return 1;
	return 0;
}

int keyset_add(struct keyset *s, __u64 key)
{
	size_t i;

	if (!key)
		return -EINVAL;
	if (keyset_has(s, key))
		return 0;
	if ((s->n + 1) * 2 > s->cap) {
		struct keyset bigger = { .cap = s->cap ? s->cap * 2 : 64 };

		bigger.slots = calloc(bigger.cap, sizeof(*bigger.slots));
		if (!bigger.slots)
			return -ENOMEM;
		for (i = 0; i < s->cap; i++)
			if (s->slots[i])
				keyset_add(&bigger, s->slots[i]);
		free(s->slots);
		*s = bigger;
	}
	for (i = keyset_slot(s, key); s->slots[i]; i = (i + 1) & (s->cap - 1))
		;
	s->slots[i] = key;
	s->n++;
	return 0;
}

void keyset_del(struct keyset *s, __u64 key)
{
	size_t i, j, home;

	if (!s->cap || !key)
		return;
	for (i = keyset_slot(s, key); s->slots[i] != key; i = (i + 1) & (s->cap - 1))
		if (!s->slots[i])
			return;
	/* backward-shift deletion: no tombstones */
	s->slots[i] = 0;
	s->n--;
	for (j = (i + 1) & (s->cap - 1); s->slots[j]; j = (j + 1) & (s->cap - 1)) {
		home = keyset_slot(s, s->slots[j]);
		/* move slots[j] into the hole at i if its home is not in (i, j] */
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			s->slots[i] = s->slots[j];
			s->slots[j] = 0;
			i = j;
		}
	}
}

void keyset_free(struct keyset *s)
{
	free(s->slots);
	s->slots = NULL;
	s->cap = s->n = 0;
}
