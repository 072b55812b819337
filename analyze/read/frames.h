/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * frames: the frames of a profile's stack row (docs/tsv-format.md, Profile
 * rows), parsed strictly. The detail is TSV-unescaped first (LEN counts
 * bytes after unescaping); then frames, innermost first, separated by one
 * space, each one of
 *   k:NAME+0xOFF   a kernel function (NAME: no space; the last "+0x")
 *   k:0xADDR       a kernel address
 *   b:BUILDID+0xOFF  40 hex digits, then a file offset
 *   f:LEN:PATH+0xOFF a path of LEN bytes (any bytes), then a file offset
 *   j:LEN:NAME     a JIT name of LEN bytes (any bytes)
 *   u:0xADDR       an unknown user address
 * A number is "0x" and 1 to 16 hex digits. Anything else — an unknown
 * kind, a LEN past the end or not followed by what must follow, two
 * spaces, a leading or trailing space, more than FRAMES_MAX frames — is
 * malformed. An empty detail (or \N) is a stack of no frames.
 * Pure: no I/O, no allocation; the frames point into the caller's bytes.
 */
#ifndef ANALYZE_FRAMES_H
#define ANALYZE_FRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* 64 kernel, 64 user and 96 interpreter frames at most, as the collector writes. */
#define FRAMES_MAX 224
#define FRAMES_BUILD_ID 20

enum frame_kind {
	FRAME_KSYM,	/* k:NAME+0xOFF: name, off */
	FRAME_KADDR,	/* k:0xADDR: off = the address */
	FRAME_BUILD_ID,	/* b:: build_id, off */
	FRAME_FILE,	/* f:: name = the path, off */
	FRAME_JIT,	/* j:: name */
	FRAME_INTERP,	/* i:: name: an interpreter's frame (CPython's, Ruby's: function (file:line)) */
	FRAME_UADDR,	/* u:0xADDR: off = the address */
};

struct frame {
	enum frame_kind kind;
	const char *name;	/* raw bytes (not NUL-terminated), or NULL */
	size_t name_len;
	uint64_t off;
	uint8_t build_id[FRAMES_BUILD_ID];
	const char *text;	/* the whole frame as parsed (kind to its end) */
	size_t text_len;
};

/*
 * frames_parse - parse the @n unescaped bytes at @s into @out (room for
 * FRAMES_MAX frames; may be NULL to validate only), innermost first.
 * Returns the number of frames, or -1 with a message in @err (@errsz bytes).
 */
int frames_parse(const char *s, size_t n, struct frame *out, char *err, size_t errsz);

/*
 * frames_parse_field - unescape the TSV field of @n escaped bytes at @esc
 * into @scratch (room for @n bytes; the frames point into it), then
 * frames_parse(). \N is no frames. Returns the count, or -1 with @err.
 */
int frames_parse_field(const char *esc, size_t n, char *scratch, struct frame *out,
		       char *err, size_t errsz);

#endif /* ANALYZE_FRAMES_H */
