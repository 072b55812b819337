// SPDX-License-Identifier: BSD-2-Clause
/* The node processes the sampling program walks, and their JS frames' names (v8.h). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "collector/idmap.h"
#include "collector/kernel/elf.h"
#include "collector/profile/v8.h"

/* What the walker and the naming read: v8dbg_* values (all ints). */
struct v8_layout {
	int fp_function, fp_context;
	int obj_map, map_type;
	int fn_shared;
	int sfi_name, sfi_script, sfi_data;
	int script_name, script_source;
	int str_length, seq1_chars, seq2_chars;
	int cons_first, cons_second, sliced_parent, sliced_offset, thin_actual;
	int ud_start;
	int t_function, t_sfi, t_script, t_scope, first_nonstring;
	int tag_cons, tag_sliced, tag_thin, tag_one_byte;
	int smi_shift;
	int si_ncontextlocals, si_first_vars;
	int fn_type_hi;				/* the last JSFunction type: the next type - 1 */
	int t_ud[4];				/* UncompiledData's types */
	unsigned nud;
};

/* The v8dbg_* symbols read, and where each goes. */
static const struct {
	const char *name;
	size_t off;
} v8_syms[] = {
#define S(sym, field) { "v8dbg_" sym, offsetof(struct v8_layout, field) }
	S("off_fp_function", fp_function),
	S("off_fp_context", fp_context),
	S("class_HeapObject__map__Map", obj_map),
	S("class_Map__instance_type__uint16_t", map_type),
	S("class_JSFunction__shared__SharedFunctionInfo", fn_shared),
	S("class_SharedFunctionInfo__name_or_scope_info__Object", sfi_name),
	S("class_SharedFunctionInfo__script_or_debug_info__HeapObject", sfi_script),
	S("class_SharedFunctionInfo__function_data__Object", sfi_data),
	S("class_Script__name__Object", script_name),
	S("class_Script__source__Object", script_source),
	S("class_String__length__int32_t", str_length),
	S("class_SeqOneByteString__chars__char", seq1_chars),
	S("class_SeqTwoByteString__chars__char", seq2_chars),
	S("class_ConsString__first__String", cons_first),
	S("class_ConsString__second__String", cons_second),
	S("class_SlicedString__parent__String", sliced_parent),
	S("class_SlicedString__offset__SMI", sliced_offset),
	S("class_ThinString__actual__String", thin_actual),
	S("class_UncompiledData__start_position__int32_t", ud_start),
	S("type_JSFunction__JS_FUNCTION_TYPE", t_function),
	S("type_SharedFunctionInfo__SHARED_FUNCTION_INFO_TYPE", t_sfi),
	S("type_Script__SCRIPT_TYPE", t_script),
	S("type_ScopeInfo__SCOPE_INFO_TYPE", t_scope),
	S("FirstNonstringType", first_nonstring),
	S("ConsStringTag", tag_cons),
	S("SlicedStringTag", tag_sliced),
	S("ThinStringTag", tag_thin),
	S("OneByteStringTag", tag_one_byte),
	S("SmiShiftSize", smi_shift),
	S("scopeinfo_idx_ncontextlocals", si_ncontextlocals),
	S("scopeinfo_idx_first_vars", si_first_vars),
#undef S
};
#define V8_NSYMS (sizeof(v8_syms) / sizeof(v8_syms[0]))

struct v8_fn {
	uint64_t map, name, script;	/* the SharedFunctionInfo's, when its text was made */
	char *text;			/* `j:LEN:...` */
};

struct v8_script {
	uint64_t source;		/* the source string it was read from */
	uint32_t *nl;			/* the positions of its newlines */
	size_t nnl;
	bool read;			/* the source was read (else no lines) */
};

struct v8proc {
	struct v8_layout l;
	struct idmap fns;		/* SharedFunctionInfo -> struct v8_fn */
	struct idmap last;		/* JSFunction -> the SharedFunctionInfo it had when last read */
	struct idmap scripts;		/* Script -> struct v8_script */
	size_t nfns;
};

struct v8 {
	struct idmap procs;		/* pid -> struct v8proc */
	char why[160];
};

