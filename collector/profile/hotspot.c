// SPDX-License-Identifier: BSD-2-Clause
/* The JVMs the sampling program walks, and their frames' names (hotspot.h). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include <linux/types.h>

#include "bpf/boottrace.h"
#include "collector/idmap.h"
#include "collector/kernel/backend.h"
#include "collector/kernel/elf.h"
#include "collector/profile/hotspot.h"
#include "collector/profile/hsdecode.h"
#include "collector/profile/vmstructs.h"

/* What naming reads: offsets from VMStructs (hs_layout()). */
struct hs_layout {
	uint64_t method_const;			/* Method::_constMethod */
	uint64_t cm_constants, cm_flags, cm_code_size, cm_name_index, cm_size;
	unsigned cm_flags_size;			/* 2 (JDK 17's u2), 4 (ConstMethodFlags, 21+) */
	uint64_t cm_has_lines;			/* the flag: a line number table follows the code */
	uint64_t cp_holder, cp_source_file, cp_size;	/* ConstantPool; its slots follow it */
	uint64_t klass_name;
	uint64_t sym_length, sym_body;
	uint64_t cb_name, cb_code, nm_method;
	bool code_offset;			/* cb_code is an int from the blob (23+) */
	/*
	 * An nmethod's debug data. JDK 17: PcDescs at nmethod +
	 * _scopes_pcs_offset to + _dependencies_offset, the scopes at the
	 * pointer _scopes_data_begin, its metadata at + _metadata_offset. JDK
	 * 23+ moved them off the code cache: PcDescs at _immutable_data +
	 * _scopes_pcs_offset to + _scopes_data_offset, where the scopes
	 * start; the metadata after the relocations in _mutable_data.
	 */
	bool scopes, imm;
	uint64_t nm_pcs, nm_pcs_end, nm_data, nm_meta, nm_immutable, cb_mutable, cb_reloc;
	uint64_t pcd_size, pcd_pc, pcd_scope;
};

struct hs_method {
	char *name;			/* pkg.Class.method */
	char *file;			/* File.java, or NULL */
	uint8_t *lines;			/* the compressed line number table, or NULL */
	size_t nlines;
};

struct hsproc {
	struct vms *vms;		/* read, while its code cache is not made yet */
	bool ready;
	struct bt_hotspot_proc bp;
	struct hs_layout l;
	int x;				/* UNSIGNED5's excluded byte count: 0, or 1 from JDK 20 */
	bool x_checked;			/* a compiled frame's scopes decoded to its own method */
	uint64_t call_stub_ret;		/* StubRoutines::_call_stub_return_address */
	struct idmap methods;		/* Method* -> struct hs_method */
	struct idmap pcs;		/* a compiled or stub pc -> its frames' text */
	size_t nmethods, npcs;
};

struct hotspot {
	struct backend *be;
	struct idmap procs;		/* pid -> struct hsproc */
	char why[160];
};

/* Names and texts kept per JVM at most; past that, forgotten and read again. */
#define HS_CACHE_MAX 65536
#define HS_NAME_MAX 1024		/* a class or method name longer than this: not one */
#define HS_SCOPES_MAX 32		/* inlined frames at one pc at most */
#define HS_PCDESCS_MAX (1u << 20)	/* bytes of an nmethod's PcDescs read at most */
#define HS_LINES_MAX (64u << 10)	/* bytes of a line number table read at most */

struct hotspot *hotspot__new(struct backend *be)
{
	struct hotspot *hs = calloc(1, sizeof(*hs));

	if (hs)
		hs->be = be && be->ops->hotspot_set && be->ops->interp_set ? be : NULL;
	return hs;
}

static void method_free(struct hs_method *m)
{
	if (!m)
		return;
	free(m->name);
	free(m->file);
	free(m->lines);
	free(m);
}

static void caches_free(struct hsproc *p)
{
	size_t i;

	for (i = 0; i < p->methods.cap; i++)
		method_free(p->methods.slots[i].val);
	for (i = 0; i < p->pcs.cap; i++)
		free(p->pcs.slots[i].val);
	idmap_free(&p->methods);
	idmap_free(&p->pcs);
	p->nmethods = p->npcs = 0;
}

static void hsproc_free(struct hsproc *p)
{
	caches_free(p);
	vms__free(p->vms);
	free(p);
}

void hotspot__free(struct hotspot *hs)
{
	size_t i;

	if (!hs)
		return;
	for (i = 0; i < hs->procs.cap; i++)
		if (hs->procs.slots[i].val)
			hsproc_free(hs->procs.slots[i].val);
	idmap_free(&hs->procs);
	free(hs);
}

