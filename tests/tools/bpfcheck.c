// SPDX-License-Identifier: BSD-2-Clause
/*
 * bpfcheck: prove from the ELF alone which kernels a BPF object loads on:
 * each object's minimum kernel, from what it uses (tests/tools/
 * kernel_features.h: helper ids, map types, program types and attach
 * kinds, what the verifier came to allow, by the release that first had
 * them), and everything it needs beyond a given kernel (--kernel, 4.15 by
 * default): the objects' promises (legacy 4.15, compat 4.18, modern 5.15)
 * checked on every build rather than hoped for.
 *
 * What it finds, one line per problem naming the program (or section, or
 * map) and the release it needs:
 *   - helper calls by id, kfunc calls, BTF ids (ksyms), callbacks
 *   - program sections by libbpf's names (tracepoint, tp_btf, fentry,
 *     raw_tp, uprobe, usdt, lsm, struct_ops, iter, ...)
 *   - map types, from the BTF of SEC(".maps") or from legacy SEC("maps")
 *     bpf_map_defs
 *   - global data: .data, .rodata, .bss, .kconfig sections (5.2) and the
 *     variables programs use from them
 *   - CO-RE relocations (.BTF.ext core_relo): kernel BTF
 *   - programs of 4096 instructions or more (5.2)
 *   - back-edges (loops: bounded loops are 5.3), found as the kernel's
 *     check_cfg() finds them; BPF-to-BPF calls (4.16)
 *   - instructions newer cpus brought: jmp32 (v3, 5.1), fetching atomics
 *     (5.12), sign-extending loads, movsx, sdiv, bswap (v4, 6.6)
 *   - map helper keys and values that point into a map value (4.18; the
 *     stack only before), see check_map_args()
 * and, for any kernel, unreachable instructions (check_cfg() refuses dead
 * code), a context pointer as a map key or value, a jump out of the
 * program, and what the tables do not know.
 *
 * Stack size is not checked here: clang refuses more than 512 bytes, and
 * 512 is the limit of every kernel.
 *
 * Output: the problems, then "bpfcheck: OBJ: ok (N programs, max M insns,
 * minimum kernel X.Y: WHY)" or, with problems, "bpfcheck: OBJ: minimum
 * kernel X.Y: WHY". --floor prints the minimum line alone.
 * Exit: 0 clean, 1 with problems, 2 on a usage error or a file that is not
 * a BPF ELF object.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gelf.h>
#include <libelf.h>
#include <linux/bpf.h>
#include <linux/btf.h>

#include "kernel_features.h"

#ifndef EM_BPF
#define EM_BPF 247
#endif

#define MAX_INSNS 4096

#define HELPER_NAME(x) "bpf_" #x
static const char *const helper_names[] = { __BPF_FUNC_MAPPER(HELPER_NAME) };
#undef HELPER_NAME

static const char *const core_kinds[] = {
	"field_byte_offset", "field_byte_size", "field_exists", "field_signed",
	"field_lshift_u64", "field_rshift_u64", "type_id_local", "type_id_target",
	"type_exists", "type_size", "enumval_exists", "enumval_value", "type_matches",
};

struct prog {
	const char *name, *sec;
	size_t shndx;
	size_t first, n;	/* instruction range in the section */
};

struct sec {
	const char *name;
	GElf_Shdr sh;
	Elf_Data *data;
};

struct obj {
	const char *path;
	Elf *elf;
	struct sec *secs;
	size_t nsecs;
	Elf_Data *symtab;
	size_t strtab;		/* the symbol names' section */
	size_t nsyms;
	struct prog *progs;
	size_t nprogs;
	/* .BTF */
	const char *btf_strs;
	size_t btf_strs_len;
	const struct btf_type **types;	/* by id; [0] is void */
	size_t ntypes;
	int problems;
	unsigned int target;	/* --kernel: what needs a later one is a problem */
	int floor_only;		/* --floor: no problem lines */
	unsigned int floor;	/* the minimum kernel so far, and why */
	char floor_why[384];
};

/* "4.18", "never", "unknown" into @buf. */
static const char *kv_str(unsigned int v, char *buf, size_t n)
{
	if (v == KV_NEVER)
		return "no kernel";
	if (v == KV_UNKNOWN)
		return "a kernel bpfcheck does not know";
	snprintf(buf, n, "%u.%u", KV_MAJOR(v), KV_MINOR(v));
	return buf;
}

/*
 * At @where, something that needs kernel @since (KV_NEVER: none loads it,
 * KV_UNKNOWN: the tables do not know it): the floor rises to it, and
 * beyond --kernel it is a problem, one line.
 */
