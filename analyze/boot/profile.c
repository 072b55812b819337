// SPDX-License-Identifier: BSD-2-Clause
/* Each container's boot profile: see profile.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analyze/array.h"
#include "analyze/boot/binaries.h"
#include "analyze/boot/profile.h"
#include "analyze/read/frames.h"
#include "analyze/read/symbols.h"
#include "analyze/read/tracer.h"
#include "common/tsv.h"

#define UNKNOWN "[unknown]"

const char *profile_fn_name(const struct profile *p, uint32_t fn)
{
	return strtab_str(p->fnkeys, fn, NULL);
}

const char *profile_fn_module(const struct profile *p, uint32_t fn)
{
	const char *k = strtab_str(p->fnkeys, fn, NULL);

	return k + strlen(k) + 1;
}

bool profile_fn_kernel(const struct profile *p, uint32_t fn)
{
	return strcmp(profile_fn_module(p, fn), "[kernel]") == 0;
}

bool profile_fn_interp(const struct profile *p, uint32_t fn)
{
	return strcmp(profile_fn_module(p, fn), INTERP_MODULE) == 0;
}

const struct prof_stack *profile_stack(const struct profile *p, uint32_t ix)
{
	return &p->stacks[ix];
}

/* The id of function @name (@n raw bytes; a NUL in it cuts it) in @module. -1 out of memory. */
static long fn_id(struct profile *p, const char *name, size_t n, const char *module)
{
	char key[4200];
	size_t m = strlen(module);
	const char *z = memchr(name, '\0', n);

	if (z)
		n = (size_t)(z - name);
	if (n > sizeof(key) - m - 2)
		n = sizeof(key) - m - 2;
	memcpy(key, name, n);
	key[n] = '\0';
	memcpy(key + n + 1, module, m);
	return strtab_intern(p->fnkeys, key, n + 1 + m, NULL);
}

/* The base name of the @n bytes at @path, into @out (NUL-terminated). */
static void base_name(const char *path, size_t n, char *out, size_t outsz)
{
	size_t i = n;

	while (i && path[i - 1] != '/')
		i--;
	n -= i;
	if (n >= outsz)
		n = outsz - 1;
	memcpy(out, path + i, n);
	out[n] = '\0';
	if (memchr(out, '\0', n))
		out[strlen(out)] = '\0';
}

/*
 * Function @fn, at offset @off of the file at @path (@n raw bytes; NULL:
 * not known), is unnamed: for p->unnamed, unless @off is past the file's
 * end (a frame-pointer chain broken by code built without them gives
 * garbage, which no debug file would name) or the path is no regular
 * file here. -1 out of memory.
 */
static int mark_unnamed(struct profile *p, uint32_t fn, const char *path, size_t n, uint64_t off)
{
	size_t old = p->fn_umod_cap;
	struct stat st;
	int added;
	long m;

	if (!path || !n)
		return 0;
	m = strtab_intern(p->umods, path, n, &added);
	if (m >= 0 && added) {
		if (array_grow((void **)&p->umod_size, &p->umod_size_cap, (size_t)m + 1,
			       sizeof(*p->umod_size), 16) < 0)
			return -1;
		p->umod_size[m] = stat(strtab_str(p->umods, (size_t)m, NULL), &st) == 0 &&
				  S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
	}
	if (m >= 0 && off >= p->umod_size[m])
		return 0;
	if (m < 0 || array_grow((void **)&p->fn_umod, &p->fn_umod_cap, (size_t)fn + 1,
				sizeof(*p->fn_umod), 256) < 0)
		return -1;
	memset(p->fn_umod + old, 0, (p->fn_umod_cap - old) * sizeof(*p->fn_umod));
	p->fn_umod[fn] = (uint32_t)m + 1;
	return 0;
}

/*
 * A user frame's functions into @out (innermost first): @rc and @h from
 * symbols_*(); @base the file's when known, @path (@plen bytes) its path
 * when known. Their count, or -1 out of memory.
 */
