// SPDX-License-Identifier: BSD-2-Clause
/*
 * --mark and --start: parse the specs, find the binaries, check symbols and
 * USDT notes with libelf (so that a typo or a stripped binary is a clear
 * message before anything is loaded), attach the BPF programs of
 * bpf/marks.bpf.h once per spec with the spec's index as the cookie, or
 * those of bpf/marks_legacy.bpf.h (the 4.15 object: copy i for spec i) on
 * uprobe events at the file offsets found here.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "bpf/boottrace.h"	/* the types in the skeleton */
#include "bpf/boottrace_legacy.h"	/* BT_LEGACY_MAX_MARKS */
#include "boottrace.skel.h"
#include "collector/backend.h"
#include "collector/marks.h"

#define UPROBE_SYSFS "/sys/bus/event_source/devices/uprobe"
#define DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
#define LD_SO_CACHE "/etc/ld.so.cache"
/* NT_STAPSDT, from systemtap's sdt.h: the note type of a USDT probe. */
#define NT_STAPSDT 3
/* bpf/marks.bpf.h: bit 32 of the cookie marks a --start probe. */
#define MARK_COOKIE_START (1ULL << 32)

struct marks {
	struct mark *v;
	size_t n;
	struct bpf_link **links;	/* one per mark once attached */
};

struct marks *marks__new(void)
{
	return calloc(1, sizeof(struct marks));
}

static void mark_free(struct mark *k)
{
	free(k->binary);
	free(k->symbol);
	free(k->provider);
	free(k->name);
	free(k->label);
	free(k->path);
	free(k->spec);
}

void marks__free(struct marks *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->n; i++) {
		if (m->links)
			bpf_link__destroy(m->links[i]);
		mark_free(&m->v[i]);
	}
	free(m->links);
	free(m->v);
	free(m);
}

size_t marks_count(const struct marks *m)
{
	return m ? m->n : 0;
}

const struct mark *marks_get(const struct marks *m, size_t i)
{
	return m && i < m->n ? &m->v[i] : NULL;
}

bool marks_have_start(const struct marks *m)
{
	size_t i;

	for (i = 0; i < marks_count(m); i++)
		if (m->v[i].start)
			return true;
	return false;
}

const char *marks_start_spec(const struct marks *m)
{
	size_t i;

	for (i = 0; i < marks_count(m); i++)
		if (m->v[i].start)
			return m->v[i].spec ? m->v[i].spec : "";
	return "";
}

const struct mark *marks_find_label(const struct marks *m, const char *label)
{
	size_t i;

	for (i = 0; i < marks_count(m); i++)
		if (!m->v[i].start && strcmp(m->v[i].label, label) == 0)
			return &m->v[i];
	return NULL;
}

/* --- parsing ----------------------------------------------------------------- */

/*
 * Labels become the `name` of TSV rows and the analyzer's phase names, and
 * --until mark:LABEL+DURATION splits at '+': a conservative alphabet.
 */
static bool label_ok(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!(*s >= 'a' && *s <= 'z') && !(*s >= 'A' && *s <= 'Z') &&
		    !(*s >= '0' && *s <= '9') && *s != '_' && *s != '.' && *s != '-')
			return false;
	return true;
}

/* A symbol, provider or probe name: no separators, no blanks, not empty. */
static bool word_ok(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s == ':' || *s == '=' || (unsigned char)*s <= ' ' || *s == 0x7f)
			return false;
	return true;
}