void hotspot_forget(struct hotspot *hs, pid_t pid)
{
	struct hsproc *p = hs && pid > 0 ? idmap_get(&hs->procs, (__u64)pid) : NULL;

	if (!p)
		return;
	if (p->ready && hs->be)
		hs->be->ops->hotspot_set(hs->be, (__u32)pid, NULL);
	idmap_del(&hs->procs, (__u64)pid);
	hsproc_free(p);
}

/* --- the process's memory -------------------------------------------------------- */

static int peek(pid_t pid, uint64_t addr, void *buf, size_t n)
{
	struct iovec local = { buf, n }, remote = { (void *)(uintptr_t)addr, n };

	return addr && n && process_vm_readv(pid, &local, 1, &remote, 1, 0) == (ssize_t)n ? 0 : -1;
}

/* 8 bytes at @addr into @v (a uint64_t or a __u64) */
static int peek_u64(pid_t pid, uint64_t addr, void *v)
{
	return peek(pid, addr, v, 8);
}

/* An unsigned of @size (1, 2, 4, 8) bytes at @addr. */
static int peek_uint(pid_t pid, uint64_t addr, unsigned size, uint64_t *v)
{
	unsigned char b[8] = { 0 };
	uint16_t u16;
	uint32_t u32;

	if (size > 8 || peek(pid, addr, b, size) < 0)
		return -1;
	switch (size) {
	case 1:
		*v = b[0];
		break;
	case 2:
		memcpy(&u16, b, 2);
		*v = u16;
		break;
	case 4:
		memcpy(&u32, b, 4);
		*v = u32;
		break;
	default:
		memcpy(v, b, 8);
	}
	return 0;
}

static int peek_s32(pid_t pid, uint64_t addr, int32_t *v)
{
	return peek(pid, addr, v, sizeof(*v));
}

/* --- registration ---------------------------------------------------------------- */

struct jvm_src {
	pid_t pid;
	const char *file;
	uint64_t bias;
};

static int src_read(void *ctx, uint64_t addr, void *buf, size_t n)
{
	return peek(((struct jvm_src *)ctx)->pid, addr, buf, n);
}

static int src_symbol(void *ctx, const char *name, uint64_t *addr)
{
	struct jvm_src *s = ctx;
	unsigned long long v, sz;

	if (elf_symbol(s->file, name, &v, &sz) < 0)
		return -1;
	*addr = s->bias + v;
	return 0;
}

/* Looking fields up, the first one missing remembered for the message. */
struct need {
	const struct vms *v;
	char *why;
	size_t n;
	bool missing;
};

static void missing(struct need *nd, const char *what, const char *name)
{
	if (!nd->missing)
		snprintf(nd->why, nd->n, "its VMStructs have no %s %s", what, name);
	nd->missing = true;
}

/* The offset of @type::@field, else of @type2::@field2 (when given): *@which says which (0, 1). */
static uint64_t off2(struct need *nd, const char *type, const char *field, const char *type2,
		     const char *field2, int *which)
{
	uint64_t o = 0;

	if (which)
		*which = 0;
	if (!vms_offset(nd->v, type, field, &o))
		return o;
	if (type2 && !vms_offset(nd->v, type2, field2, &o)) {
		if (which)
			*which = 1;
		return o;
	}
	missing(nd, type, field);
	return 0;
}

static uint64_t off(struct need *nd, const char *type, const char *field)
{
	return off2(nd, type, field, NULL, NULL, NULL);
}

static uint64_t size_of(struct need *nd, const char *type)
{
	uint64_t s = 0;

	if (vms_type_size(nd->v, type, &s) < 0)
		missing(nd, "type", type);
	return s;
}

static bool has(const struct vms *v, const char *type, const char *field)
{
	uint64_t o;

	return vms_offset(v, type, field, &o) == 0;
}

/*
 * The offsets the walker and the naming need, from @v into @bp and @l:
 * 0, or -1 with why in @why (a field missing, or one past what the
 * walker reads of a blob).
 */
