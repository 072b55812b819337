// SPDX-License-Identifier: BSD-2-Clause
/*
 * The perf-buffer objects' order restored (collector/kernel/reorder.h): a queue
 * of held records in the order they were read, released by the rules
 * there.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collector/kernel/reorder.h"

void reorder_init(struct reorder *r, void (*deliver)(void *ctx, void *data, size_t size),
		  void *ctx)
{
	memset(r, 0, sizeof(*r));
	r->deliver = deliver;
	r->ctx = ctx;
}

void reorder_free(struct reorder *r)
{
	free(r->held);
	r->held = NULL;
	r->n = r->cap = 0;
	keyset_free(&r->made);
}

int reorder_is_last(const struct bt_event_hdr *h)
{
	return h->type == BT_EV_GONE || h->type == BT_EV_CGROUP_RMDIR;
}

static const struct bt_event_hdr *hdr_of(const struct reorder_held *hd)
{
	return (const struct bt_event_hdr *)hd->data;
}

static void out(struct reorder *r, struct reorder_held *hd)
{
	if (hdr_of(hd)->type == BT_EV_CGROUP_MKDIR)
		keyset_del(&r->made, hdr_of(hd)->cgroup_id);
	r->deliver(r->ctx, hd->data, hd->size);
}

int reorder_hold(struct reorder *r, const void *data, size_t size)
{
	struct reorder_held *hd;

	if (size > sizeof(hd->data) || size < sizeof(struct bt_event_hdr))
		return -EINVAL;
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 64;
		struct reorder_held *nh = realloc(r->held, cap * sizeof(*nh));

		if (!nh)
			return -ENOMEM;
		r->held = nh;
		r->cap = cap;
	}
	hd = &r->held[r->n++];
	hd->pass = r->pass;
	hd->size = size;
	hd->behind = 0;
	hd->done = 0;
	memcpy(hd->data, data, size);
	return 0;
}

int reorder_made(const struct reorder *r, __u64 id)
{
	return r->made.m.n && keyset_has(&r->made, id);
}

int reorder_hold_behind(struct reorder *r, const void *data, size_t size)
{
	int err = reorder_hold(r, data, size);

	/* a last record goes after every other, not with the mkdir */
	if (!err && !reorder_is_last(hdr_of(&r->held[r->n - 1])))
		r->held[r->n - 1].behind = 1;
	return err;
}

int reorder_hold_mkdir(struct reorder *r, const void *data, size_t size)
{
	__u64 id = ((const struct bt_event_hdr *)data)->cgroup_id;
	struct reorder_held tmp;
	size_t i, mk;
	int err;

	if (keyset_add(&r->made, id) < 0)
		return -ENOMEM;
	if ((err = reorder_hold(r, data, size)) < 0) {
		keyset_del(&r->made, id);
		return err;
	}
	for (mk = r->n - 1, i = mk; i-- > 0;) {
		if (hdr_of(&r->held[i])->cgroup_id != id || reorder_is_last(hdr_of(&r->held[i])))
			continue;
		tmp = r->held[i];
		tmp.behind = 1;
		memmove(&r->held[i], &r->held[i + 1], (mk - i) * sizeof(*r->held));
		r->held[mk--] = tmp;
	}
	return 0;
}

/* Drop the delivered records from the queue. */
static void compact(struct reorder *r)
{
	size_t i, kept;

	for (i = 0, kept = 0; i < r->n; i++)
		if (!r->held[i].done && kept++ != i)
			r->held[kept - 1] = r->held[i];
	r->n = kept;
}

/*
 * Deliver the held mkdirs that are due (all with @force), oldest first,
 * each followed by the records held behind it. c1's mkdir and records and
 * c1/inner's mkdir can be due together, inner's read first (the rings are
 * read in CPU order): c1's go first, so that c1 has had its first record
 * when inner's mkdir comes.
 */
static void release_made(struct reorder *r, int force)
{
	const struct bt_event_hdr *h, *first;
	size_t i, j = 0;
	__u64 id;

	for (;;) {
		first = NULL;
		for (i = 0; i < r->n; i++) {
			h = hdr_of(&r->held[i]);
			if (h->type != BT_EV_CGROUP_MKDIR || r->held[i].done ||
			    (!force && r->pass < r->held[i].pass + 2))
				continue;
			if (!first || h->ts_ns < first->ts_ns) {
				first = h;
				j = i;
			}
		}
		if (!first)
			break;
		id = first->cgroup_id;
		for (i = j; i < r->n; i++) {
			if (i != j && (!r->held[i].behind || hdr_of(&r->held[i])->cgroup_id != id))
				continue;
			r->held[i].done = 1;
			out(r, &r->held[i]);
		}
	}
	compact(r);
}

void reorder_release(struct reorder *r, int force, __u64 key)
{
	size_t i;
	int gone_round;

	if (!key)
		release_made(r, force);
	/* when forced, last records go after everything else */
	for (gone_round = 0; gone_round < (force ? 2 : 1); gone_round++) {
		for (i = 0; i < r->n; i++) {
			struct reorder_held *hd = &r->held[i];
			int gone = reorder_is_last(hdr_of(hd)), due;

			if (key)
				due = !gone && hdr_of(hd)->cgroup_id == key;
			else if (force)
				due = gone == gone_round;
			else if (hd->behind)	/* its mkdir is not due */
				due = 0;
			else if (gone && reorder_made(r, hdr_of(hd)->cgroup_id))
				due = 0;	/* its mkdir, read a pass later, goes first */
			else
				due = r->pass >= hd->pass + 2;
			if (due) {
				hd->done = 1;
				out(r, hd);
			}
		}
		compact(r);
	}
}

void reorder_pass_end(struct reorder *r, int force)
{
	r->pass++;
	reorder_release(r, force, 0);
}

int reorder_waits_on_batches(const struct reorder *r)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (reorder_is_last(hdr_of(&r->held[i])) ||
		    hdr_of(&r->held[i])->type == BT_EV_CGROUP_MKDIR)
			return 1;
	return 0;
}
