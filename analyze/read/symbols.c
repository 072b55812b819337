// SPDX-License-Identifier: BSD-2-Clause
/* User frames named from ELF files, found by build id or path (symbols.h). */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/array.h"
#include "analyze/read/dbgfetch.h"
#include "analyze/read/demangle.h"
#include "analyze/read/symbols.h"
#include "common/gosym.h"

#define BID 20
#define SYSTEM_DEBUG_DIR "/usr/lib/debug"

struct seg {
	uint64_t off, filesz, vaddr;
};

struct sym {
	uint64_t addr, size;
	size_t name;		/* offset in names */
};

/* A file whose tables are read: the binary, and its debug file when needed. */
struct elf_file {
	uint8_t id[BID];
	bool has_id;
	bool loaded;		/* segs and syms read (or tried) */
	bool finished;		/* file_finish() done */
	bool ok;		/* the file reads as ELF */
	char *path;
	char *base;		/* its base name */
	struct seg *segs;
	size_t nsegs;
	struct sym *syms;
	size_t nsyms;
	char *names;
	size_t names_len, names_cap;
	char *dbg_path;		/* the debug file file_finish() took symbols from, or NULL */
	bool symtab;		/* syms are a .symtab's (its own or its debug file's) */
	/* a Go binary's pclntab, for want of .symtab (gosym.h) */
	bool go_tried;
	struct gosym *go;
	/* DWARF for inlined functions: its own or its debug file's */
	bool dw_tried;
	Dwarf *dw;
	Elf *dw_elf;
	int dw_fd;
};

struct cand {
	char *path;
	bool scanned;
};

struct symbols {
	struct cand *cands;
	size_t ncands, cands_cap;
	size_t next_scan;	/* cands before it are scanned */
	char **dirs;
	size_t ndirs, dirs_cap;
	bool no_system;
	struct elf_file **files;	/* every file opened, by build id or path */
	size_t nfiles, files_cap;
	/* build ids found nowhere: not looked for again */
	uint8_t (*missing)[BID];
	size_t nmissing, missing_cap;
	struct dbgfetch *fetch;	/* DEBUGINFOD_URLS, last */
	struct demangler *dem;	/* C++ names, each demangled once */
	/* the file and address the last lookup named: symbols_line()'s */
	struct elf_file *last;
	uint64_t last_va;
};

struct symbols *symbols__new(void)
{
	struct symbols *s;

	elf_version(EV_CURRENT);
	s = calloc(1, sizeof(*s));
	if (s && (!(s->fetch = dbgfetch__new()) || !(s->dem = demangler__new()))) {
		dbgfetch__free(s->fetch);
		free(s);
		return NULL;
	}
	return s;
}

static void file_free(struct elf_file *f)
{
	if (!f)
		return;
	free(f->path);
	free(f->segs);
	free(f->syms);
	free(f->names);
	free(f->dbg_path);
	gosym__free(f->go);
	if (f->dw)
		dwarf_end(f->dw);
	if (f->dw_elf)
		elf_end(f->dw_elf);
	if (f->dw_tried && f->dw_fd >= 0)
		close(f->dw_fd);
	free(f);
}

void symbols__free(struct symbols *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->ncands; i++)
		free(s->cands[i].path);
	for (i = 0; i < s->ndirs; i++)
		free(s->dirs[i]);
	for (i = 0; i < s->nfiles; i++)
		file_free(s->files[i]);
	free(s->cands);
	free(s->dirs);
	free(s->files);
	free(s->missing);
	dbgfetch__free(s->fetch);
	demangler__free(s->dem);
	free(s);
}

int symbols_add_path(struct symbols *s, const char *path, size_t n)
{
	size_t i;
	char *p;

	if (!n || memchr(path, '\0', n))
		return 0;
	for (i = 0; i < s->ncands; i++)
		if (strlen(s->cands[i].path) == n && memcmp(s->cands[i].path, path, n) == 0)
			return 0;
	if (array_grow((void **)&s->cands, &s->cands_cap, s->ncands + 1, sizeof(*s->cands), 16) < 0)
		return -1;
	p = strndup(path, n);
	if (!p)
		return -1;
	s->cands[s->ncands].path = p;
	s->cands[s->ncands].scanned = false;
	s->ncands++;
	return 0;
}

int symbols_add_debug_dir(struct symbols *s, const char *dir)
{
	char *d;

	if (array_grow((void **)&s->dirs, &s->dirs_cap, s->ndirs + 1, sizeof(*s->dirs), 4) < 0)
		return -1;
	d = strdup(dir);
	if (!d)
		return -1;
	s->dirs[s->ndirs++] = d;
	return 0;
}

