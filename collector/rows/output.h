/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The TSV row writer: a buffered writer on a file descriptor that formats
 * rows of the TSV contract (docs/tsv-format.md) and escapes every text
 * field. Write errors are sticky and reported by output_flush().
 */
#ifndef COLLECTOR_OUTPUT_H
#define COLLECTOR_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct row;

struct output {
	int fd;
	char *buf;
	size_t len, cap;
	int err;		/* errno of the first failed write, 0 if none */
	uint64_t rows;		/* event rows written */
	uint64_t bytes;		/* bytes written (--rotate) */
	/* told of every row, written or not (--metrics: collector/serve/boots.h) */
	void (*on_row)(void *ctx, const struct row *r);
	void *on_row_ctx;
};

/* A text field: @s == NULL is the missing value \N. */
struct field {
	const char *s;
	size_t n;
};

/* One event row; -1 in the integer fields that may miss means \N. */
struct row {
	uint64_t ts_ns;
	struct field container;
	uint64_t cgroup_id;	/* 0: \N (pidtree mode) */
	int64_t pid, tid, ppid;
	struct field comm;
	const char *event;	/* a literal: start, fork, exec, ... */
	struct field name;
	bool has_ret;
	int64_t ret;
	bool has_dur;
	uint64_t dur_ns;
	struct field detail;
};

/* output__new - a writer on @fd with a @cap byte buffer; NULL on ENOMEM. */
struct output *output__new(int fd, size_t cap);
/* output__free - flush is not implied; accepts NULL. */
void output__free(struct output *o);

/* output_row - append one event row (escaped, 12 fields, LF). */
void output_row(struct output *o, const struct row *r);
/* output_meta - append the metadata line "# @key=@value" (value escaped). */
void output_meta(struct output *o, const char *key, const char *value);
/* output_raw - append @n bytes as they are (header lines). */
void output_raw(struct output *o, const char *s, size_t n);
/*
 * output_next_file - go on in the file open on @fd (the caller's: it is
 * dup2'd onto o->fd, keeping its number, then closed): the buffer must
 * have been flushed; rows and bytes count from 0 again, an error of the
 * old file is forgotten. 0, or -errno (@fd closed, o unchanged).
 */
int output_next_file(struct output *o, int fd);
/* output_trailer - append the last line, "# lost=@lost events=<rows written>". */
void output_trailer(struct output *o, unsigned long long lost);
/*
 * output_flush - write out what is buffered. Returns 0, or -errno of the
 * first write that failed (the error is sticky: later rows are dropped).
 */
int output_flush(struct output *o);

/* field_str - a field from a NUL-terminated string (NULL gives \N). */
static inline struct field field_str(const char *s)
{
	struct field f = { s, 0 };

	while (s && s[f.n])
		f.n++;
	return f;
}

/* field_strn - a field from a buffer that may hold a NUL before @max. */
struct field field_strn(const char *s, size_t max);

#endif /* COLLECTOR_OUTPUT_H */