static void need(struct obj *o, const char *where, unsigned int since, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void need(struct obj *o, const char *where, unsigned int since, const char *fmt, ...)
{
	char what[512], v[16];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (since > o->floor && since != KV_NEVER) {
		o->floor = since;
		snprintf(o->floor_why, sizeof(o->floor_why), "%s, %s", what, where);
	}
	if (since <= o->target)
		return;
	o->problems++;
	if (o->floor_only)
		return;
	if (since == KV_NEVER)
		printf("bpfcheck: %s: %s: %s\n", o->path, where, what);
	else
		printf("bpfcheck: %s: %s: %s: needs %s\n", o->path, where, what,
		       kv_str(since, v, sizeof(v)));
}

/* What no kernel loads, at @where. */
#define problem(o, where, ...) need(o, where, KV_NEVER, __VA_ARGS__)

static int starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static int is_data_sec(const char *name)
{
	return starts_with(name, ".data") || starts_with(name, ".rodata") ||
	       starts_with(name, ".bss") || starts_with(name, ".kconfig") ||
	       starts_with(name, ".ksyms");
}

static const char *sym_name(struct obj *o, const GElf_Sym *sym)
{
	const char *n = elf_strptr(o->elf, o->strtab, sym->st_name);

	if ((!n || !*n) && GELF_ST_TYPE(sym->st_info) == STT_SECTION && sym->st_shndx < o->nsecs)
		n = o->secs[sym->st_shndx].name;
	return n ? n : "?";
}

/* --- BTF ------------------------------------------------------------------ */

static const char *btf_str(struct obj *o, __u32 off)
{
	return o->btf_strs && off < o->btf_strs_len ? o->btf_strs + off : "?";
}

static size_t btf_extra(const struct btf_type *t)
{
	__u16 vlen = BTF_INFO_VLEN(t->info);

	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_INT: return sizeof(__u32);
	case BTF_KIND_ARRAY: return sizeof(struct btf_array);
	case BTF_KIND_STRUCT: case BTF_KIND_UNION: return vlen * sizeof(struct btf_member);
	case BTF_KIND_ENUM: return vlen * sizeof(struct btf_enum);
	case BTF_KIND_FUNC_PROTO: return vlen * sizeof(struct btf_param);
	case BTF_KIND_VAR: return sizeof(struct btf_var);
	case BTF_KIND_DATASEC: return vlen * sizeof(struct btf_var_secinfo);
	case 17 /* DECL_TAG */: return sizeof(__u32);
	case 19 /* ENUM64 */: return vlen * 3 * sizeof(__u32);
	default: return 0;	/* PTR FWD TYPEDEF VOLATILE CONST RESTRICT FUNC FLOAT TYPE_TAG */
	}
}

static int btf_load(struct obj *o, Elf_Data *d)
{
	const struct btf_header *h = d->d_buf;
	const char *p, *end;
	size_t cap = 256;

	if (d->d_size < sizeof(*h) || h->magic != BTF_MAGIC ||
	    h->hdr_len + (size_t)h->type_off + h->type_len > d->d_size ||
	    h->hdr_len + (size_t)h->str_off + h->str_len > d->d_size)
		return -1;
	o->btf_strs = (const char *)d->d_buf + h->hdr_len + h->str_off;
	o->btf_strs_len = h->str_len;
	o->types = calloc(cap, sizeof(*o->types));
	if (!o->types)
		return -1;
	o->ntypes = 1;
	p = (const char *)d->d_buf + h->hdr_len + h->type_off;
	end = p + h->type_len;
	while (p + sizeof(struct btf_type) <= end) {
		const struct btf_type *t = (const void *)p;

		if (o->ntypes == cap) {
			const struct btf_type **nt = realloc(o->types, 2 * cap * sizeof(*nt));

			if (!nt)
				return -1;
			o->types = nt;
			cap *= 2;
		}
		o->types[o->ntypes++] = t;
		p += sizeof(*t) + btf_extra(t);
	}
	return 0;
}

static const struct btf_type *btf_type(struct obj *o, __u32 id)
{
	return id && id < o->ntypes ? o->types[id] : NULL;
}

/* Through typedefs and qualifiers. */
static const struct btf_type *btf_resolve(struct obj *o, __u32 id)
{
	const struct btf_type *t = btf_type(o, id);
	int depth;

	for (depth = 0; t && depth < 32; depth++) {
		int k = BTF_INFO_KIND(t->info);

		if (k != BTF_KIND_TYPEDEF && k != BTF_KIND_VOLATILE && k != BTF_KIND_CONST &&
		    k != BTF_KIND_RESTRICT && k != 18 /* TYPE_TAG */)
			return t;
		t = btf_type(o, t->type);
	}
	return NULL;
}

static void check_map_type(struct obj *o, const char *map, unsigned int type)
{
	char where[256];

	snprintf(where, sizeof(where), "map %s", map);
	if (type < sizeof(map_types) / sizeof(map_types[0]) && map_types[type].name)
		need(o, where, map_types[type].since, "type %s (%u)", map_types[type].name, type);
	else
		need(o, where, KV_UNKNOWN, "map type %u", type);
}

/* SEC(".maps"): each variable is a struct whose `type` member is int (*)[TYPE]. */
static void check_btf_maps(struct obj *o)
{
	size_t id;

	for (id = 1; id < o->ntypes; id++) {
		const struct btf_type *ds = o->types[id];
		const struct btf_var_secinfo *vs;
		unsigned int i;

		if (BTF_INFO_KIND(ds->info) != BTF_KIND_DATASEC || strcmp(btf_str(o, ds->name_off), ".maps"))
			continue;
		vs = (const void *)(ds + 1);
		for (i = 0; i < BTF_INFO_VLEN(ds->info); i++) {
			const struct btf_type *var = btf_type(o, vs[i].type), *st, *mt;
			const struct btf_member *m;
			const char *name = var ? btf_str(o, var->name_off) : "?";
			unsigned int j;
			int found = 0;

			st = var ? btf_resolve(o, var->type) : NULL;
			if (!st || BTF_INFO_KIND(st->info) != BTF_KIND_STRUCT) {
				problem(o, "section .maps", "map %s: not a BTF map definition", name);
				continue;
			}
			m = (const void *)(st + 1);
			for (j = 0; j < BTF_INFO_VLEN(st->info); j++) {
				if (strcmp(btf_str(o, m[j].name_off), "type"))
					continue;
				mt = btf_resolve(o, m[j].type);
				if (mt && BTF_INFO_KIND(mt->info) == BTF_KIND_PTR)
					mt = btf_resolve(o, mt->type);
				if (mt && BTF_INFO_KIND(mt->info) == BTF_KIND_ARRAY) {
					check_map_type(o, name, ((const struct btf_array *)(mt + 1))->nelems);
					found = 1;
				}
			}
			if (!found)
				problem(o, "section .maps", "map %s: no map type", name);
		}
	}
}

