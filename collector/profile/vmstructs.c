// SPDX-License-Identifier: BSD-2-Clause
/* HotSpot's VMStructs tables, read from a live JVM (vmstructs.h). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/profile/vmstructs.h"

struct vms_entry {
	size_t type, field, tstr;	/* offsets in strs; tstr 0: no type string */
	int is_static;
	uint64_t value;			/* the offset, or a static field's address */
};

struct vms_type {
	size_t name;
	uint64_t size;
};

struct vms_const {
	size_t name;
	int64_t value;
};

struct vms {
	struct vms_entry *s;
	struct vms_type *t;
	struct vms_const *c;
	size_t ns, nt, nc;
	size_t cap_s, cap_t, cap_c;
	char *strs;			/* NUL-terminated names; offset 0 is "" */
	size_t slen, scap;
};

/*
 * The names are in libjvm's .rodata, a few hundred KiB: read a page at a
 * time and kept, so 2,000 entries' 4,000 names cost a few dozen reads,
 * not 4,000 (a process_vm_readv() each).
 */
#define PAGE 4096u
#define PAGES 64u

struct reader {
	const struct vms_source *src;
	uint64_t addr[PAGES];		/* the page each slot holds, +1 (0: none) */
	unsigned char data[PAGES][PAGE];
};

/* @n bytes at @addr through the page cache: 0, or -1. */
static int cread(struct reader *r, uint64_t addr, void *buf, size_t n)
{
	unsigned char *out = buf;

	while (n) {
		uint64_t page = addr & ~(uint64_t)(PAGE - 1);
		size_t slot = (size_t)(page / PAGE) % PAGES, at = (size_t)(addr - page),
		       len = PAGE - at < n ? PAGE - at : n;

		if (r->addr[slot] != page + 1) {
			if (r->src->read(r->src->ctx, page, r->data[slot], PAGE) < 0) {
				/* the last page of a mapping may be short: exactly what is asked */
				r->addr[slot] = 0;
				return r->src->read(r->src->ctx, addr, out, n);
			}
			r->addr[slot] = page + 1;
		}
		memcpy(out, r->data[slot] + at, len);
		out += len;
		addr += len;
		n -= len;
	}
	return 0;
}

/* A name of at most 255 bytes at @addr into @v's strings: its offset (0 for ""), or -1. */
static long add_str(struct vms *v, struct reader *r, uint64_t addr)
{
	char s[256];
	size_t i;

	for (i = 0; i < sizeof(s); i++) {
		if (cread(r, addr + i, &s[i], 1) < 0)
			return -1;
		if (!s[i])
			break;
	}
	if (i == sizeof(s))
		return -1;
	if (!i)
		return 0;
	if (v->slen + i + 1 > v->scap) {
		size_t cap = v->scap ? v->scap * 2 : 65536;
		char *p = realloc(v->strs, cap);

		if (!p)
			return -1;
		v->strs = p;
		v->scap = cap;
	}
	memcpy(v->strs + v->slen, s, i + 1);
	v->slen += i + 1;
	return (long)(v->slen - i - 1);
}

static int sym_u64(const struct vms_source *src, const char *name, uint64_t *val)
{
	uint64_t a;

	return src->symbol(src->ctx, name, &a) < 0 || src->read(src->ctx, a, val, sizeof(*val)) < 0 ?
		       -1 : 0;
}

static int grow(void **p, size_t *cap, size_t n, size_t size)
{
	void *q;

	if (n < *cap)
		return 0;
	*cap = *cap ? *cap * 2 : 256;
	if (!(q = realloc(*p, *cap * size)))
		return -1;
	*p = q;
	return 0;
}

static uint64_t u64_at(const unsigned char *b, uint64_t off)
{
	uint64_t v;

	memcpy(&v, b + off, sizeof(v));
	return v;
}

static int32_t s32_at(const unsigned char *b, uint64_t off)
{
	int32_t v;

	memcpy(&v, b + off, sizeof(v));
	return v;
}

/* The layout of one table: its address, its stride, its fields' offsets (names[i]). */
struct table {
	const char *array;	/* the symbol whose value is the array's address */
	const char *stride;
	const char *fields[6];	/* offset symbols; the first is the entry's name */
	uint64_t at, step, off[6];
	size_t nfields;
};

