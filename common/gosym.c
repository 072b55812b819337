// SPDX-License-Identifier: BSD-2-Clause
/* A Go binary's functions named from its pclntab (gosym.h). */
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/gosym.h"

#define MAGIC_12 0xfffffffbu
#define MAGIC_116 0xfffffffau
#define MAGIC_118 0xfffffff0u
#define MAGIC_120 0xfffffff1u

/* runtime/symtab.go, the same from Go 1.16 to 1.22 */
#define PCDATA_INLTREEINDEX 2
#define FUNCDATA_INLTREE 3

/* A table larger than this is no table (dockerd's is 21 MiB). */
#define TAB_MAX (512u << 20)
/* An inline tree index beyond this is malformed (runtime caps a function's tree far lower). */
#define INL_INDEX_MAX (1 << 20)

struct seg {
	uint64_t off, filesz, vaddr;
};

struct gosym {
	uint32_t magic;
	uint8_t *buf;		/* the table, from its header to its section's end */
	size_t len;
	uint64_t va;		/* the table's own address */
	uint32_t quantum, ptrsize;
	uint32_t nfunc;
	uint64_t text;		/* 1.18+: functab pcs are offsets from it */
	/* offsets in buf of the subtables (1.2: all 0, but functab and filetab) */
	size_t funcname, cu, filetab, pctab, functab, funcs;
	uint32_t nfile;		/* 1.2: entries of filetab */
	size_t fieldsz;		/* functab's fields: ptrsize, or 4 from 1.18 */
	size_t funchdr;		/* sizeof _func before its pcdata */
	/* inline trees: 1.18+ at gofunc + funcdata; read from the file */
	uint64_t gofunc;
	bool has_gofunc;
	int fd;
	struct seg *segs;
	size_t nsegs;
};

/* The 1.18 layout (1.18 and on): functab and _func entries are uint32 offsets from text. */
static bool go118(const struct gosym *g)
{
	return g->magic == MAGIC_118 || g->magic == MAGIC_120;
}

static bool rd32(const struct gosym *g, size_t off, uint32_t *v)
{
	const uint8_t *p;

	if (off > g->len || g->len - off < 4)
		return false;
	p = g->buf + off;
	*v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
	return true;
}

/* A word of @sz bytes (4 or 8) at @off. */
static bool rdword(const struct gosym *g, size_t off, size_t sz, uint64_t *v)
{
	uint32_t lo, hi = 0;

	if (!rd32(g, off, &lo) || (sz == 8 && !rd32(g, off + 4, &hi)))
		return false;
	*v = (uint64_t)hi << 32 | lo;
	return true;
}

/* The NUL-terminated string at @base + @off of buf, or NULL (out of bounds, unterminated, empty). */
static const char *str_at(const struct gosym *g, size_t base, uint64_t off)
{
	const char *s;

	if (base > g->len || off >= g->len - base)
		return NULL;
	s = (const char *)g->buf + base + off;
	if (!*s || !memchr(s, '\0', g->len - base - off))
		return NULL;
	return s;
}

/* Read @n bytes at link-time address @va of the file, through its PT_LOAD segments. */
static bool read_va(const struct gosym *g, uint64_t va, void *out, size_t n)
{
	size_t i;

	for (i = 0; i < g->nsegs; i++) {
		const struct seg *s = &g->segs[i];

		if (va >= s->vaddr && va - s->vaddr < s->filesz && s->filesz - (va - s->vaddr) >= n)
			return pread(g->fd, out, n, (off_t)(s->off + (va - s->vaddr))) == (ssize_t)n;
	}
	return false;
}

/*
 * The header: its magic and the offsets of the subtables, each checked to
 * lie in the table. false when malformed.
 */