/* --- programs ------------------------------------------------------------- */

static struct prog *prog_at(struct obj *o, size_t shndx, size_t insn)
{
	size_t i;

	for (i = 0; i < o->nprogs; i++)
		if (o->progs[i].shndx == shndx && insn >= o->progs[i].first &&
		    insn < o->progs[i].first + o->progs[i].n)
			return &o->progs[i];
	return NULL;
}

static void prog_where(struct obj *o, size_t shndx, size_t insn, char *buf, size_t n)
{
	struct prog *p = prog_at(o, shndx, insn);

	if (p)
		snprintf(buf, n, "prog %s (%s)", p->name, p->sec);
	else
		snprintf(buf, n, "section %s", o->secs[shndx].name);
}

/* The symbol a relocation of @shndx at instruction @insn names, or NULL. */
static int reloc_sym(struct obj *o, size_t shndx, size_t insn, GElf_Sym *out)
{
	size_t i, j;

	if (!o->symtab)
		return 0;
	for (i = 0; i < o->nsecs; i++) {
		struct sec *r = &o->secs[i];

		if (r->sh.sh_type != SHT_REL || r->sh.sh_info != shndx || !r->data)
			continue;
		for (j = 0; j < r->sh.sh_size / r->sh.sh_entsize; j++) {
			GElf_Rel rel;

			if (!gelf_getrel(r->data, (int)j, &rel) || rel.r_offset != insn * 8)
				continue;
			return gelf_getsym(o->symtab, (int)GELF_R_SYM(rel.r_info), out) != NULL;
		}
	}
	return 0;
}

/*
 * The function a pseudo call at @i calls: relocated against a section
 * symbol (.text), it lands imm + 1 instructions after the symbol, as
 * libbpf computes it.
 */
static const char *callee_name(struct obj *o, struct prog *p, size_t i, const struct bpf_insn *in)
{
	GElf_Sym sym, f;
	size_t shndx = p->shndx, j;
	long target;

	target = (long)i + in->imm + 1;
	if (reloc_sym(o, p->shndx, i, &sym)) {
		if (GELF_ST_TYPE(sym.st_info) != STT_SECTION)
			return sym_name(o, &sym);
		shndx = sym.st_shndx;
		target = (long)(sym.st_value / 8) + in->imm + 1;
	}
	for (j = 0; j < o->nsyms; j++)
		if (gelf_getsym(o->symtab, (int)j, &f) && f.st_shndx == shndx &&
		    GELF_ST_TYPE(f.st_info) == STT_FUNC && (long)(f.st_value / 8) == target)
			return sym_name(o, &f);
	return "a subprogram";
}

static void check_insns(struct obj *o, struct prog *p)
{
	const struct bpf_insn *insns = o->secs[p->shndx].data->d_buf;
	char where[512];
	size_t i;

	snprintf(where, sizeof(where), "prog %s (%s)", p->name, p->sec);
	if (p->n >= MAX_INSNS)
		need(o, where, KV_1M_INSNS, "%zu instructions (fewer than %d before)", p->n, MAX_INSNS);
	for (i = p->first; i < p->first + p->n; i++) {
		const struct bpf_insn *in = &insns[i];
		int cls = BPF_CLASS(in->code), op = BPF_OP(in->code);
		size_t rel = i - p->first;
		GElf_Sym sym;

		if (cls == BPF_JMP32) {
			need(o, where, KV_JMP32, "insn %zu: a jmp32 instruction (cpu v3)", rel);
			continue;
		}
		if (cls == BPF_JMP && op == BPF_CALL) {
			if (in->src_reg == 0)
				need(o, where, helper_since(in->imm), "insn %zu: call to helper %d (%s)", rel,
				     in->imm, in->imm > 0 &&
				     (size_t)in->imm < sizeof(helper_names) / sizeof(helper_names[0]) ?
				     helper_names[in->imm] : "unknown");
			else if (in->src_reg == BPF_PSEUDO_KFUNC_CALL ||
				 (in->src_reg == BPF_PSEUDO_CALL && reloc_sym(o, p->shndx, i, &sym) &&
				  sym.st_shndx == SHN_UNDEF))
				need(o, where, KV_KFUNCS, "insn %zu: kfunc call%s%s (kernel BTF)", rel,
				     in->src_reg == BPF_PSEUDO_CALL ? " to " : "",
				     in->src_reg == BPF_PSEUDO_CALL ? sym_name(o, &sym) : "");
			else if (in->src_reg == BPF_PSEUDO_CALL)
				need(o, where, KV_BPF_CALLS,
				     "insn %zu: BPF-to-BPF call to %s (or make the callee __always_inline)",
				     rel, callee_name(o, p, i, in));
			continue;
		}
		if (cls == BPF_JMP && op != BPF_EXIT)
			continue;	/* loops: check_cfg() */
		if (in->code == (BPF_LD | BPF_IMM | BPF_DW)) {
			if (in->src_reg == BPF_PSEUDO_BTF_ID)
				need(o, where, KV_BTF_ID, "insn %zu: a BTF id (__ksym, kernel BTF)", rel);
			else if (in->src_reg == BPF_PSEUDO_MAP_VALUE || in->src_reg == BPF_PSEUDO_MAP_IDX_VALUE)
				need(o, where, KV_GLOBAL_DATA, "insn %zu: a map value address (global data)", rel);
			else if (in->src_reg == BPF_PSEUDO_FUNC)
				need(o, where, KV_CALLBACKS, "insn %zu: a function address (callbacks)", rel);
			i++;	/* the second half of the 16-byte instruction */
			continue;
		}
		if (cls == BPF_STX && BPF_MODE(in->code) == BPF_ATOMIC && in->imm != BPF_ADD)
			need(o, where, KV_ATOMICS,
			     "insn %zu: atomic operation %#x (fetch, xchg, cmpxchg, and, or, xor)", rel, in->imm);
		if ((cls == BPF_LDX) && BPF_MODE(in->code) == 0x80 /* BPF_MEMSX */)
			need(o, where, KV_CPU_V4, "insn %zu: a sign-extending load (cpu v4)", rel);
		if ((cls == BPF_ALU || cls == BPF_ALU64) &&
		    (((op == BPF_DIV || op == BPF_MOD || op == BPF_MOV) && in->off != 0) ||
		     (cls == BPF_ALU64 && op == BPF_END)))
			need(o, where, KV_CPU_V4, "insn %zu: a cpu v4 ALU instruction (movsx, sdiv, smod, bswap)",
			     rel);
	}
}