/* Texts kept per process at most; past that, forgotten and read again. */
#define V8_CACHE_MAX 65536
#define V8_NAME_MAX 512
#define V8_SOURCE_MAX (16u << 20)	/* a script's source read at most, bytes */
#define V8_STR_DEPTH 16			/* cons and sliced strings followed at most */
#define V8_INLINED_LOCALS 75		/* kScopeInfoMaxInlinedLocalNamesSize */
#define V8_MODULE_SCOPE 3		/* ScopeType::MODULE_SCOPE, the ScopeInfo flags' low 4 bits */

struct v8 *v8__new(void)
{
	return calloc(1, sizeof(struct v8));
}

static void caches_free(struct v8proc *p)
{
	size_t i;
	struct v8_fn *f;
	struct v8_script *s;

	for (i = 0; i < p->fns.cap; i++)
		if ((f = p->fns.slots[i].val)) {
			free(f->text);
			free(f);
		}
	for (i = 0; i < p->scripts.cap; i++)
		if ((s = p->scripts.slots[i].val)) {
			free(s->nl);
			free(s);
		}
	idmap_free(&p->fns);
	idmap_free(&p->last);
	idmap_free(&p->scripts);
	p->nfns = 0;
}

void v8__free(struct v8 *v)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; i < v->procs.cap; i++)
		if (v->procs.slots[i].val) {
			caches_free(v->procs.slots[i].val);
			free(v->procs.slots[i].val);
		}
	idmap_free(&v->procs);
	free(v);
}

void v8_forget(struct v8 *v, pid_t pid)
{
	struct v8proc *p = v && pid > 0 ? idmap_get(&v->procs, (__u64)pid) : NULL;

	if (!p)
		return;
	idmap_del(&v->procs, (__u64)pid);
	caches_free(p);
	free(p);
}

/* @n bytes of @pid's memory at @addr: 0, or -1. */
static int peek(pid_t pid, uint64_t addr, void *buf, size_t n)
{
	struct iovec local = { buf, n }, remote = { (void *)(uintptr_t)addr, n };

	return addr && process_vm_readv(pid, &local, 1, &remote, 1, 0) == (ssize_t)n ? 0 : -1;
}

/* --- registering --------------------------------------------------------------- */

struct sym_read {
	pid_t pid;
	uint64_t bias;
	struct v8_layout *l;
	bool have[V8_NSYMS];
	int types[1024];		/* v8dbg_type_* values: where the JSFunction types end */
	size_t ntypes;
};

static int sym_read(const char *name, unsigned long long vaddr, unsigned long long size,
		    void *arg)
{
	struct sym_read *r = arg;
	int32_t val = 0;
	size_t i;

	if (size != sizeof(val) || peek(r->pid, r->bias + vaddr, &val, sizeof(val)) < 0)
		return 0;
	for (i = 0; i < V8_NSYMS; i++)
		if (!strcmp(name, v8_syms[i].name)) {
			memcpy((char *)r->l + v8_syms[i].off, &val, sizeof(val));
			r->have[i] = true;
		}
	if (!strncmp(name, "v8dbg_type_UncompiledData", 25) && r->l->nud < 4)
		r->l->t_ud[r->l->nud++] = val;
	if (!strncmp(name, "v8dbg_type_", 11) && r->ntypes < sizeof(r->types) / sizeof(r->types[0]))
		r->types[r->ntypes++] = val;
	return 0;
}

int v8_register(struct v8 *v, pid_t pid, const char *file, uint64_t bias,
		struct bt_interp_proc *proc, const char **why)
{
	struct sym_read *r = calloc(1, sizeof(*r));
	struct v8proc *p = calloc(1, sizeof(*p));
	size_t i;
	int hi = 0;

