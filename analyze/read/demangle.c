// SPDX-License-Identifier: BSD-2-Clause
/* C++ names demangled once each, with libstdc++'s __cxa_demangle() (demangle.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/array.h"
#include "analyze/read/demangle.h"
#include "analyze/read/strtab.h"

/* libstdc++'s (the Itanium C++ ABI's), declared here: analyze is C. */
extern char *__cxa_demangle(const char *mangled, char *out, size_t *len, int *status);

struct demangler {
	struct strtab *keys;	/* mangled names -> id */
	char **out;		/* per id: the demangled name, or NULL (not one) */
	size_t out_cap;
};

struct demangler *demangler__new(void)
{
	struct demangler *d = calloc(1, sizeof(*d));

	if (d && !(d->keys = strtab__new())) {
		free(d);
		return NULL;
	}
	return d;
}

void demangler__free(struct demangler *d)
{
	size_t i, n;

	if (!d)
		return;
	n = strtab_count(d->keys);
	for (i = 0; i < n && i < d->out_cap; i++)
		free(d->out[i]);
	free(d->out);
	strtab__free(d->keys);
	free(d);
}

int demangle_ok(const char *name, size_t n)
{
	size_t i;

	if (n < 3 || n > DEMANGLE_IN_MAX || name[0] != '_' || name[1] != 'Z')
		return 0;
	for (i = 2; i < n; i++) {
		unsigned char c = (unsigned char)name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '.' || c == '$'))
			return 0;
	}
	return 1;
}

/* @name demangled, malloc'd, or NULL when it is no name to show demangled. */
static char *run(const char *name)
{
	int status = -1;
	char *r = __cxa_demangle(name, NULL, NULL, &status);
	size_t i, n;

	if (!r || status != 0) {
		free(r);
		return NULL;
	}
	n = strlen(r);
	for (i = 0; i < n && (unsigned char)r[i] >= 0x20; i++)
		;
	if (!n || n > DEMANGLE_OUT_MAX || i < n) {
		free(r);
		return NULL;
	}
	return r;
}

const char *demangle(struct demangler *d, const char *name)
{
	size_t n = strlen(name), old;
	int added;
	long id;

	if (!demangle_ok(name, n))
		return name;
	id = strtab_intern(d->keys, name, n, &added);
	if (id < 0)
		return name;
	if (added) {
		old = d->out_cap;
		if (array_grow((void **)&d->out, &d->out_cap, (size_t)id + 1, sizeof(*d->out),
			       64) < 0)
			return name;	/* its slot stays unset: asked again, kept as is */
		memset(d->out + old, 0, (d->out_cap - old) * sizeof(*d->out));
		d->out[id] = run(name);
	}
	if ((size_t)id >= d->out_cap || !d->out[id])
		return name;
	return d->out[id];
}
