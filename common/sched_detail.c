// SPDX-License-Identifier: BSD-2-Clause
/* The detail of a `sched` row: see sched_detail.h. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/sched_detail.h"

static const char *const wake_names[] = {
	[SCHED_WAKE_TASK] = "task",
	[SCHED_WAKE_IRQ] = "irq",
	[SCHED_WAKE_SOFTIRQ] = "softirq",
	[SCHED_WAKE_NEW] = "new",
	[SCHED_WAKE_NONE] = "none",
	[SCHED_WAKE_UNKNOWN] = "unknown",
};
#define NWAKE (sizeof(wake_names) / sizeof(wake_names[0]))

const char *sched_wake_name(enum sched_wake w)
{
	return (size_t)w < NWAKE ? wake_names[w] : NULL;
}

static void task_clear(struct sched_task *t)
{
	t->tid = t->pid = -1;
	t->comm.s = NULL;
	t->comm.n = 0;
}

/* A value: [p, end) of one field, after its '='. */
struct value {
	const char *s;
	size_t n;
	bool str;		/* LEN:BYTES, s/n the bytes */
};

long long detail_number(const char *s, size_t n)
{
	long long v = 0;
	size_t i;

	if (n == 0 || n > 18)
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}
/*
 * The value at @s (@n bytes left): digits then ':' make a string of that
 * many bytes, else everything up to a space or the end. The length
 * consumed, or -1.
 */
static long read_value(const char *s, size_t n, struct value *v)
{
	size_t i = 0;
	long long len;

	while (i < n && s[i] >= '0' && s[i] <= '9')
		i++;
	if (i > 0 && i < n && s[i] == ':') {
		len = detail_number(s, i);
		if (len < 0 || (size_t)len > n - i - 1)
			return -1;
		v->s = s + i + 1;
		v->n = (size_t)len;
		v->str = true;
		i += 1 + (size_t)len;
		if (i < n && s[i] != ' ')
			return -1;
		return (long)i;
	}
	while (i < n && s[i] != ' ')
		i++;
	v->s = s;
	v->n = i;
	v->str = false;
	return (long)i;
}

int detail_field_next(const char *s, size_t n, size_t *pos, struct detail_field *f)
{
	size_t i = *pos, klen;
	const char *eq;
	struct value v;
	long used;

	if (i >= n)
		return 0;
	eq = memchr(s + i, '=', n - i);
	if (!eq || memchr(s + i, ' ', (size_t)(eq - (s + i))))
		return -1;
	klen = (size_t)(eq - (s + i));
	used = read_value(eq + 1, n - i - klen - 1, &v);
	if (klen == 0 || used < 0)
		return -1;
	f->key = s + i;
	f->klen = klen;
	f->val.s = v.s;
	f->val.n = v.n;
	f->str = v.str;
	i += klen + 1 + (size_t)used;
	if (i < n) {
		/* one space between fields, and none at the end */
		if (++i == n)
			return -1;
	}
	*pos = i;
	return 1;
}

/* Keys, and the bit that says each was seen. */
enum key {
	K_WAKE, K_WAKER, K_WPID, K_WCOMM, K_CUR, K_CPID, K_CCOMM, K_HOLDER, K_HCOMM, K_CPU, K_IN,
	K_STACK, NKEYS,
};
static const char *const key_names[NKEYS] = {
	"wake", "waker", "wpid", "wcomm", "cur", "cpid", "ccomm", "holder", "hcomm", "cpu", "in",
	"stack",
};