static bool parse_header(struct gosym *g)
{
	uint64_t w[8] = { 0 };
	size_t i, nw, need;

	if (g->len < 16 || g->buf[4] || g->buf[5])
		return false;
	g->quantum = g->buf[6];
	g->ptrsize = g->buf[7];
	if ((g->quantum != 1 && g->quantum != 2 && g->quantum != 4) ||
	    (g->ptrsize != 4 && g->ptrsize != 8))
		return false;
	rd32(g, 0, &g->magic);
	switch (g->magic) {
	case MAGIC_12:
		nw = 1;
		break;
	case MAGIC_116:
		nw = 7;
		break;
	case MAGIC_118:
	case MAGIC_120:
		nw = 8;
		break;
	default:
		return false;
	}
	for (i = 0; i < nw; i++)
		if (!rdword(g, 8 + i * g->ptrsize, g->ptrsize, &w[i]))
			return false;
	if (!w[0] || w[0] > TAB_MAX)
		return false;
	g->nfunc = (uint32_t)w[0];
	g->fieldsz = go118(g) ? 4 : g->ptrsize;
	if (g->magic == MAGIC_12) {
		uint32_t fileoff;

		g->functab = 8 + g->ptrsize;
		need = (2 * (size_t)g->nfunc + 1) * g->fieldsz;
		if (g->functab + need > g->len || !rd32(g, g->functab + need, &fileoff) ||
		    !rd32(g, fileoff, &g->nfile))
			return false;
		g->filetab = fileoff;
		if (g->nfile > (g->len - fileoff) / 4)
			return false;
		/* _func: entry, then nameoff .. npcdata, funcID/nfuncdata */
		g->funchdr = g->ptrsize + 8 * 4;
		return true;
	}
	for (i = nw - 5; i < nw; i++)	/* the last five words: offsets in the table */
		if (w[i] >= g->len)
			return false;
	if (g->magic == MAGIC_116) {
		g->funcname = w[2];
		g->cu = w[3];
		g->filetab = w[4];
		g->pctab = w[5];
		g->funcs = w[6];
		g->funchdr = g->ptrsize + 9 * 4;
	} else {
		g->text = w[2];
		g->funcname = w[3];
		g->cu = w[4];
		g->filetab = w[5];
		g->pctab = w[6];
		g->funcs = w[7];
		g->funchdr = g->magic == MAGIC_118 ? 4 + 9 * 4 : 4 + 10 * 4;
	}
	g->functab = g->funcs;
	need = (2 * (size_t)g->nfunc + 1) * g->fieldsz;
	return g->functab + need <= g->len;
}

/* Entry @i of the functab: its pc, and its _func's offset in buf. */
static bool functab_at(const struct gosym *g, size_t i, uint64_t *pc, size_t *func)
{
	uint64_t v;

	if (!rdword(g, g->functab + 2 * i * g->fieldsz, g->fieldsz, &v))
		return false;
	*pc = go118(g) ? g->text + v : v;
	if (!func)
		return true;
	if (!rdword(g, g->functab + (2 * i + 1) * g->fieldsz, g->fieldsz, &v) ||
	    v > g->len - g->funcs)
		return false;
	*func = g->funcs + v;
	return true;
}

/* Field @n (1..9) of the _func at @func: the uint32 after its entry. */
static bool field(const struct gosym *g, size_t func, unsigned n, uint32_t *v)
{
	size_t sz0 = go118(g) ? 4 : g->ptrsize;

	return rd32(g, func + sz0 + (n - 1) * 4, v);
}