static int user_fns(struct profile *p, int rc, const struct symbols_hit *h, const char *base,
		    const char *path, size_t plen, uint64_t off, uint32_t *out)
{
	char name[4200];
	long id;
	size_t i;

	if (rc == 1) {
		for (i = 0; i < h->n; i++) {
			if ((id = fn_id(p, h->fn[i], strlen(h->fn[i]), h->module)) < 0)
				return -1;
			out[i] = (uint32_t)id;
		}
		return (int)h->n;
	}
	if (rc == 0 || base) {
		const char *b = h->module ? h->module : base;

		snprintf(name, sizeof(name), "[%s+0x%llx]", b, (unsigned long long)off);
		id = fn_id(p, name, strlen(name), b);
		if (id >= 0 && mark_unnamed(p, (uint32_t)id, path, plen, off) < 0)
			return -1;
	} else {
		id = fn_id(p, UNKNOWN, strlen(UNKNOWN), UNKNOWN);
	}
	if (id < 0)
		return -1;
	out[0] = (uint32_t)id;
	return 1;
}

/* The id of function @name (@n bytes) in @module into @out: 1, or -1 out of memory. */
static int one_fn(struct profile *p, const char *name, size_t n, const char *module, uint32_t *out)
{
	long id = fn_id(p, name, n, module);

	if (id < 0)
		return -1;
	*out = (uint32_t)id;
	return 1;
}

/*
 * The functions of frame @f into @out (room for SYMBOLS_INLINE_MAX + 1),
 * innermost first: one, or a user frame's inlined ones and its own; @ret:
 * @f is a caller's (a return address). Their count, or -1 out of memory.
 */
static int frame_fns(struct profile *p, const struct frame *f, bool ret, uint32_t *out)
{
	struct symbols_hit h;
	char base[4200];
	const char *path;
	int rc;

	switch (f->kind) {
	case FRAME_KSYM:
		return one_fn(p, f->name, f->name_len, "[kernel]", out);
	case FRAME_KADDR:
		return one_fn(p, UNKNOWN, strlen(UNKNOWN), "[kernel]", out);
	case FRAME_BUILD_ID:
		rc = symbols_build_id(p->sym, f->build_id, f->off, ret, &h);
		path = rc == 0 ? symbols_build_id_path(p->sym, f->build_id) : NULL;
		return user_fns(p, rc, &h, NULL, path, path ? strlen(path) : 0, f->off, out);
	case FRAME_FILE:
		/* the kernel's code in the process: [vdso], [vsyscall] */
		if (f->name[0] == '[')
			return one_fn(p, f->name, f->name_len, "[kernel]", out);
		rc = symbols_path(p->sym, f->name, f->name_len, f->off, ret, &h);
		base_name(f->name, f->name_len, base, sizeof(base));
		return user_fns(p, rc, &h, base, f->name, f->name_len, f->off, out);
	case FRAME_JIT:
		return one_fn(p, f->name, f->name_len, "[jit]", out);
	case FRAME_INTERP:
		return one_fn(p, f->name, f->name_len, INTERP_MODULE, out);
	case FRAME_UADDR:
	default:
		return one_fn(p, UNKNOWN, strlen(UNKNOWN), UNKNOWN, out);
	}
}

/* Is frame @f a user one (the first of them is where the task was; the rest return addresses)? */
static bool user_frame(const struct frame *f)
{
	return f->kind == FRAME_BUILD_ID || f->kind == FRAME_FILE || f->kind == FRAME_JIT ||
	       f->kind == FRAME_INTERP || f->kind == FRAME_UADDR;
}

/*
 * The index of the stack of timeline string @id (TL_NOSTR: a sample
 * without its stack row), its functions resolved the first time. -1 out
 * of memory.
 */