	*why = "out of memory";
	if (!v || !r || !p)
		goto fail;
	r->pid = pid;
	r->bias = bias;
	r->l = &p->l;
	*why = "its file has no v8dbg_* symbols";
	if (elf_symbols(file, "v8dbg_", sym_read, r) < 0)
		goto fail;
	for (i = 0; i < V8_NSYMS; i++)
		if (!r->have[i]) {
			snprintf(v->why, sizeof(v->why), "no %s (or not readable)", v8_syms[i].name);
			*why = v->why;
			goto fail;
		}
	for (i = 0; i < r->ntypes; i++)
		if (r->types[i] > p->l.t_function && (!hi || r->types[i] < hi))
			hi = r->types[i];
	/* the JSFunction types (class constructors, ...) follow JS_FUNCTION_TYPE up to the next named */
	p->l.fn_type_hi = hi && hi - p->l.t_function <= 64 ? hi - 1 : p->l.t_function;
	*why = "its v8dbg_* values are not ones the walker reads (not x86-64's, or compressed pointers)";
	/* the walker reads the two words below a frame's fp (bpf/v8.bpf.h) */
	if (p->l.smi_shift != 31 || p->l.fp_function < -16 || p->l.fp_function >= 0 ||
	    p->l.fp_context < -16 || p->l.fp_context >= 0 || p->l.fp_function % 8 ||
	    p->l.fp_context % 8 || p->l.fp_function == p->l.fp_context ||
	    p->l.map_type < 0 || p->l.map_type > 256 || p->l.obj_map < 0 || p->l.obj_map > 256)
		goto fail;
	memset(proc, 0, sizeof(*proc));
	proc->kind = BT_INTERP_V8;
	proc->fp_function = (__s16)p->l.fp_function;
	proc->fp_context = (__s16)p->l.fp_context;
	proc->obj_map = (__u16)p->l.obj_map;
	proc->map_type = (__u16)p->l.map_type;
	proc->fn_type_lo = (__u16)p->l.t_function;
	proc->fn_type_hi = (__u16)p->l.fn_type_hi;
	v8_forget(v, pid);
	if (idmap_put(&v->procs, (__u64)pid, p) < 0) {
		*why = "out of memory";
		goto fail;
	}
	free(r);
	return 0;
fail:
	free(r);
	free(p);
	return -1;
}

/* --- naming ---------------------------------------------------------------------- */

static uint64_t u64_at(const unsigned char *b, int off)
{
	uint64_t v;

	memcpy(&v, b + off, sizeof(v));
	return v;
}

static int64_t smi(const struct v8_layout *l, uint64_t v)
{
	return (int64_t)v >> (l->smi_shift + 1);
}

static bool heap_object(uint64_t v)
{
	return (v & 3) == 1;
}

/* The instance type of tagged heap object @o, *@map its map: 0, or -1. */
static int type_of(const struct v8proc *p, pid_t pid, uint64_t o, uint64_t *map, int *type)
{
	uint16_t t;

	if (!heap_object(o) || peek(pid, o - 1 + p->l.obj_map, map, sizeof(*map)) < 0 ||
	    !heap_object(*map) || peek(pid, *map - 1 + p->l.map_type, &t, sizeof(t)) < 0)
		return -1;
	*type = t;
	return 0;
}

/* A growing buffer of a string's bytes. */
struct sbuf {
	char *b;
	size_t len, cap, max;
	bool utf8;			/* one-byte strings' Latin-1 as UTF-8 (a name's) */
};

/* Room in @s for @n bytes more: 0, or -1. */
static int sbuf_grow(struct sbuf *s, size_t n)
{
	size_t cap = s->cap ? s->cap : 256;
	char *nb;

	if (s->len + n <= s->cap)
		return 0;
	while (cap < s->len + n)
		cap *= 2;
	if (!(nb = realloc(s->b, cap)))
		return -1;
	s->b = nb;
	s->cap = cap;
	return 0;
}

static int sbuf_put(struct sbuf *s, const char *b, size_t n)
{
	if (n > s->max - s->len)
		return 0;		/* full: cut at a character */
	if (sbuf_grow(s, n) < 0)
		return -1;
	memcpy(s->b + s->len, b, n);
	s->len += n;
	return 0;
}

/*
 * Characters [@from, @from + @n) of V8 string @o of @pid appended to @s
 * (two-byte ones as UTF-8), at most s->max bytes: 0, or -1 (not a string,
 * an external one, a read failed).
 */
static int str_read(const struct v8proc *p, pid_t pid, uint64_t o, uint64_t from, uint64_t n,
		    struct sbuf *s, int depth)
{
	const struct v8_layout *l = &p->l;
	uint64_t map, a, b;
	int32_t len;
	int type, rep;

