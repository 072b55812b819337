// SPDX-License-Identifier: BSD-2-Clause
/* Open-addressing hash table of interned strings: see strtab.h. */
#include <stdlib.h>
#include <string.h>

#include "analyze/read/strtab.h"

#define ARENA_CHUNK (64 * 1024)

struct arena_chunk {
	struct arena_chunk *next;
	size_t used, cap;
	char data[];
};

struct strtab {
	uint32_t *slots;	/* id + 1, 0 = empty */
	size_t nslots;		/* power of two */
	const char **strs;	/* per id */
	uint32_t *lens;
	uint64_t *hashes;
	size_t n, cap;
	struct arena_chunk *arena;
};

static inline uint64_t load64(const char *s)
{
	uint64_t v;

	memcpy(&v, s, 8);
	return v;
}

static inline uint64_t mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return h;
}

/* 8 bytes at a time (names are short: "read", "ctr-00042"); not for
 * adversaries who pick colliding names, which cost speed, not results. */
static uint64_t hash_bytes(const char *s, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;
	size_t i = 0;

	if (n >= 8) {
		for (; i + 8 <= n; i += 8)
			h = mix(h ^ load64(s + i));
		if (i < n)
			h = mix(h ^ load64(s + n - 8));
		return h;
	}
	{
		uint64_t v = 0;

		memcpy(&v, s, n);
		return mix(h ^ v);
	}
}

struct strtab *strtab__new(void)
{
	struct strtab *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->nslots = 64;
	t->slots = calloc(t->nslots, sizeof(*t->slots));
	if (!t->slots) {
		free(t);
		return NULL;
	}
	return t;
}

void strtab__free(struct strtab *t)
{
	struct arena_chunk *c, *next;

	if (!t)
		return;
	for (c = t->arena; c; c = next) {
		next = c->next;
		free(c);
	}
	free(t->slots);
	free(t->strs);
	free(t->lens);
	free(t->hashes);
	free(t);
}

static char *arena_alloc(struct strtab *t, size_t n)
{
	struct arena_chunk *c = t->arena;

	if (!c || c->cap - c->used < n) {
		size_t cap = n > ARENA_CHUNK ? n : ARENA_CHUNK;

		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->cap = cap;
		c->used = 0;
		c->next = t->arena;
		t->arena = c;
	}
	c->used += n;
	return c->data + c->used - n;
}

static long lookup(const struct strtab *t, const char *s, size_t n, uint64_t h,
		   size_t *slot)
{
	size_t mask = t->nslots - 1, i = h & mask;

	for (;; i = (i + 1) & mask) {
		uint32_t v = t->slots[i];

		if (!v) {
			*slot = i;
			return -1;
		}
		v--;
		if (t->hashes[v] == h && t->lens[v] == n &&
		    memcmp(t->strs[v], s, n) == 0)
			return v;
	}
}

static int grow_slots(struct strtab *t)
{
	size_t nslots = t->nslots * 2, i, mask = nslots - 1;
	uint32_t *slots = calloc(nslots, sizeof(*slots));

	if (!slots)
		return -1;
	for (i = 0; i < t->n; i++) {
		size_t j = t->hashes[i] & mask;

		while (slots[j])
			j = (j + 1) & mask;
		slots[j] = (uint32_t)i + 1;
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = nslots;
	return 0;
}

long strtab_find(const struct strtab *t, const char *s, size_t n)
{
	size_t slot;

	return lookup(t, s, n, hash_bytes(s, n), &slot);
}

long strtab_intern(struct strtab *t, const char *s, size_t n, int *added)
{
	uint64_t h = hash_bytes(s, n);
	size_t slot;
	long id = lookup(t, s, n, h, &slot);
	char *copy;

	if (added)
		*added = 0;
	if (id >= 0)
		return id;
	if (n > UINT32_MAX || t->n >= UINT32_MAX - 1)
		return -1;
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		const char **strs = realloc(t->strs, cap * sizeof(*strs));
		uint32_t *lens;
		uint64_t *hashes;

		if (!strs)
			return -1;
		t->strs = strs;
		lens = realloc(t->lens, cap * sizeof(*lens));
		if (!lens)
			return -1;
		t->lens = lens;
		hashes = realloc(t->hashes, cap * sizeof(*hashes));
		if (!hashes)
			return -1;
		t->hashes = hashes;
		t->cap = cap;
	}
	copy = arena_alloc(t, n + 1);
	if (!copy)
		return -1;
	memcpy(copy, s, n);
	copy[n] = '\0';
	id = (long)t->n++;
	t->strs[id] = copy;
	t->lens[id] = (uint32_t)n;
	t->hashes[id] = h;
	t->slots[slot] = (uint32_t)id + 1;
	if (t->n * 2 > t->nslots && grow_slots(t) < 0) {
		t->n--; /* keep the table consistent */
		t->slots[slot] = 0;
		return -1;
	}
	if (added)
		*added = 1;
	return id;
}

size_t strtab_count(const struct strtab *t)
{
	return t->n;
}

const char *strtab_str(const struct strtab *t, size_t id, size_t *n)
{
	if (n)
		*n = t->lens[id];
	return t->strs[id];
}
