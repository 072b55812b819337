// SPDX-License-Identifier: BSD-2-Clause
/*
 * A task's off-CPU intervals from its sched rows (offcpu.h): each row's
 * detail parsed once per distinct text (a cache of them), its waker,
 * holder and CPU interned as wake details the intervals share. Out of
 * timeline.c, which holds the rows.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/array.h"
#include "analyze/boot/offcpu.h"
#include "analyze/boot/timeline.h"
#include "analyze/read/keycache.h"
#include "common/sched_detail.h"
#include "common/tsv.h"

/*
 * A direct-mapped cache of sched details (their escaped bytes, as in the
 * file) to their wake info ids: a host's details repeat (the same waker,
 * holder and CPU), and a hit costs a hash and a compare of the bytes
 * instead of their parse and four interned keys. 1024 entries of at most
 * DC_MAX bytes: 136 KiB, whatever the file.
 */
#define DC_BITS 10
#define DC_MAX 112

struct detail_cache {
	struct dc_entry {
		uint64_t h;
		uint32_t n;	/* 0: empty (a \N detail is not cached) */
		uint32_t info;
		char b[DC_MAX];
	} e[1u << DC_BITS];
};

/* A hash of @n bytes at @p (1..DC_MAX), 8 at a time; the 7 bytes after them are read. */
static uint64_t dc_hash(const char *p, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ n, v;
	size_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		memcpy(&v, p + i, 8);
		h = (h ^ v) * 0xff51afd7ed558ccdULL;
		h ^= h >> 29;
	}
	if (i < n) {
		memcpy(&v, p + i, 8);
		v &= ~0ULL >> (64 - 8 * (n - i));
		h = (h ^ v) * 0xff51afd7ed558ccdULL;
		h ^= h >> 29;
	}
	return h * 0xc4ceb9fe1a85ec53ULL;
}

/* A comm of a sched row's detail (raw bytes), escaped into the string table. */
static long raw_comm_id(struct timeline *tl, const struct sched_str *s)
{
	char buf[TSV_ESCAPED_MAX(64)];

	if (!s->s)
		return TL_NOSTR;
	/* a comm is 16 bytes; a hostile file's longer one is cut */
	return strtab_intern(tl->strs, buf, tsv_escape(s->s, s->n < 64 ? s->n : 64, buf), NULL);
}

static int32_t tid32(long long v)
{
	return v > 0 && v <= INT32_MAX ? (int32_t)v : 0;
}

/* The longest sched row detail parsed; a longer one keeps its times, its wake unknown. */
#define SCHED_DETAIL_MAX 1024

/*
 * Whether @n bytes at @p are printable ASCII without a backslash: a TSV
 * field whose escaped bytes are its bytes (tsv_escape() leaves them so).
 * Without an early exit, so the compiler vectorizes it.
 */
static bool plain_ascii(const char *p, size_t n)
{
	unsigned bad = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];

		bad |= (c < 0x20) | (c >= 0x7f) | (c == '\\');
	}
	return !bad;
}

/* A comm of a plain detail (plain_ascii(): its bytes are escaped already), interned. */
static long plain_comm_id(struct timeline *tl, const struct sched_str *s)
{
	int added;

	if (!s->s)
		return TL_NOSTR;
	return kc_intern(tl->kc_str, tl->strs, s->s, s->n < 64 ? s->n : 64, &added);
}

/* The id of (@tid, @comm) among the peers, through their key cache. -1 out of memory. */
static long peer_id(struct timeline *tl, int32_t tid, uint32_t comm)
{
	char key[16] = { 0 };
	int added;

	memcpy(key, &tid, 4);
	memcpy(key + 4, &comm, 4);
	return kc_intern(tl->kc_peer, tl->peers, key, 8, &added);
}

/*
 * The id of the wake info @w: its waker and holder as peers (tid and comm
 * in 8 bytes), then with the CPU and the wake kind an 11-byte key, both
 * through key caches (a row's detail mostly repeats one of a few). A new
 * one is appended to tl->infos. -1 out of memory.
 */
static long info_id(struct timeline *tl, const struct tl_wakeinfo *w)
{
	long wp = peer_id(tl, w->waker, w->wcomm), hp = peer_id(tl, w->holder, w->hcomm), id;
	uint32_t a, b;
	char key[16] = { 0 };
	int added;

	if (wp < 0 || hp < 0)
		return -1;
	a = (uint32_t)wp;
	b = (uint32_t)hp;
	memcpy(key, &a, 4);
	memcpy(key + 4, &b, 4);
	memcpy(key + 8, &w->cpu, 2);
	key[10] = (char)w->wake;
	memcpy(key + 11, &w->stack, 4);
	id = kc_intern(tl->kc_info, tl->infokeys, key, 15, &added);
	if (id < 0 || !added)
		return id;
	if (array_grow((void **)&tl->infos, &tl->infos_cap, (size_t)id + 1, sizeof(*tl->infos), 4) < 0)
		return -1;
	tl->infos[id] = *w;
	tl->ninfos = (size_t)id + 1;
	return id;
}

/*
 * The frames of this file's stack @id (a sched row's stack=), or TL_NOSTR:
 * none, or no stack row of that id before it.
 */
static uint32_t stack_frames(struct timeline *tl, long long id)
{
	char num[24];
	int n;
	long k;

	if (id <= 0)
		return TL_NOSTR;
	n = snprintf(num, sizeof(num), "%lld", id);
	k = strtab_find(tl->fstacks, num, (size_t)n);
	if (k < 0)
		return TL_NOSTR;
	tl->off_stacks++;
	return tl->fstack[k];
}