/* The successors of instruction @i (relative to the program): 0, 1 or 2. */
static int successors(const struct bpf_insn *in, size_t i, long succ[2])
{
	int cls = BPF_CLASS(in->code), op = BPF_OP(in->code);

	if (in->code == (BPF_LD | BPF_IMM | BPF_DW)) {
		succ[0] = (long)i + 2;
		return 1;
	}
	if (cls != BPF_JMP && cls != BPF_JMP32) {
		succ[0] = (long)i + 1;
		return 1;
	}
	if (op == BPF_EXIT)
		return 0;
	if (op == BPF_CALL) {
		succ[0] = (long)i + 1;
		return 1;
	}
	if (op == BPF_JA) {
		succ[0] = (long)i + 1 + in->off;
		return 1;
	}
	succ[0] = (long)i + 1;
	succ[1] = (long)i + 1 + in->off;
	return 2;
}

/*
 * The kernel's check_cfg(), which refuses what it finds (loops, before 5.3): a
 * depth-first walk of the control flow from the first instruction; an
 * edge to an instruction still on the walk's path is a back-edge (a
 * loop), an instruction never reached is unreachable. A backward jump to
 * code already walked (clang merges common tails) is neither.
 */
static int check_cfg(struct obj *o, struct prog *p, const char *where, size_t *post, size_t *npost)
{
	const struct bpf_insn *insns = (const struct bpf_insn *)o->secs[p->shndx].data->d_buf + p->first;
	enum { NEW, ON_PATH, DONE };
	unsigned char *state = calloc(p->n ? p->n : 1, 1);
	size_t *stack = calloc(p->n ? p->n : 1, sizeof(*stack)), top = 0, i, unreachable = 0;
	unsigned char *edge = calloc(p->n ? p->n : 1, 1);	/* next successor to follow */
	int loops = 0;

	*npost = 0;
	if (!state || !stack || !edge || !p->n) {
		loops = -1;
		goto out;
	}
	state[0] = ON_PATH;
	stack[top++] = 0;
	while (top) {
		size_t at = stack[top - 1];
		long succ[2];
		int ns = successors(&insns[at], at, succ);

		if (edge[at] == ns) {
			state[at] = DONE;
			post[(*npost)++] = at;
			top--;
			continue;
		}
		{
			long t = succ[edge[at]++];

			if (t < 0 || (size_t)t >= p->n) {
				problem(o, where, "insn %zu: jump out of the program (to %ld)", at, t);
				loops = -1;
				continue;
			}
			if (state[t] == ON_PATH) {
				need(o, where, KV_LOOPS, "insn %zu: back-edge to insn %ld: a loop (bounded loops)",
				     at, t);
				loops = -1;
			}
			else if (state[t] == NEW) {
				state[t] = ON_PATH;
				stack[top++] = (size_t)t;
			}
		}
	}
	for (i = 0; i < p->n; i++) {
		if (state[i] != NEW)
			continue;
		/* the second half of a 16-byte load is not an instruction */
		if (i > 0 && state[i - 1] != NEW && insns[i - 1].code == (BPF_LD | BPF_IMM | BPF_DW))
			continue;
		if (!unreachable++)
			problem(o, where, "insn %zu: unreachable (every kernel refuses dead code)", i);
	}
out:
	free(state);
	free(stack);
	free(edge);
	return loops;
}