/* A varint of the pc-value tables (at most 5 bytes) at *@p, advanced. */
static bool varint(const struct gosym *g, size_t *p, uint32_t *v)
{
	unsigned shift;

	*v = 0;
	for (shift = 0; shift < 35; shift += 7) {
		uint8_t b;

		if (*p >= g->len)
			return false;
		b = g->buf[(*p)++];
		*v |= (uint32_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return true;
	}
	return false;
}

/*
 * The value of pc-value table @tab (an offset in pctab) at @pc of the
 * function entered at @entry: -1 when there is none or it is malformed.
 * Each step reads at least two bytes, so the walk ends within the table.
 */
static int32_t pcvalue(const struct gosym *g, uint32_t tab, uint64_t entry, uint64_t pc)
{
	size_t p;
	uint64_t at = entry;
	int32_t val = -1;
	bool first = true;

	if (!tab || tab >= g->len - g->pctab)
		return -1;
	p = g->pctab + tab;
	for (;;) {
		uint32_t uv, pcd;

		if (!varint(g, &p, &uv) || (uv == 0 && !first) || !varint(g, &p, &pcd))
			return -1;
		first = false;
		/* zig-zag: the low bit is the sign */
		/* in 32 bits, wrapping as Go's int32 does: a hostile table overflows */
		val = (int32_t)((uint32_t)val + (uv & 1 ? ~(uv >> 1) : uv >> 1));
		at += (uint64_t)pcd * g->quantum;
		if (pc < at)
			return val;
	}
}

/* The file name of file number @fno of the function at @func, or NULL. */
static const char *file_name(const struct gosym *g, size_t func, int32_t fno)
{
	uint32_t off, cu;

	if (g->magic == MAGIC_12) {
		if (fno <= 0 || (uint32_t)fno >= g->nfile || !rd32(g, g->filetab + 4 * (size_t)fno, &off))
			return NULL;
		return str_at(g, 0, off);
	}
	if (fno < 0 || !field(g, func, 8, &cu) || cu == UINT32_MAX ||
	    !rd32(g, g->cu + ((size_t)cu + (uint32_t)fno) * 4, &off) || off == UINT32_MAX)
		return NULL;
	return str_at(g, g->filetab, off);
}

/* The file and line at @pc of the function at @func (entered at @entry) into @fr. */
static void file_line(const struct gosym *g, size_t func, uint64_t entry, uint64_t pc,
		      struct gosym_frame *fr)
{
	uint32_t tf, tl;
	int32_t line;

	fr->file = NULL;
	fr->line = 0;
	if (!field(g, func, 5, &tf) || !field(g, func, 6, &tl))
		return;
	line = pcvalue(g, tl, entry, pc);
	fr->file = file_name(g, func, pcvalue(g, tf, entry, pc));
	fr->line = line > 0 && fr->file ? line : 0;
	if (!fr->line)
		fr->file = NULL;
}

/*
 * The address of the inline tree of the function at @func whose pcdata
 * count is @npcdata; false when it has none or it cannot be read.
 */
static bool inl_tree(const struct gosym *g, size_t func, uint32_t npcdata, uint64_t *addr)
{
	size_t fd_at = func + g->funchdr + (size_t)npcdata * 4;
	uint8_t nfuncdata;
	uint64_t v;

	if (func + g->funchdr > g->len || npcdata > 1024)
		return false;
	nfuncdata = g->buf[func + g->funchdr - 1];
	if (nfuncdata <= FUNCDATA_INLTREE)
		return false;
	if (g->magic == MAGIC_116) {
		/* pointers, aligned to their size in memory */
		uint64_t mem = g->va + fd_at;

		if (mem % g->ptrsize)
			fd_at += g->ptrsize - mem % g->ptrsize;
		if (!rdword(g, fd_at + FUNCDATA_INLTREE * g->ptrsize, g->ptrsize, &v) || !v)
			return false;
		*addr = v;
		return true;
	}
	if (!g->has_gofunc || !rdword(g, fd_at + FUNCDATA_INLTREE * 4, 4, &v) || v == UINT32_MAX)
		return false;
	*addr = g->gofunc + v;
	return true;
}

/* Entry @ix of the inline tree at @tree: its name's offset in funcnametab, and parentPc. */
static bool inl_entry(const struct gosym *g, uint64_t tree, int32_t ix, uint32_t *name,
		      int32_t *parent_pc)
{
	/* 1.16-1.19: parent int16, funcID, pad, file, line, func_, parentPc (20 bytes);
	 * 1.20+: funcID, pad[3], nameOff, parentPc, startLine (16 bytes) */
	size_t sz = g->magic == MAGIC_120 ? 16 : 20, at = g->magic == MAGIC_120 ? 4 : 12;
	uint8_t e[20];

	if (ix < 0 || ix >= INL_INDEX_MAX || !read_va(g, tree + (uint64_t)ix * sz, e, sz))
		return false;
	*name = (uint32_t)e[at] | (uint32_t)e[at + 1] << 8 | (uint32_t)e[at + 2] << 16 |
		(uint32_t)e[at + 3] << 24;
	*parent_pc = (int32_t)((uint32_t)e[at + 4] | (uint32_t)e[at + 5] << 8 |
			       (uint32_t)e[at + 6] << 16 | (uint32_t)e[at + 7] << 24);
	return true;
}

/*
 * The function covering @va: its _func's offset in buf, its entry and end.
 * false when none does, or the table disagrees with itself.
 */
static bool func_at(const struct gosym *g, uint64_t va, size_t *func, uint64_t *entry,
		    uint64_t *end)
{
	size_t lo = 0, hi = g->nfunc;
	uint64_t fentry;

	if (!functab_at(g, 0, entry, NULL) || va < *entry ||
	    !functab_at(g, g->nfunc, end, NULL) || va >= *end)
		return false;
	while (hi - lo > 1) {	/* the last entry at or below va */
		size_t mid = lo + (hi - lo) / 2;
		uint64_t pcm;

		if (!functab_at(g, mid, &pcm, NULL))
			return false;
		if (pcm <= va)
			lo = mid;
		else
			hi = mid;
	}
	if (!functab_at(g, lo, entry, func) || !functab_at(g, lo + 1, end, NULL) ||
	    va < *entry || va >= *end)
		return false;
	/* the _func must say the same entry: a corrupt functab names nothing */
	if (go118(g)) {
		uint32_t eo;

		return rd32(g, *func, &eo) && g->text + eo == *entry;
	}
	return rdword(g, *func, g->ptrsize, &fentry) && fentry == *entry;
}

int gosym_sp_delta(const struct gosym *g, uint64_t va, int32_t *delta)
{
	uint64_t entry, end;
	uint32_t tab;
	size_t func;
	int32_t v;

	if (!g || !func_at(g, va, &func, &entry, &end) || !field(g, func, 4, &tab))
		return -1;
	v = pcvalue(g, tab, entry, va);
	/* a frame is small: a value out of reason is a malformed table */
	if (v < 0 || v > GOSYM_SP_DELTA_MAX || (v & 7))
		return -1;
	*delta = v;
	return 0;
}

int gosym_file_va(const struct gosym *g, uint64_t off, uint64_t *va)
{
	size_t i;

	for (i = 0; g && i < g->nsegs; i++)
		if (off >= g->segs[i].off && off - g->segs[i].off < g->segs[i].filesz) {
			*va = off - g->segs[i].off + g->segs[i].vaddr;
			return 0;
		}
	return -1;
}

size_t gosym_lookup(struct gosym *g, uint64_t va, struct gosym_frame *out, size_t max)
{
	size_t func, k = 0;
	uint64_t entry, end, tree, pc = va;
	uint32_t nameoff, npcdata, inltab;
	const char *name;

	if (!g || !max || !func_at(g, va, &func, &entry, &end))
		return 0;
	if (!field(g, func, 1, &nameoff) || !(name = str_at(g, g->funcname, nameoff)))
		return 0;
	/* the inlined functions, innermost first: each entry's parentPc is a
	 * pc of its caller's, whose index is the next (bounded by max) */
	if (g->magic != MAGIC_12 && field(g, func, 7, &npcdata) && npcdata > PCDATA_INLTREEINDEX &&
	    rd32(g, func + g->funchdr + PCDATA_INLTREEINDEX * 4, &inltab) &&
	    inl_tree(g, func, npcdata, &tree)) {
		int32_t ix = pcvalue(g, inltab, entry, pc);

		while (ix >= 0 && k + 1 < max) {
			uint32_t in;
			int32_t ppc;

			if (!inl_entry(g, tree, ix, &in, &ppc) || ppc < 0 ||
			    (uint64_t)ppc >= end - entry)
				break;
			out[k].fn = str_at(g, g->funcname, in);
			if (!out[k].fn)
				break;
			file_line(g, func, entry, pc, &out[k]);
			k++;
			pc = entry + (uint64_t)ppc;
			ix = pcvalue(g, inltab, entry, pc);
		}
	}
	out[k].fn = name;
	file_line(g, func, entry, pc, &out[k]);
	return k + 1;
}

uint32_t gosym_magic(const struct gosym *g)
{
	return g->magic;
}

void gosym__free(struct gosym *g)
{
	if (!g)
		return;
	if (g->fd >= 0)
		close(g->fd);
	free(g->buf);
	free(g->segs);
	free(g);
}

/* @n bytes at file offset @off into a new buffer, or NULL. */
static uint8_t *read_range(int fd, uint64_t off, size_t n)
{
	uint8_t *b;

	if (!n || n > TAB_MAX)
		return NULL;
	b = malloc(n);
	if (b && pread(fd, b, n, (off_t)off) != (ssize_t)n) {
		free(b);
		return NULL;
	}
	return b;
}

/* The first plausible header in @b (@n bytes) at or after @from: its offset, or -1. */
static ssize_t find_header(const uint8_t *b, size_t n, size_t from)
{
	static const uint8_t magics[][4] = {
		{ 0xf1, 0xff, 0xff, 0xff }, { 0xf0, 0xff, 0xff, 0xff },
		{ 0xfa, 0xff, 0xff, 0xff }, { 0xfb, 0xff, 0xff, 0xff },
	};
	size_t i, k;

	/* the runtime aligns the table to its pointer size at least */
	for (i = from; i + 16 <= n; i += 4)
		for (k = 0; k < sizeof(magics) / sizeof(magics[0]); k++)
			if (memcmp(b + i, magics[k], 4) == 0 && !b[i + 4] && !b[i + 5] &&
			    (b[i + 6] == 1 || b[i + 6] == 2 || b[i + 6] == 4) &&
			    (b[i + 7] == 4 || b[i + 7] == 8))
				return (ssize_t)i;
	return -1;
}

/*
 * 1.18+: go:func.*, the base of funcdata, from the runtime's moduledata in
 * .noptrdata: the word that points at the table, then funcnametab's
 * pointer; gofunc is word 38 (1.18, 1.19) or 40 (1.20+: covctrs and
 * ecovctrs came before it), checked to follow rodata.
 */
static void find_gofunc(struct gosym *g, const uint8_t *d, size_t n)
{
	size_t ps = g->ptrsize, at = g->magic == MAGIC_120 ? 40 : 38, i;

	for (i = 0; i + (at + 1) * ps <= n; i += ps) {
		uint64_t w0 = 0, w1 = 0, rodata = 0, gofunc = 0;

		memcpy(&w0, d + i, ps);
		if (w0 != g->va)
			continue;
		memcpy(&w1, d + i + ps, ps);
		memcpy(&rodata, d + i + (at - 1) * ps, ps);
		memcpy(&gofunc, d + i + at * ps, ps);
		if (w1 == g->va + g->funcname && rodata && rodata <= gofunc) {
			g->gofunc = gofunc;
			g->has_gofunc = true;
			return;
		}
	}
}

/* Whether section @name is there, and its header. */
static bool section(Elf *e, size_t shstrndx, const char *name, GElf_Shdr *out)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e, scn))) {
		const char *nm;

		if (!gelf_getshdr(scn, out))
			continue;
		nm = elf_strptr(e, shstrndx, out->sh_name);
		if (nm && strcmp(nm, name) == 0)
			return true;
	}
	return false;
}

