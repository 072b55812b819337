/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The detail of a `span` row (docs/tsv-format.md, Span rows):
 * space-separated key=value fields, `what=LEN:BYTES` (the file, module or
 * class), `caller=LEN:BYTES line=N` (the caller's file and line, Ruby),
 * and the flags `found=0`, `raised=1`, `error=1`. LEN counts the bytes
 * after TSV unescaping, so a file name may hold anything. The collector
 * writes it (collector/run/records.c), the analyzer reads it. Pure.
 */
#ifndef COMMON_SPAN_DETAIL_H
#define COMMON_SPAN_DETAIL_H

#include <stdbool.h>
#include <stddef.h>

struct span_detail {
	const char *what, *caller;	/* into the parsed bytes; caller NULL: none */
	size_t what_n, caller_n;
	long long line;			/* with a caller */
	bool not_found, raised, error;
};

/*
 * span_detail_parse - the unescaped detail @s (@n bytes) into @d (its
 * strings point into @s). Unknown keys are skipped. 0, or -1 when
 * malformed: no what=, a LEN past the end, a field without '='.
 */
int span_detail_parse(const char *s, size_t n, struct span_detail *d);

#endif /* COMMON_SPAN_DETAIL_H */