/*
 * Map helpers' keys and values: before 4.18 ("bpf: allow map helpers access
 * to map values directly", d71962f3e627) the verifier takes them from the
 * stack (or a packet) only, and newer clang happily passes a pointer into a
 * map value; a context pointer no kernel takes.
 * A forward pass over the (acyclic) control flow in topological order that
 * tracks what each register and each 8-byte stack slot holds, merging
 * disagreeing paths to "unknown"; only a definite map value or context
 * pointer is reported, so imprecision never makes a false alarm.
 */
enum vtype { V_UNKNOWN, V_SCALAR, V_STACK, V_MAPVAL, V_CTX, V_MAP };

struct vreg {
	unsigned char type;
	short off;		/* V_STACK: offset from r10, SHRT_MIN unknown */
};

#define NSLOTS (512 / 8)
struct vstate {
	unsigned char seen;
	struct vreg r[11];
	struct vreg slot[NSLOTS];	/* slot i is r10 - 8 * (i + 1) */
};

static void vmerge(struct vstate *into, const struct vstate *from)
{
	size_t i;

	if (!into->seen) {
		*into = *from;
		into->seen = 1;
		return;
	}
	for (i = 0; i < 11; i++)
		if (into->r[i].type != from->r[i].type || into->r[i].off != from->r[i].off)
			into->r[i] = (struct vreg){ V_UNKNOWN, 0 };
	for (i = 0; i < NSLOTS; i++)
		if (into->slot[i].type != from->slot[i].type || into->slot[i].off != from->slot[i].off)
			into->slot[i] = (struct vreg){ V_UNKNOWN, 0 };
}

static int vslot(const struct vreg *base, short off)
{
	long o;

	if (base->type != V_STACK || base->off == SHRT_MIN)
		return -1;
	o = (long)base->off + off;
	if (o >= 0 || o < -512 || o % 8)
		return -1;
	return (int)(-o / 8 - 1);
}

static void check_map_args(struct obj *o, struct prog *p, const char *where,
			   const size_t *post, size_t npost)
{
	const struct bpf_insn *insns = (const struct bpf_insn *)o->secs[p->shndx].data->d_buf + p->first;
	struct vstate *st = calloc(p->n, sizeof(*st)), cur;
	size_t k;

	if (!st || !npost)
		goto out;
	st[0].seen = 1;
	st[0].r[1].type = V_CTX;
	st[0].r[10].type = V_STACK;
	for (k = npost; k-- > 0;) {
		size_t i = post[k];
		const struct bpf_insn *in = &insns[i];
		int cls = BPF_CLASS(in->code), op = BPF_OP(in->code), sl, ns, j;
		struct vreg *dst = &cur.r[in->dst_reg & 0xf];
		long succ[2];
		GElf_Sym sym;

		if (!st[i].seen || in->dst_reg > 10 || in->src_reg > 10)
			continue;
		cur = st[i];
		if (cls == BPF_ALU64 && op == BPF_MOV) {
			*dst = BPF_SRC(in->code) == BPF_X ? cur.r[in->src_reg] : (struct vreg){ V_SCALAR, 0 };
		} else if (cls == BPF_ALU64 && (op == BPF_ADD || op == BPF_SUB) &&
			   (dst->type == V_STACK || dst->type == V_MAPVAL || dst->type == V_CTX)) {
			/* pointer arithmetic keeps the kind */
			if (dst->type == V_STACK && BPF_SRC(in->code) == BPF_K && dst->off != SHRT_MIN)
				dst->off = (short)(dst->off + (op == BPF_ADD ? in->imm : -in->imm));
			else if (dst->type == V_STACK)
				dst->off = SHRT_MIN;
		} else if (cls == BPF_ALU || cls == BPF_ALU64) {
			*dst = (struct vreg){ V_SCALAR, 0 };
		} else if (cls == BPF_LDX) {
			sl = BPF_SIZE(in->code) == BPF_DW ? vslot(&cur.r[in->src_reg], in->off) : -1;
			*dst = sl >= 0 ? cur.slot[sl] : (struct vreg){ V_SCALAR, 0 };
		} else if (cls == BPF_STX || cls == BPF_ST) {
			sl = vslot(dst, in->off);
			if (sl >= 0 && BPF_MODE(in->code) == BPF_MEM)
				cur.slot[sl] = cls == BPF_STX && BPF_SIZE(in->code) == BPF_DW ?
					cur.r[in->src_reg] : (struct vreg){ V_SCALAR, 0 };
		} else if (in->code == (BPF_LD | BPF_IMM | BPF_DW)) {
			/* an extern (.kconfig, __ksym) is in no section: SHN_UNDEF, no name */
			int is_map = reloc_sym(o, p->shndx, p->first + i, &sym) &&
				     sym.st_shndx != SHN_UNDEF && sym.st_shndx < o->nsecs &&
				     o->secs[sym.st_shndx].name &&
				     (!strcmp(o->secs[sym.st_shndx].name, ".maps") ||
				      !strcmp(o->secs[sym.st_shndx].name, "maps"));

			*dst = (struct vreg){ is_map ? V_MAP : V_SCALAR, 0 };
		} else if (cls == BPF_LD) {
			cur.r[0] = (struct vreg){ V_SCALAR, 0 };	/* LD_ABS/IND */
		} else if (cls == BPF_JMP && op == BPF_CALL) {
			static const char *const what[] = { "key", "value" };
			int id = in->src_reg == 0 ? in->imm : -1;
			int nargs = id == BPF_FUNC_map_update_elem ? 2 :
				    id == BPF_FUNC_map_lookup_elem || id == BPF_FUNC_map_delete_elem ? 1 : 0;

			for (j = 0; j < nargs; j++) {
				const struct vreg *a = &cur.r[2 + j];

				if (a->type == V_MAPVAL)
					need(o, where, KV_MAP_VALUE_ARGS, "insn %zu: %s's %s in a map value "
					     "(before, the stack only: copy it to a local)", i, helper_names[id],
					     what[j]);
				else if (a->type == V_CTX)
					problem(o, where, "insn %zu: %s's %s in the tracepoint context: "
						"copy it to a local", i, helper_names[id], what[j]);
			}
			cur.r[0] = (struct vreg){ id == BPF_FUNC_map_lookup_elem ? V_MAPVAL : V_SCALAR, 0 };
			for (j = 1; j <= 5; j++)
				cur.r[j] = (struct vreg){ V_UNKNOWN, 0 };
		}
		ns = successors(in, i, succ);
		for (j = 0; j < ns; j++)
			if (succ[j] >= 0 && (size_t)succ[j] < p->n)
				vmerge(&st[succ[j]], &cur);
	}
out:
	free(st);
}