static char *dupn(const char *s, size_t n)
{
	char *d = malloc(n + 1);

	if (d) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

int marks_add(struct marks *m, const char *spec, bool start, char *err, size_t errlen)
{
	const char *opt = start ? "--start" : "--mark";
	const char *colon = strchr(spec, ':'), *rest, *last, *prev, *eq;
	struct mark k = { 0 }, *v;
	size_t klen;

	if (!colon) {
		snprintf(err, errlen, "%s '%s': expected uprobe:BINARY:SYMBOL, "
			 "uretprobe:BINARY:SYMBOL or usdt:BINARY:PROVIDER:NAME", opt, spec);
		return -1;
	}
	klen = (size_t)(colon - spec);
	if (klen == 6 && !strncmp(spec, "uprobe", 6)) {
		k.kind = MARK_UPROBE;
	} else if (klen == 9 && !strncmp(spec, "uretprobe", 9)) {
		k.kind = MARK_URETPROBE;
	} else if (klen == 4 && !strncmp(spec, "usdt", 4)) {
		k.kind = MARK_USDT;
	} else {
		snprintf(err, errlen, "%s '%s': unknown probe kind '%.*s' (uprobe, uretprobe or usdt)",
			 opt, spec, (int)klen, spec);
		return -1;
	}
	rest = colon + 1;
	/* =LABEL after the last field; a path may hold '=' or ':', names may not */
	last = strrchr(rest, ':');
	if (!last) {
		snprintf(err, errlen, "%s '%s': expected %.*s:BINARY:%s", opt, spec, (int)klen, spec,
			 k.kind == MARK_USDT ? "PROVIDER:NAME" : "SYMBOL");
		return -1;
	}
	eq = strchr(last, '=');
	if (k.kind == MARK_USDT) {
		for (prev = last; prev > rest && prev[-1] != ':'; prev--)
			;
		if (prev == rest) {
			snprintf(err, errlen, "%s '%s': expected usdt:BINARY:PROVIDER:NAME", opt, spec);
			return -1;
		}
		prev--;	/* the ':' before PROVIDER */
		k.binary = dupn(rest, (size_t)(prev - rest));
		k.provider = dupn(prev + 1, (size_t)(last - prev - 1));
		k.name = eq ? dupn(last + 1, (size_t)(eq - last - 1)) : strdup(last + 1);
	} else {
		k.binary = dupn(rest, (size_t)(last - rest));
		k.symbol = eq ? dupn(last + 1, (size_t)(eq - last - 1)) : strdup(last + 1);
	}
	if (eq)
		k.label = strdup(eq + 1);
	else
		k.label = strdup(k.kind == MARK_USDT ? (k.name ? k.name : "") :
						      (k.symbol ? k.symbol : ""));
	if (!k.binary || !k.label || (k.kind == MARK_USDT ? !k.provider || !k.name : !k.symbol)) {
		snprintf(err, errlen, "%s: out of memory", opt);
		goto fail;
	}
	if (!*k.binary) {
		snprintf(err, errlen, "%s '%s': no BINARY", opt, spec);
		goto fail;
	}
	if (k.kind == MARK_USDT && (!word_ok(k.provider) || !word_ok(k.name))) {
		snprintf(err, errlen, "%s '%s': PROVIDER and NAME must be non-empty names", opt, spec);
		goto fail;
	}
	if (k.kind != MARK_USDT && !word_ok(k.symbol)) {
		snprintf(err, errlen, "%s '%s': SYMBOL must be a non-empty name", opt, spec);
		goto fail;
	}
	if (!label_ok(k.label)) {
		snprintf(err, errlen, "%s '%s': the label '%s' must be letters, digits, '_', '.' or '-'",
			 opt, spec, k.label);
		goto fail;
	}
	if (m->n >= UINT32_MAX) {
		snprintf(err, errlen, "%s: too many", opt);
		goto fail;
	}
	v = realloc(m->v, (m->n + 1) * sizeof(*v));
	if (!v) {
		snprintf(err, errlen, "%s: out of memory", opt);
		goto fail;
	}
	k.start = start;
	m->v = v;
	m->v[m->n++] = k;
	return 0;
fail:
	mark_free(&k);
	return -1;
}

/* --- finding binaries ---------------------------------------------------------- */

static bool is_file(const char *path, int mode)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, mode) == 0;
}

static int absolute(const char *path, char *out, size_t n)
{
	char buf[PATH_MAX];

	if (!realpath(path, buf))
		return -errno;
	if (strlen(buf) >= n)
		return -ENAMETOOLONG;
	strcpy(out, buf);
	return 0;
}

/* @name in the directories of the colon list @dirs. */
static int search_dirs(const char *dirs, const char *name, int mode, char *out, size_t n)
{
	const char *p = dirs, *end;
	char cand[PATH_MAX];

	while (p && *p) {
		end = strchr(p, ':');
		if (!end)
			end = p + strlen(p);
		if (end > p && (size_t)snprintf(cand, sizeof(cand), "%.*s/%s", (int)(end - p), p, name)
		    < sizeof(cand) && is_file(cand, mode))
			return absolute(cand, out, n);
		p = *end ? end + 1 : end;
	}
	return -ENOENT;
}