static long stack_get(struct profile *p, uint32_t id, char *scratch, struct frame *fr)
{
	int added;
	long ix = strtab_intern(p->stack_ix, (const char *)&id, sizeof(id), &added);
	struct prof_stack *s;
	size_t n = 0, i, cap, cut = 0;
	bool users = false, ours;
	int nf = 0, k;

	if (ix < 0 || !added)
		return ix;
	if (array_grow((void **)&p->stacks, &p->stacks_cap, (size_t)ix + 1, sizeof(*p->stacks),
		       64) < 0)
		return -1;
	s = &p->stacks[ix];
	memset(s, 0, sizeof(*s));
	if (id != TL_NOSTR) {
		const char *esc = strtab_str(p->tl->strs, id, &n);

		/* validated by the reader; a failure here is no frames */
		nf = frames_parse_field(esc, n, scratch, fr, NULL, 0);
		if (nf < 0)
			nf = 0;
	}
	/* a frame is a function, or a user frame's inlined ones and its own */
	cap = (nf ? (size_t)nf : 1) * (SYMBOLS_INLINE_MAX + 1);
	s->fns = malloc(cap * sizeof(*s->fns));
	if (!s->fns)
		return -1;
	/* the tracer's own frames: one [boottrace] in their place, [bpf] another's (tracer.h) */
	if (nf > 0 && (cut = tracer_frames(fr, (size_t)nf, &ours))) {
		const char *t = ours ? TRACER_FRAME : TRACER_OTHER_FRAME;

		if (one_fn(p, t, strlen(t), t, s->fns) < 0)
			return -1;
		s->n = 1;
	}
	for (i = cut; i < (size_t)nf; i++) {
		bool user = user_frame(&fr[i]);

		k = frame_fns(p, &fr[i], user && users, s->fns + s->n);
		if (k < 0)
			return -1;
		s->n += (size_t)k;
		users |= user;
	}
	if (!s->n) {
		k = one_fn(p, UNKNOWN, strlen(UNKNOWN), UNKNOWN, s->fns);
		if (k < 0)
			return -1;
		s->n = 1;
	}
	if (s->n < cap) {	/* most frames are one function: give the rest back */
		uint32_t *fit = realloc(s->fns, s->n * sizeof(*s->fns));

		if (fit)
			s->fns = fit;
	}
	return ix;
}

/* Room for @n functions in the scratch counters (3 per function). */
static int scratch_fit(struct profile *p, size_t n)
{
	size_t old = p->scratch_cap;

	if (array_grow((void **)&p->scratch, &p->scratch_cap, 3 * n, sizeof(*p->scratch), 256) < 0)
		return -1;
	if (p->scratch_cap > old)
		memset(p->scratch + old, 0, (p->scratch_cap - old) * sizeof(*p->scratch));
	return 0;
}

static int cmp_count(const void *x, const void *y, void *arg)
{
	const struct prof_count *a = x, *b = y;
	const struct profile *p = arg;

	if (a->self != b->self)
		return a->self < b->self ? 1 : -1;
	if (a->total != b->total)
		return a->total < b->total ? 1 : -1;
	return strcmp(profile_fn_name(p, a->fn), profile_fn_name(p, b->fn));
}

/*
 * Is function @fn the wait machinery a program calls into, not its own
 * code: the kernel's, an unknown frame, libc's, the dynamic loader's,
 * libpthread's, the C++ and GCC runtimes', Go's runtime, the sanitizers'
 * (their interceptors wrap libc's calls); or an interpreter's own native
 * code (CPython, Ruby, the JVM, node: its eval loop and builtins; a
 * CPython or Ruby thread's own frames are named by its interpreter
 * frames, profile_fn_interp(), when the stack has them); or a frame without a
 * name ([unknown], [bash+0x9665a])?
 */
static bool wait_machinery(const struct profile *p, uint32_t fn)
{
	static const char *const mods[] = { "libc.so", "libc-", "ld-linux", "ld-", "libpthread",
					    "libstdc++", "libgcc_s", "[kernel]", UNKNOWN,
					    "libpython", "python3", "libruby", "ruby", "libjvm",
					    "node", "libasan", "libubsan", "libtsan" };
	const char *m = profile_fn_module(p, fn), *name = profile_fn_name(p, fn);
	size_t i;

	for (i = 0; i < sizeof(mods) / sizeof(mods[0]); i++)
		if (!strncmp(m, mods[i], strlen(mods[i])))
			return true;
	/* an unnamed frame, [FILE+0xOFF]: nothing a reader can look for */
	return !strncmp(name, "runtime.", 8) || name[0] == '[';
}