/* Relocations in program sections against global data or externs. */
static void check_relocs(struct obj *o)
{
	size_t i, j;

	if (!o->symtab)
		return;
	for (i = 0; i < o->nsecs; i++) {
		struct sec *r = &o->secs[i];
		size_t target = r->sh.sh_info;

		if (r->sh.sh_type != SHT_REL || !r->data || target >= o->nsecs ||
		    !(o->secs[target].sh.sh_flags & SHF_EXECINSTR))
			continue;
		for (j = 0; j < r->sh.sh_size / r->sh.sh_entsize; j++) {
			char where[512];
			GElf_Rel rel;
			GElf_Sym sym;
			size_t insn;

			if (!gelf_getrel(r->data, (int)j, &rel) ||
			    !gelf_getsym(o->symtab, (int)GELF_R_SYM(rel.r_info), &sym))
				continue;
			insn = rel.r_offset / 8;
			prog_where(o, target, insn, where, sizeof(where));
			/* kfunc calls are check_insns()'s; libbpf keeps __kconfig values in global data */
			if (sym.st_shndx == SHN_UNDEF)
				need(o, where, KV_GLOBAL_DATA, "insn %zu: extern %s (__kconfig, __ksym: global data)",
				     insn - (prog_at(o, target, insn) ? prog_at(o, target, insn)->first : 0),
				     sym_name(o, &sym));
			else if (sym.st_shndx < o->nsecs && is_data_sec(o->secs[sym.st_shndx].name))
				need(o, where, KV_GLOBAL_DATA, "insn %zu: global variable %s in %s (global data)",
				     insn - (prog_at(o, target, insn) ? prog_at(o, target, insn)->first : 0),
				     sym_name(o, &sym), o->secs[sym.st_shndx].name);
		}
	}
}

/* .BTF.ext: CO-RE relocation records, per program section. */
static void check_core(struct obj *o, Elf_Data *d)
{
	const struct {
		__u16 magic;
		__u8 version, flags;
		__u32 hdr_len, func_info_off, func_info_len, line_info_off, line_info_len;
		__u32 core_relo_off, core_relo_len;
	} *h = d->d_buf;
	const char *p, *end;
	__u32 rec_size;
	size_t k;

	if (d->d_size < 24 || h->magic != BTF_MAGIC || h->hdr_len < 32 || !h->core_relo_len ||
	    h->hdr_len + (size_t)h->core_relo_off + h->core_relo_len > d->d_size)
		return;
	p = (const char *)d->d_buf + h->hdr_len + h->core_relo_off;
	end = p + h->core_relo_len;
	memcpy(&rec_size, p, sizeof(rec_size));
	p += sizeof(rec_size);
	if (rec_size < 16)
		return;
	while (p + 8 <= end) {
		__u32 sec_off, n, i;
		const char *sec;
		size_t shndx = 0;

		memcpy(&sec_off, p, 4);
		memcpy(&n, p + 4, 4);
		p += 8;
		sec = btf_str(o, sec_off);
		for (k = 0; k < o->nsecs; k++)
			if (o->secs[k].name && !strcmp(o->secs[k].name, sec))
				shndx = k;
		for (i = 0; i < n && p + rec_size <= end; i++, p += rec_size) {
			__u32 rec[4];	/* insn_off, type_id, access_str_off, kind */
			const struct btf_type *t;
			char where[512];
			size_t insn;

			memcpy(rec, p, sizeof(rec));
			insn = rec[0] / 8;
			if (shndx)
				prog_where(o, shndx, insn, where, sizeof(where));
			else
				snprintf(where, sizeof(where), "section %s", sec);
			t = btf_type(o, rec[1]);
			need(o, where, KV_KERNEL_BTF, "insn %zu: CO-RE relocation (%s of %s, access %s: kernel BTF)",
			     insn - (shndx && prog_at(o, shndx, insn) ? prog_at(o, shndx, insn)->first : 0),
			     rec[3] < sizeof(core_kinds) / sizeof(core_kinds[0]) ? core_kinds[rec[3]] : "?",
			     t ? btf_str(o, t->name_off) : "?", btf_str(o, rec[2]));
		}
	}
}