/* e_ident[EI_CLASS] and e_machine of an ELF file, or -1. */
static int file_elf_kind(const char *path)
{
	unsigned char h[20];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t r;

	if (fd < 0)
		return -1;
	r = read(fd, h, sizeof(h));
	close(fd);
	if (r != (ssize_t)sizeof(h) || memcmp(h, ELFMAG, SELFMAG) != 0)
		return -1;
	/* e_machine is at offset 18 in both classes, in the file's byte order */
	return h[EI_CLASS] << 16 |
	       (h[EI_DATA] == ELFDATA2MSB ? h[18] << 8 | h[19] : h[19] << 8 | h[18]);
}

/* Whether a library's soname @key is what @want asks for ("libc" or "libc.so.6"). */
static bool soname_matches(const char *key, const char *want)
{
	size_t n = strlen(want);

	if (strstr(want, ".so"))
		return strcmp(key, want) == 0;
	return strncmp(key, want, n) == 0 && strncmp(key + n, ".so", 3) == 0 &&
	       (key[n + 3] == '\0' || key[n + 3] == '.');
}

/*
 * /etc/ld.so.cache, the "glibc-ld.so.cache1.1" format (glibc >= 2.32
 * writes only that; older ones put it after the old "ld.so-1.7.0" table).
 * String offsets are relative to the start of the new header.
 */
struct ldcache_head {
	char magic[17];
	char version[3];
	uint32_t nlibs;
	uint32_t len_strings;
	uint8_t flags;
	uint8_t pad[3];
	uint32_t extension_offset;
	uint32_t unused[3];
};

struct ldcache_entry {
	int32_t flags;
	uint32_t key, value;
	uint32_t osversion;
	uint64_t hwcap;
};

static int search_ldcache(const char *want, int kind, char *out, size_t n)
{
	int fd = open(LD_SO_CACHE, O_RDONLY | O_CLOEXEC), found = -ENOENT;
	const struct ldcache_head *h;
	const struct ldcache_entry *e;
	const char *base, *magic;
	struct stat st;
	void *map;
	size_t size, off, i;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || st.st_size < (off_t)sizeof(*h)) {
		close(fd);
		return -ENOENT;
	}
	size = (size_t)st.st_size;
	map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return -errno;
	magic = memmem(map, size, "glibc-ld.so.cache1.1", 20);
	if (!magic)
		goto out;
	base = magic;
	off = (size_t)(base - (const char *)map);
	if (size - off < sizeof(*h))
		goto out;
	h = (const void *)base;
	if (h->nlibs > (size - off - sizeof(*h)) / sizeof(*e))
		goto out;
	e = (const void *)(base + sizeof(*h));
	for (i = 0; i < h->nlibs; i++) {
		const char *key, *val;

		if (e[i].key >= size - off || e[i].value >= size - off ||
		    !memchr(base + e[i].key, '\0', size - off - e[i].key) ||
		    !memchr(base + e[i].value, '\0', size - off - e[i].value))
			continue;
		key = base + e[i].key;
		val = base + e[i].value;
		if (!soname_matches(key, want) || !is_file(val, R_OK) || file_elf_kind(val) != kind)
			continue;
		found = absolute(val, out, n);
		break;
	}
out:
	munmap(map, size);
	return found;
}

/* Without a cache: the usual directories, "NAME.so*" in each. */
static int search_libdirs(const char *want, int kind, char *out, size_t n)
{
	static const char *const dirs[] = {
#ifdef __x86_64__
		"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
#elif defined(__aarch64__)
		"/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
#endif
		"/lib64", "/usr/lib64", "/lib", "/usr/lib", NULL,
	};
	char cand[PATH_MAX];
	size_t i, j;

	for (i = 0; dirs[i]; i++) {
		/* "libc": the runtime names libc.so.N come first, as ld.so.cache has them */
		static const char *const sfx[] = { "", ".so.0", ".so.1", ".so.2", ".so.3", ".so.4",
						   ".so.5", ".so.6", ".so.7", ".so.8", ".so", NULL };

		for (j = 0; sfx[j]; j++) {
			if (strstr(want, ".so") && j > 0)
				break;
			if (!strstr(want, ".so") && j == 0)
				continue;
			snprintf(cand, sizeof(cand), "%s/%s%s", dirs[i], want, sfx[j]);
			if (is_file(cand, R_OK) && file_elf_kind(cand) == kind)
				return absolute(cand, out, n);
		}
	}
	return -ENOENT;
}