/*
 * The code stack @ix waited in: its innermost interpreter frame when it
 * has one (the program's own function: a C extension's or the
 * interpreter's native code below it is what that function called), else
 * its first function past the wait machinery; -1 when none.
 */
static long stack_code(const struct profile *p, long ix)
{
	size_t i;

	for (i = 0; i < p->stacks[ix].n; i++)
		if (profile_fn_interp(p, p->stacks[ix].fns[i]))
			return (long)p->stacks[ix].fns[i];
	for (i = 0; i < p->stacks[ix].n; i++)
		if (!wait_machinery(p, p->stacks[ix].fns[i]))
			return (long)p->stacks[ix].fns[i];
	return -1;
}

/*
 * Count @w samples of stack @ix into the scratch counters (self, total;
 * @stamp: the sample's number, so that a function counts once in total).
 */
static void count_stack_n(struct profile *p, uint32_t ix, uint64_t stamp, uint64_t w)
{
	const struct prof_stack *s = &p->stacks[ix];
	long self = p->offcpu ? stack_code(p, ix) : -1;
	size_t i;

	/* off-CPU: "self" is the code that waited, not __schedule, when the stack names it */
	p->scratch[3 * (self >= 0 ? (uint32_t)self : s->fns[0])] += w;
	for (i = 0; i < s->n; i++) {
		uint64_t *c = &p->scratch[3 * s->fns[i]];

		if (c[2] != stamp) {
			c[2] = stamp;
			c[1] += w;
		}
	}
}

static void count_stack(struct profile *p, uint32_t ix, uint64_t stamp)
{
	count_stack_n(p, ix, stamp, 1);
}

/* The scratch counters into a sorted array (@out, *@n), cleared. -1 out of memory. */
static int take_counts(struct profile *p, struct prof_count **out, size_t *n)
{
	size_t nf = strtab_count(p->fnkeys), i, k = 0;
	struct prof_count *c;

	/* functions named since the counters last grew (profile_code()'s) have none yet */
	if (scratch_fit(p, nf) < 0)
		return -1;
	c = malloc((nf ? nf : 1) * sizeof(*c));
	if (!c)
		return -1;
	for (i = 0; i < nf; i++) {
		uint64_t *s = &p->scratch[3 * i];

		if (s[1]) {
			c[k].fn = (uint32_t)i;
			c[k].self = s[0];
			c[k].total = s[1];
			k++;
		}
		s[0] = s[1] = s[2] = 0;
	}
	qsort_r(c, k, sizeof(*c), cmp_count, p);
	*out = c;
	*n = k;
	return 0;
}

size_t profile_folded_spans(const struct prof_folded *fo, const struct tl_span **out)
{
	const struct tl_span *in[PROFILE_SPANS_MAX];
	uint32_t i = fo->span;
	size_t n = 0, k;

	/* innermost first up the parents; the outermost ones kept when deeper */
	while (i != TL_NOSPAN && fo->task && i < fo->task->nspans) {
		if (n == PROFILE_SPANS_MAX) {
			memmove(in, in + 1, (PROFILE_SPANS_MAX - 1) * sizeof(*in));
			n--;
		}
		in[n++] = &fo->task->spans[i];
		i = fo->task->spans[i].parent;
	}
	for (k = 0; k < n; k++)
		out[k] = in[n - 1 - k];
	return n;
}

size_t profile_span_name(const struct profile *p, const struct tl_span *sp, char *buf, size_t n)
{
	const char *kind = timeline_str(p->tl, sp->kind), *what = timeline_str(p->tl, sp->what);
	char *raw = malloc(strlen(what) + 1);
	long u = raw ? tsv_unescape(what, strlen(what), raw) : -1;
	int len = snprintf(buf, n, "%s %.*s", kind, u < 0 ? 0 : (int)u, raw ? raw : "");

	free(raw);
	if (len < 0)
		len = 0;
	return (size_t)len < n ? (size_t)len : n ? n - 1 : 0;
}

/* A folded stack's identity: comm, stack, and the span it was in. */
struct fold_key {
	uint32_t comm, stack, span, pad;
	const struct tl_task *task;
};

