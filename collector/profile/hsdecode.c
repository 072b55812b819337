// SPDX-License-Identifier: BSD-2-Clause
/* HotSpot's compressed debug data (hsdecode.h). */
#include <string.h>

#include "collector/profile/hsdecode.h"

#define U5_LG_H 6	/* each byte after the first: 64 times the one before */
#define U5_MAX 5

int hs_u5(const uint8_t *b, size_t n, size_t *pos, int x, uint32_t *v)
{
	const uint32_t low = 256u - 64u - (uint32_t)x;	/* bytes below x + low end a number */
	uint32_t sum = 0, shift = 0;
	size_t i;

	for (i = 0; i < U5_MAX; i++, shift += U5_LG_H) {
		uint32_t d;

		if (*pos + i >= n || b[*pos + i] < (uint32_t)x)
			return -1;
		d = b[*pos + i] - (uint32_t)x;
		sum += d << shift;
		if (d < low || i == U5_MAX - 1) {
			*pos += i + 1;
			*v = sum;
			return 0;
		}
	}
	return -1;
}

int hs_line(const uint8_t *b, size_t n, int x, int bci)
{
	int cur_bci = 0, cur_line = 0, best_bci = 0, best = -1;
	size_t pos = 0;

	if (bci < 0)
		bci = 0;	/* the entry, or a synchronized method's lock: its first line */
	while (pos < n) {
		uint8_t c = b[pos++];
		uint32_t db, dl;

		if (!c)
			return best;
		if (c == 0xff) {
			if (hs_u5(b, n, &pos, x, &db) < 0 || hs_u5(b, n, &pos, x, &dl) < 0)
				return -1;
			cur_bci += hs_sign(db);
			cur_line += hs_sign(dl);
		} else {
			cur_bci += c >> 3;
			cur_line += c & 7;
		}
		if (cur_bci == bci)
			return cur_line;
		if (cur_bci < bci && cur_bci >= best_bci) {
			best_bci = cur_bci;
			best = cur_line;
		}
	}
	return -1;	/* no end byte in what was read */
}

long hs_lines_len(const uint8_t *b, size_t n, int x)
{
	size_t pos = 0;
	uint32_t v;

	while (pos < n) {
		uint8_t c = b[pos++];

		if (!c)
			return (long)pos;
		if (c == 0xff && (hs_u5(b, n, &pos, x, &v) < 0 || hs_u5(b, n, &pos, x, &v) < 0))
			return -1;
	}
	return -1;
}

long hs_pcdesc(const uint8_t *descs, size_t count, size_t size, size_t off_pc, int32_t pco)
{
	size_t lo = 0, hi = count;

	if (size < off_pc + sizeof(int32_t))
		return -1;
	/* the first whose pc offset is >= pco */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int32_t at;

		memcpy(&at, descs + mid * size + off_pc, sizeof(at));
		if (at < pco)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < count ? (long)lo : -1;
}

int hs_scope(const uint8_t *b, size_t n, int x, struct hs_scope *s)
{
	size_t pos = 0;
	uint32_t bci;

	if (hs_u5(b, n, &pos, x, &s->sender) < 0 || hs_u5(b, n, &pos, x, &s->method) < 0 ||
	    hs_u5(b, n, &pos, x, &bci) < 0)
		return -1;
	s->bci = (int32_t)bci - 1;	/* DebugInfoReadStream::read_bci(): + InvocationEntryBci */
	return 0;
}