static int add_prog(struct obj *o, const char *name, size_t shndx, size_t first, size_t n)
{
	struct prog *np = realloc(o->progs, (o->nprogs + 1) * sizeof(*np));

	if (!np)
		return -1;
	o->progs = np;
	o->progs[o->nprogs++] = (struct prog){ name, o->secs[shndx].name, shndx, first, n };
	return 0;
}

static int check_file(const char *path, unsigned int target, int floor_only, int verbose)
{
	struct obj o = { .path = path, .target = target, .floor_only = floor_only, .floor = KV_OLDEST };
	Elf_Data *btf_ext = NULL, *maps_legacy = NULL;
	size_t shstrndx, i, j, maps_legacy_idx = 0, max_n = 0;
	GElf_Ehdr eh;
	Elf_Scn *scn = NULL;
	char kv[48];
	int fd, rc = 2;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "bpfcheck: cannot open %s: %s\n", path, strerror(errno));
		return 2;
	}
	o.elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!o.elf || !gelf_getehdr(o.elf, &eh) || elf_getshdrstrndx(o.elf, &shstrndx) ||
	    elf_getshdrnum(o.elf, &o.nsecs)) {
		fprintf(stderr, "bpfcheck: %s: not an ELF file: %s\n", path, elf_errmsg(-1));
		goto out;
	}
	if (eh.e_machine != EM_BPF || eh.e_ident[EI_CLASS] != ELFCLASS64) {
		fprintf(stderr, "bpfcheck: %s: not a BPF object (e_machine %u)\n", path, eh.e_machine);
		goto out;
	}
	o.secs = calloc(o.nsecs, sizeof(*o.secs));
	if (!o.secs)
		goto out;
	while ((scn = elf_nextscn(o.elf, scn))) {
		size_t idx = elf_ndxscn(scn);
		struct sec *s = &o.secs[idx];

		if (idx >= o.nsecs || !gelf_getshdr(scn, &s->sh))
			continue;
		s->name = elf_strptr(o.elf, shstrndx, s->sh.sh_name);
		if (!s->name)
			s->name = "?";
		s->data = s->sh.sh_type == SHT_NOBITS ? NULL : elf_getdata(scn, NULL);
		if (s->sh.sh_type == SHT_SYMTAB && s->data) {
			o.symtab = s->data;
			o.strtab = s->sh.sh_link;
			o.nsyms = s->sh.sh_entsize ? s->sh.sh_size / s->sh.sh_entsize : 0;
		}
		if (!strcmp(s->name, ".BTF") && s->data && btf_load(&o, s->data) < 0)
			fprintf(stderr, "bpfcheck: %s: cannot parse .BTF\n", path);
		if (!strcmp(s->name, ".BTF.ext"))
			btf_ext = s->data;
		if (!strcmp(s->name, "maps")) {
			maps_legacy = s->data;
			maps_legacy_idx = idx;
		}
	}

	/* programs: the functions of each executable section */
	for (i = 1; i < o.nsecs; i++) {
		struct sec *s = &o.secs[i];
		size_t before = o.nprogs;

		if (!(s->sh.sh_flags & SHF_EXECINSTR) || !s->sh.sh_size || !s->data)
			continue;
		for (j = 0; o.symtab && j < o.nsyms; j++) {
			GElf_Sym sym;

			if (!gelf_getsym(o.symtab, (int)j, &sym) || sym.st_shndx != i ||
			    GELF_ST_TYPE(sym.st_info) != STT_FUNC || !sym.st_size)
				continue;
			if (add_prog(&o, sym_name(&o, &sym), i, sym.st_value / 8, sym.st_size / 8) < 0)
				goto out;
		}
		if (o.nprogs == before && add_prog(&o, s->name, i, 0, s->sh.sh_size / 8) < 0)
			goto out;
	}

	for (i = 1; i < o.nsecs; i++) {
		struct sec *s = &o.secs[i];
		const struct sec_kind *kind;
		char where[512];

		snprintf(where, sizeof(where), "section %s", s->name);
		if (is_data_sec(s->name) && s->sh.sh_size)
			need(&o, where, KV_GLOBAL_DATA, "global data (.data, .rodata, .bss, .kconfig)");
		if (!(s->sh.sh_flags & SHF_EXECINSTR) || !s->sh.sh_size)
			continue;
		if (!strcmp(s->name, ".text"))
			need(&o, where, KV_BPF_CALLS, "%zu instructions of subprograms (not inlined: BPF-to-BPF calls)",
			     (size_t)(s->sh.sh_size / 8));
		else if ((kind = sec_kind_of(s->name)))
			need(&o, where, kind->since, "program type %s", kind->what);
		else
			need(&o, where, KV_UNKNOWN, "program type not known to bpfcheck");
	}
	for (i = 0; i < o.nprogs; i++) {
		/* subprograms too: what they call counts */
		check_insns(&o, &o.progs[i]);
		if (strcmp(o.progs[i].sec, ".text")) {
			char where[512];

			size_t *post = calloc(o.progs[i].n ? o.progs[i].n : 1, sizeof(*post)), npost = 0;

			snprintf(where, sizeof(where), "prog %s (%s)", o.progs[i].name, o.progs[i].sec);
			if (!post)
				goto out;
			/* loops make the flow cyclic: the value pass needs it acyclic */
			if (check_cfg(&o, &o.progs[i], where, post, &npost) == 0)
				check_map_args(&o, &o.progs[i], where, post, npost);
			free(post);
		}
		if (strcmp(o.progs[i].sec, ".text") && o.progs[i].n > max_n)
			max_n = o.progs[i].n;
	}
	check_relocs(&o);
	if (btf_ext)
		check_core(&o, btf_ext);
	if (o.ntypes)
		check_btf_maps(&o);
	if (maps_legacy) {
		/* struct bpf_map_def { type, key_size, value_size, max_entries, map_flags } */
		for (j = 0; o.symtab && j < o.nsyms; j++) {
			GElf_Sym sym;
			__u32 type;

			if (!gelf_getsym(o.symtab, (int)j, &sym) || sym.st_shndx != maps_legacy_idx ||
			    GELF_ST_TYPE(sym.st_info) == STT_SECTION ||
			    sym.st_value + sizeof(type) > maps_legacy->d_size)
				continue;
			memcpy(&type, (const char *)maps_legacy->d_buf + sym.st_value, sizeof(type));
			check_map_type(&o, sym_name(&o, &sym), type);
		}
	}

	if (verbose && !floor_only)
		for (i = 0; i < o.nprogs; i++)
			if (strcmp(o.progs[i].sec, ".text"))
				printf("bpfcheck: %s: prog %s (%s): %zu insns\n", path,
				       o.progs[i].name, o.progs[i].sec, o.progs[i].n);
	kv_str(o.floor, kv, sizeof(kv));
	if (o.floor == KV_OLDEST && !o.floor_why[0])
		snprintf(o.floor_why, sizeof(o.floor_why), "nothing newer than %s, the oldest kernel "
			 "bpfcheck knows", kv);
	if (o.problems && !floor_only) {
		printf("bpfcheck: %s: minimum kernel %s: %s\n", path, kv, o.floor_why);
		rc = 1;
	} else if (floor_only) {
		printf("bpfcheck: %s: minimum kernel %s: %s\n", path, kv, o.floor_why);
		rc = o.floor == KV_UNKNOWN ? 1 : 0;
	} else {
		size_t n = 0;

		for (i = 0; i < o.nprogs; i++)
			n += strcmp(o.progs[i].sec, ".text") != 0;
		printf("bpfcheck: %s: ok (%zu programs, max %zu insns, minimum kernel %s: %s)\n", path,
		       n, max_n, kv, o.floor_why);
		rc = 0;
	}
