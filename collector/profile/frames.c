// SPDX-License-Identifier: BSD-2-Clause
/* A sample's stacks → its frames' text (frames.h). */
#include <stdio.h>
#include <string.h>

#include "collector/profile/frames.h"
#include "collector/profile/interp.h"
#include "collector/profile/ksyms.h"
#include "collector/profile/umaps.h"

/* Append frame @f (@len bytes) to @buf, a space before it unless first: 0, or -1 if it does not fit. */
static int put(char *buf, size_t n, size_t *at, const char *f, size_t len)
{
	size_t sep = *at ? 1 : 0;

	if (!len || *at + sep + len + 1 > n)
		return -1;
	if (sep)
		buf[(*at)++] = ' ';
	memcpy(buf + *at, f, len);
	*at += len;
	buf[*at] = '\0';
	return 0;
}

static size_t kernel_frame(const struct ksyms *k, __u64 addr, char *f, size_t n)
{
	uint64_t off;
	const char *name = ksyms_find(k, addr, &off);
	int len;

	if (name && off < FRAMES_KSYM_MAX_OFF)
		len = snprintf(f, n, "k:%s+0x%llx", name, (unsigned long long)off);
	else
		len = snprintf(f, n, "k:0x%llx", (unsigned long long)addr);
	return len > 0 && (size_t)len < n ? (size_t)len : 0;
}

static size_t build_id_frame(const struct bt_stack_build_id *b, char *f, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, at = 2;
	int len;

	if (n < 2 + 2 * BT_BUILD_ID_SIZE + 1)
		return 0;
	f[0] = 'b';
	f[1] = ':';
	for (i = 0; i < BT_BUILD_ID_SIZE; i++) {
		f[at++] = hex[b->build_id[i] >> 4];
		f[at++] = hex[b->build_id[i] & 15];
	}
	len = snprintf(f + at, n - at, "+0x%llx", (unsigned long long)b->offset);
	return len > 0 && (size_t)len < n - at ? at + (size_t)len : 0;
}

/* The user frame of @b in @e's process, into @f: its length, or 0 at the end of the stack. */
static size_t user_frame(struct umaps *u, const struct bt_sample_event *e,
			 const struct bt_stack_build_id *b, char *f, size_t n)
{
	if (b->status == BT_STACK_BUILD_ID_VALID)
		return build_id_frame(b, f, n);
	if (b->status == BT_STACK_BUILD_ID_IP && b->ip)
		return umaps_frame(u, (pid_t)e->hdr.pid, b->ip, f, n);
	return 0;
}

/*
 * Put @e's interpreter frames from *@gi on: up to and including the next
 * entry frame (one call of the eval loop: @one), else all. -1 when full.
 */
static int put_iframes(struct interp *in, const struct bt_sample_event *e, size_t ni, size_t *gi,
		       int one, char *buf, size_t n, size_t *at)
{
	char f[1024];
	size_t len;
	uint64_t v;

	while (*gi < ni) {
		v = e->iframe[(*gi)++];
		len = interp_frame(in, (pid_t)e->hdr.pid, v, f, sizeof(f));
		if (put(buf, n, at, f, len) < 0)
			return -1;
		if (one && (v & BT_IFRAME_ENTRY))
			break;
	}
	return 0;
}

/*
 * The user stack with the interpreter's frames in place of its eval
 * loop's: each native frame in the eval loop is one call of it, which ran
 * the interpreter frames up to the next entry frame. A native stack with
 * no eval loop frame was cut short (the interpreter keeps no frame
 * pointers): its frames up to the first in the interpreter's file, then
 * the interpreter's frames, the rest (a broken chain) left out.
 */
static void put_user_interp(struct umaps *u, struct interp *in, const struct bt_sample_event *e,
			    size_t nu, char *buf, size_t n, size_t *at)
{
	size_t ni = e->iframes < BT_IFRAMES_MAX ? e->iframes : BT_IFRAMES_MAX, gi = 0, i, len;
	pid_t pid = (pid_t)e->hdr.pid;
	enum interp_where w;
	int eval = 0;
	char f[4200];

	for (i = 0; i < nu && !eval; i++)
		eval = interp_where(in, pid, &e->ustack[i]) == INTERP_EVAL;
	for (i = 0; i < nu; i++) {
		w = interp_where(in, pid, &e->ustack[i]);
		if (!eval && w != INTERP_ELSEWHERE)
			break;
		if (eval && w == INTERP_EVAL && gi < ni) {
			if (put_iframes(in, e, ni, &gi, 1, buf, n, at) < 0)
				return;
			continue;
		}
		len = user_frame(u, e, &e->ustack[i], f, sizeof(f));
		if (!len || put(buf, n, at, f, len) < 0)
			return;
	}
	put_iframes(in, e, ni, &gi, 0, buf, n, at);
}