static int layout(const struct vms *v, struct bt_hotspot_proc *bp, struct hs_layout *l,
		  char *why, size_t n)
{
	struct need nd = { v, why, n, false };
	const char *t;
	int64_t c;
	int which;

	memset(bp, 0, sizeof(*bp));
	memset(l, 0, sizeof(*l));
	bp->heapblock = (__u16)size_of(&nd, "HeapBlock");
	bp->cb_name = (__u16)(l->cb_name = off(&nd, "CodeBlob", "_name"));
	bp->cb_frame_size = (__u16)off(&nd, "CodeBlob", "_frame_size");
	bp->cb_frame_complete = (__u16)off(&nd, "CodeBlob", "_frame_complete_offset");
	t = vms_field_type(v, "CodeBlob", "_frame_complete_offset");
	if (t && !strcmp(t, "int16_t"))
		bp->flags |= BT_HS_F_FCO16;
	l->cb_code = off2(&nd, "CodeBlob", "_code_begin", "CodeBlob", "_code_offset", &which);
	bp->cb_code = (__u16)l->cb_code;
	if (which) {
		bp->flags |= BT_HS_F_CODE_OFFSET;
		l->code_offset = true;
	}
	if (has(v, "nmethod", "_deopt_handler_offset")) {
		bp->nm_deopt = (__u16)off(&nd, "nmethod", "_deopt_handler_offset");
		bp->flags |= BT_HS_F_DEOPT_OFFSET;
	} else {
		bp->nm_deopt = (__u16)off2(&nd, "CompiledMethod", "_deopt_handler_begin", "nmethod",
					   "_deopt_handler_begin", NULL);
	}
	bp->nm_orig_pc = (__u16)off(&nd, "nmethod", "_orig_pc_offset");
	bp->method_const = (__u16)(l->method_const = off(&nd, "Method", "_constMethod"));
	bp->const_size = (__u16)(l->cm_size = size_of(&nd, "ConstMethod"));
	/*
	 * The interpreter's frame (x86-64, JDK 9+, frame_x86.hpp): below fp
	 * the sender's sp, the last sp, then the Method*, the mirror, the
	 * mdp, the cache, the locals and the bcp, a word each. VMStructs
	 * names the first two (JDK 17 and 25 alike); the rest follow them.
	 */
	c = -1;
	vms_constant(v, "frame::interpreter_frame_sender_sp_offset", &c);
	bp->if_sender_sp = (__s16)(c * 8);
	c = -2;
	vms_constant(v, "frame::interpreter_frame_last_sp_offset", &c);
	bp->if_method = (__s16)((c - 1) * 8);
	bp->if_bcp = (__s16)((c - 6) * 8);

	l->cm_constants = off(&nd, "ConstMethod", "_constants");
	l->cm_code_size = off(&nd, "ConstMethod", "_code_size");
	l->cm_name_index = off(&nd, "ConstMethod", "_name_index");
	l->cm_flags = off2(&nd, "ConstMethod", "_flags", "ConstMethod", "_flags._flags", &which);
	l->cm_flags_size = which ? 4 : 2;
	c = 1;
	if (vms_constant(v, "ConstMethod::_has_linenumber_table", &c) < 0)
		vms_constant(v, "ConstMethodFlags::_misc_has_linenumber_table", &c);
	l->cm_has_lines = (uint64_t)c;
	l->cp_holder = off(&nd, "ConstantPool", "_pool_holder");
	l->cp_source_file = off(&nd, "ConstantPool", "_source_file_name_index");
	l->cp_size = size_of(&nd, "ConstantPool");
	l->klass_name = off(&nd, "Klass", "_name");
	l->sym_length = off(&nd, "Symbol", "_length");
	l->sym_body = off(&nd, "Symbol", "_body");
	l->nm_method = off2(&nd, "nmethod", "_method", "CompiledMethod", "_method", NULL);
	if (nd.missing)
		return -1;
	/* the walker reads HS_BLOB_BYTES of a blob, and an nmethod's first HS_NM_BYTES */
	if (bp->cb_name > 120 || bp->cb_frame_size > 124 || bp->cb_frame_complete > 124 ||
	    bp->cb_code > 120 || bp->nm_deopt > 312 || bp->nm_orig_pc > 316 || !bp->heapblock) {
		snprintf(why, n, "its CodeBlob fields lie past what the walker reads");
		return -1;
	}

	/* the debug data: without it, compiled frames are named by their method alone */
	nd.missing = false;
	if (has(v, "nmethod", "_immutable_data")) {
		l->imm = true;
		l->nm_immutable = off(&nd, "nmethod", "_immutable_data");
		l->nm_pcs = off(&nd, "nmethod", "_scopes_pcs_offset");
		l->nm_data = off(&nd, "nmethod", "_scopes_data_offset");
		l->cb_mutable = off(&nd, "CodeBlob", "_mutable_data");
		l->cb_reloc = off(&nd, "CodeBlob", "_relocation_size");
	} else {
		l->nm_pcs = off(&nd, "nmethod", "_scopes_pcs_offset");
		l->nm_pcs_end = off(&nd, "nmethod", "_dependencies_offset");
		l->nm_data = off2(&nd, "CompiledMethod", "_scopes_data_begin", "nmethod",
				  "_scopes_data_begin", NULL);
		l->nm_meta = off(&nd, "nmethod", "_metadata_offset");
	}
	l->pcd_size = size_of(&nd, "PcDesc");
	l->pcd_pc = off(&nd, "PcDesc", "_pc_offset");
	l->pcd_scope = off(&nd, "PcDesc", "_scope_decode_offset");
	l->scopes = !nd.missing && l->pcd_size >= 8 && l->pcd_size <= 64;
	return 0;
}

