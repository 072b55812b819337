/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The TSV contract, version 1 (docs/tsv-format.md): the column names and
 * the escaping of text fields, shared by the collector (which writes rows)
 * and the analyzer (which reads them).
 */
#ifndef BOOTTRACE_TSV_H
#define BOOTTRACE_TSV_H

#include <stdbool.h>
#include <stddef.h>

#define TSV_VERSION_LINE "# boottrace-tsv 1"
#define TSV_NFIELDS 12
#define TSV_HEADER \
	"ts_ns\tcontainer\tcgroup_id\tpid\ttid\tppid\tcomm\tevent\tname\tret\tdur_ns\tdetail"
/* The missing value, as PostgreSQL COPY text and ClickHouse TSV read it. */
#define TSV_NULL "\\N"

enum tsv_column {
	TSV_TS_NS, TSV_CONTAINER, TSV_CGROUP_ID, TSV_PID, TSV_TID, TSV_PPID,
	TSV_COMM, TSV_EVENT, TSV_NAME, TSV_RET, TSV_DUR_NS, TSV_DETAIL,
};

/*
 * Worst-case size of tsv_escape()'s output for @n input bytes: every byte
 * may become "\xHH".
 */
#define TSV_ESCAPED_MAX(n) ((n) * 4)

/*
 * tsv_escape - escape @n bytes of @in into @out, which must hold
 * TSV_ESCAPED_MAX(@n) bytes. Backslash, TAB, LF and CR become \\ \t \n \r;
 * other bytes < 0x20, 0x7f and bytes that are not part of valid UTF-8
 * become \xHH. Valid UTF-8 is copied as is. Returns the output length; the
 * output is not NUL-terminated. Cannot fail.
 */
size_t tsv_escape(const char *in, size_t n, char *out);

/*
 * tsv_unescape - undo tsv_escape() on @n bytes of @in, writing at most @n
 * bytes to @out (the output is never longer than the input). Returns the
 * output length, or -1 when @in holds a malformed escape (a lone trailing
 * backslash, an unknown letter, \x without two hex digits). The field "\N"
 * (NULL) is not special here: see tsv_is_null().
 */
long tsv_unescape(const char *in, size_t n, char *out);

/* tsv_hexval - the value of hex digit @c (either case), or -1. */
int tsv_hexval(char c);

/*
 * tsv_glob_match - whether field @in (@n escaped bytes), unescaped into
 * @scratch (@n + 1 bytes), matches fnmatch(3) pattern @glob. Neither a
 * malformed escape nor an embedded \x00 (a C string glob cannot say it)
 * ever matches.
 */
bool tsv_glob_match(const char *in, size_t n, const char *glob, char *scratch);

/* tsv_is_null - true when the field is exactly \N, the missing value. */
static inline bool tsv_is_null(const char *f, size_t n)
{
	return n == 2 && f[0] == '\\' && f[1] == 'N';
}

/*
 * tsv_utf8_seq_len - length of the valid UTF-8 sequence at @s (at most @n
 * bytes available): 1..4, or 0 when the bytes there are not valid UTF-8
 * (overlong forms, surrogates and code points past U+10FFFF are invalid).
 */
size_t tsv_utf8_seq_len(const unsigned char *s, size_t n);

/*
 * tsv_len_str - the LEN:BYTES string at @p (before @end), as the details
 * write a hostile string (span, jit): *@s its bytes, *@n their count; the
 * position after it, or NULL when it is not one (LEN over 1 MiB, past @end).
 */
const char *tsv_len_str(const char *p, const char *end, const char **s, size_t *n);

#endif /* BOOTTRACE_TSV_H */
