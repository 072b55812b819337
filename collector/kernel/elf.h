/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Binaries and what is in them, for uprobes and USDT probes (libelf): find
 * a binary as --mark names it, whether it defines a function, its USDT
 * probes and their sites, file offsets for uprobe_events.
 */
#ifndef COLLECTOR_ELF_H
#define COLLECTOR_ELF_H

#include <stdbool.h>
#include <stddef.h>

#define LD_SO_CACHE "/etc/ld.so.cache"

/*
 * Resolve @name as --mark BINARY: a path (containing '/') that exists, else
 * an executable on PATH (then /usr/local/sbin:/usr/local/bin:/usr/sbin:
 * /usr/bin:/sbin:/bin), else a library of this machine's ELF class and
 * architecture in /etc/ld.so.cache ("libc" matches libc.so.*) or, without
 * a cache, the usual library directories. The absolute path into @out;
 * 0 or -ENOENT.
 */
int elf_find_binary(const char *name, char *out, size_t n);

/*
 * Whether @path defines function @sym (or sym@VERSION) in .symtab or
 * .dynsym: 1 yes, 0 no, -errno when it is not a readable ELF file.
 * *has_symtab says whether there is a .symtab at all (none: stripped),
 * *ndynfuncs how many functions .dynsym exports. Either may be NULL.
 */
int elf_has_function(const char *path, const char *sym, bool *has_symtab,
		     size_t *ndynfuncs);

struct usdt_probe {
	char provider[64];
	char name[64];
};

/*
 * The USDT probes of @path (its .note.stapsdt notes), each provider:name
 * once, in note order. 0 with *@out (free() it) and *@n; -errno when the
 * file is not a readable ELF file. No notes: 0 and *@n = 0.
 */
int elf_usdt_list(const char *path, struct usdt_probe **out, size_t *n);

/*
 * The file offset of virtual address @vaddr of ELF file @path: in the
 * PT_LOAD segment whose file image holds it, vaddr - p_vaddr + p_offset.
 * 0, or -ENOENT when no segment holds it, -errno for a file that is not
 * a readable ELF file.
 */
int elf_vaddr_offset(const char *path, unsigned long long vaddr, unsigned long long *off);

/*
 * The file offset of function @sym (or sym@VERSION when no symbol is named
 * exactly @sym) of @path: where a uprobe on it goes. 0, -ENOENT (no such
 * function), -ENOTUNIQ (functions of that name at two addresses), or
 * -errno as above.
 */
int elf_func_offset(const char *path, const char *sym, unsigned long long *off);

/* A site of a USDT probe: a provider:name may be at several places. */
struct usdt_site {
	unsigned long long offset;	/* of the probe's nop in the file */
	unsigned long long semaphore;	/* its address (0: none): a tracer must increment it */
};

/*
 * The sites of USDT probe @provider:@name in @path, in note order (pc
 * corrected by .stapsdt.base for prelinked files, as libbpf does). 0 with
 * *@out (free() it) and *@n >= 1; -ENOENT when there is no such probe,
 * -errno as above.
 */
int elf_usdt_sites(const char *path, const char *provider, const char *name,
		   struct usdt_site **out, size_t *n);

/*
 * The value and size of symbol @sym (or sym@VERSION) of @path, a function
 * or data, from .symtab or .dynsym: 0, -ENOENT, or -errno as above.
 */
int elf_symbol(const char *path, const char *sym, unsigned long long *vaddr,
	       unsigned long long *size);

/*
 * elf_symbols - call @cb with each symbol of @path's .dynsym whose name
 * starts with @prefix (defined ones), until it returns nonzero: that
 * value. 0 when all were seen, -errno when @path is not a readable ELF
 * file. One pass, for a family of symbols (node's v8dbg_*).
 */
int elf_symbols(const char *path, const char *prefix,
		int (*cb)(const char *name, unsigned long long vaddr, unsigned long long size,
			  void *arg),
		void *arg);

/* What a profiler needs to place an ELF file mapped in a process. */
struct elf_image {
	int type;			/* ET_EXEC or ET_DYN */
	unsigned long long first_vaddr;	/* the lowest PT_LOAD's address, page-aligned */
	unsigned char build_id[20];	/* the GNU build id, build_id_len bytes */
	size_t build_id_len;
};

/* elf_image - @out for @path: 0, or -errno (-ENOEXEC: no PT_LOAD). */
int elf_image(const char *path, struct elf_image *out);

/*
 * Call @cb with each DT_NEEDED name of @path (its .dynamic section), in
 * order, until it returns nonzero: that value. 0 when all were seen (or
 * there are none), -errno when @path is not a readable ELF file.
 */
int elf_needed(const char *path, int (*cb)(const char *lib, void *arg), void *arg);

#endif /* COLLECTOR_ELF_H */
