// SPDX-License-Identifier: BSD-2-Clause
/*
 * User stacks unwound by CFI with libdwfl (unwind.h). perf's
 * tools/perf/util/unwind-libdw.c was the model: its memory_read from the
 * copied stack, its registers in the DWARF order. Unlike perf (a Dwfl per
 * sample, the modules reported from its own mmap records) a Dwfl is kept
 * per process, the modules reported from /proc/PID/maps.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <elfutils/libdwfl.h>

#include "collector/idmap.h"
#include "collector/profile/frames.h"
#include "collector/profile/goleaf.h"
#include "collector/profile/umaps.h"
#include "collector/profile/unwind.h"

struct uproc {
	pid_t pid;
	Dwfl *dwfl;		/* NULL: no module could be read (then frame pointers) */
	int mem;		/* /proc/PID/mem, -1: not open */
	int exe_fd;		/* /proc/PID/exe, for exe: -1 */
	Elf *exe;		/* its executable: the Dwfl's architecture (see uproc_new) */
	bool go;		/* its executable is a Go program */
	bool goleaf_tried;
	struct goleaf *goleaf;	/* a Go program's pclntab, for its leaf frames (auto mode) */
	unsigned long long read_ns;	/* the sample time its modules were last reported at */
	/* the sample being unwound */
	pid_t tid;
	const struct bt_sample_ustack *us;
	const unsigned char *stack;
	uint64_t stack_lo, stack_hi;	/* the stack's mapping: past the copy, unknown */
	struct umaps *umaps;	/* the collector's (samples.c): the mappings */
	struct bt_stack_build_id *out;
	int nout;
	bool stale;		/* a frame in a file no module covers: mapped since */
};

struct unwind {
	enum unwind_mode mode;
	char proc[64];
	struct umaps *umaps;
	struct idmap procs;	/* pid → struct uproc */
	unsigned long long ns, count;
};

/* Modules reported again for a stale frame at most this often per process (ns of sample time). */
#define REREAD_NS 10000000ULL

struct unwind *unwind__new(enum unwind_mode mode, const char *proc, struct umaps *umaps)
{
	struct unwind *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->mode = mode;
	w->umaps = umaps;
	snprintf(w->proc, sizeof(w->proc), "%s", proc);
	elf_version(EV_CURRENT);
	return w;
}

static void uproc_free(struct uproc *p)
{
	if (!p)
		return;
	if (p->dwfl)
		dwfl_end(p->dwfl);
	if (p->mem >= 0)
		close(p->mem);
	elf_end(p->exe);	/* after dwfl_end: the Dwfl's backend was opened on it */
	if (p->exe_fd >= 0)
		close(p->exe_fd);
	goleaf__free(p->goleaf);
	free(p);
}

static void forget_all(struct unwind *w)
{
	size_t i;

	for (i = 0; i < w->procs.cap; i++)
		uproc_free(w->procs.slots[i].val);
	idmap_free(&w->procs);
}

void unwind__free(struct unwind *w)
{
	if (!w)
		return;
	forget_all(w);
	free(w);
}

void unwind_forget(struct unwind *w, pid_t pid)
{
	struct uproc *p;

	if (!w || pid <= 0 || !(p = idmap_get(&w->procs, (__u64)pid)))
		return;
	idmap_del(&w->procs, (__u64)pid);
	uproc_free(p);
}

unsigned long long unwind_ns(const struct unwind *w)
{
	return w ? w->ns : 0;
}

unsigned long long unwind_count(const struct unwind *w)
{
	return w ? w->count : 0;
}

/* ---- modules: found by libdwfl through the process's root ---- */

/*
 * A module's file: the path the process maps, opened through
 * /proc/PID/root (a container's files are its own, not the host's); the
 * vDSO read from the process's memory (libdwfl's "[vdso: PID]").
 */
