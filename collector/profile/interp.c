// SPDX-License-Identifier: BSD-2-Clause
/* Interpreter frames: the processes, and their frames' names (interp.h). */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "collector/clock.h"
#include "collector/idmap.h"
#include "collector/kernel/backend.h"
#include "collector/kernel/elf.h"
#include "collector/profile/interp.h"
#include "collector/profile/umaps.h"

/*
 * CPython 3.11 on x86-64: struct offsets of Debian 12's 3.11.2, as
 * python3.11-dbg's DWARF gives them (`ptype/o` in gdb), which the
 * internal structs keep through 3.11's maintenance releases.
 */
const struct interp_py311 interp_py311 = {
	.runtime_tstate = 568 + 8,	/* pyruntimestate.gilstate, .tstate_current */
	.proc = {
		.kind = BT_INTERP_PYTHON311,
		.ts_cframe = 56,	/* struct _ts */
		.ts_tid = 160,		/* native_thread_id */
		.cf_frame = 8,		/* struct _PyCFrame.current_frame */
		.fr_code = 32,		/* struct _PyInterpreterFrame */
		.fr_previous = 48,
		.fr_is_entry = 68,
	},
	.co_firstlineno = 72,		/* struct PyCodeObject */
	.co_filename = 112,
	.co_qualname = 128,
	.str_length = 16,		/* PyASCIIObject.length */
	.str_state = 32,		/* its state bits: compact 5, ascii 6 */
	.str_ascii_data = 48,		/* sizeof(PyASCIIObject): a compact ASCII string's bytes */
	.str_utf8_length = 48,		/* PyCompactUnicodeObject */
	.str_utf8 = 56,
};

/* A process looked at: what it runs, and the names of its frames so far. */
struct iproc {
	int kind;			/* enum bt_interp_kind */
	int tries;			/* looks that found none */
	unsigned long long recheck_ns;	/* when to look again (libpython mapped late) */
	unsigned char build_id[BT_BUILD_ID_SIZE];	/* the interpreter's file */
	uint64_t eval_lo, eval_hi;	/* its eval loop, file offsets */
	struct idmap names;		/* code object address → name */
	size_t nnames;
};

struct interp {
	struct backend *be;
	struct idmap procs;		/* pid → struct iproc */
	int warned;
};

/* A process gets looked at this many times, 200 ms apart, before it is let be. */
#define INTERP_TRIES 5
#define INTERP_RECHECK_NS 200000000ULL
/* Names kept per process at most; past that, forgotten and read again. */
#define INTERP_NAMES_MAX 65536
#define INTERP_NAME_MAX 512

struct interp *interp__new(struct backend *be)
{
	struct interp *in = calloc(1, sizeof(*in));

	if (in)
		in->be = be && be->ops->interp_set ? be : NULL;
	return in;
}

static void names_free(struct iproc *p)
{
	size_t i;

	for (i = 0; i < p->names.cap; i++)
		free(p->names.slots[i].val);
	idmap_free(&p->names);
	p->nnames = 0;
}

static void iproc_free(struct iproc *p)
{
	names_free(p);
	free(p);
}

void interp__free(struct interp *in)
{
	size_t i;

	if (!in)
		return;
	for (i = 0; i < in->procs.cap; i++)
		if (in->procs.slots[i].val)
			iproc_free(in->procs.slots[i].val);
	idmap_free(&in->procs);
	free(in);
}

void interp_forget(struct interp *in, pid_t pid)
{
	struct iproc *p = in && pid > 0 ? idmap_get(&in->procs, (__u64)pid) : NULL;

	if (!p)
		return;
	if (p->kind != BT_INTERP_NONE)
		in->be->ops->interp_set(in->be, (__u32)pid, NULL);
	idmap_del(&in->procs, (__u64)pid);
	iproc_free(p);
}

