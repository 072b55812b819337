/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * reader: stream a boottrace TSV (docs/tsv-format.md, DESIGN.md §3) from a
 * file descriptor — a regular file, a pipe, a FIFO, stdin — and validate it
 * row by row.
 *
 * Memory is bounded: one buffer of TSV_READ_BUF bytes, filled TSV_READ_CHUNK
 * bytes at a time, whatever the input (no mmap: the pages of a mapped file
 * would count in the resident set, and a pipe cannot be mapped; no per-line
 * allocation). A line longer than TSV_MAX_LINE bytes is an error. Rows point
 * into that buffer: a row is valid until the next call to tsv_reader_next().
 *
 * What is checked: the first line is "# boottrace-tsv 1"; "# key=value"
 * metadata lines follow; then exactly one header line equal to TSV_HEADER;
 * then rows of exactly 12 TAB-separated fields, with decimal integers (or
 * \N) in ts_ns, cgroup_id, pid, tid, ppid, ret (may be negative) and dur_ns,
 * no value past 64 bits, escapes that decode (\\ \t \n \r \xHH, \N only as a
 * whole field), no NUL or other control byte but TAB; a stack or sample
 * row's name is a decimal stack id and a stack row's frames parse
 * (frames.h). "#" lines after the
 * header are comments, except the trailer "# lost=N events=M". A last line
 * without LF is a "truncated line" error: the collector always ends a line.
 *
 * With TSV_LENIENT, a malformed row (including a truncated last line or an
 * over-long line) is skipped and counted instead; a bad version line or
 * header is always fatal.
 *
 * A regular file can also be read in parts, each by its own reader (and
 * thread): tsv_reader_header() reads the header, tsv_reader_consumed() says
 * where the rows start, tsv_reader__new_range() reads rows from a byte range
 * and tsv_reader_rebase() makes its line numbers absolute afterwards.
 */
#ifndef ANALYZE_READER_H
#define ANALYZE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/tsv.h"

#define TSV_MAX_LINE (1u << 20)
#define TSV_READ_BUF (4u << 20)
/* Small reads keep the bytes in the L2 cache until they are parsed. */
#define TSV_READ_CHUNK (256u << 10)

enum {
	TSV_LENIENT = 1,
	/* Validate cgroup_id, pid, tid and ppid but leave them 0 in the row:
	 * the analyzer never uses them, and converting costs time. */
	TSV_NO_IDS = 2,
};

struct tsv_field {
	const char *p;	/* escaped bytes, as in the file */
	uint32_t n;
};

/* field_is - whether field @f is exactly the @n bytes at @s. */
static inline bool field_is(const struct tsv_field *f, const char *s, size_t n)
{
	return f->n == n && memcmp(f->p, s, n) == 0;
}

struct tsv_row {
	struct tsv_field f[TSV_NFIELDS];
	/* Integer columns; a \N column has its bit (1 << TSV_x) in null. */
	uint64_t ts_ns, cgroup_id, dur_ns;
	int64_t pid, tid, ppid, ret;
	unsigned null;
};

/*
 * tsv_parse_row - split and validate one line (without its LF) of @len bytes
 * at @line into @row, every integer column converted. The 15 bytes after
 * @line + @len must be readable (the reader's buffer is padded): integers are
 * read 8 bytes at a time. Returns 0, or -1 with a message (no file or line
 * prefix) in @err. Pure: no I/O, no allocation.
 */
int tsv_parse_row(const char *line, size_t len, struct tsv_row *row,
		  char *err, size_t errsz);

/*
 * tsv_parse_int - parse @n bytes at @s as a decimal integer; a leading '-'
 * is allowed only when @is_signed. Returns 0 and sets *@out (two's
 * complement for signed values), -1 for a malformed number, -2 when it does
 * not fit in 64 bits (uint64_t, or int64_t when @is_signed).
 */
int tsv_parse_int(const char *s, size_t n, bool is_signed, uint64_t *out);

struct tsv_reader;

/*
 * tsv_reader__new - a reader of @fd (not closed by the reader) named @name
 * in messages. NULL when out of memory.
 */
struct tsv_reader *tsv_reader__new(const char *name, int fd, unsigned flags);
/*
 * tsv_reader__new_range - a reader of the rows in bytes [@start, @end) of
 * the regular file @fd (pread(2): the file offset is not used; @end =
 * UINT64_MAX reads to the end of the file). @start must be the start of a
 * line after the header, and @end, unless UINT64_MAX, the start of a line.
 * Its line numbers count from 1 at @start until tsv_reader_rebase(). NULL
 * when out of memory.
 */
struct tsv_reader *tsv_reader__new_range(const char *name, int fd, unsigned flags,
					 uint64_t start, uint64_t end);
/* tsv_reader__free - free the reader; accepts NULL. */
void tsv_reader__free(struct tsv_reader *r);

/*
 * tsv_reader_next - the next row. Returns 1 (a row in @row), 0 at the end
 * of the input, -1 for malformed input, -2 for a read error; then
 * tsv_reader_error() says why, as "NAME:LINE: message" (or "NAME: ..." for
 * a read error). After an error, the reader must not be used again.
 */
int tsv_reader_next(struct tsv_reader *r, struct tsv_row *row);

/*
 * tsv_reader_header - read the version, metadata and header lines (the first
 * tsv_reader_next() does it when this was not called). Returns 0, or -1 / -2
 * as tsv_reader_next() does.
 */
int tsv_reader_header(struct tsv_reader *r);

/*
 * tsv_reader_consumed - the bytes of input taken by the lines read so far
 * (LFs included): after tsv_reader_header(), where the rows start relative to
 * where the reader started.
 */
uint64_t tsv_reader_consumed(const struct tsv_reader *r);

/*
 * tsv_reader_rebase - add @lines to the reader's line numbers, including the
 * one in its error message: for a range reader, the lines before its range.
 */
void tsv_reader_rebase(struct tsv_reader *r, uint64_t lines);

/* tsv_reader_error - the last error message (empty when none). */
const char *tsv_reader_error(const struct tsv_reader *r);
/* tsv_reader_line - the number (1-based) of the last line read. */
uint64_t tsv_reader_line(const struct tsv_reader *r);
/* tsv_reader_skipped - rows skipped under TSV_LENIENT. */
uint64_t tsv_reader_skipped(const struct tsv_reader *r);
/*
 * tsv_reader_trailer - true when the "# lost=N events=M" trailer was read;
 * then *@lost and *@events (either may be NULL) get its numbers.
 */
bool tsv_reader_trailer(const struct tsv_reader *r, uint64_t *lost,
			uint64_t *events);
/*
 * tsv_reader_meta - the value of metadata key @key ("mode", "host", ...),
 * NUL-terminated, or NULL when the file has no such line. Valid until the
 * reader is freed.
 */
const char *tsv_reader_meta(const struct tsv_reader *r, const char *key);

#endif /* ANALYZE_READER_H */