int marks_find_binary(const char *name, char *out, size_t n)
{
	const char *path = getenv("PATH");
	int kind, err;

	if (!*name)
		return -ENOENT;
	if (strchr(name, '/'))
		return is_file(name, R_OK) ? absolute(name, out, n) : -ENOENT;
	if (path && search_dirs(path, name, R_OK | X_OK, out, n) == 0)
		return 0;
	if (search_dirs(DEFAULT_PATH, name, R_OK | X_OK, out, n) == 0)
		return 0;
	/* a library: of the same class and machine as this program */
	kind = file_elf_kind("/proc/self/exe");
	path = getenv("LD_LIBRARY_PATH");
	if (path && strstr(name, ".so") && search_dirs(path, name, R_OK, out, n) == 0)
		return 0;
	err = search_ldcache(name, kind, out, n);
	if (err == 0)
		return 0;
	return search_libdirs(name, kind, out, n);
}

/* --- ELF: symbols and USDT notes ---------------------------------------------- */

static Elf *elf_open(const char *path, int *fd)
{
	Elf *e;

	if (elf_version(EV_CURRENT) == EV_NONE) {
		errno = EINVAL;
		return NULL;
	}
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return NULL;
	e = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		if (e)
			elf_end(e);
		close(*fd);
		errno = ENOEXEC;
		return NULL;
	}
	return e;
}

/* libbpf matches "sym" and the versioned "sym@VER" / "sym@@VER" alike. */
static bool symbol_matches(const char *have, const char *want)
{
	size_t n = strlen(want);

	return strncmp(have, want, n) == 0 && (have[n] == '\0' || have[n] == '@');
}

/*
 * Call @fn for every function @e defines, in .symtab and .dynsym
 * (STT_FUNC and STT_GNU_IFUNC, not undefined ones), with its name and
 * whether it is .dynsym's. Returns whether @e has a .symtab at all.
 */
static bool elf_for_each_function(Elf *e, void (*fn)(const char *name, const GElf_Sym *s,
							bool dynsym, void *arg),
				  void *arg)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym s;
	size_t i, count;
	bool symtab = false;

	while ((scn = elf_nextscn(e, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		symtab |= sh.sh_type == SHT_SYMTAB;
		d = elf_getdata(scn, NULL);
		if (!d || !sh.sh_entsize)
			continue;
		count = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < count; i++) {
			const char *name;
			int type;

			if (!gelf_getsym(d, (int)i, &s))
				break;
			type = GELF_ST_TYPE(s.st_info);
			if ((type != STT_FUNC && type != STT_GNU_IFUNC) || s.st_shndx == SHN_UNDEF)
				continue;
			name = elf_strptr(e, sh.sh_link, s.st_name);
			if (name)
				fn(name, &s, sh.sh_type == SHT_DYNSYM, arg);
		}
	}
	return symtab;
}

struct has_function {
	const char *sym;
	size_t ndyn;
	int found;
};

static void has_function_add(const char *name, const GElf_Sym *s, bool dynsym, void *arg)
{
	struct has_function *h = arg;

	(void)s;
	h->ndyn += dynsym;
	if (symbol_matches(name, h->sym))
		h->found = 1;
}

int marks_elf_has_function(const char *path, const char *sym, bool *has_symtab,
			   size_t *ndynfuncs)
{
	struct has_function h = { .sym = sym };
	bool symtab;
	int fd;
	Elf *e = elf_open(path, &fd);

	if (!e)
		return -errno;
	symtab = elf_for_each_function(e, has_function_add, &h);
	elf_end(e);
	close(fd);
	if (has_symtab)
		*has_symtab = symtab;
	if (ndynfuncs)
		*ndynfuncs = h.ndyn;
	return h.found;
}

/*
 * A USDT note (NT_STAPSDT in .note.stapsdt), as systemtap's sdt.h writes
 * it: pc, base (the link-time address of .stapsdt.base) and semaphore,
 * each an address of the ELF class, then "provider\0name\0args\0".
 */
struct sdt_note {
	unsigned long long pc, base, semaphore;
	const char *provider, *name;
};

/* @desc of a note of @nh: 0 and *@out, or -1 when it is not a USDT note. */
static int sdt_note_parse(Elf *e, const GElf_Nhdr *nh, const char *nname, const char *desc,
			  struct sdt_note *out)
{
	size_t asz = gelf_getclass(e) == ELFCLASS64 ? 8 : 4, addrs = 3 * asz, plen, nlen;
	uint32_t a32[3];