/* The table of the open ELF @e into @g, its header parsed: false when none is found. */
static bool find_table(struct gosym *g, Elf *e, size_t shstrndx)
{
	GElf_Shdr sh, tmp;
	uint8_t *buf;
	ssize_t at;

	if (section(e, shstrndx, ".gopclntab", &sh) && sh.sh_type == SHT_PROGBITS) {
		g->buf = read_range(g->fd, sh.sh_offset, sh.sh_size);
		g->len = g->buf ? sh.sh_size : 0;
		g->va = sh.sh_addr;
		return g->buf != NULL;
	}
	/* a PIE: inside .data.rel.ro, in a file that is Go */
	if (!section(e, shstrndx, ".note.go.buildid", &tmp) &&
	    !section(e, shstrndx, ".go.buildinfo", &tmp))
		return false;
	if (!section(e, shstrndx, ".data.rel.ro", &sh) || sh.sh_type != SHT_PROGBITS)
		return false;
	buf = read_range(g->fd, sh.sh_offset, sh.sh_size);
	/* the first header that parses: bytes that merely look like one are passed */
	for (at = 0; buf && (at = find_header(buf, sh.sh_size, (size_t)at)) >= 0; at += 4) {
		g->buf = buf + at;
		g->len = sh.sh_size - (size_t)at;
		if (parse_header(g)) {
			memmove(buf, buf + at, g->len);
			g->buf = buf;
			g->va = sh.sh_addr + (uint64_t)at;
			return true;
		}
	}
	g->buf = NULL;
	free(buf);
	return false;
}

