// SPDX-License-Identifier: BSD-2-Clause
/* A map from non-zero 64-bit keys to pointers (collector/idmap.h). */
#include <errno.h>
#include <stdlib.h>

#include "collector/idmap.h"

static size_t home_of(const struct idmap *m, __u64 key)
{
	/*
	 * Kernel container keys differ in their low and CPU bits, cgroup ids
	 * in their low bits: a multiplicative hash mixes both.
	 */
	return (size_t)((key * 0x9e3779b97f4a7c15ULL) >> 20) & (m->cap - 1);
}

/* The slot of @key, or of the empty slot where it would go. */
static size_t slot_of(const struct idmap *m, __u64 key)
{
	size_t i;

	for (i = home_of(m, key); m->slots[i].key && m->slots[i].key != key; i = (i + 1) & (m->cap - 1))
		;
	return i;
}

void *idmap_get(const struct idmap *m, __u64 key)
{
	if (!m->cap || !key)
		return NULL;
	return m->slots[slot_of(m, key)].val;
}

int idmap_put(struct idmap *m, __u64 key, void *val)
{
	size_t i;

	if (!key || !val)
		return -EINVAL;
	if (m->cap && m->slots[i = slot_of(m, key)].key == key) {
		m->slots[i].val = val;
		return 0;
	}
	if ((m->n + 1) * 2 > m->cap) {
		struct idmap bigger = { .cap = m->cap ? m->cap * 2 : 64 };

		bigger.slots = calloc(bigger.cap, sizeof(*bigger.slots));
		if (!bigger.slots)
			return -ENOMEM;
		for (i = 0; i < m->cap; i++)
			if (m->slots[i].key)
				bigger.slots[slot_of(&bigger, m->slots[i].key)] = m->slots[i];
		bigger.n = m->n;
		free(m->slots);
		*m = bigger;
	}
	i = slot_of(m, key);
	m->slots[i].key = key;
	m->slots[i].val = val;
	m->n++;
	return 0;
}

void idmap_del(struct idmap *m, __u64 key)
{
	size_t i, j, home;

	if (!m->cap || !key || m->slots[i = slot_of(m, key)].key != key)
		return;
	m->slots[i].key = 0;
	m->slots[i].val = NULL;
	m->n--;
	/* backward shift: move a later entry into the hole unless its home is in (i, j] */
	for (j = (i + 1) & (m->cap - 1); m->slots[j].key; j = (j + 1) & (m->cap - 1)) {
		home = home_of(m, m->slots[j].key);
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			m->slots[i] = m->slots[j];
			m->slots[j].key = 0;
			m->slots[j].val = NULL;
			i = j;
		}
	}
}

__u64 idmap_key_of(const char *s, size_t n)
{
	__u64 h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
	return h ? h : 1;
}

void idmap_free(struct idmap *m)
{
	free(m->slots);
	m->slots = NULL;
	m->cap = m->n = 0;
}
