/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Milestones inside the application: --mark and --start probes.
 *
 *   uprobe:BINARY:SYMBOL[=LABEL]       function entry
 *   uretprobe:BINARY:SYMBOL[=LABEL]    function return
 *   usdt:BINARY:PROVIDER:NAME[=LABEL]  a USDT probe (<sys/sdt.h>, .note.stapsdt)
 *
 * BINARY is a path, a program on PATH, or a library ("libc", "libc.so.6")
 * looked up in /etc/ld.so.cache as ldconfig -p shows it. The label (the
 * `name` of the mark rows, the analyzer's phase) defaults to SYMBOL or NAME.
 *
 * The order of use: marks__new(), marks_add() per option (syntax only),
 * marks_resolve() (binaries and symbols, no privileges needed),
 * marks_perf_check() once the legacy or compat object is chosen, then after the BPF
 * object is loaded marks_attach(); marks__free() before the backend is
 * destroyed (USDT links refer to the modern object; the legacy object's
 * uprobe events are its backend's, removed when it is destroyed).
 */
#ifndef COLLECTOR_MARKS_H
#define COLLECTOR_MARKS_H

#include <stdbool.h>
#include <stddef.h>

enum mark_kind { MARK_UPROBE, MARK_URETPROBE, MARK_USDT };

struct mark {
	enum mark_kind kind;
	bool start;		/* a --start probe, not a --mark */
	char *binary;		/* as given */
	char *symbol;		/* uprobe, uretprobe */
	char *provider;		/* usdt */
	char *name;		/* usdt */
	char *label;
	/* after marks_resolve() */
	char *path;		/* the binary, absolute */
	char *spec;		/* "uprobe:/usr/sbin/nginx:ngx_init_cycle": the rows' detail */
};

struct marks;
struct backend;

/* An empty set; NULL when out of memory. */
struct marks *marks__new(void);
/* Detaches what is attached and frees everything; NULL is fine. */
void marks__free(struct marks *m);

/*
 * Parse @spec (the argument of --mark, or of --start when @start) and add
 * it. 0, or -1 with a message (no "collector: " prefix) in @err.
 */
int marks_add(struct marks *m, const char *spec, bool start, char *err, size_t errlen);

size_t marks_count(const struct marks *m);
/* The mark with index @i (the BPF cookie), or NULL. */
const struct mark *marks_get(const struct marks *m, size_t i);
/* Whether one of them is a --start probe. */
bool marks_have_start(const struct marks *m);
/* The --start probe's spec ("" without one, or before marks_resolve()). */
const char *marks_start_spec(const struct marks *m);
/* The first --mark with this label, or NULL. */
const struct mark *marks_find_label(const struct marks *m, const char *label);

/*
 * Find every binary and check that its symbol or USDT probe exists (libelf:
 * .symtab/.dynsym, .note.stapsdt). 0, or -1 with the first problem in @err:
 * no such binary, not ELF, a symbol missing (and whether the binary is
 * stripped), a USDT probe missing (and the ones there are).
 */
int marks_resolve(struct marks *m, char *err, size_t errlen);

/*
 * Whether the kernel has uprobes: @sysfs_dir (NULL: the real one,
 * /sys/bus/event_source/devices/uprobe) exists. USDT probes are uprobes.
 */
bool marks_uprobes_supported(const char *sysfs_dir);

/*
 * What the legacy and compat objects (@object: "legacy", "compat", for
 * the message) cannot do, found before one is loaded: more probes than
 * they have program copies (BT_LEGACY_MAX_MARKS), a USDT probe with a
 * semaphore (they attach through uprobe_events, as 4.15 must, which cannot
 * set it). 0, or -1 with the message (no "collector: " prefix) in @err: a
 * usage error.
 */
int marks_perf_check(const struct marks *m, const char *object, char *err, size_t errlen);

/*
 * Attach every mark to the BPF object of @b. Modern: libbpf's uprobe and
 * USDT attach, the cookie the index (with BT_MARK_START for --start), and
 * the start-time inheritance armed when there is a --start. Legacy: copy i
 * of the mark program on a uprobe event per probe site (uprobe_events,
 * collector/backend_perf.c); its start mask was set at open. 0, or
 * -errno after a message on stderr.
 */
int marks_attach(struct backend *b, struct marks *m);

/* --- helpers, exposed for the tests ---------------------------------------- */

/*
 * Resolve @name as --mark BINARY: a path (containing '/') that exists, else
 * an executable on PATH (then /usr/local/sbin:/usr/local/bin:/usr/sbin:
 * /usr/bin:/sbin:/bin), else a library of this machine's ELF class and
 * architecture in /etc/ld.so.cache ("libc" matches libc.so.*) or, without
 * a cache, the usual library directories. The absolute path into @out;
 * 0 or -ENOENT.
 */
int marks_find_binary(const char *name, char *out, size_t n);

/*
 * Whether @path defines function @sym (or sym@VERSION) in .symtab or
 * .dynsym: 1 yes, 0 no, -errno when it is not a readable ELF file.
 * *has_symtab says whether there is a .symtab at all (none: stripped),
 * *ndynfuncs how many functions .dynsym exports. Either may be NULL.
 */
int marks_elf_has_function(const char *path, const char *sym, bool *has_symtab,
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
int marks_usdt_list(const char *path, struct usdt_probe **out, size_t *n);

/*
 * The file offset of virtual address @vaddr of ELF file @path: in the
 * PT_LOAD segment whose file image holds it, vaddr - p_vaddr + p_offset.
 * 0, or -ENOENT when no segment holds it, -errno for a file that is not
 * a readable ELF file.
 */
int marks_elf_vaddr_offset(const char *path, unsigned long long vaddr, unsigned long long *off);

/*
 * The file offset of function @sym (or sym@VERSION when no symbol is named
 * exactly @sym) of @path: where a uprobe on it goes. 0, -ENOENT (no such
 * function), -ENOTUNIQ (functions of that name at two addresses), or
 * -errno as above.
 */
int marks_elf_func_offset(const char *path, const char *sym, unsigned long long *off);

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
int marks_usdt_sites(const char *path, const char *provider, const char *name,
		     struct usdt_site **out, size_t *n);

#endif /* COLLECTOR_MARKS_H */