/* Whether @base (a file's name) is CPython 3.11's binary or library; *@other: another version's. */
static int python311(const char *base, size_t n, int *other)
{
	static const char bin[] = "python3.11", lib[] = "libpython3.11.so";

	if ((n == sizeof(bin) - 1 && !memcmp(base, bin, n)) ||
	    (n >= sizeof(lib) - 1 && !memcmp(base, lib, sizeof(lib) - 1)))
		return 1;
	if ((n > 7 && !memcmp(base, "python3", 7)) || (n > 10 && !memcmp(base, "libpython3", 10)) ||
	    (n > 7 && !memcmp(base, "libruby", 7)))
		*other = 1;
	return 0;
}

/*
 * Register @p's process @pid when it maps CPython 3.11: 0, or -1 (none,
 * or its file cannot be read).
 */
static int look(struct interp *in, struct iproc *p, pid_t pid)
{
	char path[64], line[4096], file[128], seen[128] = "";
	unsigned long long rt, rtsz, ev, evsz, evoff;
	struct bt_interp_proc proc = interp_py311.proc;
	uint64_t start, end, pgoff;
	struct elf_image img;
	const char *name;
	size_t len, blen;
	int found = 0, other = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	if (!(f = fopen(path, "re")))
		return -1;
	while (!found && fgets(line, sizeof(line), f)) {
		const char *base;

		line[strcspn(line, "\n")] = '\0';
		if (umaps_parse_maps_line(line, &start, &end, &pgoff, &name, &len) < 0 || !len ||
		    pgoff)
			continue;
		base = memrchr(name, '/', len);
		base = base ? base + 1 : name;
		blen = len - (size_t)(base - name);
		if (python311(base, blen, &other))
			found = 1;
		else if (other && !seen[0])
			snprintf(seen, sizeof(seen), "%.*s", (int)blen, base);
		other = 0;
	}
	fclose(f);
	if (!found) {
		if (seen[0] && !in->warned++)
			fprintf(stderr, "collector: --profile: %s in process %d: its frames are native "
				"only (boottrace reads CPython 3.11's)\n", seen, pid);
		return -1;
	}
	/* the file as the process maps it, whatever its mount namespace */
	snprintf(file, sizeof(file), "/proc/%d/map_files/%llx-%llx", pid,
		 (unsigned long long)start, (unsigned long long)end);
	if (elf_image(file, &img) < 0 || !img.build_id_len ||
	    elf_symbol(file, "_PyRuntime", &rt, &rtsz) < 0 ||
	    elf_symbol(file, "_PyEval_EvalFrameDefault", &ev, &evsz) < 0 ||
	    elf_vaddr_offset(file, ev, &evoff) < 0)
		return -1;
	proc.tstate_addr = (img.type == ET_DYN ? start - img.first_vaddr : 0) + rt +
			   interp_py311.runtime_tstate;
	if (in->be->ops->interp_set(in->be, (__u32)pid, &proc) < 0)
		return -1;
	p->kind = BT_INTERP_PYTHON311;
	memset(p->build_id, 0, sizeof(p->build_id));
	memcpy(p->build_id, img.build_id, img.build_id_len);
	p->eval_lo = evoff;
	p->eval_hi = evoff + evsz;
	return 0;
}

void interp_check(struct interp *in, pid_t pid)
{
	struct iproc *p;
	unsigned long long now;

	if (!in || !in->be || pid <= 0)
		return;
	p = idmap_get(&in->procs, (__u64)pid);
	if (p && (p->kind != BT_INTERP_NONE || p->tries >= INTERP_TRIES))
		return;
	now = mono_ns();
	if (p && now < p->recheck_ns)
		return;
	if (!p) {
		if (!(p = calloc(1, sizeof(*p))))
			return;
		if (idmap_put(&in->procs, (__u64)pid, p) < 0) {
			free(p);
			return;
		}
	}
	if (look(in, p, pid) < 0) {
		p->tries++;
		p->recheck_ns = now + INTERP_RECHECK_NS;
	}
}

enum interp_where interp_where(struct interp *in, pid_t pid, const struct bt_stack_build_id *b)
{
	struct iproc *p = in && pid > 0 ? idmap_get(&in->procs, (__u64)pid) : NULL;

