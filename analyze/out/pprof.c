// SPDX-License-Identifier: BSD-2-Clause
/* --format pprof: a boot's profiles as a pprof file (pprof.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "analyze/array.h"
#include "analyze/out/pprof.h"
#include "analyze/read/strtab.h"
#include "common/tsv.h"

/* profile.proto's field numbers */
enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_MAPPING = 3, PROFILE_LOCATION = 4, PROFILE_FUNCTION = 5,
	PROFILE_STRING_TABLE = 6, PROFILE_PERIOD_TYPE = 11, PROFILE_PERIOD = 12,
	PROFILE_DEFAULT_SAMPLE_TYPE = 14,
	VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT = 2,
	SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2, SAMPLE_LABEL = 3,
	LABEL_KEY = 1, LABEL_STR = 2,
	MAPPING_ID = 1, MAPPING_FILENAME = 5, MAPPING_HAS_FUNCTIONS = 7,
	LOCATION_ID = 1, LOCATION_MAPPING_ID = 2, LOCATION_LINE = 4,
	LINE_FUNCTION_ID = 1,
	FUNCTION_ID = 1, FUNCTION_NAME = 2, FUNCTION_SYSTEM_NAME = 3, FUNCTION_FILENAME = 4,
};

/* A protocol buffer being built; oom set once an allocation failed. */
struct pb {
	uint8_t *p;
	size_t n, cap;
	bool oom;
};