void symbols_no_system(struct symbols *s)
{
	s->no_system = true;
}

/* Open @path read-only when it is a regular file (O_NONBLOCK: a FIFO must not block). */
static int open_regular(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -1;
	}
	return fd;
}

static int add_name(struct elf_file *f, const char *name, size_t *at)
{
	size_t n = strlen(name) + 1;

	if (array_grow((void **)&f->names, &f->names_cap, f->names_len + n, 1, 4096) < 0)
		return -1;
	memcpy(f->names + f->names_len, name, n);
	*at = f->names_len;
	f->names_len += n;
	return 0;
}

/* The function symbols of section type @type of @e into @f. 0, or -1 out of memory. */
static int read_syms(struct elf_file *f, Elf *e, Elf64_Word type)
{
	Elf_Scn *scn = NULL;
	size_t cap = 0;

	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t i, n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < n; i++) {
			GElf_Sym sy;
			const char *name;
			int t;

			if (!gelf_getsym(d, (int)i, &sy))
				break;
			t = GELF_ST_TYPE(sy.st_info);
			if ((t != STT_FUNC && t != STT_GNU_IFUNC) || sy.st_shndx == SHN_UNDEF ||
			    !sy.st_value)
				continue;
			name = elf_strptr(e, sh.sh_link, sy.st_name);
			if (!name || !*name)
				continue;
			if (array_grow((void **)&f->syms, &cap, f->nsyms + 1, sizeof(*f->syms), 256) < 0 ||
			    add_name(f, name, &f->syms[f->nsyms].name) < 0)
				return -1;
			f->syms[f->nsyms].addr = sy.st_value;
			f->syms[f->nsyms].size = sy.st_size;
			f->nsyms++;
		}
	}
	return 0;
}

static int cmp_sym(const void *x, const void *y)
{
	const struct sym *a = x, *b = y;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	/* of aliases, the one with a size first */
	return a->size > b->size ? -1 : a->size < b->size;
}

/* Read @f's build id (only, unless @full: its segments and symbols too). */
static struct elf_file *file_open(const char *path, bool full, struct elf_file *into)
{
	struct elf_file *f = into ? into : calloc(1, sizeof(*f));
	const void *idp;
	size_t i, nph;
	ssize_t idn;
	Elf *e;
	int fd;

	if (!f)
		return NULL;
	if (!f->path && !(f->path = strdup(path)))
		goto oom;
	f->base = strrchr(f->path, '/') ? strrchr(f->path, '/') + 1 : f->path;
	fd = open_regular(path);
	if (fd < 0)
		return f;
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		if (e)
			elf_end(e);
		close(fd);
		return f;
	}
	f->ok = true;
	idn = dwelf_elf_gnu_build_id(e, &idp);
	if (idn > 0) {
		memset(f->id, 0, BID);
		memcpy(f->id, idp, idn > BID ? BID : (size_t)idn);
		f->has_id = true;
	}
	if (full && !f->loaded) {
		f->loaded = true;
		if (elf_getphdrnum(e, &nph) == 0 && nph) {
			f->segs = calloc(nph, sizeof(*f->segs));
			if (!f->segs)
				goto oom_elf;
			for (i = 0; i < nph; i++) {
				GElf_Phdr ph;

				if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
					continue;
				f->segs[f->nsegs].off = ph.p_offset;
				f->segs[f->nsegs].filesz = ph.p_filesz;
				f->segs[f->nsegs].vaddr = ph.p_vaddr;
				f->nsegs++;
			}
		}
		if (read_syms(f, e, SHT_SYMTAB) < 0)
			goto oom_elf;
	}
	elf_end(e);
	close(fd);
	return f;
oom_elf:
	elf_end(e);
	close(fd);
oom:
	if (!into)
		file_free(f);
	return NULL;
}

/* Read .dynsym of @f (it had no .symtab, nor a debug file). */
static int file_dynsym(struct elf_file *f)
{
	int fd = open_regular(f->path), rc = 0;
	Elf *e;

	if (fd < 0)
		return 0;
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (e && elf_kind(e) == ELF_K_ELF)
		rc = read_syms(f, e, SHT_DYNSYM);
	if (e)
		elf_end(e);
	close(fd);
	return rc;
}

static int keep_file(struct symbols *s, struct elf_file *f)
{
	if (array_grow((void **)&s->files, &s->files_cap, s->nfiles + 1, sizeof(*s->files), 16) < 0) {
		file_free(f);
		return -1;
	}
	s->files[s->nfiles++] = f;
	return 0;
}