static int find_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
		    char **file_name, Elf **elfp)
{
	const struct uproc *p = *userdata;
	char path[4200];
	struct stat st;
	int fd;

	if (name[0] != '/')
		return dwfl_linux_proc_find_elf(mod, userdata, name, base, file_name, elfp);
	snprintf(path, sizeof(path), "/proc/%d/root%s", (int)p->pid, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {	/* a device mapped: no ELF */
		close(fd);
		return -1;
	}
	*file_name = strdup(path);
	return fd;
}

/* Whether @elf has a section named one of @names (NULL-terminated). */
static bool has_section(Elf *elf, const char *const *names)
{
	size_t shstrndx, i;
	Elf_Scn *scn = NULL;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		for (i = 0; names[i]; i++)
			if (!strcmp(name, names[i]))
				return true;
	}
	return false;
}

/* Whether @elf, an executable, is a Go program (.go.buildinfo since Go 1.13, .gopclntab before). */
static bool is_go(Elf *elf)
{
	static const char *const go[] = { ".go.buildinfo", ".gopclntab", ".note.go.buildid", NULL };

	return has_section(elf, go);
}

/*
 * A module's debug file, for its .debug_frame: by build id only
 * (/usr/lib/debug/.build-id/, where -dbgsym packages put them), not
 * dwfl_standard_find_debuginfo, which asks a debuginfod server when
 * DEBUGINFOD_URLS is set (a network wait in the middle of the trace). And
 * only a debug file that has a .debug_frame: libdwfl opens its DWARF
 * whole, decompressing every section, to read its CFI. Debian's own debug
 * files (libc6-dbg) have none (their CFI is the binaries' .eh_frame), and
 * each new process's first samples are in the dynamic loader, whose
 * _start has no CFI: the walk ends there after a lookup of ld.so's debug
 * file, which cost 2.7 ms of the collector's CPU per process
 * (decompressing it) before this check. The check comes first:
 * dwfl_build_id_find_debuginfo() keeps the file it opens in the module.
 */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			  char **debuginfo_file_name)
{
	static const char *const frame[] = { ".debug_frame", NULL };
	const unsigned char *bits;
	char path[128];
	GElf_Addr vaddr;
	int len = dwfl_module_build_id(mod, &bits, &vaddr), i, at, fd;
	bool cfi;
	Elf *elf;

	if (len <= 1 || len > 40)
		return -1;	/* no build id, no such file */
	at = snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%02x/", bits[0]);
	for (i = 1; i < len; i++)
		at += snprintf(path + at, sizeof(path) - (size_t)at, "%02x", bits[i]);
	snprintf(path + at, sizeof(path) - (size_t)at, ".debug");
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	cfi = has_section(elf, frame);
	elf_end(elf);
	close(fd);
	if (!cfi)
		return -1;
	return dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file,
					    debuglink_crc, debuginfo_file_name);
}

static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = find_elf,
	.find_debuginfo = find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

/* Report module @name over [@lo, @hi) to @p's Dwfl, with @p as its userdata for find_elf(). */
static void report(struct uproc *p, const char *name, uint64_t lo, uint64_t hi)
{
	Dwfl_Module *mod = dwfl_report_module(p->dwfl, name, lo, hi);
	void **ud;

	if (mod && dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL))
		*ud = p;
}

/*
 * Report @p's files as modules from /proc/PID/maps, each over the span of
 * its mappings (as libdwfl's own dwfl_linux_proc_report does; the bias
 * follows from the lowest). 0, or -1 when the maps cannot be read (the
 * process is gone).
 */
static int read_maps(struct unwind *w, struct uproc *p)
{
	char path[96], line[4096 + 256], name[4200], last[4200] = "";
	uint64_t start, end, pgoff, lo = 0, hi = 0;
	const char *file;
	size_t len;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d/maps", w->proc, (int)p->pid);
	if (!(f = fopen(path, "re")))
		return -1;
	dwfl_report_begin(p->dwfl);
	while (fgets(line, sizeof(line), f)) {
		if (umaps_parse_maps_line(line, &start, &end, &pgoff, &file, &len) < 0)
			continue;
		if (!len || len >= sizeof(name) - 32)
			continue;	/* anonymous: no module (a JIT's code has no CFI here) */
		if (*file == '/')
			snprintf(name, sizeof(name), "%.*s", (int)len, file);
		else if (len == 6 && !memcmp(file, "[vdso]", 6))
			snprintf(name, sizeof(name), "[vdso: %d]", (int)p->pid);
		else
			continue;	/* [vsyscall]: no ELF */
		if (!strcmp(name, last) && start >= hi) {
			hi = end;	/* the same file's next segment */
			continue;
		}
		if (last[0])
			report(p, last, lo, hi);
		snprintf(last, sizeof(last), "%s", name);
		lo = start;
		hi = end;
	}
	if (last[0])
		report(p, last, lo, hi);
	fclose(f);
	dwfl_report_end(p->dwfl, NULL, NULL);
	return 0;
}