static int table_layout(const struct vms_source *src, struct table *t, char *err, size_t n)
{
	size_t i;

	if (sym_u64(src, t->array, &t->at) < 0 || sym_u64(src, t->stride, &t->step) < 0) {
		snprintf(err, n, "no %s in libjvm.so", t->array);
		return -1;
	}
	if (!t->step) {		/* libjvm mapped, its initializers not run yet */
		snprintf(err, n, "%s not filled yet", t->stride);
		return VMS_NOT_YET;
	}
	for (i = 0; i < t->nfields; i++)
		if (sym_u64(src, t->fields[i], &t->off[i]) < 0) {
			snprintf(err, n, "no %s in libjvm.so", t->fields[i]);
			return -1;
		}
	for (i = 0; i < t->nfields; i++)
		if (t->off[i] + 8 > t->step || t->step > 256 || !t->at) {
			snprintf(err, n, "%s: a bad layout", t->array);
			return -1;
		}
	return 0;
}

/*
 * Read table @t's entries, calling @add with each (its bytes) until the
 * one whose name is NULL. 0, or -1 with @err.
 */
static int table_read(struct vms *v, struct reader *r, const struct table *t,
		      int (*add)(struct vms *, struct reader *, const struct table *,
				 const unsigned char *),
		      char *err, size_t n)
{
	unsigned char e[256];
	size_t i;

	for (i = 0; i < VMS_MAX_ENTRIES; i++) {
		if (r->src->read(r->src->ctx, t->at + i * t->step, e, t->step) < 0) {
			snprintf(err, n, "%s: cannot read entry %zu", t->array, i);
			return -1;
		}
		if (!u64_at(e, t->off[0]))
			return 0;
		if (add(v, r, t, e) < 0) {
			snprintf(err, n, "%s: entry %zu: a name cannot be read", t->array, i);
			return -1;
		}
	}
	snprintf(err, n, "%s: more than %d entries", t->array, VMS_MAX_ENTRIES);
	return -1;
}

static int add_struct(struct vms *v, struct reader *r, const struct table *t,
		      const unsigned char *e)
{
	struct vms_entry *x;
	long ty, fi, ts = 0;

	if (grow((void **)&v->s, &v->cap_s, v->ns, sizeof(*v->s)) < 0 ||
	    (ty = add_str(v, r, u64_at(e, t->off[0]))) < 0 ||
	    (fi = add_str(v, r, u64_at(e, t->off[1]))) < 0 ||
	    (u64_at(e, t->off[2]) && (ts = add_str(v, r, u64_at(e, t->off[2]))) < 0))
		return -1;
	x = &v->s[v->ns++];
	x->type = (size_t)ty;
	x->field = (size_t)fi;
	x->tstr = (size_t)ts;
	x->is_static = s32_at(e, t->off[3]) != 0;
	x->value = u64_at(e, x->is_static ? t->off[5] : t->off[4]);
	return 0;
}

static int add_type(struct vms *v, struct reader *r, const struct table *t, const unsigned char *e)
{
	long ty;

	if (grow((void **)&v->t, &v->cap_t, v->nt, sizeof(*v->t)) < 0 ||
	    (ty = add_str(v, r, u64_at(e, t->off[0]))) < 0)
		return -1;
	v->t[v->nt++] = (struct vms_type){ (size_t)ty, u64_at(e, t->off[1]) };
	return 0;
}

static int add_int(struct vms *v, struct reader *r, const struct table *t, const unsigned char *e)
{
	long na;

	if (grow((void **)&v->c, &v->cap_c, v->nc, sizeof(*v->c)) < 0 ||
	    (na = add_str(v, r, u64_at(e, t->off[0]))) < 0)
		return -1;
	v->c[v->nc++] = (struct vms_const){ (size_t)na, s32_at(e, t->off[1]) };
	return 0;
}

static int add_long(struct vms *v, struct reader *r, const struct table *t, const unsigned char *e)
{
	long na;

	if (grow((void **)&v->c, &v->cap_c, v->nc, sizeof(*v->c)) < 0 ||
	    (na = add_str(v, r, u64_at(e, t->off[0]))) < 0)
		return -1;
	v->c[v->nc++] = (struct vms_const){ (size_t)na, (int64_t)u64_at(e, t->off[1]) };
	return 0;
}