/* Fold @n samples of (@comm, @ix, @task's @span) into @pc's folded stacks, through @keys. */
static int fold(struct prof_ctr *pc, size_t *cap, struct strtab *keys, uint32_t comm, uint32_t ix,
		const struct tl_task *task, uint32_t span, uint64_t n)
{
	struct fold_key key = { comm, ix, span, 0, span == TL_NOSPAN ? NULL : task };
	int added;
	long k = strtab_intern(keys, (const char *)&key, sizeof(key), &added);

	if (k < 0)
		return -1;
	if (added) {
		if (array_grow((void **)&pc->folded, cap, (size_t)k + 1, sizeof(*pc->folded), 64) < 0)
			return -1;
		pc->folded[k].comm = comm;
		pc->folded[k].stack = ix;
		pc->folded[k].task = key.task;
		pc->folded[k].span = span;
		pc->folded[k].count = 0;
		pc->nfolded = (size_t)k + 1;
	}
	pc->folded[k].count += n;
	return 0;
}

/*
 * The off-CPU profile of container @ci in [@t0, @t1] into @pc: each
 * blocked interval (S, D: from its switch-out to its wake, or to its
 * switch-in when no wake was seen) of its tasks, clipped to the window,
 * weighs its stack (none: "[unknown]") by its microseconds, in the span
 * its task was in as it blocked. -1 out of memory.
 */
static int profile_ctr_off(struct profile *p, const struct tl_container *c, struct prof_ctr *pc,
			   struct strtab *keys, char *scratch, struct frame *fr, uint64_t *stamp)
{
	size_t k, j, cap = 0;

	pc->period_ns = 1000;
	for (k = 0; k < c->ntasks; k++) {
		const struct tl_task *t = &c->tasks[k];

		if (t->host && !t->runtime)
			continue;
		for (j = 0; j < t->noffs; j++) {
			const struct tl_off *o = &t->offs[j];
			const struct tl_span *sp;
			uint64_t a = o->out, b, us;
			uint32_t span;
			long ix;

			if (o->state != 'S' && o->state != 'D')
				continue;
			if (a > pc->t1)
				break;	/* by out */
			b = o->out + o->dur - (o->runnable != TL_NONE && o->runnable <= o->dur ?
					       o->runnable : 0);
			if (a < pc->t0)
				a = pc->t0;
			if (b > pc->t1)
				b = pc->t1;
			if (b <= a || !(us = (b - a) / 1000))
				continue;
			sp = t->nspans ? timeline_span_over(t, o->out, o->out + 1) : NULL;
			span = sp ? (uint32_t)(sp - t->spans) : TL_NOSPAN;
			ix = stack_get(p, timeline_off_info(p->tl, o)->stack, scratch, fr);
			if (ix < 0 || scratch_fit(p, strtab_count(p->fnkeys)) < 0 ||
			    fold(pc, &cap, keys, timeline_comm_at(t, o->out), (uint32_t)ix, t, span,
				 us) < 0)
				return -1;
			count_stack_n(p, (uint32_t)ix, ++*stamp, us);
			pc->samples += us;
			pc->cpu_ns += b - a;
		}
	}
	return 0;
}

/* The profile of container @ci in [@t0, @t1] into @pc. -1 out of memory. */
static int profile_ctr(struct profile *p, size_t ci, struct prof_ctr *pc, char *scratch,
		       struct frame *fr, uint64_t *stamp)
{
	const struct tl_container *c = &p->tl->ctrs[ci];
	struct strtab *keys = strtab__new();
	size_t k, cap = 0;