/* ---- the thread: one, the sample's ---- */

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct uproc *p = arg;

	(void)dwfl;
	if (*thread_argp)
		return 0;	/* the sample's thread alone */
	*thread_argp = p;
	return p->tid;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	struct uproc *p = arg;

	(void)dwfl;
	*thread_argp = p;
	return tid == p->tid;
}

/*
 * A word of the process's memory: from the copied stack; nothing from
 * the rest of the stack's mapping (not copied: what is there now is not
 * what was there at the sample); else the process's memory as it is now
 * (its files' data and code, which CFI expressions may read).
 */
static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct uproc *p = arg;
	uint64_t sp = p->us->regs[BT_UREG_SP];

	(void)dwfl;
	if (addr >= sp && addr - sp <= (uint64_t)p->us->stack_bytes &&
	    p->us->stack_bytes - (addr - sp) >= sizeof(*result)) {
		memcpy(result, p->stack + (addr - sp), sizeof(*result));
		return true;
	}
	if (addr >= p->stack_lo && addr < p->stack_hi)
		return false;
	return p->mem >= 0 &&
	       pread(p->mem, result, sizeof(*result), (off_t)addr) == (ssize_t)sizeof(*result);
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct uproc *p = arg;
	Dwarf_Word regs[BT_UREGS];
	int i;

	for (i = 0; i < BT_UREGS; i++)
		regs[i] = p->us->regs[i];
	dwfl_thread_state_register_pc(thread, regs[BT_UREG_IP]);
	return dwfl_thread_state_registers(thread, 0, BT_UREGS, regs);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

/* A new process: its Dwfl over its maps, attached. NULL when it is gone or out of memory. */
static struct uproc *uproc_new(struct unwind *w, pid_t pid)
{
	struct uproc *p = calloc(1, sizeof(*p));
	char path[96];

	if (!p)
		return NULL;
	p->pid = pid;
	snprintf(path, sizeof(path), "%s/%d/mem", w->proc, (int)pid);
	p->mem = open(path, O_RDONLY | O_CLOEXEC);
	snprintf(path, sizeof(path), "%s/%d/exe", w->proc, (int)pid);
	if ((p->exe_fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0)
		p->exe = elf_begin(p->exe_fd, ELF_C_READ_MMAP, NULL);
	p->go = is_go(p->exe);
	p->dwfl = dwfl_begin(&dwfl_callbacks);
	if (!p->dwfl || !p->exe || read_maps(w, p) < 0) {
		uproc_free(p);
		return NULL;
	}
	/*
	 * The executable's ELF, ours, gives the architecture. Not NULL:
	 * libdwfl would borrow the backend of its first module, freed with
	 * that module when a re-read of the maps drops it (a use after free
	 * seen with node, whose mappings change as it runs).
	 */
	if (!dwfl_attach_state(p->dwfl, p->exe, pid, &thread_callbacks, p)) {
		dwfl_end(p->dwfl);
		p->dwfl = NULL;
	}
	return p;
}

static struct uproc *get(struct unwind *w, pid_t pid)
{
	struct uproc *p = idmap_get(&w->procs, (__u64)pid);

