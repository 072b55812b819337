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
 * collector/kernel/backend_perf.c); its start mask was set at open. 0, or
 * -errno after a message on stderr.
 */
int marks_attach(struct backend *b, struct marks *m);

#endif /* COLLECTOR_MARKS_H */