	if (!keys)
		return -1;
	if (p->offcpu) {
		if (profile_ctr_off(p, c, pc, keys, scratch, fr, stamp) < 0)
			goto oom;
		strtab__free(keys);
		return take_counts(p, &pc->fns, &pc->nfns);
	}
	for (k = 0; k < c->ntasks; k++) {
		const struct tl_task *t = &c->tasks[k];
		size_t j;

		if (t->host && !t->runtime)
			continue;	/* a stranger on the host meanwhile */
		for (j = timeline_sample_from(t, pc->t0); j < t->nsamples; j++) {
			const struct tl_sample *s = &t->samples[j];
			const struct tl_span *sp;
			uint32_t span;
			long ix;

			if (s->ts > pc->t1)
				break;
			sp = t->nspans ? timeline_span_over(t, s->ts, s->ts + 1) : NULL;
			span = sp ? (uint32_t)(sp - t->spans) : TL_NOSPAN;
			ix = stack_get(p, s->stack, scratch, fr);
			if (ix < 0 || scratch_fit(p, strtab_count(p->fnkeys)) < 0 ||
			    fold(pc, &cap, keys, timeline_comm_at(t, s->ts), (uint32_t)ix, t, span, 1) < 0)
				goto oom;
			count_stack(p, (uint32_t)ix, ++*stamp);
			if (!pc->samples)
				pc->period_ns = s->period;
			pc->samples++;
			pc->cpu_ns += s->period;
		}
	}
	strtab__free(keys);
	return take_counts(p, &pc->fns, &pc->nfns);
oom:
	strtab__free(keys);
	return -1;
}

/* The aggregate: every container's counts and folded stacks summed. -1 out of memory. */
static int profile_all(struct profile *p)
{
	struct prof_ctr *all = &p->all;
	struct strtab *keys = strtab__new();
	size_t i, k, cap = 0;

	all->ctr = SIZE_MAX;
	if (!keys || scratch_fit(p, strtab_count(p->fnkeys)) < 0)
		goto oom;
	for (i = 0; i < p->nctrs; i++) {
		const struct prof_ctr *pc = &p->ctrs[i];

		for (k = 0; k < pc->nfns; k++) {
			p->scratch[3 * pc->fns[k].fn] += pc->fns[k].self;
			p->scratch[3 * pc->fns[k].fn + 1] += pc->fns[k].total;
		}
		for (k = 0; k < pc->nfolded; k++)
			if (fold(all, &cap, keys, pc->folded[k].comm, pc->folded[k].stack,
				 pc->folded[k].task, pc->folded[k].span, pc->folded[k].count) < 0)
				goto oom;
		if (!all->period_ns)
			all->period_ns = pc->period_ns;
		all->samples += pc->samples;
		all->cpu_ns += pc->cpu_ns;
	}
	strtab__free(keys);
	return take_counts(p, &all->fns, &all->nfns);
oom:
	strtab__free(keys);
	return -1;
}

static int cmp_unnamed(const void *x, const void *y)
{
	const struct prof_unnamed *a = x, *b = y;

	if (a->samples != b->samples)
		return a->samples < b->samples ? 1 : -1;
	return a->module < b->module ? -1 : a->module > b->module;
}

/* The unnamed modules' samples over every window (p->unnamed). -1 out of memory. */
static int unnamed_all(struct profile *p)
{
	size_t nm = strtab_count(p->umods), i, k;
	uint64_t *stamp = calloc(nm ? nm : 1, sizeof(*stamp));

	p->unnamed = calloc(nm ? nm : 1, sizeof(*p->unnamed));
	if (!stamp || !p->unnamed) {
		free(stamp);
		return -1;
	}
	for (i = 0; i < nm; i++)
		p->unnamed[i].module = (uint32_t)i;
	for (i = 0; i < p->all.nfolded; i++) {
		const struct prof_stack *s = &p->stacks[p->all.folded[i].stack];

		for (k = 0; k < s->n; k++) {
			uint32_t m = s->fns[k] < p->fn_umod_cap ? p->fn_umod[s->fns[k]] : 0;

			/* a module counts once per stack: stamps from 1 */
			if (m && stamp[m - 1] != i + 1) {
				stamp[m - 1] = i + 1;
				p->unnamed[m - 1].samples += p->all.folded[i].count;
			}
		}
	}
	free(stamp);
	qsort(p->unnamed, nm, sizeof(*p->unnamed), cmp_unnamed);
	for (p->nunnamed = 0; p->nunnamed < nm && p->unnamed[p->nunnamed].samples; p->nunnamed++)
		;
	return 0;
}

const char *profile_unnamed_path(const struct profile *p, uint32_t module)
{
	return strtab_str(p->umods, module, NULL);
}

