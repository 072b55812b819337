// SPDX-License-Identifier: BSD-2-Clause
/*
 * The stacks written so far (stacks.h): open addressing on the frames'
 * FNV-1a hash, the frames kept in one block.
 */
#include <stdlib.h>
#include <string.h>

#include "collector/profile/stacks.h"

#define SLOTS (STACKS_MAX * 2)

struct slot {
	uint64_t hash;
	uint64_t id;		/* 0: free */
	size_t at, n;		/* the frames, in text */
};

struct stacks {
	struct slot *slots;
	size_t count;
	uint64_t next_id;
	char *text;
	size_t len, cap;
};

struct stacks *stacks__new(void)
{
	struct stacks *s = calloc(1, sizeof(*s));

	if (!s || !(s->slots = calloc(SLOTS, sizeof(*s->slots)))) {
		free(s);
		return NULL;
	}
	s->next_id = 1;
	return s;
}

void stacks__free(struct stacks *s)
{
	if (!s)
		return;
	free(s->slots);
	free(s->text);
	free(s);
}

/* Forget the stacks; the ids go on. */
static void forget(struct stacks *s)
{
	memset(s->slots, 0, SLOTS * sizeof(*s->slots));
	s->count = 0;
	s->len = 0;
}

void stacks_reset(struct stacks *s)
{
	forget(s);
	s->next_id = 1;
}

static uint64_t fnv1a(const char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (n--) {
		h ^= (unsigned char)*p++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

uint64_t stacks_id(struct stacks *s, const char *frames, size_t n, int *fresh)
{
	uint64_t h = fnv1a(frames, n);
	size_t i = h % SLOTS;

	*fresh = 1;
	for (; s->slots[i].id; i = (i + 1) % SLOTS) {
		struct slot *e = &s->slots[i];

		if (e->hash == h && e->n == n && memcmp(s->text + e->at, frames, n) == 0) {
			*fresh = 0;
			return e->id;
		}
	}
	if (s->count >= STACKS_MAX || s->len + n > STACKS_MAX_BYTES) {
		forget(s);
		i = h % SLOTS;
	}
	if (s->len + n > s->cap) {
		size_t cap = s->cap ? s->cap : 1u << 20;
		char *t;

		while (cap < s->len + n)
			cap *= 2;
		if (!(t = realloc(s->text, cap)))
			return s->next_id++;	/* written, not remembered */
		s->text = t;
		s->cap = cap;
	}
	memcpy(s->text + s->len, frames, n);
	s->slots[i] = (struct slot){ h, s->next_id, s->len, n };
	s->len += n;
	s->count++;
	return s->next_id++;
}