out:
	free(o.progs);
	free(o.types);
	free(o.secs);
	if (o.elf)
		elf_end(o.elf);
	close(fd);
	return rc;
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: bpfcheck [--kernel <version> | --floor] [-v] <obj.bpf.o>...\n"
"\n"
"Prove from the ELF which kernels BPF objects load on: each object's\n"
"minimum kernel (from its helper ids, program and map types, attach kinds,\n"
"global data, CO-RE, loops, BPF-to-BPF calls, instruction counts, by the\n"
"release that first had them), and what it needs beyond --kernel, one line\n"
"each. Kernels older than 4.15 are not known: no floor is below it.\n"
"\n"
"    --kernel <version>  the kernel the objects must load on (default 4.15)\n"
"    --floor             print each object's minimum kernel only\n"
"    -v, --verbose       list the programs and their instruction counts\n"
"    -h, --help          this text\n"
"\n"
"Exit status: 0 all clean (--floor: every floor known), 1 a problem found\n"
"(one line each), 2 usage error or unreadable object.\n"
"\n"
"EXAMPLES\n"
"    bpfcheck build/boottrace_legacy.bpf.o\n"
"    bpfcheck --kernel 4.18 -v build/boottrace_compat.bpf.o\n"
"    bpfcheck --floor build/boottrace*.bpf.o\n");
}

/* "4.18" into a version; 0 when it is not one. */
static unsigned int parse_kernel(const char *s)
{
	unsigned long major, minor;
	char *end;

	errno = 0;
	major = strtoul(s, &end, 10);
	if (errno || end == s || *end != '.' || major > 99)
		return 0;
	s = end + 1;
	minor = strtoul(s, &end, 10);
	if (errno || end == s || *end || minor > 255)
		return 0;
	return KV(major, minor);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "kernel", required_argument, NULL, 'k' },
		{ "floor", no_argument, NULL, 'f' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned int target = KV_OLDEST;
	int c, verbose = 0, floor_only = 0, rc = 0, i, r;

	while ((c = getopt_long(argc, argv, "vh", opts, NULL)) != -1) {
		switch (c) {
		case 'k':
			target = parse_kernel(optarg);
			if (!target) {
				fprintf(stderr, "bpfcheck: --kernel takes a version such as 4.18, not '%s'\n",
					optarg);
				return 2;
			}
			if (target < KV_OLDEST) {
				fprintf(stderr, "bpfcheck: --kernel %s: bpfcheck knows kernels from %u.%u on\n",
					optarg, KV_MAJOR(KV_OLDEST), KV_MINOR(KV_OLDEST));
				return 2;
			}
			break;
		case 'f':
			floor_only = 1;
			break;
		case 'v':
			verbose = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind == argc) {
		usage(stderr);
		return 2;
	}
	if (elf_version(EV_CURRENT) == EV_NONE) {
		fprintf(stderr, "bpfcheck: libelf: %s\n", elf_errmsg(-1));
		return 2;
	}
	for (i = optind; i < argc; i++) {
		r = check_file(argv[i], target, floor_only, verbose);
		if (r > rc)
			rc = r;
	}
	return rc;
}