/* Lengths a build id may have (bytes), as .build-id paths name them. */
static const size_t id_lens[] = { 20, 16, 8 };

/*
 * The path of the debug file of build id @id of length @len under @dir
 * (DIR/.build-id/xx/rest.debug) into @path (@n bytes); false when @id has
 * nonzero bytes past @len (it is longer).
 */
static bool debug_path(const char *dir, const uint8_t id[BID], size_t len, char *path, size_t n)
{
	size_t i, at;

	for (i = len; i < BID; i++)
		if (id[i])
			return false;
	at = (size_t)snprintf(path, n, "%s/.build-id/%02x/", dir, id[0]);
	for (i = 1; i < len && at + 8 < n; i++)
		at += (size_t)snprintf(path + at, n - at, "%02x", id[i]);
	snprintf(path + at, n - at, ".debug");
	return true;
}

/* The debug file of build id @id under @dir (its .build-id), or NULL. */
static struct elf_file *debug_file(const char *dir, const uint8_t id[BID])
{
	char path[4200];
	size_t k;

	for (k = 0; k < sizeof(id_lens) / sizeof(id_lens[0]); k++) {
		struct elf_file *f;

		if (!debug_path(dir, id, id_lens[k], path, sizeof(path)) || access(path, R_OK) != 0)
			continue;
		f = file_open(path, true, NULL);
		if (f && f->ok && f->has_id && memcmp(f->id, id, BID) == 0)
			return f;
		file_free(f);
	}
	return NULL;
}

/*
 * The file of build id @id fetched from DEBUGINFOD_URLS (dbgfetch.h): its
 * debug file, or with @executable the binary; read in full, its build id
 * checked. NULL when none.
 */
static struct elf_file *fetched_file(struct symbols *s, const uint8_t id[BID], bool executable)
{
	char *path = s->no_system ? NULL : dbgfetch_get(s->fetch, id, executable);
	struct elf_file *f;

	if (!path)
		return NULL;
	/* a binary's tables are read when a frame matches it (file_finish()) */
	f = file_open(path, !executable, NULL);
	free(path);
	if (f && f->ok && f->has_id && memcmp(f->id, id, BID) == 0)
		return f;
	file_free(f);
	return NULL;
}

/*
 * Open the DWARF of @path into @f: true when it has some (and, with
 * @id, its build id is @id).
 */
