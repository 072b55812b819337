/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * keycache: a direct-mapped cache in front of a strtab, for the names of
 * nearly every row (container, syscall, comm), shared by the analysis and
 * the timeline. Header-only: kc_intern() is inlined into the readers' hot
 * loops.
 */
#ifndef ANALYZE_KEYCACHE_H
#define ANALYZE_KEYCACHE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "analyze/read/strtab.h"

/*
 * A direct-mapped cache in front of a strtab for keys of 1..16 bytes — the
 * container, syscall and comm names of nearly every row: two loads and a
 * compare instead of hashing the bytes, probing and memcmp(). Rows of a few
 * containers interleave (per-CPU buffers), so one "last key" would miss.
 */
#define KC_BITS 8

struct key_cache {
	struct kc_entry {
		uint64_t w0, w1;	/* the key, zero-padded */
		uint32_t n;		/* 0: empty */
		int32_t id;
	} e[1u << KC_BITS];
};

static inline uint64_t kc_load64(const char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* A miss of kc_intern(): the strtab, then the cache entry @e. */
static __attribute__((noinline)) long kc_miss(struct kc_entry *e, struct strtab *t,
					      const char *p, size_t n, uint64_t w0,
					      uint64_t w1, int *added)
{
	long id = strtab_intern(t, p, n, added);

	if (id >= 0) {
		e->w0 = w0;
		e->w1 = w1;
		e->n = (uint32_t)n;
		e->id = (int32_t)id;
	}
	return id;
}

/*
 * The id of @n bytes at @p in @t, through @kc (NULL: none); the 15 bytes
 * after them must be readable. *@added as strtab_intern(). -1 out of memory.
 * Inline and without a branch on the length (names of all lengths mix).
 */
static inline __attribute__((always_inline)) long
kc_intern(struct key_cache *kc, struct strtab *t, const char *p, size_t n, int *added)
{
	unsigned n0, n1;
	uint64_t w0, w1;
	struct kc_entry *e;

	if (!kc || n - 1 >= 16)
		return strtab_intern(t, p, n, added);
	n0 = n < 8 ? (unsigned)n : 8;
	n1 = (unsigned)n - n0;
	w0 = kc_load64(p) & (~0ULL >> (64 - 8 * n0));
	w1 = kc_load64(p + 8) & ((n1 ? ~0ULL : 0) >> ((64 - 8 * n1) & 63));
	e = &kc->e[((w0 ^ (w1 * 0x9e3779b97f4a7c15ULL) ^ n) * 0xff51afd7ed558ccdULL) >>
		   (64 - KC_BITS)];
	if (e->n == n && e->w0 == w0 && e->w1 == w1) {
		*added = 0;
		return e->id;
	}
	return kc_miss(e, t, p, n, w0, w1, added);
}

#endif /* ANALYZE_KEYCACHE_H */