struct gosym *gosym__from_table(const void *tab, size_t len, uint64_t va)
{
	struct gosym *g = calloc(1, sizeof(*g));

	if (!g)
		return NULL;
	g->fd = -1;
	if (!len || len > TAB_MAX || !(g->buf = malloc(len)))
		goto fail;
	memcpy(g->buf, tab, len);
	g->len = len;
	g->va = va;
	if (parse_header(g))
		return g;
fail:
	gosym__free(g);
	return NULL;
}

struct gosym *gosym__open(int fd)
{
	struct gosym *g = calloc(1, sizeof(*g));
	size_t shstrndx, nph, i;
	GElf_Shdr sh;
	Elf *e = NULL;

	if (!g) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	g->fd = fd;
	if (g->fd < 0)
		goto fail;
	elf_version(EV_CURRENT);
	/* ELF_C_READ, not mmap: a file truncated under us gives errors, not SIGBUS */
	e = elf_begin(g->fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || elf_getshdrstrndx(e, &shstrndx) != 0 ||
	    !find_table(g, e, shstrndx) || !parse_header(g))
		goto fail;
	if (elf_getphdrnum(e, &nph) == 0 && nph) {
		g->segs = calloc(nph, sizeof(*g->segs));
		if (!g->segs)
			goto fail;
		for (i = 0; i < nph; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			g->segs[g->nsegs++] = (struct seg){ ph.p_offset, ph.p_filesz, ph.p_vaddr };
		}
	}
	if (go118(g)) {
		/* textStart unrelocated in a PIE's file: .text's start is the
		 * best guess then (an internal link puts runtime.text there) */
		if (!g->text && section(e, shstrndx, ".text", &sh))
			g->text = sh.sh_addr;
		if (section(e, shstrndx, ".noptrdata", &sh) && sh.sh_type == SHT_PROGBITS) {
			uint8_t *d = read_range(g->fd, sh.sh_offset, sh.sh_size);

			if (d)
				find_gofunc(g, d, sh.sh_size);
			free(d);
		}
	}
	elf_end(e);
	return g;
fail:
	if (e)
		elf_end(e);
	gosym__free(g);
	return NULL;
}