/*
 * Where this JVM's code is, into @bp: its code heaps, the code cache's
 * bounds, the interpreter's range; and @p's call stub return and
 * UNSIGNED5 coding. 0, HOTSPOT_NOT_YET (not made yet), or -1 with @why.
 */
static int places(const struct vms *v, pid_t pid, struct bt_hotspot_proc *bp, struct hsproc *p,
		  char *why, size_t n)
{
	struct need nd = { v, why, n, false };
	uint64_t heaps_at = 0, lo_at = 0, hi_at = 0, code_at = 0, major_at = 0, stub_at = 0, heaps,
		 data, queue, len = 0, limit = 0, mem, segmap, lowb, highb, shift, len_off, data_off, h;
	uint64_t buf_off, limit_off;
	int32_t major = 0, sh;
	size_t i;

	if (vms_address(v, "CodeCache", "_heaps", &heaps_at) < 0 ||
	    vms_address(v, "CodeCache", "_low_bound", &lo_at) < 0 ||
	    vms_address(v, "CodeCache", "_high_bound", &hi_at) < 0 ||
	    vms_address(v, "AbstractInterpreter", "_code", &code_at) < 0) {
		snprintf(why, n, "its VMStructs do not say where its code cache is");
		return -1;
	}
	len_off = off(&nd, "GrowableArrayBase", "_len");
	data_off = off(&nd, "GrowableArray<int>", "_data");
	mem = off(&nd, "CodeHeap", "_memory");
	segmap = off(&nd, "CodeHeap", "_segmap");
	shift = off(&nd, "CodeHeap", "_log2_segment_size");
	lowb = off(&nd, "VirtualSpace", "_low_boundary");
	highb = off(&nd, "VirtualSpace", "_high_boundary");
	buf_off = off(&nd, "StubQueue", "_stub_buffer");
	limit_off = off(&nd, "StubQueue", "_buffer_limit");
	if (nd.missing)
		return -1;
	if (peek_u64(pid, heaps_at, &heaps) < 0 || peek_u64(pid, lo_at, &bp->cc_lo) < 0 ||
	    peek_u64(pid, hi_at, &bp->cc_hi) < 0 || peek_u64(pid, code_at, &queue) < 0)
		return -1;
	if (!heaps || !bp->cc_lo || !bp->cc_hi || !queue ||
	    peek_uint(pid, heaps + len_off, 4, &len) < 0 || !len)
		return HOTSPOT_NOT_YET;
	if (peek_u64(pid, heaps + data_off, &data) < 0 ||
	    peek_u64(pid, queue + buf_off, &bp->interp_lo) < 0 ||
	    peek_uint(pid, queue + limit_off, 4, &limit) < 0 || !bp->interp_lo || !limit)
		return HOTSPOT_NOT_YET;
	bp->interp_hi = bp->interp_lo + limit;
	for (i = 0; i < len && i < BT_HS_HEAPS; i++) {
		struct bt_hotspot_heap *hp = &bp->heap[i];

		if (peek_u64(pid, data + i * 8, &h) < 0 || peek_u64(pid, h + mem + lowb, &hp->lo) < 0 ||
		    peek_u64(pid, h + mem + highb, &hp->hi) < 0 ||
		    peek_u64(pid, h + segmap + lowb, &hp->segmap) < 0 ||
		    peek_s32(pid, h + shift, &sh) < 0 || sh < 0 || sh > 20)
			return HOTSPOT_NOT_YET;
		hp->shift = (__u32)sh;
	}
	bp->nheaps = (__u32)i;
	if (len > BT_HS_HEAPS) {
		snprintf(why, n, "it has %llu code heaps (the walker reads %d)",
			 (unsigned long long)len, BT_HS_HEAPS);
		return -1;
	}
	if (!vms_address(v, "StubRoutines", "_call_stub_return_address", &stub_at))
		peek_u64(pid, stub_at, &p->call_stub_ret);
	if (!vms_address(v, "Abstract_VM_Version", "_vm_major_version", &major_at))
		peek_s32(pid, major_at, &major);
	if (major && major < 11) {
		snprintf(why, n, "it is JDK %d (the walker reads JDK 11 and later)", (int)major);
		return -1;
	}
	/* utilities/unsigned5.hpp, JDK 20: no coding uses the byte 0 */
	p->x = major >= 20 ? 1 : 0;
	return 0;
}