	if (!p || p->kind == BT_INTERP_NONE || b->status != BT_STACK_BUILD_ID_VALID ||
	    memcmp(b->build_id, p->build_id, BT_BUILD_ID_SIZE) != 0)
		return INTERP_ELSEWHERE;
	return b->offset >= p->eval_lo && b->offset < p->eval_hi ? INTERP_EVAL : INTERP_MODULE;
}

/* @n bytes of @pid's memory at @addr: 0, or -1. */
static int peek(pid_t pid, uint64_t addr, void *buf, size_t n)
{
	struct iovec local = { buf, n }, remote = { (void *)(uintptr_t)addr, n };

	return addr && process_vm_readv(pid, &local, 1, &remote, 1, 0) == (ssize_t)n ? 0 : -1;
}

static uint64_t u64_at(const unsigned char *b, unsigned off)
{
	uint64_t v;

	memcpy(&v, b + off, sizeof(v));
	return v;
}

/* Python str @addr of @pid into @out (@n bytes, NUL-terminated): its length, or -1. */
static int py_str(pid_t pid, uint64_t addr, char *out, size_t n)
{
	const struct interp_py311 *o = &interp_py311;
	unsigned char h[64];
	uint64_t len, data;
	uint32_t state;

	if (peek(pid, addr, h, sizeof(h)) < 0)
		return -1;
	memcpy(&state, h + o->str_state, sizeof(state));
	if (!(state & (1u << 5)))
		return -1;		/* not compact: no string a code object names */
	if (state & (1u << 6)) {	/* ASCII: the bytes follow the header */
		len = u64_at(h, o->str_length);
		data = addr + o->str_ascii_data;
	} else {			/* else its UTF-8, if it was made */
		len = u64_at(h, o->str_utf8_length);
		data = u64_at(h, o->str_utf8);
	}
	if (len >= n)
		len = n - 1;
	if (peek(pid, data, out, (size_t)len) < 0)
		return -1;
	out[len] = '\0';
	return (int)strlen(out);	/* a NUL inside ends it */
}

/* The name of code object @code of @pid: `qualname (file:LINE)`, malloc'd, or NULL. */
static char *code_name(pid_t pid, uint64_t code)
{
	const struct interp_py311 *o = &interp_py311;
	char qual[INTERP_NAME_MAX / 2], file[INTERP_NAME_MAX / 2], *s;
	unsigned char c[136];
	int32_t line;

	if (peek(pid, code, c, sizeof(c)) < 0)
		return NULL;
	memcpy(&line, c + o->co_firstlineno, sizeof(line));
	if (py_str(pid, u64_at(c, o->co_qualname), qual, sizeof(qual)) < 0)
		snprintf(qual, sizeof(qual), "?");
	if (py_str(pid, u64_at(c, o->co_filename), file, sizeof(file)) < 0)
		snprintf(file, sizeof(file), "?");
	if (asprintf(&s, "%s (%s:%d)", qual, file, line) < 0)
		return NULL;
	return s;
}

size_t interp_frame(struct interp *in, pid_t pid, uint64_t v, char *buf, size_t n)
{
	struct iproc *p = in && pid > 0 ? idmap_get(&in->procs, (__u64)pid) : NULL;
	uint64_t code = v & ~BT_IFRAME_ENTRY;
	char *name = p ? idmap_get(&p->names, code) : NULL;
	int len;

	if (!name && p && code) {
		if (p->nnames >= INTERP_NAMES_MAX)
			names_free(p);
		if ((name = code_name(pid, code)) && idmap_put(&p->names, code, name) < 0) {
			free(name);
			name = NULL;
		} else if (name) {
			p->nnames++;
		}
	}
	if (name)
		len = snprintf(buf, n, "i:%zu:%s", strlen(name), name);
	else
		len = snprintf(buf, n, "i:%zu:[code 0x%llx]", (size_t)snprintf(NULL, 0, "[code 0x%llx]",
			       (unsigned long long)code), (unsigned long long)code);
	return len > 0 && (size_t)len < n ? (size_t)len : 0;
}
