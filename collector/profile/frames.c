// SPDX-License-Identifier: BSD-2-Clause
/* A sample's stacks → its frames' text (frames.h). */
#include <stdio.h>
#include <string.h>

#include "collector/profile/frames.h"
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

size_t frames_format(const struct ksyms *k, struct umaps *u, const struct bt_sample_event *e,
		     char *buf, size_t n)
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
	for (i = 0; i < nk; i++) {
		len = kernel_frame(k, e->kstack[i], f, sizeof(f));
		if (put(buf, n, &at, f, len) < 0)
			return at;
	}
	for (i = 0; i < nu; i++) {
		const struct bt_stack_build_id *b = &e->ustack[i];

		if (b->status == BT_STACK_BUILD_ID_VALID)
			len = build_id_frame(b, f, sizeof(f));
		else if (b->status == BT_STACK_BUILD_ID_IP && b->ip)
			len = umaps_frame(u, (pid_t)e->hdr.pid, b->ip, f, sizeof(f));
		else
			break;	/* the end of the stack */
		if (put(buf, n, &at, f, len) < 0)
			break;
	}
	return at;
}