	if (depth > V8_STR_DEPTH || type_of(p, pid, o, &map, &type) < 0 ||
	    type >= l->first_nonstring ||
	    peek(pid, o - 1 + l->str_length, &len, sizeof(len)) < 0 || len < 0)
		return -1;
	if (from > (uint64_t)len)
		return 0;
	if (n > (uint64_t)len - from)
		n = (uint64_t)len - from;
	rep = type & 7;
	if (rep == l->tag_thin)
		return peek(pid, o - 1 + l->thin_actual, &a, sizeof(a)) < 0 ? -1 :
		       str_read(p, pid, a, from, n, s, depth + 1);
	if (rep == l->tag_sliced) {
		if (peek(pid, o - 1 + l->sliced_parent, &a, sizeof(a)) < 0 ||
		    peek(pid, o - 1 + l->sliced_offset, &b, sizeof(b)) < 0)
			return -1;
		return str_read(p, pid, a, from + (uint64_t)smi(l, b), n, s, depth + 1);
	}
	if (rep == l->tag_cons) {
		int32_t flen;

		if (peek(pid, o - 1 + l->cons_first, &a, sizeof(a)) < 0 ||
		    peek(pid, o - 1 + l->cons_second, &b, sizeof(b)) < 0 ||
		    peek(pid, a - 1 + l->str_length, &flen, sizeof(flen)) < 0 || flen < 0)
			return -1;
		if (from < (uint64_t)flen &&
		    str_read(p, pid, a, from, n, s, depth + 1) < 0)
			return -1;
		if (from + n > (uint64_t)flen)
			return str_read(p, pid, b, from > (uint64_t)flen ? from - flen : 0,
					from + n - (from > (uint64_t)flen ? from : (uint64_t)flen),
					s, depth + 1);
		return 0;
	}
	if (rep != 0)
		return -1;		/* external: its bytes are node's, behind a C++ object */
	if (n > s->max - s->len)
		n = s->max - s->len;
	if (type & l->tag_one_byte) {
		unsigned char *c;
		size_t i, hi = 0;

		if (sbuf_grow(s, n) < 0 ||
		    (n && peek(pid, o - 1 + l->seq1_chars + from, s->b + s->len, n) < 0))
			return -1;
		c = (unsigned char *)s->b + s->len;
		for (i = 0; s->utf8 && i < n; i++)
			hi += c[i] >= 0x80;
		if (!hi) {
			s->len += n;
			return 0;
		}
		/* Latin-1, as V8 keeps one-byte strings: as UTF-8 for a name */
		if (!(c = malloc(n)))
			return -1;
		memcpy(c, s->b + s->len, n);
		for (i = 0; i < n && s->len < s->max; i++) {
			char u[2] = { (char)(0xc0 | c[i] >> 6), (char)(0x80 | (c[i] & 0x3f)) };

			if (c[i] < 0x80 ? sbuf_put(s, (const char *)&c[i], 1) : sbuf_put(s, u, 2)) {
				free(c);
				return -1;
			}
		}
		free(c);
		return 0;
	}
	{
		uint16_t *w = malloc(n * 2 + 2);
		char u[3];
		size_t i;
		int r = 0;

		if (!w || (n && peek(pid, o - 1 + l->seq2_chars + from * 2, w, n * 2) < 0)) {
			free(w);
			return -1;
		}
		for (i = 0; i < n && !r && s->len < s->max; i++) {
			if (w[i] < 0x80) {
				u[0] = (char)w[i];
				r = sbuf_put(s, u, 1);
			} else if (w[i] < 0x800) {
				u[0] = (char)(0xc0 | w[i] >> 6);
				u[1] = (char)(0x80 | (w[i] & 0x3f));
				r = sbuf_put(s, u, 2);
			} else {
				u[0] = (char)(0xe0 | w[i] >> 12);
				u[1] = (char)(0x80 | ((w[i] >> 6) & 0x3f));
				u[2] = (char)(0x80 | (w[i] & 0x3f));
				r = sbuf_put(s, u, 3);
			}
		}
		free(w);
		return r;
	}
}

/* V8 string @o of @pid into @out (@n bytes, NUL-terminated): its length, or -1. */
static int str_text(const struct v8proc *p, pid_t pid, uint64_t o, char *out, size_t n)
{
	struct sbuf s = { .max = n - 1, .utf8 = true };

	if (str_read(p, pid, o, 0, n - 1, &s, 0) < 0) {
		free(s.b);
		return -1;
	}
	if (s.len)
		memcpy(out, s.b, s.len);
	out[s.len] = '\0';
	free(s.b);
	return (int)strlen(out);	/* a NUL inside ends it */
}