struct vms *vms__load(const struct vms_source *src, bool *early, char *err, size_t n)
{
	struct table ts = { "gHotSpotVMStructs", "gHotSpotVMStructEntryArrayStride",
			    { "gHotSpotVMStructEntryTypeNameOffset", "gHotSpotVMStructEntryFieldNameOffset",
			      "gHotSpotVMStructEntryTypeStringOffset", "gHotSpotVMStructEntryIsStaticOffset",
			      "gHotSpotVMStructEntryOffsetOffset", "gHotSpotVMStructEntryAddressOffset" },
			    0, 0, { 0 }, 6 };
	struct table tt = { "gHotSpotVMTypes", "gHotSpotVMTypeEntryArrayStride",
			    { "gHotSpotVMTypeEntryTypeNameOffset", "gHotSpotVMTypeEntrySizeOffset" },
			    0, 0, { 0 }, 2 };
	struct table ti = { "gHotSpotVMIntConstants", "gHotSpotVMIntConstantEntryArrayStride",
			    { "gHotSpotVMIntConstantEntryNameOffset",
			      "gHotSpotVMIntConstantEntryValueOffset" }, 0, 0, { 0 }, 2 };
	struct table tl = { "gHotSpotVMLongConstants", "gHotSpotVMLongConstantEntryArrayStride",
			    { "gHotSpotVMLongConstantEntryNameOffset",
			      "gHotSpotVMLongConstantEntryValueOffset" }, 0, 0, { 0 }, 2 };
	struct vms *v = calloc(1, sizeof(*v));
	struct reader *r = calloc(1, sizeof(*r));

	*early = false;
	if (!v || !r) {
		snprintf(err, n, "out of memory");
		goto fail;
	}
	r->src = src;
	/* offset 0 of the strings: "" */
	if (!(v->strs = malloc(65536))) {
		snprintf(err, n, "out of memory");
		goto fail;
	}
	v->scap = 65536;
	v->strs[0] = '\0';
	v->slen = 1;
	if ((*early = table_layout(src, &ts, err, n) == VMS_NOT_YET) ||
	    table_layout(src, &ts, err, n) || table_layout(src, &tt, err, n) ||
	    table_layout(src, &ti, err, n) || table_layout(src, &tl, err, n) ||
	    table_read(v, r, &ts, add_struct, err, n) < 0 ||
	    table_read(v, r, &tt, add_type, err, n) < 0 ||
	    table_read(v, r, &ti, add_int, err, n) < 0 ||
	    table_read(v, r, &tl, add_long, err, n) < 0)
		goto fail;
	free(r);
	return v;
fail:
	free(r);
	vms__free(v);
	return NULL;
}

void vms__free(struct vms *v)
{
	if (!v)
		return;
	free(v->s);
	free(v->t);
	free(v->c);
	free(v->strs);
	free(v);
}

static const struct vms_entry *find(const struct vms *v, const char *type, const char *field,
				    int is_static)
{
	size_t i;

	for (i = 0; i < v->ns; i++)
		if (v->s[i].is_static == is_static && !strcmp(v->strs + v->s[i].type, type) &&
		    !strcmp(v->strs + v->s[i].field, field))
			return &v->s[i];
	return NULL;
}

int vms_offset(const struct vms *v, const char *type, const char *field, uint64_t *off)
{
	const struct vms_entry *x = find(v, type, field, 0);

	if (!x)
		return -1;
	*off = x->value;
	return 0;
}

int vms_address(const struct vms *v, const char *type, const char *field, uint64_t *addr)
{
	const struct vms_entry *x = find(v, type, field, 1);

	if (!x)
		return -1;
	*addr = x->value;
	return 0;
}

const char *vms_field_type(const struct vms *v, const char *type, const char *field)
{
	const struct vms_entry *x = find(v, type, field, 0);

	if (!x)
		x = find(v, type, field, 1);
	return x && x->tstr ? v->strs + x->tstr : NULL;
}

int vms_type_size(const struct vms *v, const char *type, uint64_t *size)
{
	size_t i;

	for (i = 0; i < v->nt; i++)
		if (!strcmp(v->strs + v->t[i].name, type)) {
			*size = v->t[i].size;
			return 0;
		}
	return -1;
}

int vms_constant(const struct vms *v, const char *name, int64_t *val)
{
	size_t i;

	for (i = 0; i < v->nc; i++)
		if (!strcmp(v->strs + v->c[i].name, name)) {
			*val = v->c[i].value;
			return 0;
		}
	return -1;
}
