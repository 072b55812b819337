// SPDX-License-Identifier: BSD-2-Clause
/*
 * Binaries and what is in them, for uprobes and USDT probes: a binary by
 * name (PATH, ld.so.cache, the library directories), its functions
 * (.symtab/.dynsym), its USDT notes (.note.stapsdt) and file offsets. Of no
 * one tool: marks.c uses it. See elf.h.
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

#include "collector/kernel/elf.h"

#define DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
/* NT_STAPSDT, from systemtap's sdt.h: the note type of a USDT probe. */
#define NT_STAPSDT 3

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

int elf_find_binary(const char *name, char *out, size_t n)
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

static Elf *open_elf(const char *path, int *fd)
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

int elf_has_function(const char *path, const char *sym, bool *has_symtab,
		     size_t *ndynfuncs)
{
	struct has_function h = { .sym = sym };
	bool symtab;
	int fd;
	Elf *e = open_elf(path, &fd);

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

int elf_usdt_list(const char *path, struct usdt_probe **out, size_t *n)
{
	struct usdt_list l = { NULL, 0 };
	unsigned long long base;
	int fd, err;
	Elf *e = open_elf(path, &fd);

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

int elf_vaddr_offset(const char *path, unsigned long long vaddr, unsigned long long *off)
{
	int fd, err;
	Elf *e = open_elf(path, &fd);

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

int elf_func_offset(const char *path, const char *sym, unsigned long long *off)
{
	struct func_addr f = { .sym = sym };
	int fd, err, k;
	Elf *e = open_elf(path, &fd);

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

int elf_usdt_sites(const char *path, const char *provider, const char *name,
		   struct usdt_site **out, size_t *n)
{
	struct usdt_find f = { .provider = provider, .name = name };
	int fd, err;

	f.e = open_elf(path, &fd);
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

int elf_symbol(const char *path, const char *sym, unsigned long long *vaddr,
	       unsigned long long *size)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym st;
	size_t i, count;
	int fd, err = -ENOENT;
	Elf *e = open_elf(path, &fd);

	if (!e)
		return -errno;
	while (err == -ENOENT && (scn = elf_nextscn(e, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !sh.sh_entsize)
			continue;
		count = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < count && gelf_getsym(d, (int)i, &st); i++) {
			const char *name;

			if (st.st_shndx == SHN_UNDEF || !st.st_value)
				continue;
			name = elf_strptr(e, sh.sh_link, st.st_name);
			if (name && symbol_matches(name, sym)) {
				*vaddr = st.st_value;
				*size = st.st_size;
				err = 0;
				break;
			}
		}
	}
	elf_end(e);
	close(fd);
	return err;
}

int elf_symbols(const char *path, const char *prefix,
		int (*cb)(const char *name, unsigned long long vaddr, unsigned long long size,
			  void *arg),
		void *arg)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym st;
	size_t i, count, plen = strlen(prefix);
	int fd, r = 0;
	Elf *e = open_elf(path, &fd);

	if (!e)
		return -errno;
	while (!r && (scn = elf_nextscn(e, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !sh.sh_entsize)
			continue;
		count = sh.sh_size / sh.sh_entsize;
		for (i = 0; !r && i < count && gelf_getsym(d, (int)i, &st); i++) {
			const char *name;

			if (st.st_shndx == SHN_UNDEF || !st.st_value)
				continue;
			name = elf_strptr(e, sh.sh_link, st.st_name);
			if (name && !strncmp(name, prefix, plen))
				r = cb(name, st.st_value, st.st_size, arg);
		}
	}
	elf_end(e);
	close(fd);
	return r;
}

/* The GNU build id note's bytes (at most @n), from @e's notes. */
static size_t build_id_of(Elf *e, unsigned char *out, size_t n)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Nhdr nh;
	size_t off, name_off, desc_off;

	while ((scn = elf_nextscn(e, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		for (off = 0; d && (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0;) {
			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((const char *)d->d_buf + name_off, "GNU", 4) != 0)
				continue;
			n = nh.n_descsz < n ? nh.n_descsz : n;
			memcpy(out, (const char *)d->d_buf + desc_off, n);
			return n;
		}
	}
	return 0;
}

int elf_image(const char *path, struct elf_image *out)
{
	GElf_Ehdr eh;
	GElf_Phdr ph;
	size_t i, n;
	int fd, err = 0;
	Elf *e = open_elf(path, &fd);

	if (!e)
		return -errno;
	memset(out, 0, sizeof(*out));
	out->first_vaddr = ~0ULL;
	if (!gelf_getehdr(e, &eh) || elf_getphdrnum(e, &n) != 0) {
		err = -ENOEXEC;
		goto done;
	}
	out->type = eh.e_type;
	for (i = 0; i < n; i++)
		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && ph.p_vaddr < out->first_vaddr)
			out->first_vaddr = ph.p_vaddr & ~(unsigned long long)(sysconf(_SC_PAGESIZE) - 1);
	if (out->first_vaddr == ~0ULL)
		err = -ENOEXEC;
	out->build_id_len = build_id_of(e, out->build_id, sizeof(out->build_id));
done:
	elf_end(e);
	close(fd);
	return err;
}

/* --- ELF: the libraries a binary needs ------------------------------------------- */

int elf_needed(const char *path, int (*cb)(const char *lib, void *arg), void *arg)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Dyn d;
	Elf_Data *data;
	const char *name;
	size_t i;
	int fd, r = 0;
	Elf *e = open_elf(path, &fd);

	if (!e)
		return -errno;
	while (!r && (scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		for (i = 0; !r && data && i < sh.sh_size / sh.sh_entsize; i++) {
			if (!gelf_getdyn(data, (int)i, &d) || d.d_tag != DT_NEEDED)
				continue;
			name = elf_strptr(e, sh.sh_link, d.d_un.d_val);
			if (name)
				r = cb(name, arg);
		}
	}
	elf_end(e);
	close(fd);
	return r;
}
