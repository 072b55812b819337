// SPDX-License-Identifier: BSD-2-Clause
/* The container table: see containers.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/containers.h"

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

static struct name_use *name_find(struct container_table *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->nnames; i++)
		if (strcmp(t->names[i].name, name) == 0)
			return &t->names[i];
	return NULL;
}

/* Remember @name as given; 0, or -1 on ENOMEM (it may then be given again). */
static int name_keep(struct container_table *t, const char *name)
{
	struct name_use *u = realloc(t->names, (t->nnames + 1) * sizeof(*u));

	if (!u)
		return -1;
	t->names = u;
	t->names[t->nnames].name = strdup(name);
	if (!t->names[t->nnames].name)
		return -1;
	t->names[t->nnames++].uses = 1;
	return 0;
}

void containers_unique_name(struct container_table *t, const char *base, char *out, size_t n)
{
	struct name_use *u = name_find(t, base);
	unsigned int i;

	if (!u) {
		snprintf(out, n, "%s", base);
		name_keep(t, base);
		return;
	}
	/* "base#N": the next N whose name was not given (a cgroup may be called "web#2") */
	for (i = u->uses + 1;; i++) {
		snprintf(out, n, "%s#%u", base, i);
		if (!name_find(t, out))
			break;
	}
	u->uses = i;
	name_keep(t, out);
}

void containers_free(struct container_table *t)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		free(t->v[i]->cand);
		free(t->v[i]);
	}
	free(t->v);
	idmap_free(&t->index);
	for (i = 0; i < t->nnames; i++)
		free(t->names[i].name);
	free(t->names);
	memset(t, 0, sizeof(*t));
}