	if (nh->n_type != NT_STAPSDT || nh->n_namesz != 8 || memcmp(nname, "stapsdt", 8) != 0 ||
	    nh->n_descsz <= addrs)
		return -1;
	/* in the file's byte order, which is the host's (x86-64 only, as the rest) */
	if (asz == 8) {
		memcpy(&out->pc, desc, 8);
		memcpy(&out->base, desc + 8, 8);
		memcpy(&out->semaphore, desc + 16, 8);
	} else {
		memcpy(a32, desc, sizeof(a32));
		out->pc = a32[0];
		out->base = a32[1];
		out->semaphore = a32[2];
	}
	out->provider = desc + addrs;
	plen = strnlen(out->provider, nh->n_descsz - addrs);
	if (plen + 1 >= nh->n_descsz - addrs)
		return -1;
	out->name = out->provider + plen + 1;
	nlen = strnlen(out->name, nh->n_descsz - addrs - plen - 1);
	if (nlen == nh->n_descsz - addrs - plen - 1)
		return -1;
	return 0;
}

/*
 * Call @fn for each USDT note of @e, until it returns non-zero (returned).
 * @stapsdt_base: the address of .stapsdt.base in this file, 0 without one.
 */
static int sdt_notes_each(Elf *e, unsigned long long *stapsdt_base,
			  int (*fn)(const struct sdt_note *nt, void *arg), void *arg)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;
	int r;

	if (elf_getshdrstrndx(e, &shstrndx) != 0)
		return -ENOEXEC;
	*stapsdt_base = 0;
	while ((scn = elf_nextscn(e, scn))) {
		const char *sname;

		if (!gelf_getshdr(scn, &sh))
			continue;
		sname = elf_strptr(e, shstrndx, sh.sh_name);
		if (sname && strcmp(sname, ".stapsdt.base") == 0)
			*stapsdt_base = sh.sh_addr;
	}
	while ((scn = elf_nextscn(e, scn))) {
		const char *sname;
		Elf_Data *d;
		GElf_Nhdr nh;
		size_t off = 0, noff, doff;
		struct sdt_note nt;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		sname = elf_strptr(e, shstrndx, sh.sh_name);
		if (!sname || strcmp(sname, ".note.stapsdt") != 0)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		while ((off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
			if (sdt_note_parse(e, &nh, (const char *)d->d_buf + noff,
					   (const char *)d->d_buf + doff, &nt) < 0)
				continue;
			r = fn(&nt, arg);
			if (r)
				return r;
		}
	}
	return 0;
}

struct usdt_list {
	struct usdt_probe *v;
	size_t n;
};

