// SPDX-License-Identifier: BSD-2-Clause
/*
 * fuzz_gosym: a Go function table (common/gosym.h) read from any
 * bytes, as analyze reads it from any binary a TSV names (hostile).
 *
 * The input is the table, its header first. Addresses looked up: each
 * 8-byte word of its first 128 bytes (where the header's text start and
 * the 1.2 format's first function pcs are) plus 0 to 0x90, so that the
 * lookups reach past the binary search into the pc-value tables, file
 * and name strings. Every lookup must end, stay in bounds (ASan), and
 * give NUL-terminated names, and an SP delta (the collector's) in range,
 * or none; a violation aborts. Seeds: fuzz/corpus/
 * fuzz_gosym, tables of two functions in the 1.2, 1.16, 1.18 and 1.20
 * formats (tests/unit/test_analyze_gosym.c writes the same).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/gosym.h"

#define CHECK(cond)                                                         \
	do {                                                                \
		if (!(cond)) {                                              \
			fprintf(stderr, "fuzz_gosym: %s\n", #cond);         \
			abort();                                            \
		}                                                           \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gosym_frame fr[9];
	struct gosym *g = gosym__from_table(data, size, 0x600000);
	size_t w, k, n, i;
	int32_t d;

	if (!g)
		return 0;
	for (w = 0; w + 8 <= size && w < 128; w += 8) {
		uint64_t base;

		memcpy(&base, data + w, 8);
		for (k = 0; k < 0x90; k++) {
			n = gosym_lookup(g, base + k, fr, 9);
			CHECK(n <= 9);
			for (i = 0; i < n; i++) {
				CHECK(fr[i].fn && strlen(fr[i].fn) > 0);
				CHECK(!fr[i].file || strlen(fr[i].file) > 0);
			}
			/* the SP delta (the collector's Go leaf frames): sane or none */
			if (gosym_sp_delta(g, base + k, &d) == 0)
				CHECK(d >= 0 && d <= GOSYM_SP_DELTA_MAX && !(d & 7));
		}
	}
	gosym__free(g);
	return 0;
}