/* Script @sc's newlines, read once per script (and again when its source changed). */
static struct v8_script *script_get(struct v8proc *p, pid_t pid, uint64_t sc, uint64_t source)
{
	struct v8_script *s = idmap_get(&p->scripts, sc);
	struct sbuf b = { .max = V8_SOURCE_MAX };
	size_t i, n = 0;

	if (s && s->source == source)
		return s;
	if (!s) {
		if (!(s = calloc(1, sizeof(*s))) || idmap_put(&p->scripts, sc, s) < 0) {
			free(s);
			return NULL;
		}
	}
	free(s->nl);
	s->nl = NULL;
	s->nnl = 0;
	s->source = source;
	s->read = str_read(p, pid, source, 0, V8_SOURCE_MAX, &b, 0) == 0;
	for (i = 0; s->read && i < b.len; i++)
		n += b.b[i] == '\n';
	if (s->read && n && !(s->nl = malloc(n * sizeof(*s->nl))))
		s->read = false;
	for (i = 0; s->read && i < b.len; i++)
		if (b.b[i] == '\n')
			s->nl[s->nnl++] = (uint32_t)i;
	free(b.b);
	return s;
}

/* The 1-based line of source position @pos in @s. */
static unsigned line_of(const struct v8_script *s, int64_t pos)
{
	size_t lo = 0, hi = s->nnl, mid;

	while (lo < hi) {		/* newlines before pos */
		mid = (lo + hi) / 2;
		if ((int64_t)s->nl[mid] < pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (unsigned)lo + 1;
}

/*
 * ScopeInfo @si's function name, inferred name and start position
 * (ScopeInfo's variable part: its context locals' names and infos, or
 * from 75 locals on a hash table of their names and their infos; the
 * saved class variable, the function variable's name and slot, the
 * inferred name, then the position info; V8 11.3's scope-info.tq, checked
 * on node 20's objects). Left as they were where not found.
 */
static void scope_info(const struct v8proc *p, pid_t pid, uint64_t si, uint64_t *name,
		       uint64_t *inferred, int64_t *start, bool *module)
{
	const struct v8_layout *l = &p->l;
	uint64_t w[4], v[6];
	int64_t flags, nlocals;
	size_t at;

	/* map, flags, parameter count, context local count */
	if (peek(pid, si - 1, w, sizeof(w)) < 0)
		return;
	flags = smi(l, w[1]);
	nlocals = smi(l, w[1 + l->si_ncontextlocals]);
	if (nlocals < 0 || nlocals > 65536)
		return;
	/* the locals' names inline, or (75 and more) a hash table of them, first; then their infos */
	at = 1 + (size_t)l->si_first_vars +
	     (nlocals < V8_INLINED_LOCALS ? 2 * (size_t)nlocals : 1 + (size_t)nlocals);
	if (peek(pid, si - 1 + at * 8, v, sizeof(v)) < 0)
		return;
	at = 0;
	*module = (flags & 0xf) == V8_MODULE_SCOPE;
	if (flags & (1 << 10))		/* has_saved_class_variable */
		at++;
	if ((flags >> 12) & 3) {	/* function_variable: its name, its slot */
		*name = v[at];
		at += 2;
	}
	if (flags & (1 << 14))		/* has_inferred_name */
		*inferred = v[at++];
	if (smi(l, v[at]) >= 0 && smi(l, v[at]) <= smi(l, v[at + 1]) && !(v[at] & 1))
		*start = smi(l, v[at]);
}

/* The text of SharedFunctionInfo @sfi (its header @h): `j:LEN:...`, malloc'd, or NULL. */
static char *fn_text(struct v8proc *p, pid_t pid, const unsigned char *h)
{
	const struct v8_layout *l = &p->l;
	uint64_t nos = u64_at(h, l->sfi_name), sc = u64_at(h, l->sfi_script);
	uint64_t data = u64_at(h, l->sfi_data), name = 0, inferred = 0, map, src = 0, sname = 0;
	char fname[V8_NAME_MAX], file[V8_NAME_MAX], text[2 * V8_NAME_MAX + 64], *out;
	int64_t start = -1;
	int type, len;
	bool module = false, file_ok = false;
	unsigned i;

	fname[0] = '\0';
	if (type_of(p, pid, nos, &map, &type) == 0) {
		if (type < l->first_nonstring)
			name = nos;
		else if (type == l->t_scope)
			scope_info(p, pid, nos, &name, &inferred, &start, &module);
	}
	if (start < 0 && type_of(p, pid, data, &map, &type) == 0)
		for (i = 0; i < l->nud; i++)
			if (type == l->t_ud[i]) {
				int32_t s32;

				if (!peek(pid, data - 1 + l->ud_start, &s32, sizeof(s32)))
					start = s32;
			}
	if (name)
		str_text(p, pid, name, fname, sizeof(fname));
	if (!fname[0] && inferred)
		str_text(p, pid, inferred, fname, sizeof(fname));
	if (type_of(p, pid, sc, &map, &type) == 0 && type == l->t_script &&
	    !peek(pid, sc - 1 + l->script_name, &sname, sizeof(sname)) &&
	    !peek(pid, sc - 1 + l->script_source, &src, sizeof(src)))
		file_ok = str_text(p, pid, sname, file, sizeof(file)) > 0;
	/* a module's top level: an ES module's scope, or node's CommonJS wrapper (from 0) */
	if (file_ok && !fname[0] && (module || start == 0))
		len = snprintf(text, sizeof(text), "<module> %s", file);
	else if (file_ok) {
		struct v8_script *s = start >= 0 ? script_get(p, pid, sc, src) : NULL;

		if (s && s->read)
			len = snprintf(text, sizeof(text), "%s %s:%u", fname[0] ? fname : "(anonymous)",
				       file, line_of(s, start));
		else
			len = snprintf(text, sizeof(text), "%s %s", fname[0] ? fname : "(anonymous)",
				       file);
	} else {
		len = snprintf(text, sizeof(text), "%s", fname[0] ? fname : "(anonymous)");
	}
	if (len < 0)
		return NULL;
	if (asprintf(&out, "j:%zu:%s", strlen(text), text) < 0)
		return NULL;
	return out;
}

size_t v8_frame(struct v8 *v, pid_t pid, uint64_t e, char *buf, size_t n)
{
	struct v8proc *p = v && pid > 0 ? idmap_get(&v->procs, (__u64)pid) : NULL;
	uint64_t fn = BT_HS_PC(e), sfi, map;
	unsigned char h[64];
	struct v8_fn *f;
	int type, len;

	if (!p || !heap_object(fn))
		return 0;
	if (peek(pid, fn - 1 + p->l.fn_shared, &sfi, sizeof(sfi)) < 0) {
		/*
		 * node is gone (its memory with it, before the collector saw
		 * its exit): the function's last name, as it had it then
		 */
		sfi = (uint64_t)(uintptr_t)idmap_get(&p->last, fn);
		f = sfi ? idmap_get(&p->fns, sfi) : NULL;
		len = f && f->text ? snprintf(buf, n, "%s", f->text) : 0;
		return len > 0 && (size_t)len < n ? (size_t)len : 0;
	}
	if (!heap_object(sfi) || peek(pid, sfi - 1, h, sizeof(h)) < 0)
		return 0;
	map = u64_at(h, p->l.obj_map);
	f = idmap_get(&p->fns, sfi);
	if (!f || f->map != map || f->name != u64_at(h, p->l.sfi_name) ||
	    f->script != u64_at(h, p->l.sfi_script)) {
		if (type_of(p, pid, sfi, &map, &type) < 0 || type != p->l.t_sfi)
			return 0;	/* moved, or not a JSFunction after all */
		if (!f) {
			if (p->nfns >= V8_CACHE_MAX)
				caches_free(p);
			if (!(f = calloc(1, sizeof(*f))) || idmap_put(&p->fns, sfi, f) < 0) {
				free(f);
				return 0;
			}
			p->nfns++;
		}
		free(f->text);
		f->map = map;
		f->name = u64_at(h, p->l.sfi_name);
		f->script = u64_at(h, p->l.sfi_script);
		f->text = fn_text(p, pid, h);
	}
	if (!f->text)
		return 0;
	if (p->last.n >= V8_CACHE_MAX)
		idmap_free(&p->last);
	if (idmap_put(&p->last, fn, (void *)(uintptr_t)sfi) < 0)
		idmap_del(&p->last, fn);
	len = snprintf(buf, n, "%s", f->text);
	return len > 0 && (size_t)len < n ? (size_t)len : 0;
}