static int usdt_list_add(const struct sdt_note *nt, void *arg)
{
	struct usdt_list *l = arg;
	struct usdt_probe *nv;
	size_t i, plen = strlen(nt->provider), nlen = strlen(nt->name);

	if (plen >= sizeof(l->v->provider) || nlen >= sizeof(l->v->name))
		return 0;
	for (i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].provider, nt->provider) && !strcmp(l->v[i].name, nt->name))
			return 0;
	nv = realloc(l->v, (l->n + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	l->v = nv;
	memcpy(l->v[l->n].provider, nt->provider, plen + 1);
	memcpy(l->v[l->n].name, nt->name, nlen + 1);
	l->n++;
	return 0;
}

int marks_usdt_list(const char *path, struct usdt_probe **out, size_t *n)
{
	struct usdt_list l = { NULL, 0 };
	unsigned long long base;
	int fd, err;
	Elf *e = elf_open(path, &fd);

	if (!e)
		return -errno;
	err = sdt_notes_each(e, &base, usdt_list_add, &l);
	elf_end(e);
	close(fd);
	if (err) {
		free(l.v);
		return err;
	}
	*out = l.v;
	*n = l.n;
	return 0;
}

/* --- ELF: file offsets, for uprobe_events (the legacy object) ---------------- */

/*
 * The file offset of virtual address @vaddr: within the PT_LOAD segment
 * whose file image holds it, vaddr - p_vaddr + p_offset (what a uprobe is
 * placed by: the inode and an offset in it, whatever the load address).
 */
static int vaddr_offset(Elf *e, unsigned long long vaddr, unsigned long long *off)
{
	size_t i, n;
	GElf_Phdr ph;

	if (elf_getphdrnum(e, &n) != 0)
		return -ENOEXEC;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (vaddr >= ph.p_vaddr && vaddr - ph.p_vaddr < ph.p_filesz) {
			*off = vaddr - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -ENOENT;
}

int marks_elf_vaddr_offset(const char *path, unsigned long long vaddr, unsigned long long *off)
{
	int fd, err;
	Elf *e = elf_open(path, &fd);

	if (!e)
		return -errno;
	err = vaddr_offset(e, vaddr, off);
	elf_end(e);
	close(fd);
	return err;
}

/* [0]: the name exactly, [1]: a versioned one (sym@VER), as libbpf takes them */
struct func_addr {
	const char *sym;
	unsigned long long addr[2];
	bool found[2], clash[2];
};

static void func_addr_add(const char *name, const GElf_Sym *s, bool dynsym, void *arg)
{
	struct func_addr *f = arg;
	int k;

	(void)dynsym;
	if (!symbol_matches(name, f->sym))
		return;
	k = strcmp(name, f->sym) != 0;
	/* .symtab and .dynsym both list exported functions: same address */
	if (f->found[k] && f->addr[k] != s->st_value)
		f->clash[k] = true;
	f->found[k] = true;
	f->addr[k] = s->st_value;
}

int marks_elf_func_offset(const char *path, const char *sym, unsigned long long *off)
{
	struct func_addr f = { .sym = sym };
	int fd, err, k;
	Elf *e = elf_open(path, &fd);

	if (!e)
		return -errno;
	elf_for_each_function(e, func_addr_add, &f);
	k = f.found[0] ? 0 : 1;
	if (!f.found[k])
		err = -ENOENT;
	else if (f.clash[k])
		err = -ENOTUNIQ;	/* static functions of the same name in two files */
	else
		err = vaddr_offset(e, f.addr[k], off);
	elf_end(e);
	close(fd);
	return err;
}

struct usdt_find {
	const char *provider, *name;
	struct usdt_site *v;
	size_t n;
	unsigned long long base;	/* .stapsdt.base's address in the file */
	Elf *e;
	int err;
};

static int usdt_find_add(const struct sdt_note *nt, void *arg)
{
	struct usdt_find *f = arg;
	struct usdt_site *nv;
	unsigned long long pc = nt->pc, off;

	if (strcmp(nt->provider, f->provider) || strcmp(nt->name, f->name))
		return 0;
	/* a prelinked file moved its sections: the note says where .stapsdt.base was */
	if (f->base && nt->base)
		pc += f->base - nt->base;
	f->err = vaddr_offset(f->e, pc, &off);
	if (f->err)
		return f->err;
	nv = realloc(f->v, (f->n + 1) * sizeof(*nv));
	if (!nv)
		return f->err = -ENOMEM;
	f->v = nv;
	f->v[f->n].offset = off;
	f->v[f->n].semaphore = nt->semaphore;
	f->n++;
	return 0;
}

int marks_usdt_sites(const char *path, const char *provider, const char *name,
		     struct usdt_site **out, size_t *n)
{
	struct usdt_find f = { .provider = provider, .name = name };
	int fd, err;

	f.e = elf_open(path, &fd);
	if (!f.e)
		return -errno;
	err = sdt_notes_each(f.e, &f.base, usdt_find_add, &f);
	elf_end(f.e);
	close(fd);
	if (!err && !f.n)
		err = -ENOENT;
	if (err) {
		free(f.v);
		return err;
	}
	*out = f.v;
	*n = f.n;
	return 0;
}

/* --- resolving ---------------------------------------------------------------- */

static const char *kind_name(enum mark_kind k)
{
	return k == MARK_UPROBE ? "uprobe" : k == MARK_URETPROBE ? "uretprobe" : "usdt";
}

/* What a spec as given looks like in messages: "--mark uprobe:nginx:foo". */
static void spec_as_given(const struct mark *k, char *out, size_t n)
{
	if (k->kind == MARK_USDT)
		snprintf(out, n, "%s usdt:%s:%s:%s", k->start ? "--start" : "--mark", k->binary,
			 k->provider, k->name);
	else
		snprintf(out, n, "%s %s:%s:%s", k->start ? "--start" : "--mark", kind_name(k->kind),
			 k->binary, k->symbol);
}

static int check_usdt(const struct mark *k, const char *given, char *err, size_t errlen)
{
	struct usdt_probe *v = NULL;
	size_t n = 0, i, len;
	int r = marks_usdt_list(k->path, &v, &n);

	if (r < 0) {
		snprintf(err, errlen, "%s: cannot read %s as an ELF file: %s", given, k->path,
			 strerror(-r));
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (!strcmp(v[i].provider, k->provider) && !strcmp(v[i].name, k->name)) {
			free(v);
			return 0;
		}
	}
	if (n == 0) {
		snprintf(err, errlen, "%s: %s has no USDT probes (no .note.stapsdt notes)", given,
			 k->path);
	} else {
		len = (size_t)snprintf(err, errlen, "%s: no USDT probe %s:%s in %s; it has:", given,
				       k->provider, k->name, k->path);
		for (i = 0; i < n && len < errlen; i++)
			len += (size_t)snprintf(err + len, errlen - len, "%s %s:%s", i ? "," : "",
						v[i].provider, v[i].name);
	}
	free(v);
	return -1;
}

static int check_symbol(const struct mark *k, const char *given, char *err, size_t errlen)
{
	bool has_symtab = false;
	size_t ndyn = 0;
	int r = marks_elf_has_function(k->path, k->symbol, &has_symtab, &ndyn);

	if (r < 0) {
		snprintf(err, errlen, "%s: cannot read %s as an ELF file: %s", given, k->path,
			 strerror(-r));
		return -1;
	}
	if (r > 0)
		return 0;
	if (!has_symtab)
		snprintf(err, errlen, "%s: no function '%s' in %s: the binary is stripped (no .symtab; "
			 "only the %zu functions it exports are visible, as packaged builds such as "
			 "Debian's nginx are); use a build with symbols, or a USDT probe "
			 "(--mark usdt:BINARY:PROVIDER:NAME)", given, k->symbol, k->path, ndyn);
	else
		snprintf(err, errlen, "%s: no function '%s' in %s (its symbol table does not have it)",
			 given, k->symbol, k->path);
	return -1;
}

int marks_resolve(struct marks *m, char *err, size_t errlen)
{
	char path[PATH_MAX], given[PATH_MAX + 200];
	size_t i, len;
	int r;

	for (i = 0; i < marks_count(m); i++) {
		struct mark *k = &m->v[i];

		spec_as_given(k, given, sizeof(given));
		if (marks_find_binary(k->binary, path, sizeof(path)) < 0) {
			snprintf(err, errlen, "%s: no binary '%s': %s", given, k->binary,
				 strchr(k->binary, '/') ? "no such readable file" :
				 "not a program on PATH, nor a library in " LD_SO_CACHE);
			return -1;
		}
		free(k->path);
		k->path = strdup(path);
		if (!k->path) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		r = k->kind == MARK_USDT ? check_usdt(k, given, err, errlen) :
					   check_symbol(k, given, err, errlen);
		if (r < 0)
			return -1;
		len = strlen(path) + 32 + (k->kind == MARK_USDT ? strlen(k->provider) + strlen(k->name) :
								  strlen(k->symbol));
		free(k->spec);
		k->spec = malloc(len);
		if (!k->spec) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		if (k->kind == MARK_USDT)
			snprintf(k->spec, len, "usdt:%s:%s:%s", path, k->provider, k->name);
		else
			snprintf(k->spec, len, "%s:%s:%s", kind_name(k->kind), path, k->symbol);
	}
	return 0;
}

bool marks_uprobes_supported(const char *sysfs_dir)
{
	return access(sysfs_dir ? sysfs_dir : UPROBE_SYSFS, F_OK) == 0;
}

/* --- attaching ---------------------------------------------------------------- */

/* The modern object: libbpf attaches, each mark with its index as the cookie. */
static int attach_modern(struct boottrace_bpf *skel, struct marks *m)
{
	size_t i;
	int err;

	if (!m->links) {
		m->links = calloc(m->n, sizeof(*m->links));
		if (!m->links)
			return -ENOMEM;
	}
	for (i = 0; i < m->n; i++) {
		const struct mark *k = &m->v[i];
		__u64 cookie = i | (k->start ? MARK_COOKIE_START : 0);
		struct bpf_link *l;

		if (k->kind == MARK_USDT) {
			LIBBPF_OPTS(bpf_usdt_opts, o, .usdt_cookie = cookie);

			l = bpf_program__attach_usdt(skel->progs.bt_mark_usdt, -1, k->path,
						     k->provider, k->name, &o);
		} else {
			LIBBPF_OPTS(bpf_uprobe_opts, o, .func_name = k->symbol,
				    .retprobe = k->kind == MARK_URETPROBE, .bpf_cookie = cookie);

			l = bpf_program__attach_uprobe_opts(skel->progs.bt_mark_uprobe, -1, k->path,
							    0, &o);
		}
		if (!l) {
			err = -errno;
			fprintf(stderr, "collector: cannot attach %s %s: %s%s\n",
				k->start ? "--start" : "--mark", k->spec ? k->spec : k->binary,
				strerror(-err), marks_uprobes_supported(NULL) ? "" :
				" (this kernel has no uprobes: " UPROBE_SYSFS " is missing)");
			return err;
		}
		m->links[i] = l;
	}
	if (marks_have_start(m))
		skel->bss->marks_start_armed = 1;
	return 0;
}

/*
 * The legacy and compat objects: copy i of the mark program on a uprobe event at each
 * site of mark i, placed by file offset as uprobe_events wants it.
 */
static int attach_legacy(struct backend *b, struct marks *m)
{
	struct usdt_site one, *sites;
	size_t i, j, n;
	int err;

	for (i = 0; i < m->n; i++) {
		const struct mark *k = &m->v[i];

		sites = &one;
		n = 1;
		one.semaphore = 0;
		if (k->kind == MARK_USDT)
			err = marks_usdt_sites(k->path, k->provider, k->name, &sites, &n);
		else
			err = marks_elf_func_offset(k->path, k->symbol, &one.offset);
		if (err) {
			fprintf(stderr, "collector: cannot place %s %s in %s: %s\n",
				k->start ? "--start" : "--mark", k->spec, k->path,
				err == -ENOTUNIQ ? "functions of that name at two addresses" :
				err == -ENOENT ? "its address is in no loadable segment" : strerror(-err));
			return err;
		}
		for (j = 0, err = 0; j < n && !err; j++)
			err = backend_perf_attach_uprobe(b, (unsigned int)i, k->path, sites[j].offset,
							   k->kind == MARK_URETPROBE);
		if (sites != &one)
			free(sites);
		if (err) {
			fprintf(stderr, "collector: cannot attach %s %s\n", k->start ? "--start" : "--mark",
				k->spec);
			return err;
		}
	}
	return 0;
}

int marks_perf_check(const struct marks *m, const char *object, char *err, size_t errlen)
{
	char given[PATH_MAX + 200];
	struct usdt_site *sites;
	size_t i, j, n;
	int r;

	if (marks_count(m) > BT_LEGACY_MAX_MARKS) {
		snprintf(err, errlen, "%zu --mark and --start probes: the %s BPF object takes at most "
			 "%d (a copy of its mark program each: no attach cookie before kernel 5.15); "
			 "the modern object takes any number", marks_count(m), object, BT_LEGACY_MAX_MARKS);
		return -1;
	}
	for (i = 0; i < marks_count(m); i++) {
		const struct mark *k = &m->v[i];

		if (k->kind != MARK_USDT)
			continue;
		spec_as_given(k, given, sizeof(given));
		r = marks_usdt_sites(k->path, k->provider, k->name, &sites, &n);
		if (r < 0) {
			snprintf(err, errlen, "%s: cannot read its USDT notes in %s: %s", given, k->path,
				 strerror(-r));
			return -1;
		}
		for (j = 0; j < n && !sites[j].semaphore; j++)
			;
		free(sites);
		if (j < n) {
			snprintf(err, errlen, "%s: this USDT probe has a semaphore (the program runs it "
				 "only while a tracer counts the semaphore up), and the %s BPF object "
				 "attaches through uprobe_events, which cannot count it; "
				 "use the modern object (--object modern, a kernel with BTF), or a probe "
				 "without a semaphore", given, object);
			return -1;
		}
	}
	return 0;
}

int marks_attach(struct backend *b, struct marks *m)
{
	struct boottrace_bpf *skel;

	if (!marks_count(m))
		return 0;
	skel = backend_modern_skel(b);
	return skel ? attach_modern(skel, m) : attach_legacy(b, m);
}