/*
 * A sched row: an off-CPU interval of @t. A row whose detail does not
 * parse keeps its times, with the wake unknown (a later version's fields
 * are skipped by the parser). With wake=unknown (the objects that cannot
 * tell a task's wake from an interrupt's), the task current at the wake
 * (cur=) is kept as the waker, marked a guess. A detail of plain ASCII
 * (nearly all) is parsed where it lies, its comms interned as they are;
 * another is unescaped first, its comms escaped again.
 */
int offcpu_add(struct timeline *tl, struct tl_task *t, const struct tsv_row *r)
{
	const struct tsv_field *st = &r->f[TSV_NAME], *df = &r->f[TSV_DETAIL];
	char buf[SCHED_DETAIL_MAX];
	const struct sched_task *w;
	struct sched_detail d;
	struct tl_wakeinfo wi;
	struct dc_entry *ce = NULL;
	struct tl_off *o;
	long wc, hc, info, n = -1;
	uint64_t h = 0;
	bool plain = false;

	if (r->null & (1u << TSV_DUR_NS))
		return 0;
	if (df->n - 1 < DC_MAX) {
		h = dc_hash(df->p, df->n);
		ce = &tl->dcache->e[h >> (64 - DC_BITS)];
		if (ce->h == h && ce->n == df->n && memcmp(ce->b, df->p, df->n) == 0) {
			info = ce->info;
			goto add;
		}
	}
	if (!tsv_is_null(df->p, df->n)) {
		plain = plain_ascii(df->p, df->n);
		if (plain && sched_detail_parse(df->p, df->n, &d) == 0)
			n = (long)df->n;
		else if (!plain && df->n <= sizeof(buf))
			n = tsv_unescape(df->p, df->n, buf);
	}
	if (n < 0 || (!plain && sched_detail_parse(buf, (size_t)n, &d) < 0)) {
		memset(&d, 0, sizeof(d));
		d.wake = SCHED_WAKE_MISSING;
		d.cpu = -1;
	}
	w = d.wake == SCHED_WAKE_UNKNOWN ? &d.cur : &d.waker;
	wc = plain ? plain_comm_id(tl, &w->comm) : raw_comm_id(tl, &w->comm);
	hc = plain ? plain_comm_id(tl, &d.holder.comm) : raw_comm_id(tl, &d.holder.comm);
	if (wc < 0 || hc < 0)
		return -1;
	memset(&wi, 0, sizeof(wi));
	wi.waker = tid32(w->tid);
	wi.holder = tid32(d.holder.tid);
	wi.wcomm = (uint32_t)wc;
	wi.hcomm = (uint32_t)hc;
	wi.cpu = d.cpu >= 0 && d.cpu < TL_NOCPU ? (uint16_t)d.cpu : TL_NOCPU;
	wi.stack = stack_frames(tl, d.stack);
	switch (d.wake) {
	case SCHED_WAKE_TASK: wi.wake = TL_WAKE_TASK; break;
	case SCHED_WAKE_IRQ: wi.wake = TL_WAKE_IRQ; break;
	case SCHED_WAKE_SOFTIRQ: wi.wake = TL_WAKE_SOFTIRQ; break;
	case SCHED_WAKE_NEW: wi.wake = TL_WAKE_NEW; break;
	case SCHED_WAKE_NONE: wi.wake = TL_WAKE_NONE; break;
	default: wi.wake = TL_WAKE_UNKNOWN; break;
	}
	info = info_id(tl, &wi);
	if (info < 0)
		return -1;
	if (ce && !tsv_is_null(df->p, df->n)) {
		ce->h = h;
		ce->n = df->n;
		ce->info = (uint32_t)info;
		memcpy(ce->b, df->p, df->n);
	}
add:
	if (array_grow((void **)&t->offs, &t->offs_cap, t->noffs + 1, sizeof(*t->offs), 4) < 0)
		return -1;
	o = &t->offs[t->noffs++];
	o->out = r->ts_ns;
	o->dur = r->dur_ns < TL_NONE - 1 - r->ts_ns ? r->dur_ns : TL_NONE - 1 - r->ts_ns;
	o->runnable = r->null & (1u << TSV_RET) || r->ret < 0 ? TL_NONE :
		      (uint64_t)r->ret > o->dur ? o->dur : (uint64_t)r->ret;
	o->info = (uint32_t)info;
	o->state = st->n == 1 && strchr("RSDTI", st->p[0]) ? (uint8_t)st->p[0] : '?';
	if (o->out + o->dur > t->last_end)
		t->last_end = o->out + o->dur;
	return 0;
}

const char *timeline_wake_name(enum tl_wake w)
{
	switch (w) {
	case TL_WAKE_NONE: return "none";
	case TL_WAKE_TASK: return "task";
	case TL_WAKE_IRQ: return "irq";
	case TL_WAKE_SOFTIRQ: return "softirq";
	case TL_WAKE_NEW: return "new";
	default: return "unknown";
	}
}

void offcpu_cache_clear(struct detail_cache *dc)
{
	if (dc)
		memset(dc, 0, sizeof(*dc));
}

struct detail_cache *offcpu_cache__new(void)
{
	return calloc(1, sizeof(struct detail_cache));
}
