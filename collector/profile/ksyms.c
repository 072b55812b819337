// SPDX-License-Identifier: BSD-2-Clause
/* The kernel's text symbols (ksyms.h): one array sorted by address, names in one block. */
#include <stdlib.h>
#include <string.h>

#include "collector/profile/ksyms.h"

struct ksym {
	uint64_t addr;
	size_t name;	/* offset in names */
};

struct ksyms {
	struct ksym *syms;
	size_t n, cap;
	char *names;
	size_t names_len, names_cap;
};

static int by_addr(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int add(struct ksyms *k, uint64_t addr, const char *name, size_t len)
{
	if (k->n == k->cap) {
		size_t cap = k->cap ? k->cap * 2 : 4096;
		struct ksym *s = realloc(k->syms, cap * sizeof(*s));

		if (!s)
			return -1;
		k->syms = s;
		k->cap = cap;
	}
	if (k->names_len + len + 1 > k->names_cap) {
		size_t cap = k->names_cap ? k->names_cap * 2 : 65536;
		char *s;

		while (cap < k->names_len + len + 1)
			cap *= 2;
		if (!(s = realloc(k->names, cap)))
			return -1;
		k->names = s;
		k->names_cap = cap;
	}
	memcpy(k->names + k->names_len, name, len);
	k->names[k->names_len + len] = '\0';
	k->syms[k->n++] = (struct ksym){ addr, k->names_len };
	k->names_len += len + 1;
	return 0;
}

struct ksyms *ksyms__load(FILE *f)
{
	struct ksyms *k = calloc(1, sizeof(*k));
	char line[512], type, *p;
	unsigned long long addr;
	size_t len;

	if (!k)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		addr = strtoull(line, &p, 16);
		if (p == line || *p != ' ' || !p[1] || p[2] != ' ')
			continue;
		type = p[1];
		if (!addr || !strchr("tTwW", type))
			continue;
		p += 3;
		len = strcspn(p, " \t\n");
		if (len && add(k, addr, p, len) < 0)
			break;	/* out of memory: the symbols so far */
	}
	if (k->n)	/* none with kptr_restrict: no qsort of NULL (UBSan) */
		qsort(k->syms, k->n, sizeof(*k->syms), by_addr);
	return k;
}

void ksyms__free(struct ksyms *k)
{
	if (!k)
		return;
	free(k->syms);
	free(k->names);
	free(k);
}

size_t ksyms_count(const struct ksyms *k)
{
	return k ? k->n : 0;
}

const char *ksyms_find(const struct ksyms *k, uint64_t addr, uint64_t *off)
{
	size_t lo = 0, hi;

	if (!k || !k->n || addr < k->syms[0].addr)
		return NULL;
	hi = k->n;
	/* the last symbol at or below addr */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->syms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	*off = addr - k->syms[lo].addr;
	return k->names + k->syms[lo].name;
}
