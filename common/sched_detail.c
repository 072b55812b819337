// SPDX-License-Identifier: BSD-2-Clause
/* The detail of a sched row: see sched_detail.h. */
#include <stddef.h>
#include <string.h>

#include "common/sched_detail.h"
#include "common/tsv.h"

static const char *const wake_names[] = {
	[SCHED_WAKE_UNKNOWN] = "unknown", [SCHED_WAKE_NONE] = "none",
	[SCHED_WAKE_TASK] = "task", [SCHED_WAKE_IRQ] = "irq",
	[SCHED_WAKE_SOFTIRQ] = "softirq", [SCHED_WAKE_NEW] = "new",
};

const char *sched_wake_name(enum sched_wake w)
{
	return (unsigned)w < sizeof(wake_names) / sizeof(wake_names[0]) ? wake_names[w] : "unknown";
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* A decimal number of @n bytes at @s into *@v (fits in int64_t); -1 otherwise. */
static int number(const char *s, size_t n, int64_t *v)
{
	uint64_t x = 0;
	size_t i;

	if (!n || n > 18)
		return -1;
	for (i = 0; i < n; i++) {
		if (!is_digit(s[i]))
			return -1;
		x = x * 10 + (uint64_t)(s[i] - '0');
	}
	*v = (int64_t)x;
	return 0;
}

static int key_is(const char *k, size_t n, const char *want)
{
	return strlen(want) == n && memcmp(k, want, n) == 0;
}

int sched_detail_parse(const char *esc, size_t n, struct sched_detail *d)
{
	long len;
	size_t i = 0, end;

	memset(d, 0, offsetof(struct sched_detail, buf));
	d->cpu = -1;
	if (n > sizeof(d->buf) || tsv_is_null(esc, n))
		return n > sizeof(d->buf) ? -1 : 0;
	len = tsv_unescape(esc, n, d->buf);
	if (len < 0)
		return -1;
	end = (size_t)len;
	while (i < end) {
		const char *key = d->buf + i, *val;
		size_t klen = 0, vlen = 0, j;
		struct sched_str str = { 0 };

		while (i + klen < end && d->buf[i + klen] != '=' && d->buf[i + klen] != ' ')
			klen++;
		if (!klen || i + klen >= end || d->buf[i + klen] != '=')
			return -1;
		i += klen + 1;
		val = d->buf + i;
		for (j = i; j < end && is_digit(d->buf[j]); j++)
			;
		if (j > i && j < end && d->buf[j] == ':') {
			/* LEN:BYTES */
			int64_t sl;

			if (number(val, j - i, &sl) < 0 || sl > SCHED_DETAIL_STR_MAX ||
			    (size_t)sl > end - j - 1)
				return -1;
			str.p = d->buf + j + 1;
			str.n = (size_t)sl;
			i = j + 1 + (size_t)sl;
		} else {
			while (i + vlen < end && d->buf[i + vlen] != ' ')
				vlen++;
			i += vlen;
		}
		if (i < end) {
			if (d->buf[i] != ' ')
				return -1;
			i++;
		}
		if (key_is(key, klen, "wake")) {
			size_t w;

			d->wake = SCHED_WAKE_UNKNOWN;
			for (w = 0; w < sizeof(wake_names) / sizeof(wake_names[0]); w++)
				if (!str.p && key_is(val, vlen, wake_names[w]))
					d->wake = (enum sched_wake)w;
		} else if (key_is(key, klen, "wcomm") || key_is(key, klen, "hcomm")) {
			if (!str.p)
				return -1;
			if (key[0] == 'w')
				d->wcomm = str;
			else
				d->hcomm = str;
		} else if (key_is(key, klen, "waker") || key_is(key, klen, "wpid") ||
			   key_is(key, klen, "holder") || key_is(key, klen, "cpu")) {
			int64_t v;

			if (str.p || number(val, vlen, &v) < 0)
				return -1;
			if (key[0] == 'h')
				d->holder = v;
			else if (key[0] == 'c')
				d->cpu = v;
			else if (key[1] == 'a')
				d->waker = v;
			else
				d->wpid = v;
		}
	}
	return 0;
}