	if (p)
		return p;
	if (w->procs.n >= UNWIND_MAX)
		forget_all(w);
	if (!(p = uproc_new(w, pid)))
		return NULL;
	if (idmap_put(&w->procs, (__u64)pid, p) < 0) {
		uproc_free(p);
		return NULL;
	}
	return p;
}

/* ---- frames ---- */

/*
 * Frame @pc, in mapping @m, into p->out: the file's build id and the file
 * offset, or the address (umaps names it f:PATH+0xOFF, [vdso] too: the
 * kernel gives no build id for it either).
 */
static void put_frame(struct uproc *p, const struct umaps_mapping *m, uint64_t pc)
{
	struct bt_stack_build_id *b = &p->out[p->nout++];
	Dwfl_Module *mod = m->named ? dwfl_addrmodule(p->dwfl, pc) : NULL;
	const char *name = mod ? dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL) :
				 NULL;
	const unsigned char *bits;
	GElf_Addr vaddr;
	int len = name && name[0] == '/' ? dwfl_module_build_id(mod, &bits, &vaddr) : 0;

	if (m->named && !mod)
		p->stale = true;	/* a file mapped after the modules were reported */
	memset(b, 0, sizeof(*b));
	/* as the kernel gives it (BPF_F_USER_BUILD_ID): at most 20 bytes, zero-padded */
	if (len > 0 && len <= BT_BUILD_ID_SIZE) {
		b->status = BT_STACK_BUILD_ID_VALID;
		memcpy(b->build_id, bits, (size_t)len);
		b->offset = pc - m->start + m->pgoff;
	} else {
		b->status = BT_STACK_BUILD_ID_IP;	/* umaps names it f:PATH+0xOFF */
		b->ip = pc;
	}
}

static int on_frame(Dwfl_Frame *state, void *arg)
{
	struct uproc *p = arg;
	struct umaps_mapping m;
	Dwarf_Addr pc;

	if (!dwfl_frame_pc(state, &pc, NULL) || !pc)
		return DWARF_CB_ABORT;
	if (umaps_find(p->umaps, p->pid, pc, &m) < 0)
		return DWARF_CB_ABORT;	/* outside every mapping: the end, not printed */
	put_frame(p, &m, pc);
	return p->nout < BT_STACK_MAX ? DWARF_CB_OK : DWARF_CB_ABORT;
}

/* One walk of @p's sample. */
static void walk(struct uproc *p)
{
	struct umaps_mapping s = { 0 };

	umaps_find(p->umaps, p->pid, p->us->regs[BT_UREG_SP], &s);
	p->stack_lo = s.start;
	p->stack_hi = s.end;
	p->nout = 0;
	p->stale = false;
	/* its end (an error at the outermost frame, often) is not an error here */
	dwfl_getthread_frames(p->dwfl, p->tid, on_frame, p);
}

static unsigned long long cpu_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

int unwind_stack(struct unwind *w, const struct bt_sample_event *e,
		 const struct bt_sample_ustack *us, const unsigned char *stack,
		 struct bt_stack_build_id *out)
{
	unsigned long long t0;
	struct uproc *p;
	int n = -1;

	if (!w || w->mode == UNWIND_FP || !us->regs[BT_UREG_IP] || !us->stack_bytes)
		return -1;	/* a kernel thread, or no stack copied */
	t0 = cpu_now_ns();
	if (!(p = get(w, (pid_t)e->hdr.pid)) || !p->dwfl)
		goto out;
	if (w->mode == UNWIND_AUTO && p->go) {
		/* frame pointers, the caller a frameless function skips put back */
		if (!p->goleaf_tried) {
			p->goleaf_tried = true;
			p->goleaf = goleaf__new(w->proc, p->pid, p->exe_fd);
		}
		n = goleaf_stack(p->goleaf, e, us, stack, out);
		goto out;
	}
	p->tid = (pid_t)e->hdr.tid;
	p->us = us;
	p->stack = stack;
	p->out = out;
	p->umaps = w->umaps;
	walk(p);
	/* a file no module covers: the process mapped more since (dlopen) */
	if (p->stale && e->hdr.ts_ns - p->read_ns >= REREAD_NS) {
		p->read_ns = e->hdr.ts_ns;
		if (read_maps(w, p) == 0)
			walk(p);
	}
	n = p->nout ? p->nout : -1;	/* nothing: frame pointers' frames, if any */
	w->count++;
	/* no CFI past the first frame (JIT'd code): frame pointers may know more */
	if (w->mode == UNWIND_AUTO && n <= 1 && frames_fp_count(e) > n)
		n = -1;
out:
	w->ns += cpu_now_ns() - t0;
	return n;
}
