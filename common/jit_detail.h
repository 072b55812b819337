/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The detail of a `jit` row (docs/tsv-format.md, Jit rows): a perf map
 * entry that names code of a process, space-separated key=value fields:
 * `start=0xADDR size=0xSIZE name=LEN:BYTES` (LEN counts the bytes after
 * TSV unescaping: a JIT's name may hold anything). The collector writes
 * it (collector/rows/jitrows.c), the analyzer reads it
 * (analyze/boot/jitnames.c). Unknown keys are skipped. Pure.
 */
#ifndef COMMON_JIT_DETAIL_H
#define COMMON_JIT_DETAIL_H

#include <stddef.h>
#include <stdint.h>

struct jit_detail {
	uint64_t start, size;
	const char *name;	/* into the parsed bytes */
	size_t name_n;
};

/*
 * jit_detail_parse - the unescaped detail @s (@n bytes) into @d. 0, or -1
 * when malformed: start=, size= (not 0, start + size not past 2^64) or
 * name= (not empty) missing, a number not 0x and 1 to 16 hex digits, a
 * LEN past the end, a field without '='.
 */
int jit_detail_parse(const char *s, size_t n, struct jit_detail *d);

/* jit_detail_format - @d's detail into @out (@cap bytes, NUL-terminated): its length, 0 if it does not fit. */
size_t jit_detail_format(const struct jit_detail *d, char *out, size_t cap);

#endif /* COMMON_JIT_DETAIL_H */