struct profile *profile__new(const struct timeline *tl, uint32_t phase,
			     const struct profile_opts *o)
{
	struct profile *p = calloc(1, sizeof(*p));
	struct frame *fr = malloc(FRAMES_MAX * sizeof(*fr));
	char *scratch = malloc(TSV_MAX_LINE + 1);
	uint64_t stamp = 0;
	size_t i;

	if (!p || !fr || !scratch)
		goto oom;
	p->tl = tl;
	p->phase = phase;
	p->sym = symbols__new();
	p->fnkeys = strtab__new();
	p->stack_ix = strtab__new();
	p->umods = strtab__new();
	p->ctrs = calloc(tl->nctrs ? tl->nctrs : 1, sizeof(*p->ctrs));
	if (!p->sym || !p->fnkeys || !p->stack_ix || !p->umods || !p->ctrs)
		goto oom;
	for (i = 0; o && i < o->ndebug_dirs; i++)
		if (symbols_add_debug_dir(p->sym, o->debug_dirs[i]) < 0)
			goto oom;
	if (o && o->no_system)
		symbols_no_system(p->sym);
	p->offcpu = o && o->offcpu;
	p->any = p->offcpu ? tl->off_stacks > 0 : tl->samples > 0;
	if ((p->any || tl->off_stacks) && binaries_offer(tl, p->sym, scratch, fr) < 0)
		goto oom;
	for (i = 0; i < tl->nctrs; i++) {
		const struct tl_container *c = &tl->ctrs[i];
		struct prof_ctr *pc = &p->ctrs[p->nctrs];

		if (c->is_host || c->t_start == TL_NONE)
			continue;
		pc->ctr = i;
		pc->t0 = c->t_start;
		pc->t1 = timeline_phase(c, phase);
		if (pc->t1 == TL_NONE || pc->t1 < pc->t0) {
			p->not_reached++;
			continue;
		}
		p->nctrs++;
		if (profile_ctr(p, i, pc, scratch, fr, &stamp) < 0)
			goto oom;
	}
	if (profile_all(p) < 0 || unnamed_all(p) < 0)
		goto oom;
	free(fr);
	free(scratch);
	return p;
oom:
	free(fr);
	free(scratch);
	profile__free(p);
	return NULL;
}

void profile__free(struct profile *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nctrs; i++) {
		free(p->ctrs[i].fns);
		free(p->ctrs[i].folded);
	}
	free(p->ctrs);
	free(p->all.fns);
	free(p->all.folded);
	for (i = 0; p->stack_ix && i < strtab_count(p->stack_ix); i++)
		free(p->stacks[i].fns);
	free(p->stacks);
	free(p->scratch);
	free(p->fn_umod);
	free(p->umod_size);
	free(p->unnamed);
	strtab__free(p->umods);
	strtab__free(p->fnkeys);
	strtab__free(p->stack_ix);
	symbols__free(p->sym);
	free(p);
}

/*
 * The index of stack @id, parsed the first time; *@fr and *@scratch are the
 * parser's buffers, allocated when first needed (stacks seen by
 * profile__new() need none): the caller frees them. -1 out of memory.
 */
static long stack_find(struct profile *p, uint32_t id, struct frame **fr, char **scratch)
{
	if (!*fr && strtab_find(p->stack_ix, (const char *)&id, sizeof(id)) < 0 &&
	    (!(*fr = malloc(FRAMES_MAX * sizeof(**fr))) || !(*scratch = malloc(TSV_MAX_LINE + 1))))
		return -1;
	return stack_get(p, id, *scratch, *fr);
}

long profile_sample_fn(struct profile *p, const struct tl_sample *s)
{
	struct frame *fr = NULL;
	char *scratch = NULL;
	long ix = stack_find(p, s->stack, &fr, &scratch);

	free(fr);
	free(scratch);
	return ix < 0 ? -1 : (long)p->stacks[ix].fns[0];
}

/*
 * The source line of frame @f (@ret: a return address), as symbols.h
 * names it, "file.c:42" into @src (@n bytes); "" when DWARF does not say.
 */
