// SPDX-License-Identifier: BSD-2-Clause
/* Human durations: see units.h. */
#include <stdio.h>
#include <string.h>

#include "analyze/units.h"

char *units_format(int64_t ns, char *buf)
{
	static const struct { const char *name; uint64_t scale; } u[] = {
		{ "us", 1000ULL }, { "ms", 1000000ULL }, { "s", 1000000000ULL },
	};
	const char *sign = ns < 0 ? "-" : "";
	uint64_t v = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	size_t k;

	if (v < 1000) {
		snprintf(buf, UNITS_BUFSZ, "%s%lluns", sign, (unsigned long long)v);
		return buf;
	}
	for (k = 0; k < 3; k++) {
		uint64_t s = u[k].scale, whole = v / s;
		int dec = whole >= 100 ? 1 : whole >= 10 ? 2 : 3;
		unsigned __int128 q;
		uint64_t p10;

		if (whole >= 1000 && k < 2)
			continue;
		if (whole >= 1000) { /* 1000s and up: whole seconds */
			q = ((unsigned __int128)v + s / 2) / s;
			snprintf(buf, UNITS_BUFSZ, "%s%llus", sign, (unsigned long long)q);
			return buf;
		}
		for (;;) {
			p10 = dec == 3 ? 1000 : dec == 2 ? 100 : 10;
			q = ((unsigned __int128)v * p10 + s / 2) / s;
			if (q < 10000 || dec == 0)
				break;
			dec--;
			if (dec == 0)
				break;
		}
		if (dec == 0) {
			if (k < 2)
				continue; /* 999.96us and the like: next unit */
			q = ((unsigned __int128)v + s / 2) / s;
			snprintf(buf, UNITS_BUFSZ, "%s%llus", sign, (unsigned long long)q);
			return buf;
		}
		snprintf(buf, UNITS_BUFSZ, "%s%llu.%0*llu%s", sign,
			 (unsigned long long)(q / p10), dec,
			 (unsigned long long)(q % p10), u[k].name);
		return buf;
	}
	return buf; /* not reached */
}

int units_parse(const char *s, uint64_t *ns)
{
	static const struct { const char *name; uint64_t scale; } u[] = {
		{ "ns", 1 }, { "us", 1000ULL }, { "ms", 1000000ULL }, { "s", 1000000000ULL },
		{ "", 1 },
	};
	uint64_t whole = 0, frac = 0, fscale = 1;
	const char *p = s;
	size_t k, digits = 0;

	while (*p >= '0' && *p <= '9') {
		if (whole > (UINT64_MAX - 9) / 10)
			return -1;
		whole = whole * 10 + (uint64_t)(*p++ - '0');
		digits++;
	}
	if (*p == '.') {
		p++;
		while (*p >= '0' && *p <= '9') {
			if (fscale < 1000000000ULL) {
				frac = frac * 10 + (uint64_t)(*p - '0');
				fscale *= 10;
			}
			p++;
			digits++;
		}
	}
	if (!digits)
		return -1;
	for (k = 0; k < sizeof(u) / sizeof(u[0]); k++) {
		unsigned __int128 v;

		if (strcmp(p, u[k].name) != 0)
			continue;
		v = (unsigned __int128)whole * u[k].scale +
		    (unsigned __int128)frac * u[k].scale / fscale;
		if (v > UINT64_MAX)
			return -1;
		*ns = (uint64_t)v;
		return 0;
	}
	return -1;
}

const char *units_pick(int64_t max_ns, int64_t *scale)
{
	if (max_ns >= 10000000000LL) {
		*scale = 1000000000LL;
		return "s";
	}
	if (max_ns >= 10000000LL) {
		*scale = 1000000LL;
		return "ms";
	}
	if (max_ns >= 10000LL) {
		*scale = 1000LL;
		return "us";
	}
	*scale = 1;
	return "ns";
}