int hotspot_register(struct hotspot *hs, pid_t pid, const char *file, uint64_t bias,
		     const char **why)
{
	struct jvm_src ctx = { pid, file, bias };
	struct vms_source src = { src_read, src_symbol, &ctx };
	struct bt_interp_proc ip = { .kind = BT_INTERP_HOTSPOT };
	struct hsproc *p;
	bool early = false;
	int r;

	*why = hs->why;
	if (!hs->be) {	/* (a modern object has one: the test knob) */
		snprintf(hs->why, sizeof(hs->why), "the walker is off (BOOTTRACE_TEST_NO_HOTSPOT)");
		return -1;
	}
	p = idmap_get(&hs->procs, (__u64)pid);
	if (p && p->ready)
		return 0;
	if (!p) {
		if (!(p = calloc(1, sizeof(*p))) || idmap_put(&hs->procs, (__u64)pid, p) < 0) {
			free(p);
			snprintf(hs->why, sizeof(hs->why), "out of memory");
			return -1;
		}
		if (!(p->vms = vms__load(&src, &early, hs->why, sizeof(hs->why))) ||
		    layout(p->vms, &p->bp, &p->l, hs->why, sizeof(hs->why)) < 0) {
			hotspot_forget(hs, pid);
			return early ? HOTSPOT_NOT_YET : -1;
		}
	}
	r = places(p->vms, pid, &p->bp, p, hs->why, sizeof(hs->why));
	if (r) {
		if (r < 0)
			hotspot_forget(hs, pid);
		return r;
	}
	if (hs->be->ops->hotspot_set(hs->be, (__u32)pid, &p->bp) < 0 ||
	    hs->be->ops->interp_set(hs->be, (__u32)pid, &ip) < 0) {
		hs->be->ops->hotspot_set(hs->be, (__u32)pid, NULL);
		snprintf(hs->why, sizeof(hs->why), "the sampling program's map is full");
		idmap_del(&hs->procs, (__u64)pid);
		hsproc_free(p);
		return -1;
	}
	vms__free(p->vms);
	p->vms = NULL;
	p->ready = true;
	return 0;
}

/* --- names ----------------------------------------------------------------------- */

/* Symbol @sym's text into @out (@n bytes, NUL-terminated), '/' as '.' when @dots: 0, or -1. */
static int symbol_text(const struct hsproc *p, pid_t pid, uint64_t sym, char *out, size_t n,
		       bool dots)
{
	uint64_t len;
	size_t i;

	if (!sym || peek_uint(pid, sym + p->l.sym_length, 2, &len) < 0 || !len ||
	    len >= n || len > HS_NAME_MAX || peek(pid, sym + p->l.sym_body, out, (size_t)len) < 0)
		return -1;
	out[len] = '\0';
	/*
	 * A name may hold any byte but NUL (modified UTF-8 codes it as
	 * C0 80; the TSV escapes the rest): one that does is not a Symbol.
	 */
	if (strlen(out) != len)
		return -1;
	for (i = 0; dots && i < len; i++)
		if (out[i] == '/')
			out[i] = '.';
	return 0;
}

/* Constant pool @cp's Symbol at slot @ix. */
static int cp_symbol(const struct hsproc *p, pid_t pid, uint64_t cp, uint64_t ix, uint64_t *sym)
{
	return ix ? peek_u64(pid, cp + p->l.cp_size + ix * 8, sym) : -1;
}

/* The line number table after @cm's code: malloc'd into *@out (*@n bytes, its end byte in). */
static void method_lines(const struct hsproc *p, pid_t pid, uint64_t cm, uint64_t code_size,
			 uint8_t **out, size_t *n)
{
	size_t want = 256, got;
	uint8_t *b = NULL, *q;

	*out = NULL;
	*n = 0;
	for (; want <= HS_LINES_MAX; want *= 4) {
		if (!(q = realloc(b, want)))
			break;
		b = q;
		/* the table may end less than @want before the metaspace's end: shorter reads */
		for (got = want; got >= 16; got /= 2)
			if (!peek(pid, cm + p->l.cm_size + code_size, b, got))
				break;
		if (got < 16)
			break;
		if (hs_lines_len(b, got, p->x) > 0) {
			*out = b;
			*n = (size_t)hs_lines_len(b, got, p->x);
			return;
		}
		if (got < want)
			break;
	}
	free(b);
}

