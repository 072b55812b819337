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
#include "collector/profile/hotspot.h"
#include "collector/profile/v8.h"
#include "collector/profile/interp.h"
#include "collector/profile/umaps.h"

/*
 * CPython 3.11 on x86-64: struct offsets of Debian 12's 3.11.2, as
 * python3.11-dbg's DWARF gives them (`ptype/o` in gdb), which the
 * internal structs keep through 3.11's maintenance releases.
 */
const struct interp_py311 interp_py311 = {
	.runtime_tstate = 568 + 8,	/* pyruntimestate.gilstate, .tstate_current */
	.runtime_main = 32 + 16,	/* pyruntimestate.interpreters, .main (after mutex, head) */
	.proc = {
		.kind = BT_INTERP_PYTHON311,
		.ts_cframe = 56,	/* struct _ts */
		.ts_tid = 160,		/* native_thread_id */
		.cf_frame = 8,		/* struct _PyCFrame.current_frame */
		.fr_code = 32,		/* struct _PyInterpreterFrame */
		.fr_previous = 48,
		.fr_is_entry = 68,
		/* the thread list: .rt_interp is set from runtime_main */
		.is_threads_head = 8 + 8,	/* PyInterpreterState.threads, .head */
		.ts_next = 8,		/* struct _ts */
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

/*
 * CRuby 3.1 on x86-64: struct offsets of Ruby 3.1.2's vm_core.h,
 * ractor_core.h, iseq.h and include/ruby/internal/core (rbspy's bindgen
 * of 3.1.2's headers, ruby-structs/src/ruby_3_1_2.rs, summed by hand),
 * checked on live Debian 12 ruby3.1 processes (no DWARF for libruby is
 * reachable): a script read its own memory (/proc/self/mem) with them and
 * found its running_ec at ractor+520 (the one pointer in the first 1 KiB
 * of the ractor whose target's cfp lies in its own VM stack), that ec's
 * thread's tid equal to Thread#native_thread_id, and its own methods'
 * labels, files, first lines and frame magics (ep[0]) through cfp → iseq
 * → body → location, innermost first, as Ruby's backtrace has them;
 * tests/tools/rboffsets.rb does that again in test_collector_profile_ruby.
 * Taken for every 3.1.x (the process's ruby_version is checked, not its
 * patch level); only 3.1.2 was run.
 */
const struct interp_rb31 interp_rb31 = {
	.proc = {
		.kind = BT_INTERP_RUBY31,
		.rr_running_ec = 520,	/* rb_ractor_t.threads.running_ec */
		.ec_vm_stack = 0,	/* rb_execution_context_t */
		.ec_vm_stack_size = 8,
		.ec_cfp = 16,
		.ec_thread = 48,	/* thread_ptr */
		.th_tid = 88,		/* rb_thread_t.tid */
		.cfp_size = 64,		/* rb_control_frame_t, with 3.1's jit_return */
		.cfp_pc = 0,
		.cfp_iseq = 16,
		.cfp_ep = 32,
		/*
		 * the thread list (rb_thread_t.lt_node links it; found on a
		 * live 3.1.2 the same way: the list_head in the ractor's first
		 * 512 bytes whose nodes lead back to it, the first node this
		 * thread's, its ec the running_ec)
		 */
		.rr_threads_set = 304,	/* rb_ractor_t.threads.set */
		.th_lt_node = 0,	/* rb_thread_t.lt_node */
		.th_ec = 40,		/* rb_thread_t.ec */
	},
	.iseq_body = 16,		/* rb_iseq_t.body */
	.body_pathobj = 64,		/* rb_iseq_constant_body.location.pathobj */
	.body_label = 80,		/* .location.label */
	.body_first_lineno = 88,	/* .location.first_lineno, a Fixnum */
	.str_heap_len = 16,		/* RString.as.heap.len (RSTRING_NOEMBED) */
	.str_heap_ptr = 24,		/* .as.heap.ptr */
	.str_embed = 16,		/* .as.embed.ary */
	.ary_embed = 16,		/* RArray.as.ary (RARRAY_EMBED_FLAG) */
	.ary_heap_ptr = 32,		/* .as.heap.ptr */
};

/* A process looked at: what it runs, and the names of its frames so far. */
struct iproc {
	int kind;			/* enum bt_interp_kind */
	int tries;			/* looks that found none */
	int early;			/* looks that found a JVM whose code cache was not made yet */
	unsigned long long recheck_ns;	/* when to look again (libpython mapped late) */
	unsigned char build_id[BT_BUILD_ID_SIZE];	/* the interpreter's file */
	uint64_t eval_lo, eval_hi;	/* its eval loop, file offsets */
	struct idmap names;		/* code object address → name */
	size_t nnames;
};

struct interp {
	struct backend *be;
	struct hotspot *hs;		/* the JVMs */
	struct v8 *v8;			/* the node processes */
	struct idmap procs;		/* pid → struct iproc */
	int warned, warned_jvm, warned_v8;
	__u32 gen;			/* registrations so far (bt_interp_proc.gen) */
	unsigned long long inames, inames_part;	/* BT_EV_INAME records; of them, read in part */
};

/* A process gets looked at this many times, 200 ms apart, before it is let be. */
#define INTERP_TRIES 5
#define INTERP_RECHECK_NS 200000000ULL
/*
 * A JVM is looked at again this soon while its code cache is not made
 * (libjvm is mapped some 20 ms after java's exec, the code cache comes
 * 10 to 30 ms later: a 200 ms wait would lose the first class
 * initializers' frames), up to this many times.
 */
#define INTERP_EARLY_NS 5000000ULL
#define INTERP_EARLY_TRIES 2000
/* Names kept per process at most; past that, forgotten and read again. */
#define INTERP_NAMES_MAX 65536
#define INTERP_NAME_MAX 512

struct interp *interp__new(struct backend *be)
{
	struct interp *in = calloc(1, sizeof(*in));

	if (!in)
		return NULL;
	in->be = be && be->ops->interp_set ? be : NULL;
	/* a test knob (man collector, ENVIRONMENT): JVMs not walked, their JIT frames from perf maps */
	if (!(in->hs = hotspot__new(getenv("BOOTTRACE_TEST_NO_HOTSPOT") ? NULL : in->be)) ||
	    !(in->v8 = v8__new())) {
		hotspot__free(in->hs);
		free(in);
		return NULL;
	}
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
	hotspot__free(in->hs);
	v8__free(in->v8);
	free(in);
}

void interp_forget(struct interp *in, pid_t pid)
{
	struct iproc *p = in && pid > 0 ? idmap_get(&in->procs, (__u64)pid) : NULL;

	if (!p)
		return;
	if (p->kind != BT_INTERP_NONE)
		in->be->ops->interp_set(in->be, (__u32)pid, NULL);
	hotspot_forget(in->hs, pid);
	v8_forget(in->v8, pid);
	idmap_del(&in->procs, (__u64)pid);
	iproc_free(p);
}

/*
 * Which interpreter @base (a file's name, @n bytes) may be: CPython 3.11's
 * binary or library, libruby 3.1, or a binary named ruby or ruby3.1 (a
 * statically linked Ruby when it has libruby's symbols: register_ruby
 * checks), HotSpot's libjvm.so, or node (node, nodejs, libnode.so: V8's
 * when it exports v8dbg_* symbols, v8_register checks). *@other: another
 * version's.
 */
static int interp_file(const char *base, size_t n, int *other)
{
	static const char py[] = "python3.11", libpy[] = "libpython3.11.so",
			  rb[] = "ruby", rb31[] = "ruby3.1", librb[] = "libruby-3.1.so",
			  jvm[] = "libjvm.so", node[] = "node", nodejs[] = "nodejs",
			  libnode[] = "libnode.so";

	if (n == sizeof(jvm) - 1 && !memcmp(base, jvm, n))
		return BT_INTERP_HOTSPOT;
	if ((n == sizeof(node) - 1 && !memcmp(base, node, n)) ||
	    (n == sizeof(nodejs) - 1 && !memcmp(base, nodejs, n)) ||
	    (n >= sizeof(libnode) - 1 && !memcmp(base, libnode, sizeof(libnode) - 1)))
		return BT_INTERP_V8;
	if ((n == sizeof(py) - 1 && !memcmp(base, py, n)) ||
	    (n >= sizeof(libpy) - 1 && !memcmp(base, libpy, sizeof(libpy) - 1)))
		return BT_INTERP_PYTHON311;
	if ((n >= sizeof(librb) - 1 && !memcmp(base, librb, sizeof(librb) - 1)) ||
	    (n == sizeof(rb) - 1 && !memcmp(base, rb, n)) ||
	    (n == sizeof(rb31) - 1 && !memcmp(base, rb31, n)))
		return BT_INTERP_RUBY31;
	if ((n > 7 && !memcmp(base, "python3", 7)) || (n > 10 && !memcmp(base, "libpython3", 10)) ||
	    (n > 7 && !memcmp(base, "libruby", 7)))
		*other = 1;
	return BT_INTERP_NONE;
}

/* @n bytes of @pid's memory at @addr: 0, or -1. */
static int peek(pid_t pid, uint64_t addr, void *buf, size_t n)
{
	struct iovec local = { buf, n }, remote = { (void *)(uintptr_t)addr, n };

	return addr && process_vm_readv(pid, &local, 1, &remote, 1, 0) == (ssize_t)n ? 0 : -1;
}

/* Where @file, mapped at @start in its process, puts its symbol @sym: 0, or -1. */
static int symbol_at(const char *file, const struct elf_image *img, uint64_t start, const char *sym,
		     uint64_t *addr)
{
	unsigned long long v, sz;

	if (elf_symbol(file, sym, &v, &sz) < 0)
		return -1;
	*addr = (img->type == ET_DYN ? start - img->first_vaddr : 0) + v;
	return 0;
}

/* CPython 3.11 in @file, mapped at @start: @proc and the eval loop's file offsets. 0, or -1. */
static int register_python(const char *file, const struct elf_image *img, uint64_t start,
			   struct bt_interp_proc *proc, struct iproc *p)
{
	unsigned long long ev, evsz, evoff;
	uint64_t rt;

	if (symbol_at(file, img, start, "_PyRuntime", &rt) < 0 ||
	    elf_symbol(file, "_PyEval_EvalFrameDefault", &ev, &evsz) < 0 ||
	    elf_vaddr_offset(file, ev, &evoff) < 0)
		return -1;
	*proc = interp_py311.proc;
	proc->tstate_addr = rt + interp_py311.runtime_tstate;
	/* both in _PyRuntime, a few hundred bytes apart: an __s16 from tstate_addr */
	proc->rt_interp = (__s16)((int)interp_py311.runtime_main - (int)interp_py311.runtime_tstate);
	proc->co_firstlineno = interp_py311.co_firstlineno;
	proc->co_filename = interp_py311.co_filename;
	proc->co_qualname = interp_py311.co_qualname;
	proc->str_length = interp_py311.str_length;
	proc->str_state = interp_py311.str_state;
	proc->str_ascii_data = interp_py311.str_ascii_data;
	proc->str_utf8_length = interp_py311.str_utf8_length;
	proc->str_utf8 = interp_py311.str_utf8;
	p->eval_lo = evoff;
	p->eval_hi = evoff + evsz;
	return 0;
}

/*
 * Ruby 3.1 in @file, mapped at @start in @pid: @proc. Its VM loop
 * (vm_exec_core) is a static function, nameless without libruby's debug
 * symbols: no eval range, so frames.c puts the Ruby frames in place of the
 * first native frame in libruby and what follows it. 0, or -1 (not Ruby,
 * or not 3.1: its ruby_version, read from the process).
 */
static int register_ruby(const char *file, const struct elf_image *img, uint64_t start, pid_t pid,
			 struct bt_interp_proc *proc, struct iproc *p)
{
	uint64_t ractor, version;
	char v[4];

	if (symbol_at(file, img, start, "ruby_single_main_ractor", &ractor) < 0 ||
	    symbol_at(file, img, start, "ruby_version", &version) < 0 ||
	    peek(pid, version, v, sizeof(v)) < 0 || memcmp(v, "3.1.", 4) != 0)
		return -1;
	*proc = interp_rb31.proc;
	proc->tstate_addr = ractor;
	proc->iseq_body = interp_rb31.iseq_body;
	proc->body_pathobj = interp_rb31.body_pathobj;
	proc->body_label = interp_rb31.body_label;
	proc->body_first_lineno = interp_rb31.body_first_lineno;
	proc->str_heap_len = interp_rb31.str_heap_len;
	proc->str_heap_ptr = interp_rb31.str_heap_ptr;
	proc->str_embed = interp_rb31.str_embed;
	proc->ary_embed = interp_rb31.ary_embed;
	proc->ary_heap_ptr = interp_rb31.ary_heap_ptr;
	p->eval_lo = p->eval_hi = 0;
	return 0;
}

/* look()'s answer for a JVM whose code cache is not made yet */
#define LOOK_EARLY 1

/*
 * Register @p's process @pid when it maps CPython 3.11, Ruby 3.1 or a
 * JVM: 0, LOOK_EARLY, or -1 (none, or its file cannot be read).
 */
static int look(struct interp *in, struct iproc *p, pid_t pid)
{
	char path[64], line[4096], file[128], seen[128] = "";
	struct bt_interp_proc proc;
	uint64_t start, end, pgoff;
	struct elf_image img;
	const char *name, *why;
	size_t len, blen;
	int kind = BT_INTERP_NONE, other = 0, r;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	if (!(f = fopen(path, "re")))
		return -1;
	while (kind == BT_INTERP_NONE && fgets(line, sizeof(line), f)) {
		const char *base;
		int k;

		line[strcspn(line, "\n")] = '\0';
		if (umaps_parse_maps_line(line, &start, &end, &pgoff, &name, &len) < 0 || !len ||
		    pgoff)
			continue;
		base = memrchr(name, '/', len);
		base = base ? base + 1 : name;
		blen = len - (size_t)(base - name);
		k = interp_file(base, blen, &other);
		if (k == BT_INTERP_NONE) {
			if (other && !seen[0])
				snprintf(seen, sizeof(seen), "%.*s", (int)blen, base);
			other = 0;
			continue;
		}
		/* the file as the process maps it, whatever its mount namespace */
		snprintf(file, sizeof(file), "/proc/%d/map_files/%llx-%llx", pid,
			 (unsigned long long)start, (unsigned long long)end);
		if (elf_image(file, &img) < 0 || !img.build_id_len)
			continue;
		if (k == BT_INTERP_HOTSPOT) {
			/* hotspot.c registers it with the sampling program itself */
			r = hotspot_register(in->hs, pid, file,
					     img.type == ET_DYN ? start - img.first_vaddr : 0, &why);
			if (r == HOTSPOT_NOT_YET) {
				fclose(f);
				return LOOK_EARLY;
			}
			if (r == 0)
				kind = k;
			else if (!in->warned_jvm++)
				fprintf(stderr, "collector: --profile: the JVM in process %d: its Java frames "
					"are not walked: %s\n", pid, why);
			continue;
		}
		if (k == BT_INTERP_V8) {
			/* a test knob (man collector, ENVIRONMENT): node's native frames only */
			if (getenv("BOOTTRACE_TEST_NO_V8"))
				continue;
			if (v8_register(in->v8, pid, file,
					img.type == ET_DYN ? start - img.first_vaddr : 0, &proc, &why) == 0)
				kind = k;
			else if (!in->warned_v8++)
				fprintf(stderr, "collector: --profile: node in process %d: its JS frames "
					"are not walked: %s\n", pid, why);
			continue;
		}
		/* a test knob (man collector, ENVIRONMENT): Ruby's native frames only */
		if (k == BT_INTERP_RUBY31 && getenv("BOOTTRACE_TEST_NO_RUBY"))
			continue;
		if (k == BT_INTERP_PYTHON311 ? register_python(file, &img, start, &proc, p) == 0
					     : register_ruby(file, &img, start, pid, &proc, p) == 0)
			kind = k;
	}
	fclose(f);
	if (kind == BT_INTERP_NONE) {
		if (seen[0] && !in->warned++)
			fprintf(stderr, "collector: --profile: %s in process %d: its frames are native "
				"only (boottrace reads CPython 3.11's and Ruby 3.1's)\n", seen, pid);
		return -1;
	}
	/* a new registration: its code objects' names are written again (inames.bpf.h) */
	proc.gen = ++in->gen;
	if (kind != BT_INTERP_HOTSPOT && in->be->ops->interp_set(in->be, (__u32)pid, &proc) < 0)
		return -1;
	p->kind = kind;
	memset(p->build_id, 0, sizeof(p->build_id));
	memcpy(p->build_id, img.build_id, img.build_id_len);
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
	switch (look(in, p, pid)) {
	case LOOK_EARLY:
		if (++p->early >= INTERP_EARLY_TRIES)
			p->tries = INTERP_TRIES;
		p->recheck_ns = now + INTERP_EARLY_NS;
		break;
	case 0:
		break;
	default:
		p->tries++;
		p->recheck_ns = now + INTERP_RECHECK_NS;
	}
}

size_t interp_java_frame(struct interp *in, pid_t pid, uint64_t v, char *buf, size_t n,
			 unsigned max, unsigned *frames)
{
	if (BT_HS_KIND(v) == BT_HS_V8) {
		*frames = 1;
		return v8_frame(in ? in->v8 : NULL, pid, v, buf, n);
	}
	return hotspot_frame(in ? in->hs : NULL, pid, v, buf, n, max, frames);
}

enum interp_where interp_where(struct interp *in, pid_t pid, const struct bt_stack_build_id *b)
{
	struct iproc *p = in && pid > 0 ? idmap_get(&in->procs, (__u64)pid) : NULL;

	if (!p || p->kind == BT_INTERP_NONE || p->kind == BT_INTERP_HOTSPOT || p->kind == BT_INTERP_V8 ||
	    b->status != BT_STACK_BUILD_ID_VALID ||
	    memcmp(b->build_id, p->build_id, BT_BUILD_ID_SIZE) != 0)
		return INTERP_ELSEWHERE;
	return b->offset >= p->eval_lo && b->offset < p->eval_hi ? INTERP_EVAL : INTERP_MODULE;
}

static uint64_t u64_at(const unsigned char *b, unsigned off)
{
	uint64_t v;

	memcpy(&v, b + off, sizeof(v));
	return v;
}

/* @len bytes of @pid's memory at @data into @out (@n bytes, cut, NUL-terminated): its length, or -1. */
static int peek_str(pid_t pid, uint64_t data, uint64_t len, char *out, size_t n)
{
	if (len >= n)
		len = n - 1;
	if (peek(pid, data, out, (size_t)len) < 0)
		return -1;
	out[len] = '\0';
	return (int)strlen(out);	/* a NUL inside ends it */
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
	return peek_str(pid, data, len, out, n);
}

/*
 * The name of code object @code of @pid: `qualname (file:LINE)`, malloc'd,
 * or NULL; *@whole: both strings read (else `?` stands for them).
 */
static char *code_name(pid_t pid, uint64_t code, int *whole)
{
	const struct interp_py311 *o = &interp_py311;
	char qual[INTERP_NAME_MAX / 2], file[INTERP_NAME_MAX / 2], *s;
	unsigned char c[136];
	int32_t line;

	if (peek(pid, code, c, sizeof(c)) < 0)
		return NULL;
	memcpy(&line, c + o->co_firstlineno, sizeof(line));
	*whole = 1;
	if (py_str(pid, u64_at(c, o->co_qualname), qual, sizeof(qual)) < 0) {
		*whole = 0;
		snprintf(qual, sizeof(qual), "?");
	}
	if (py_str(pid, u64_at(c, o->co_filename), file, sizeof(file)) < 0) {
		*whole = 0;
		snprintf(file, sizeof(file), "?");
	}
	if (asprintf(&s, "%s (%s:%d)", qual, file, line) < 0)
		return NULL;
	return s;
}

#define RB_T_MASK 0x1f		/* RBasic.flags: the type */
#define RB_T_STRING 0x05
#define RB_T_ARRAY 0x07
#define RB_FL_USER1 (1ull << 13)	/* RString: not embedded; RArray: embedded */
#define RB_STR_EMBED_LEN(flags) (((flags) >> 14) & 0x1f)	/* RSTRING_EMBED_LEN_MASK */

/* Ruby String @v of @pid into @out (@n bytes, NUL-terminated): its length, or -1. */
static int rb_str(pid_t pid, uint64_t v, char *out, size_t n)
{
	const struct interp_rb31 *o = &interp_rb31;
	unsigned char h[40];
	uint64_t flags, len, data;

	if (!v || (v & 7) || peek(pid, v, h, sizeof(h)) < 0)
		return -1;	/* not a heap object (a special constant), or gone */
	flags = u64_at(h, 0);
	if ((flags & RB_T_MASK) != RB_T_STRING)
		return -1;
	if (flags & RB_FL_USER1) {
		len = u64_at(h, o->str_heap_len);
		data = u64_at(h, o->str_heap_ptr);
	} else {
		len = RB_STR_EMBED_LEN(flags);
		data = v + o->str_embed;
	}
	return peek_str(pid, data, len, out, n);
}

/* An iseq's pathobj @v of @pid (a String, or an Array [path, realpath]): its path, as rb_str. */
static int rb_path(pid_t pid, uint64_t v, char *out, size_t n)
{
	const struct interp_rb31 *o = &interp_rb31;
	unsigned char h[40];
	uint64_t flags, first;

	if (!v || (v & 7) || peek(pid, v, h, sizeof(h)) < 0)
		return -1;
	flags = u64_at(h, 0);
	if ((flags & RB_T_MASK) != RB_T_ARRAY)
		return rb_str(pid, v, out, n);
	if (flags & RB_FL_USER1)
		first = u64_at(h, o->ary_embed);
	else if (peek(pid, u64_at(h, o->ary_heap_ptr), &first, sizeof(first)) < 0)
		return -1;
	return rb_str(pid, first, out, n);
}

/*
 * The name of Ruby iseq @iseq of @pid: `label (file:LINE)`, malloc'd, or
 * NULL; *@whole as code_name's. The label is the method's name (`block
 * in NAME`, `<class:NAME>`, `<main>`...), without its class: the owner
 * class's name is a constant lookup away (the method entry, its class,
 * its classpath ivar), more reads than a sample's name is worth here.
 */
static char *iseq_name(pid_t pid, uint64_t iseq, int *whole)
{
	const struct interp_rb31 *o = &interp_rb31;
	char label[INTERP_NAME_MAX / 2], file[INTERP_NAME_MAX / 2], *s;
	unsigned char loc[32];
	uint64_t body;
	int64_t line;

	if (peek(pid, iseq + o->iseq_body, &body, sizeof(body)) < 0 ||
	    peek(pid, body + o->body_pathobj, loc, sizeof(loc)) < 0)
		return NULL;
	*whole = 1;
	if (rb_str(pid, u64_at(loc, o->body_label - o->body_pathobj), label, sizeof(label)) < 0) {
		*whole = 0;
		snprintf(label, sizeof(label), "?");
	}
	if (rb_path(pid, u64_at(loc, 0), file, sizeof(file)) < 0) {
		*whole = 0;
		snprintf(file, sizeof(file), "?");
	}
	line = (int64_t)u64_at(loc, o->body_first_lineno - o->body_pathobj) >> 1;	/* a Fixnum */
	if (asprintf(&s, "%s (%s:%lld)", label, file, (long long)line) < 0)
		return NULL;
	return s;
}

size_t interp_frame(struct interp *in, pid_t pid, uint64_t v, char *buf, size_t n)
{
	struct iproc *p = in && pid > 0 ? idmap_get(&in->procs, (__u64)pid) : NULL;
	uint64_t code = v & ~BT_IFRAME_ENTRY;
	char *name = p ? idmap_get(&p->names, code) : NULL, *once = NULL;
	int len, whole = 0;

	if (!name && p && code) {
		if (p->nnames >= INTERP_NAMES_MAX)
			names_free(p);
		name = p->kind == BT_INTERP_RUBY31 ? iseq_name(pid, code, &whole)
						   : code_name(pid, code, &whole);
		/*
		 * A name read half (an object being made or freed there: a
		 * run of the test saw `? (?:0)` where burn_long's code object
		 * came later) is used once, not kept: the next sample reads it
		 * again.
		 */
		if (name && (!whole || idmap_put(&p->names, code, name) < 0))
			once = name;
		else if (name)
			p->nnames++;
	}
	if (name)
		len = snprintf(buf, n, "i:%zu:%s", strlen(name), name);
	else
		len = snprintf(buf, n, "i:%zu:[code 0x%llx]", (size_t)snprintf(NULL, 0, "[code 0x%llx]",
			       (unsigned long long)code), (unsigned long long)code);
	free(once);
	return len > 0 && (size_t)len < n ? (size_t)len : 0;
}

char *interp_iname_name(const struct bt_iname_event *e)
{
	size_t ll = e->label_len < BT_INAME_TEXT ? e->label_len : BT_INAME_TEXT - 1;
	size_t fl = e->file_len < BT_INAME_TEXT ? e->file_len : BT_INAME_TEXT - 1;
	char *name;

	if ((e->flags & (BT_INAME_LABEL | BT_INAME_FILE)) != (BT_INAME_LABEL | BT_INAME_FILE))
		return NULL;
	/* a NUL inside ends a part, as peek_str() has it */
	ll = strnlen(e->label, ll);
	fl = strnlen(e->file, fl);
	if (asprintf(&name, "%.*s (%.*s:%lld)", (int)ll, e->label, (int)fl, e->file,
		     (long long)e->line) < 0)
		return NULL;
	return name;
}

void interp_iname(struct interp *in, const struct bt_iname_event *e)
{
	struct iproc *p = in && e->hdr.pid ? idmap_get(&in->procs, (__u64)e->hdr.pid) : NULL;
	char *name, *old;

	if (!in)
		return;
	in->inames++;
	if ((e->flags & (BT_INAME_LABEL | BT_INAME_FILE)) != (BT_INAME_LABEL | BT_INAME_FILE))
		in->inames_part++;
	/* a process forgotten since (exec'd, exited), or not this one's */
	if (!p || (int)e->kind != p->kind || !e->code)
		return;
	/*
	 * A record for an address named already: another object there now
	 * (its tag changed, bpf/inames.bpf.h). The old name goes, even when
	 * the new one was read in part: the samples that follow are the new
	 * object's (the ring keeps this record before them), and
	 * interp_frame() reads its name from memory then.
	 */
	if ((old = idmap_get(&p->names, e->code))) {
		free(old);
		idmap_del(&p->names, e->code);
		p->nnames--;
	}
	if (!(name = interp_iname_name(e)))
		return;
	if (p->nnames >= INTERP_NAMES_MAX)
		names_free(p);
	if (idmap_put(&p->names, e->code, name) < 0) {
		free(name);
		return;
	}
	p->nnames++;
}

void interp_iname_counts(const struct interp *in, unsigned long long *all, unsigned long long *part)
{
	*all = in ? in->inames : 0;
	*part = in ? in->inames_part : 0;
}