/* Store value @v of key @k into @d: 0, or -1 when it is not of the key's kind. */
static int store(struct sched_detail *d, enum key k, const struct value *v)
{
	long long num = v->str ? -1 : detail_number(v->s, v->n);
	struct sched_str str = { v->s, v->n };
	size_t w;

	switch (k) {
	case K_WAKE:
		for (w = 1; w < NWAKE && !v->str; w++)
			if (strlen(wake_names[w]) == v->n && !memcmp(wake_names[w], v->s, v->n)) {
				d->wake = (enum sched_wake)w;
				return 0;
			}
		return -1;
	case K_IN:
		if (v->str || v->n != 8 || memcmp(v->s, "inferred", 8))
			return -1;
		d->in_inferred = true;
		return 0;
	case K_WCOMM:
	case K_CCOMM:
	case K_HCOMM:
		if (!v->str)
			return -1;
		(k == K_WCOMM ? &d->waker : k == K_CCOMM ? &d->cur : &d->holder)->comm = str;
		return 0;
	default:
		if (num < 0)
			return -1;
		if (k == K_WAKER)
			d->waker.tid = num;
		else if (k == K_WPID)
			d->waker.pid = num;
		else if (k == K_CUR)
			d->cur.tid = num;
		else if (k == K_CPID)
			d->cur.pid = num;
		else if (k == K_HOLDER)
			d->holder.tid = num;
		else if (k == K_STACK)
			d->stack = num;
		else
			d->cpu = num;
		return 0;
	}
}

int sched_detail_parse(const char *s, size_t n, struct sched_detail *d)
{
	unsigned int seen = 0;
	struct detail_field f;
	struct value v;
	size_t i = 0;
	int k, r;

	d->wake = SCHED_WAKE_MISSING;
	task_clear(&d->waker);
	task_clear(&d->cur);
	task_clear(&d->holder);
	d->cpu = -1;
	d->in_inferred = false;
	d->stack = 0;
	while ((r = detail_field_next(s, n, &i, &f)) > 0) {
		for (k = 0; k < NKEYS; k++)
			if (strlen(key_names[k]) == f.klen && !memcmp(key_names[k], f.key, f.klen))
				break;
		if (k < NKEYS) {
			v.s = f.val.s;
			v.n = f.val.n;
			v.str = f.str;
			if (seen & (1u << k) || store(d, (enum key)k, &v) < 0)
				return -1;
			seen |= 1u << k;
		}
	}
	return r;
}

/* Append @fmt's output at *@len; false when it does not fit. */
__attribute__((format(printf, 4, 5)))
static bool put(char *out, size_t cap, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vsnprintf(out + *len, cap - *len, fmt, ap);
	va_end(ap);
	if (r < 0 || (size_t)r >= cap - *len)
		return false;
	*len += (size_t)r;
	return true;
}

bool detail_put_str(char *out, size_t cap, size_t *len, const char *key, struct sched_str str)
{
	if (!put(out, cap, len, "%s%s=%zu:", *len ? " " : "", key, str.n) ||
	    str.n > cap - *len)
		return false;
	memcpy(out + *len, str.s, str.n);
	*len += str.n;
	return true;
}

/* A task's fields: @id=TID @pidkey=PID @commkey=LEN:COMM, those present. */
static bool put_task(char *out, size_t cap, size_t *len, const struct sched_task *t,
		     const char *id, const char *pidkey, const char *commkey)
{
	if (t->tid >= 0 && !put(out, cap, len, "%s%s=%lld", *len ? " " : "", id, t->tid))
		return false;
	if (pidkey && t->pid >= 0 &&
	    !put(out, cap, len, "%s%s=%lld", *len ? " " : "", pidkey, t->pid))
		return false;
	return !t->comm.s || detail_put_str(out, cap, len, commkey, t->comm);
}

size_t sched_detail_format(const struct sched_detail *d, char *out, size_t cap)
{
	const char *w = sched_wake_name(d->wake);
	size_t len = 0;

	if (cap == 0)
		return 0;
	out[0] = '\0';
	if ((w && !put(out, cap, &len, "wake=%s", w)) ||
	    !put_task(out, cap, &len, &d->waker, "waker", "wpid", "wcomm") ||
	    !put_task(out, cap, &len, &d->cur, "cur", "cpid", "ccomm") ||
	    !put_task(out, cap, &len, &d->holder, "holder", NULL, "hcomm") ||
	    (d->cpu >= 0 && !put(out, cap, &len, "%scpu=%lld", len ? " " : "", d->cpu)) ||
	    (d->in_inferred && !put(out, cap, &len, "%sin=inferred", len ? " " : "")) ||
	    (d->stack > 0 && !put(out, cap, &len, "%sstack=%lld", len ? " " : "", d->stack)))
		return 0;
	return len;
}