/* Method @m's name, file and lines, read the first time (kept): NULL when it cannot be read. */
static struct hs_method *method_get(struct hsproc *p, pid_t pid, uint64_t m)
{
	struct hs_method *hm = idmap_get(&p->methods, m);
	char klass[HS_NAME_MAX + 1], name[HS_NAME_MAX + 1], file[HS_NAME_MAX + 1];
	uint64_t cm, cp, holder, ksym, nsym, fsym, code_size, name_ix, file_ix, flags;
	bool has_file;

	if (hm)
		return hm;
	if (!m || peek_u64(pid, m + p->l.method_const, &cm) < 0 || !cm ||
	    peek_u64(pid, cm + p->l.cm_constants, &cp) < 0 ||
	    peek_uint(pid, cm + p->l.cm_code_size, 2, &code_size) < 0 ||
	    peek_uint(pid, cm + p->l.cm_name_index, 2, &name_ix) < 0 ||
	    peek_uint(pid, cm + p->l.cm_flags, p->l.cm_flags_size, &flags) < 0 ||
	    peek_u64(pid, cp + p->l.cp_holder, &holder) < 0 ||
	    peek_u64(pid, holder + p->l.klass_name, &ksym) < 0 ||
	    symbol_text(p, pid, ksym, klass, sizeof(klass), true) < 0 ||
	    cp_symbol(p, pid, cp, name_ix, &nsym) < 0 ||
	    symbol_text(p, pid, nsym, name, sizeof(name), false) < 0)
		return NULL;
	has_file = !peek_uint(pid, cp + p->l.cp_source_file, 2, &file_ix) &&
		   !cp_symbol(p, pid, cp, file_ix, &fsym) &&
		   !symbol_text(p, pid, fsym, file, sizeof(file), false);
	if (p->nmethods >= HS_CACHE_MAX)
		caches_free(p);
	if (!(hm = calloc(1, sizeof(*hm))))
		return NULL;
	if (asprintf(&hm->name, "%s.%s", klass, name) < 0) {
		free(hm);
		return NULL;
	}
	if (has_file && !(hm->file = strdup(file))) {
		method_free(hm);
		return NULL;
	}
	if (flags & p->l.cm_has_lines)
		method_lines(p, pid, cm, code_size, &hm->lines, &hm->nlines);
	if (idmap_put(&p->methods, m, hm) < 0) {
		method_free(hm);
		return NULL;
	}
	p->nmethods++;
	return hm;
}

/*
 * Frame @kind ('i', 'j') of @hm at @bci (-1: the method's entry, its
 * first line; below, or BT_HS_BCI_NONE: no line)
 * appended to @out at *@at (@n bytes): 0, or -1 when it does not fit.
 */
static int put_method(const struct hsproc *p, const struct hs_method *hm, char kind, int bci,
		      char *out, size_t n, size_t *at)
{
	char text[3 * HS_NAME_MAX + 64];
	int line = bci >= -1 && bci != (int)BT_HS_BCI_NONE && hm->lines ?
			   hs_line(hm->lines, hm->nlines, p->x, bci) : -1;
	int len;

	if (hm->file && line > 0)
		len = snprintf(text, sizeof(text), "%s (%s:%d)", hm->name, hm->file, line);
	else if (hm->file)
		len = snprintf(text, sizeof(text), "%s (%s)", hm->name, hm->file);
	else
		len = snprintf(text, sizeof(text), "%s", hm->name);
	if (len < 0 || (size_t)len >= sizeof(text))
		return -1;
	len = snprintf(out + *at, n - *at, "%s%c:%d:%s", *at ? " " : "", kind, len, text);
	if (len < 0 || (size_t)len >= n - *at)
		return -1;
	*at += (size_t)len;
	return 0;
}