static void pb_put(struct pb *b, const void *s, size_t n)
{
	if (b->oom || array_grow((void **)&b->p, &b->cap, b->n + n, 1, 256) < 0) {
		b->oom = true;
		return;
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
}

static void pb_varint(struct pb *b, uint64_t v)
{
	uint8_t o[10];
	size_t n = 0;

	do {
		o[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	pb_put(b, o, n);
}

/* A varint field (wire type 0). */
static void pb_uint(struct pb *b, unsigned field, uint64_t v)
{
	pb_varint(b, (uint64_t)field << 3);
	pb_varint(b, v);
}

/* A length-delimited field (wire type 2): bytes, a string, a message. */
static void pb_bytes(struct pb *b, unsigned field, const void *s, size_t n)
{
	pb_varint(b, (uint64_t)field << 3 | 2);
	pb_varint(b, n);
	pb_put(b, s, n);
}

/* Message @m as field @field of @b; @m emptied. */
static void pb_msg(struct pb *b, unsigned field, struct pb *m)
{
	if (m->oom)
		b->oom = true;
	pb_bytes(b, field, m->p, m->n);
	m->n = 0;
}

struct pprof {
	struct pb out, m, sub;
	struct strtab *strs;	/* the string table: "" first */
	struct strtab *fns;	/* "name\0module" -> function id - 1 */
	bool oom;
};

/* The string table's index of @n bytes at @s. */
static uint64_t str_ix(struct pprof *pp, const char *s, size_t n)
{
	long k = strtab_intern(pp->strs, s, n, NULL);

	if (k < 0) {
		pp->oom = true;
		return 0;
	}
	return (uint64_t)k;
}

static uint64_t cstr_ix(struct pprof *pp, const char *s)
{
	return str_ix(pp, s, strlen(s));
}

/* The pprof function (and location: the same id) of @p's function @fn. */
static uint64_t fn_ix(struct pprof *pp, const struct profile *p, uint32_t fn)
{
	const char *name = profile_fn_name(p, fn), *mod = profile_fn_module(p, fn);
	size_t ln = strlen(name), lm = strlen(mod);
	char *key = malloc(ln + lm + 2);
	int added;
	long k;

	if (!key) {
		pp->oom = true;
		return 0;
	}
	memcpy(key, name, ln + 1);
	memcpy(key + ln + 1, mod, lm + 1);
	k = strtab_intern(pp->fns, key, ln + lm + 1, &added);
	free(key);
	if (k < 0) {
		pp->oom = true;
		return 0;
	}
	return (uint64_t)k + 1;
}

/* A label: @key = @val (@n bytes, raw), into pp->sub, then into pp->m. */
static void label(struct pprof *pp, const char *key, const char *val, size_t n)
{
	pb_uint(&pp->sub, LABEL_KEY, cstr_ix(pp, key));
	pb_uint(&pp->sub, LABEL_STR, str_ix(pp, val, n));
	pb_msg(&pp->m, SAMPLE_LABEL, &pp->sub);
}

/* An escaped timeline string's raw bytes as a label. */
static void label_esc(struct pprof *pp, const char *key, const char *esc)
{
	char *raw = malloc(strlen(esc) + 1);
	long n = raw ? tsv_unescape(esc, strlen(esc), raw) : -1;

	if (!raw)
		pp->oom = true;
	else
		label(pp, key, raw, n < 0 ? 0 : (size_t)n);
	free(raw);
}

/* The samples of @p (value index @vi of 2), one per folded stack of each container. */
static void samples(struct pprof *pp, const struct profile *p, int vi)
{
	const struct tl_span *spans[PROFILE_SPANS_MAX];
	char sn[1024];
	size_t i, k, j;

	for (i = 0; p && i < p->nctrs; i++) {
		const struct prof_ctr *pc = &p->ctrs[i];
		const char *cname = timeline_str(p->tl, p->tl->ctrs[pc->ctr].name);
		/* ns per count: the average period (cpu), a microsecond (offcpu) */
		double unit = pc->samples ? (double)pc->cpu_ns / (double)pc->samples : 0;

		for (k = 0; k < pc->nfolded; k++) {
			const struct prof_folded *fo = &pc->folded[k];
			const struct prof_stack *s = profile_stack(p, fo->stack);
			size_t ns = profile_folded_spans(fo, spans);
			uint64_t v = (uint64_t)((double)fo->count * unit + 0.5);

			for (j = 0; j < s->n; j++)
				pb_uint(&pp->m, SAMPLE_LOCATION_ID, fn_ix(pp, p, s->fns[j]));
			pb_uint(&pp->m, SAMPLE_VALUE, vi == 0 ? v : 0);
			pb_uint(&pp->m, SAMPLE_VALUE, vi == 1 ? v : 0);
			label_esc(pp, "container", cname);
			label_esc(pp, "comm", timeline_str(p->tl, fo->comm));
			if (ns)
				label(pp, "span", sn, profile_span_name(p, spans[ns - 1], sn, sizeof(sn)));
			pb_msg(&pp->out, PROFILE_SAMPLE, &pp->m);
		}
	}
}

/* The functions and their locations: every function the samples named. */
static void functions(struct pprof *pp)
{
	size_t i, n = strtab_count(pp->fns), len;

	for (i = 0; i < n; i++) {
		const char *key = strtab_str(pp->fns, i, &len);
		size_t ln = strlen(key);
		const char *mod = key + ln + 1;
		uint64_t name = str_ix(pp, key, ln);

		pb_uint(&pp->m, FUNCTION_ID, i + 1);
		pb_uint(&pp->m, FUNCTION_NAME, name);
		pb_uint(&pp->m, FUNCTION_SYSTEM_NAME, name);
		pb_uint(&pp->m, FUNCTION_FILENAME, str_ix(pp, mod, len - ln - 1));
		pb_msg(&pp->out, PROFILE_FUNCTION, &pp->m);
		pb_uint(&pp->sub, LINE_FUNCTION_ID, i + 1);
		pb_uint(&pp->m, LOCATION_ID, i + 1);
		pb_uint(&pp->m, LOCATION_MAPPING_ID, 1);
		pb_msg(&pp->m, LOCATION_LINE, &pp->sub);
		pb_msg(&pp->out, PROFILE_LOCATION, &pp->m);
	}
}

/* A value type {@type, @unit} as field @field. */
static void value_type(struct pprof *pp, unsigned field, const char *type, const char *unit)
{
	pb_uint(&pp->m, VALUE_TYPE_TYPE, cstr_ix(pp, type));
	pb_uint(&pp->m, VALUE_TYPE_UNIT, cstr_ix(pp, unit));
	pb_msg(&pp->out, field, &pp->m);
}

/* @n bytes at @p gzipped to @f. 0, or -1. */
static int gzip_to(FILE *f, const uint8_t *p, size_t n)
{
	z_stream z = { 0 };
	uint8_t buf[65536];
	int rc;

	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		errno = ENOMEM;
		return -1;
	}
	z.next_in = (uint8_t *)p;
	z.avail_in = (uInt)n;
	do {
		z.next_out = buf;
		z.avail_out = sizeof(buf);
		rc = deflate(&z, Z_FINISH);
		if (rc == Z_STREAM_ERROR ||
		    fwrite(buf, 1, sizeof(buf) - z.avail_out, f) != sizeof(buf) - z.avail_out) {
			deflateEnd(&z);
			return -1;
		}
	} while (rc != Z_STREAM_END);
	deflateEnd(&z);
	return 0;
}

int pprof_write(FILE *f, const struct profile *cpu, const struct profile *offcpu)
{
	struct pprof pp = { 0 };
	size_t i, n, len;
	uint64_t period = 0;
	int rc = -1;

	pp.strs = strtab__new();
	pp.fns = strtab__new();
	if (!pp.strs || !pp.fns || strtab_intern(pp.strs, "", 0, NULL) != 0)
		goto oom;
	value_type(&pp, PROFILE_SAMPLE_TYPE, "cpu", "nanoseconds");
	value_type(&pp, PROFILE_SAMPLE_TYPE, "offcpu", "nanoseconds");
	samples(&pp, cpu, 0);
	samples(&pp, offcpu, 1);
	/* one mapping, its functions named already: the files are the functions' modules */
	pb_uint(&pp.m, MAPPING_ID, 1);
	pb_uint(&pp.m, MAPPING_FILENAME, cstr_ix(&pp, "boot"));
	pb_uint(&pp.m, MAPPING_HAS_FUNCTIONS, 1);
	pb_msg(&pp.out, PROFILE_MAPPING, &pp.m);
	functions(&pp);
	value_type(&pp, PROFILE_PERIOD_TYPE, "cpu", "nanoseconds");
	if (cpu && cpu->all.samples)
		period = cpu->all.cpu_ns / cpu->all.samples;
	pb_uint(&pp.out, PROFILE_PERIOD, period);
	/* the string table last: every index above is in it */
	n = strtab_count(pp.strs);
	for (i = 0; i < n; i++) {
		const char *s = strtab_str(pp.strs, i, &len);

		pb_bytes(&pp.out, PROFILE_STRING_TABLE, s, len);
	}
	/* default_sample_type: an index into the string table, put after it (any order reads) */
	pb_uint(&pp.out, PROFILE_DEFAULT_SAMPLE_TYPE,
		cstr_ix(&pp, cpu && cpu->any ? "cpu" : "offcpu"));
	if (pp.oom || pp.out.oom || pp.m.oom || pp.sub.oom)
		goto oom;
	rc = gzip_to(f, pp.out.p, pp.out.n);
	goto out;
oom:
	errno = ENOMEM;
out:
	free(pp.out.p);
	free(pp.m.p);
	free(pp.sub.p);
	strtab__free(pp.strs);
	strtab__free(pp.fns);
	return rc;
}
