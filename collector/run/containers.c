// SPDX-License-Identifier: BSD-2-Clause
/* The container table: see containers.h. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/run/containers.h"

struct container *containers_find(struct container_table *t, unsigned long long cgid)
{
	struct container *k;

	if (t->last && t->last->cgid == cgid)
		return t->last;
	k = idmap_get(&t->index, cgid);
	if (k)
		t->last = k;
	return k;
}

struct container *containers_add(struct container_table *t, unsigned long long cgid,
				 struct container *top, const char *name)
{
	struct container *k = calloc(1, sizeof(*k));

	if (!k)
		return NULL;
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct container **v = realloc(t->v, cap * sizeof(*v));

		if (!v) {
			free(k);
			return NULL;
		}
		t->v = v;
		t->cap = cap;
	}
	k->cgid = cgid;
	k->top = top ? top : k;
	snprintf(k->name, sizeof(k->name), "%s", name ? name : "");
	if (idmap_put(&t->index, cgid, k) < 0) {
		free(k);
		return NULL;
	}
	t->v[t->n++] = k;
	return k;
}

struct container *containers_add_candidate(struct container_table *t, unsigned long long cgid,
					   struct candidate *cand)
{
	struct container *k = containers_add(t, cgid, NULL, NULL);

	if (!k) {
		free(cand);
		return NULL;
	}
	k->top = NULL;
	k->cand = cand;
	return k;
}

void containers_decide(struct container *k, struct container *top, const char *name)
{
	free(k->cand);
	k->cand = NULL;
	k->top = top ? top : k;
	if (!top)
		snprintf(k->name, sizeof(k->name), "%s", name);
}

void containers_remove(struct container_table *t, struct container *k)
{
	size_t i;

	if (idmap_get(&t->index, k->cgid) == k)
		idmap_del(&t->index, k->cgid);
	for (i = 0; i < t->n; i++) {
		if (t->v[i] == k) {
			if (t->last == k)
				t->last = NULL;
			/* order does not matter: the last one fills the hole */
			t->v[i] = t->v[--t->n];
			free(k->cand);
			free(k->names);
			free(k);
			return;
		}
	}
}

size_t containers_count_top(const struct container_table *t)
{
	size_t i, n = 0;

	for (i = 0; i < t->n; i++)
		n += t->v[i]->top == t->v[i];
	return n;
}

/* The key of name @s in t->names (containers.h: one hash a name) */
static __u64 name_hash(const char *s)
{
	return idmap_key_of(s, strlen(s));
}

/* How many times @name was given (the next #N is above), 0: never. */
static unsigned long name_uses(const struct container_table *t, const char *name)
{
	return (unsigned long)(uintptr_t)idmap_get(&t->names, name_hash(name));
}

/* Remember @name as given @uses times (an ENOMEM forgets it: it may then be given again). */
static void name_keep(struct container_table *t, const char *name, unsigned long uses)
{
	idmap_put(&t->names, name_hash(name), (void *)(uintptr_t)uses);
}

void containers_unique_name(struct container_table *t, const char *base, char *out, size_t n)
{
	unsigned long i, u = name_uses(t, base);

	if (!u) {
		snprintf(out, n, "%s", base);
		name_keep(t, base, 1);
		return;
	}
	/* "base#N": the next N whose name was not given (a cgroup may be called "web#2") */
	for (i = u + 1;; i++) {
		snprintf(out, n, "%s#%lu", base, i);
		if (!name_uses(t, out))
			break;
	}
	name_keep(t, base, i);
	name_keep(t, out, 1);
}

int containers_forget_names(struct container_table *t)
{
	size_t i;
	int err = 0;

	idmap_free(&t->names);
	for (i = 0; i < t->n; i++)
		if (t->v[i]->top == t->v[i] && !t->v[i]->cand &&
		    idmap_put(&t->names, name_hash(t->v[i]->name), (void *)(uintptr_t)1) < 0)
			err = -1;
	return err;
}

void containers_free(struct container_table *t)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		free(t->v[i]->cand);
		free(t->v[i]->names);
		free(t->v[i]);
	}
	free(t->v);
	idmap_free(&t->index);
	idmap_free(&t->names);
	memset(t, 0, sizeof(*t));
}