/*
 * A JVM's user stack (BT_INTERP_HOTSPOT): the native frames before the
 * code cache as bpf_get_stack() gave them (iframe[0] says how many),
 * then the walker's frames: Java and stub frames named by hotspot.c,
 * native ones below them (libjvm's JavaCalls, the thread's start) from
 * the process's mappings. A native address no mapping holds ends it (a
 * walk gone wrong), as in a frame-pointer stack; so does, before the
 * Java frames, one in anonymous memory: a JVM's code is in files or in
 * its code cache, which the walker reads, so such an address is a frame
 * pointer chain gone wrong (a thread's stack, its heap: 60 `u:` frames
 * below __clone3 in a JDK 17 boot).
 *
 * V8's walked stack (BT_INTERP_V8) is laid out the same, its JS frames
 * named by v8.c (one left out when it is not a JSFunction any more).
 */
static void put_user_hotspot(struct umaps *u, struct interp *in, const struct bt_sample_event *e,
			     size_t nu, char *buf, size_t n, size_t *at)
{
	size_t ni = e->iframes < BT_IFRAMES_MAX ? e->iframes : BT_IFRAMES_MAX, i, len;
	size_t lead = (size_t)BT_HS_PC(e->iframe[0]);
	/* the user frames a stack row may hold (analyze/read/frames.h: FRAMES_MAX) */
	unsigned left = BT_STACK_MAX + BT_IFRAMES_MAX, k;
	pid_t pid = (pid_t)e->hdr.pid;
	char f[8192];
	uint64_t v;

	for (i = 0; i < lead && i < nu && left; i++, left--) {
		len = user_frame(u, e, &e->ustack[i], f, sizeof(f));
		if (!len || (ni == 1 && f[0] == 'u' && f[1] == ':') || put(buf, n, at, f, len) < 0)
			return;
	}
	for (i = 1; i < ni && left; i++, left -= k) {
		v = e->iframe[i];
		k = 1;
		if (BT_HS_KIND(v) == BT_HS_NATIVE)
			len = umaps_frame(u, pid, BT_HS_PC(v), f, sizeof(f));
		else
			len = interp_java_frame(in, pid, v, f, sizeof(f), left, &k);
		if (!len && BT_HS_KIND(v) == BT_HS_V8)
			continue;	/* not a JSFunction after all (moved, or a native frame's slots) */
		if (!len || put(buf, n, at, f, len) < 0)
			return;
	}
}

/*
 * Where an off-CPU stack's kernel frames begin: at __schedule, past the
 * sched_switch program's and its tracepoint's frames above it (how many
 * the unwinder shows varies: bpf/profile.bpf.h takes them all); 0 for a
 * sample, or when no __schedule is there.
 */
/* The frames looked through for __schedule: the program's, the tracepoint's, a few more. */
#define OFFSTACK_ABOVE_MAX 8

static size_t offstack_first(const struct ksyms *k, const struct bt_sample_event *e, size_t nk)
{
	const char *name;
	uint64_t off;
	size_t i;

	if (e->hdr.type != BT_EV_OFFSTACK)
		return 0;
	for (i = 0; i < nk && i < OFFSTACK_ABOVE_MAX; i++) {
		name = ksyms_find(k, e->kstack[i], &off);
		if (name && !strcmp(name, "__schedule"))
			return i;
	}
	return 0;
}

size_t frames_format(const struct ksyms *k, struct umaps *u, struct interp *in,
		     const struct bt_sample_event *e, char *buf, size_t n)
{
	char f[4200];
	size_t at = 0, len, i, nk, nu;

	if (n)
		buf[0] = '\0';
	nk = e->kstack_bytes > 0 ? (size_t)e->kstack_bytes / sizeof(e->kstack[0]) : 0;
	nu = e->ustack_bytes > 0 ? (size_t)e->ustack_bytes / sizeof(e->ustack[0]) : 0;
	if (nk > BT_STACK_MAX)
		nk = BT_STACK_MAX;
	if (nu > BT_STACK_MAX)
		nu = BT_STACK_MAX;
	for (i = offstack_first(k, e, nk); i < nk; i++) {
		len = kernel_frame(k, e->kstack[i], f, sizeof(f));
		if (put(buf, n, &at, f, len) < 0)
			return at;
	}
	if (in && (e->interp_kind == BT_INTERP_HOTSPOT || e->interp_kind == BT_INTERP_V8) &&
	    e->iframes) {
		put_user_hotspot(u, in, e, nu, buf, n, &at);
		return at;
	}
	if (in && e->interp_kind != BT_INTERP_NONE && e->iframes) {
		put_user_interp(u, in, e, nu, buf, n, &at);
		return at;
	}
	for (i = 0; i < nu; i++) {
		len = user_frame(u, e, &e->ustack[i], f, sizeof(f));
		if (!len || put(buf, n, &at, f, len) < 0)
			break;	/* the end of the stack, or full */
	}
	return at;
}

int frames_fp_count(const struct bt_sample_event *e)
{
	int i, n = e->ustack_bytes > 0 ? e->ustack_bytes / (int)sizeof(e->ustack[0]) : 0;

	if (n > BT_STACK_MAX)
		n = BT_STACK_MAX;
	for (i = 0; i < n; i++)
		if (e->ustack[i].status == BT_STACK_BUILD_ID_EMPTY ||
		    (e->ustack[i].status == BT_STACK_BUILD_ID_IP && !e->ustack[i].ip))
			break;
	return i;
}