/* The CodeBlob holding @pc (the walker's search, in user space): its address, or 0. */
static uint64_t find_blob(const struct hsproc *p, pid_t pid, uint64_t pc)
{
	const struct bt_hotspot_heap *h = NULL;
	uint64_t seg;
	uint8_t tag = 0xff;
	size_t i;

	for (i = 0; i < p->bp.nheaps; i++)
		if (pc >= p->bp.heap[i].lo && pc < p->bp.heap[i].hi)
			h = &p->bp.heap[i];
	if (!h)
		return 0;
	seg = (pc - h->lo) >> h->shift;
	for (i = 0; i < 4096; i++) {
		if (peek(pid, h->segmap + seg, &tag, 1) < 0)
			return 0;
		if (tag == 0 || tag == 0xff || tag > seg)
			break;
		seg -= tag;
	}
	return tag ? 0 : h->lo + (seg << h->shift) + p->bp.heapblock;
}

/*
 * The scopes of nmethod @nm (header @hdr) at pc offset @pco, innermost
 * first, into @out: Method*s and bcis. Their count (0: none found).
 */
static size_t scopes_at(struct hsproc *p, pid_t pid, uint64_t nm, const unsigned char *hdr,
			int32_t pco, uint64_t *methods, int *bcis)
{
	const struct hs_layout *l = &p->l;
	uint64_t pcs, end, data, meta, base, m;
	int32_t a, b, so;
	uint8_t *descs, sb[32];
	size_t count, k = 0;
	long ix;
	struct hs_scope s;

	if (!l->scopes)
		return 0;
	if (l->imm) {
		memcpy(&base, hdr + l->nm_immutable, 8);
		memcpy(&a, hdr + l->nm_pcs, 4);
		memcpy(&b, hdr + l->nm_data, 4);
		pcs = base + (uint64_t)a;
		end = data = base + (uint64_t)b;
		memcpy(&m, hdr + l->cb_mutable, 8);
		memcpy(&a, hdr + l->cb_reloc, 4);
		meta = m + (uint64_t)a;
	} else {
		memcpy(&a, hdr + l->nm_pcs, 4);
		memcpy(&b, hdr + l->nm_pcs_end, 4);
		pcs = nm + (uint64_t)a;
		end = nm + (uint64_t)b;
		memcpy(&data, hdr + l->nm_data, 8);
		memcpy(&a, hdr + l->nm_meta, 4);
		meta = nm + (uint64_t)a;
	}
	if (end <= pcs || end - pcs > HS_PCDESCS_MAX || (end - pcs) % l->pcd_size)
		return 0;
	count = (size_t)((end - pcs) / l->pcd_size);
	if (!(descs = malloc(end - pcs)))
		return 0;
	if (peek(pid, pcs, descs, end - pcs) < 0 ||
	    (ix = hs_pcdesc(descs, count, l->pcd_size, l->pcd_pc, pco)) < 0) {
		free(descs);
		return 0;
	}
	memcpy(&so, descs + (size_t)ix * l->pcd_size + l->pcd_scope, 4);
	free(descs);
	while (so > 0 && k < HS_SCOPES_MAX) {
		/* a scope's head is at most 15 bytes; the data may end sooner */
		size_t got = sizeof(sb);

		while (got >= 4 && peek(pid, data + (uint64_t)so, sb, got) < 0)
			got /= 2;
		if (got < 4 || hs_scope(sb, got, p->x, &s) < 0 || !s.method ||
		    peek_u64(pid, meta + (uint64_t)(s.method - 1) * 8, &methods[k]) < 0)
			break;
		bcis[k++] = s.bci;
		so = (int32_t)s.sender;
	}
	return k;
}

/* A compiled or stub pc's frames: their text, where each ends. */
struct hs_text {
	unsigned n;			/* frames, innermost first */
	size_t end[HS_SCOPES_MAX];	/* each one's end in text */
	char text[];
};

/* @n bytes of @out, frames ending at @end (@k of them), as a malloc'd hs_text, or NULL. */
static struct hs_text *text_of(const char *out, size_t n, const size_t *end, unsigned k)
{
	struct hs_text *t = malloc(sizeof(*t) + n + 1);

	if (!t)
		return NULL;
	t->n = k;
	memcpy(t->end, end, k * sizeof(*end));
	memcpy(t->text, out, n);
	t->text[n] = '\0';
	return t;
}

/* The frames of compiled or stub pc @pc (an iframe entry's), malloc'd, or NULL. */
static struct hs_text *code_text(struct hsproc *p, pid_t pid, uint64_t pc)
{
	char name[64] = "", out[8192];
	unsigned char hdr[512];
	uint64_t blob = find_blob(p, pid, pc), nameptr, code, method = 0, methods[HS_SCOPES_MAX];
	int bcis[HS_SCOPES_MAX], len;
	size_t at = 0, n = 0, i, end[HS_SCOPES_MAX];
	unsigned k = 0;
	int32_t co;
	struct hs_method *hm;