static void frame_line(struct profile *p, const struct frame *f, bool ret, char *src, size_t n)
{
	struct symbols_hit h;
	const char *file;
	int rc = -1, line;

	src[0] = '\0';
	if (f->kind == FRAME_BUILD_ID)
		rc = symbols_build_id(p->sym, f->build_id, f->off, ret, &h);
	else if (f->kind == FRAME_FILE && f->name[0] != '[')
		rc = symbols_path(p->sym, f->name, f->name_len, f->off, ret, &h);
	if (rc == 1 && symbols_line(p->sym, &file, &line))
		snprintf(src, n, "%s:%d", file, line);
}

size_t profile_interp_place(const char *name, size_t len, char *src, size_t n)
{
	size_t i, open = 0, base;

	if (n)
		src[0] = '\0';
	if (len < 4 || name[len - 1] != ')')
		return len;
	/* the last " (": a Ruby label may hold one, "block (2 levels) in run" */
	for (i = len - 1; i > 0; i--)
		if (name[i] == '(' && name[i - 1] == ' ') {
			open = i;
			break;
		}
	if (!open)
		return len;
	for (base = i = open + 1; i < len - 1; i++)
		if (name[i] == '/')
			base = i + 1;
	if (n)
		snprintf(src, n, "%.*s", (int)(len - 1 - base), name + base);
	return open - 1;
}

long profile_code(struct profile *p, uint32_t frames, char *src, size_t n)
{
	uint32_t fns[SYMBOLS_INLINE_MAX + 1];
	struct frame *fr = NULL;
	char *scratch = NULL;
	long ret = -1;
	bool users = false;
	int nf, i, k, j;

	if (n)
		src[0] = '\0';
	if (frames == TL_NOSTR)
		return -1;
	fr = malloc(FRAMES_MAX * sizeof(*fr));
	scratch = malloc(TSV_MAX_LINE + 1);
	if (!fr || !scratch) {
		ret = -2;
		goto out;
	}
	{
		size_t len;
		const char *esc = strtab_str(p->tl->strs, frames, &len);

		nf = frames_parse_field(esc, len, scratch, fr, NULL, 0);
	}
	/* the innermost interpreter frame, when there is one (stack_code()'s choice) */
	for (i = 0; i < nf; i++)
		if (fr[i].kind == FRAME_INTERP) {
			k = frame_fns(p, &fr[i], true, fns);
			if (k < 0) {
				ret = -2;
				goto out;
			}
			ret = (long)fns[0];
			profile_interp_place(fr[i].name, fr[i].name_len, src, n);
			goto out;
		}
	for (i = 0; i < nf && ret < 0; i++) {
		bool user = user_frame(&fr[i]), r = user && users;

		k = frame_fns(p, &fr[i], r, fns);
		if (k < 0) {
			ret = -2;
			goto out;
		}
		users |= user;
		for (j = 0; j < k; j++)
			if (!wait_machinery(p, fns[j])) {
				ret = (long)fns[j];
				if (n)
					frame_line(p, &fr[i], r, src, n);
				break;
			}
	}
out:
	free(fr);
	free(scratch);
	return ret;
}

long profile_task_top(struct profile *p, const struct tl_task *t, uint64_t a, uint64_t b,
		      struct prof_count *top, size_t ntop, uint64_t *nsamples)
{
	struct frame *fr = NULL;
	char *scratch = NULL;
	struct prof_count *c;
	uint64_t stamp = 0;
	size_t j, n;
	long ret = -1;

	*nsamples = 0;
	for (j = timeline_sample_from(t, a); j < t->nsamples && t->samples[j].ts < b; j++) {
		long ix = stack_find(p, t->samples[j].stack, &fr, &scratch);

		if (ix < 0 || scratch_fit(p, strtab_count(p->fnkeys)) < 0)
			goto out;
		/* stamps from UINT64_MAX down: never a profile_ctr() stamp */
		count_stack(p, (uint32_t)ix, UINT64_MAX - stamp++);
		(*nsamples)++;
	}
	if (take_counts(p, &c, &n) < 0)
		goto out;
	for (j = 0; j < n && j < ntop; j++)
		top[j] = c[j];
	free(c);
	ret = (long)j;
out:
	free(fr);
	free(scratch);
	return ret;
}