static bool dwarf_try(struct elf_file *f, const char *path, const uint8_t *id)
{
	int fd = open_regular(path);
	Elf *e;

	if (fd < 0)
		return false;
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (e && elf_kind(e) == ELF_K_ELF) {
		const void *idp;
		ssize_t idn = id ? dwelf_elf_gnu_build_id(e, &idp) : 0;
		uint8_t got[BID] = { 0 };

		if (idn > 0)
			memcpy(got, idp, idn > BID ? BID : (size_t)idn);
		if (!id || (idn > 0 && memcmp(got, id, BID) == 0))
			f->dw = dwarf_begin_elf(e, DWARF_C_READ, NULL);
		if (f->dw) {
			f->dw_elf = e;
			f->dw_fd = fd;
			return true;
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	return false;
}

/* @f's DWARF, once: its own, else its debug file's. */
static void file_dwarf(struct symbols *s, struct elf_file *f)
{
	char path[4200];
	size_t i, k;

	if (f->dw_tried)
		return;
	f->dw_tried = true;
	f->dw_fd = -1;
	if (dwarf_try(f, f->path, NULL) || !f->has_id)
		return;
	if (f->dbg_path) {	/* found already, for its symbols */
		dwarf_try(f, f->dbg_path, f->id);
		return;
	}
	for (i = 0; i <= s->ndirs; i++) {
		const char *dir = i < s->ndirs ? s->dirs[i] : s->no_system ? NULL : SYSTEM_DEBUG_DIR;

		for (k = 0; dir && k < sizeof(id_lens) / sizeof(id_lens[0]); k++)
			if (debug_path(dir, f->id, id_lens[k], path, sizeof(path)) &&
			    dwarf_try(f, path, f->id))
				return;
	}
}

/*
 * The functions inlined at address @va of @f, innermost first, into @out
 * (room for @max): the DW_TAG_inlined_subroutine scopes that hold it,
 * named through their abstract origin: by their linkage name demangled
 * when they have one (C++: "ns::Class::method(int)", as the function
 * is named where it is called, not inlined), else their name. Their count.
 */
static size_t inlined_at(struct symbols *s, const struct elf_file *f, uint64_t va,
			 const char **out, size_t max)
{
	Dwarf_Die cu, *scopes = NULL;
	size_t k = 0;
	int n, i;

	if (!f->dw || !dwarf_addrdie(f->dw, va, &cu))
		return 0;
	n = dwarf_getscopes(&cu, va, &scopes);
	for (i = 0; i < n && k < max; i++) {
		Dwarf_Attribute a;
		const char *name;

		if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine)
			continue;
		name = NULL;
		if (dwarf_attr_integrate(&scopes[i], DW_AT_linkage_name, &a) ||
		    dwarf_attr_integrate(&scopes[i], DW_AT_MIPS_linkage_name, &a)) {
			const char *m = dwarf_formstring(&a);
			const char *dm = m ? demangle(s->dem, m) : NULL;

			if (dm != m)
				name = dm;
		}
		if (!name && dwarf_attr_integrate(&scopes[i], DW_AT_name, &a))
			name = dwarf_formstring(&a);
		if (name && *name)
			out[k++] = name;
	}
	free(scopes);
	return k;
}

/*
 * Finish @f, just matched to a frame: its tables, and for want of .symtab
 * the debug file's (whose own segments are not used: a debug file's
 * offsets need not be the binary's). 0, or -1 out of memory.
 */
static int file_finish(struct symbols *s, struct elf_file *f)
{
	struct elf_file *d = NULL;
	size_t i;

	if (f->finished)
		return 0;
	f->finished = true;
	if (!f->loaded && !file_open(f->path, true, f))
		return -1;
	if (!f->nsyms && f->has_id) {
		for (i = 0; i < s->ndirs && !d; i++)
			d = debug_file(s->dirs[i], f->id);
		if (!d && !s->no_system)
			d = debug_file(SYSTEM_DEBUG_DIR, f->id);
		if (!d)
			d = fetched_file(s, f->id, false);
	}
	if (d) {
		free(f->syms);
		free(f->names);
		f->syms = d->syms;
		f->nsyms = d->nsyms;
		f->names = d->names;
		f->names_len = d->names_len;
		f->dbg_path = d->path;	/* file_dwarf() opens it, not a search again */
		d->syms = NULL;
		d->names = NULL;
		d->path = NULL;
		file_free(d);
	}
	f->symtab = f->nsyms > 0;
	if (!f->nsyms && file_dynsym(f) < 0)
		return -1;
	if (f->nsyms > 1)
		qsort(f->syms, f->nsyms, sizeof(*f->syms), cmp_sym);
	return 0;
}

/*
 * A Go binary without .symtab: the functions at address @va from its
 * pclntab, innermost first as DWARF's inlines, into @h. Before .dynsym,
 * which in a Go binary holds only the few functions it exports, without
 * inlines. true when it names @va.
 */
static bool go_lookup(struct elf_file *f, uint64_t va, struct symbols_hit *h)
{
	struct gosym_frame fr[SYMBOLS_INLINE_MAX + 1];
	size_t n, i;

	if (!f->go_tried) {
		f->go_tried = true;
		f->go = gosym__open(open_regular(f->path));
	}
	if (!f->go || !(n = gosym_lookup(f->go, va, fr, SYMBOLS_INLINE_MAX + 1)))
		return false;
	for (i = 0; i < n; i++)
		h->fn[i] = fr[i].fn;
	h->n = n;
	return true;
}

/*
 * The functions of @f at file offset @off (@ret: a return address, the
 * call before it): 1, 0 (none), as symbols_build_id().
 */
static int lookup(struct symbols *s, struct elf_file *f, uint64_t off, bool ret,
		  struct symbols_hit *h)
{
	size_t i, lo = 0, hi = f->nsyms;
	uint64_t va = 0;
	bool in = false;

	h->module = f->base;
	h->n = 0;
	s->last = NULL;
	if (ret && off)
		off--;
	for (i = 0; i < f->nsegs && !in; i++)
		if (off >= f->segs[i].off && off - f->segs[i].off < f->segs[i].filesz) {
			va = off - f->segs[i].off + f->segs[i].vaddr;
			in = true;
		}
	if (!in)
		return 0;
	if (!f->symtab && go_lookup(f, va, h))
		return 1;
	while (lo < hi) {	/* the first symbol above va */
		size_t mid = lo + (hi - lo) / 2;

		if (f->syms[mid].addr <= va)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return 0;
	i = lo - 1;
	/* aliases at one address: the first of them, which has the size */
	while (i && f->syms[i - 1].addr == f->syms[i].addr)
		i--;
	/* a symbol of size 0 covers up to the next one, which is above va */
	if (f->syms[i].size && va - f->syms[i].addr >= f->syms[i].size)
		return 0;
	file_dwarf(s, f);
	h->n = inlined_at(s, f, va, h->fn, SYMBOLS_INLINE_MAX);
	h->fn[h->n++] = demangle(s->dem, f->names + f->syms[i].name);
	s->last = f;
	s->last_va = va;
	return 1;
}

int symbols_line(struct symbols *s, const char **src, int *line)
{
	Dwarf_Line *l;
	Dwarf_Die cu;
	const char *p;

	*src = NULL;
	*line = 0;
	if (!s->last || !s->last->dw || !dwarf_addrdie(s->last->dw, s->last_va, &cu) ||
	    !(l = dwarf_getsrc_die(&cu, s->last_va)) || !(p = dwarf_linesrc(l, NULL, NULL)) ||
	    dwarf_lineno(l, line) != 0 || *line <= 0)
		return 0;
	*src = strrchr(p, '/') ? strrchr(p, '/') + 1 : p;
	return 1;
}

int symbols_build_id(struct symbols *s, const uint8_t id[20], uint64_t off, bool ret,
		     struct symbols_hit *h)
{
	struct elf_file *f = NULL;
	size_t i;

	h->n = 0;
	h->module = NULL;
	s->last = NULL;
	for (i = 0; i < s->nfiles && !f; i++)
		if (s->files[i]->has_id && memcmp(s->files[i]->id, id, BID) == 0)
			f = s->files[i];
	for (i = 0; i < s->nmissing && !f; i++)
		if (memcmp(s->missing[i], id, BID) == 0)
			return -1;
	/* the candidates not yet opened, until one has it */
	while (!f && s->next_scan < s->ncands) {
		struct elf_file *c = file_open(s->cands[s->next_scan++].path, false, NULL);

		if (!c)
			return -1;
		if (!c->ok || !c->has_id) {
			file_free(c);
			continue;
		}
		if (keep_file(s, c) < 0)
			return -1;
		if (memcmp(c->id, id, BID) == 0)
			f = c;
	}
	/* a debug file alone: its program headers' offsets are not the
	 * binary's (objcopy --only-keep-debug zeroes them), so no offset maps */
	for (i = 0; i < s->ndirs && !f; i++)
		if ((f = debug_file(s->dirs[i], id)) && keep_file(s, f) < 0)
			return -1;
	if (!f && !s->no_system && (f = debug_file(SYSTEM_DEBUG_DIR, id)) && keep_file(s, f) < 0)
		return -1;
	/* nowhere here: the binary from DEBUGINFOD_URLS (then its debug file, file_finish()) */
	if (!f && (f = fetched_file(s, id, true)) && keep_file(s, f) < 0)
		return -1;
	if (f && f->loaded && !f->finished)
		f->nsegs = 0;
	if (!f) {
		if (array_grow((void **)&s->missing, &s->missing_cap, s->nmissing + 1,
			       sizeof(*s->missing), 8) == 0)
			memcpy(s->missing[s->nmissing++], id, BID);
		return -1;
	}
	if (file_finish(s, f) < 0)
		return -1;
	return lookup(s, f, off, ret, h);
}

int symbols_path(struct symbols *s, const char *path, size_t n, uint64_t off, bool ret,
		 struct symbols_hit *h)
{
	struct elf_file *f = NULL;
	size_t i;

	h->n = 0;
	h->module = NULL;
	s->last = NULL;
	if (!n || memchr(path, '\0', n))
		return -1;
	for (i = 0; i < s->nfiles && !f; i++)
		if (strlen(s->files[i]->path) == n && memcmp(s->files[i]->path, path, n) == 0)
			f = s->files[i];
	if (!f) {
		char *p = strndup(path, n);

		if (!p)
			return -1;
		f = file_open(p, false, NULL);
		free(p);
		if (!f || keep_file(s, f) < 0)
			return -1;
	}
	if (!f->ok)
		return -1;
	if (file_finish(s, f) < 0)
		return -1;
	return lookup(s, f, off, ret, h);
}

const char *symbols_build_id_path(const struct symbols *s, const uint8_t id[20])
{
	size_t i;

	for (i = 0; i < s->nfiles; i++)
		if (s->files[i]->has_id && memcmp(s->files[i]->id, id, BID) == 0)
			return s->files[i]->path;
	return NULL;
}