	if (!blob)
		return NULL;
	if (peek(pid, blob, hdr, sizeof(hdr)) < 0 && peek(pid, blob, hdr, 128) < 0)
		return NULL;
	memcpy(&nameptr, hdr + p->l.cb_name, 8);
	for (i = 0; i + 1 < sizeof(name); i++)
		if (peek(pid, nameptr + i, &name[i], 1) < 0 || !name[i])
			break;
	name[i] = '\0';
	if (!name[0])
		return NULL;
	if (strcmp(name, "nmethod") && strcmp(name, "native nmethod")) {
		if (pc == p->call_stub_ret)
			snprintf(name, sizeof(name), "call_stub");
		len = snprintf(out, sizeof(out), "j:%zu:%s", strlen(name), name);
		end[0] = (size_t)len;
		return len > 0 ? text_of(out, (size_t)len, end, 1) : NULL;
	}
	if (p->l.code_offset) {
		memcpy(&co, hdr + p->l.cb_code, 4);
		code = blob + (uint64_t)co;
	} else {
		memcpy(&code, hdr + p->l.cb_code, 8);
	}
	memcpy(&method, hdr + p->l.nm_method, 8);
	if (pc >= code && pc - code < (1u << 30))
		n = scopes_at(p, pid, blob, hdr, (int32_t)(pc - code), methods, bcis);
	/*
	 * The outermost scope is the nmethod's own method: when it is not,
	 * the coding was misread (a JDK between the two checked): the other
	 * coding, once; else its method alone, without inlined frames.
	 */
	if (n && methods[n - 1] != method && !p->x_checked) {
		p->x ^= 1;
		n = scopes_at(p, pid, blob, hdr, (int32_t)(pc - code), methods, bcis);
		if (!n || methods[n - 1] != method)
			p->x ^= 1;
	}
	if (n && methods[n - 1] == method)
		p->x_checked = true;
	else
		n = 0;
	for (i = 0; i < n; i++) {
		if (!(hm = method_get(p, pid, methods[i])) ||
		    put_method(p, hm, 'j', bcis[i], out, sizeof(out), &at) < 0)
			break;
		end[k++] = at;
	}
	if (!n || i < n) {
		at = 0;
		k = 0;
		if (!(hm = method_get(p, pid, method)) ||
		    put_method(p, hm, 'j', -2, out, sizeof(out), &at) < 0)
			return NULL;
		end[k++] = at;
	}
	return text_of(out, at, end, k);
}

size_t hotspot_frame(struct hotspot *hs, pid_t pid, uint64_t v, char *buf, size_t n,
		     unsigned max, unsigned *frames)
{
	struct hsproc *p = hs && pid > 0 ? idmap_get(&hs->procs, (__u64)pid) : NULL;
	unsigned kind = BT_HS_KIND(v), k;
	struct hs_method *hm;
	struct hs_text *t, *once = NULL;
	uint64_t key;
	size_t at = 0;
	int len;

	*frames = 0;
	if (!n || !max)
		return 0;
	buf[0] = '\0';
	if (p && p->ready && kind == BT_HS_INTERP) {
		if ((hm = method_get(p, pid, BT_HS_METHOD(v))) &&
		    put_method(p, hm, 'i', (int)BT_HS_BCI(v), buf, n, &at) == 0) {
			*frames = 1;
			return at;
		}
	} else if (p && p->ready && (kind == BT_HS_COMPILED || kind == BT_HS_STUB)) {
		key = BT_HS_PC(v);
		if (!(t = idmap_get(&p->pcs, key)) && (t = code_text(p, pid, key))) {
			if (p->npcs >= HS_CACHE_MAX)
				caches_free(p);
			if (idmap_put(&p->pcs, key, t) < 0)
				once = t;
			else
				p->npcs++;
		}
		if (t) {
			k = t->n < max ? t->n : max;	/* the innermost, when cut */
			if (k && t->end[k - 1] < n) {
				memcpy(buf, t->text, t->end[k - 1]);
				buf[t->end[k - 1]] = '\0';
				*frames = k;
				at = t->end[k - 1];
			}
			free(once);
			return at;
		}
	}
	len = snprintf(buf, n, "u:0x%llx", (unsigned long long)(kind == BT_HS_INTERP ?
								BT_HS_METHOD(v) : BT_HS_PC(v)));
	if (len <= 0 || (size_t)len >= n)
		return 0;
	*frames = 1;
	return (size_t)len;
}
