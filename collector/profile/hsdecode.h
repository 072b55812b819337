/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * HotSpot's compressed debug data, decoded from bytes read out of a JVM
 * (hotspot.c reads them): the line number table of a method, the PcDescs
 * and ScopeDescs of an nmethod. Pure: no I/O, for the tests.
 *
 * Numbers are in HotSpot's UNSIGNED5 coding (CompressedReadStream, from
 * Pack200): one to five bytes, a byte below 192 - @x ending the number,
 * each byte after the first worth 64 times the one before; @x is the
 * excluded byte value count: 0 up to JDK 19, 1 from JDK 20, whose
 * utilities/unsigned5.hpp keeps the byte 0 out of every coding (each
 * byte carries its digit + 1).
 */
#ifndef COLLECTOR_HSDECODE_H
#define COLLECTOR_HSDECODE_H

#include <stddef.h>
#include <stdint.h>

/*
 * hs_u5 - the UNSIGNED5 number at @b[*@pos] (@n bytes): 0 with *@v and
 * *@pos past it, or -1 when it runs past @n (or uses an excluded byte).
 */
int hs_u5(const uint8_t *b, size_t n, size_t *pos, int x, uint32_t *v);

/* hs_sign - a signed number as HotSpot codes it (zigzag: 0, -1, 1, -2...). */
static inline int32_t hs_sign(uint32_t v)
{
	return (int32_t)(v >> 1) ^ -(int32_t)(v & 1);
}

/*
 * hs_line - the source line of bytecode index @bci from a method's
 * compressed line number table (@b, @n bytes: pairs of bci and line
 * deltas, a byte (bci << 3 | line) each when both are small, else 0xff
 * and two signed UNSIGNED5 numbers; a 0 byte ends it), as
 * Method::line_number_from_bci() finds it: the pair at @bci, else the
 * last one below it. The line, or -1 (none, or the table cut short).
 */
int hs_line(const uint8_t *b, size_t n, int x, int bci);

/*
 * hs_lines_len - the length of the line number table at @b, its end byte
 * included, or -1 when it does not end within @n bytes.
 */
long hs_lines_len(const uint8_t *b, size_t n, int x);

/*
 * hs_pcdesc - of @count PcDescs (@size bytes each, its pc offset an int
 * at @off_pc; sorted by it), the one of pc offset @pco or, for a pc
 * between two (a sampled pc, not a return address), the next above it,
 * as nmethod::pc_desc_near() finds it: its index, or -1.
 */
long hs_pcdesc(const uint8_t *descs, size_t count, size_t size, size_t off_pc, int32_t pco);

/* A ScopeDesc's head: its caller's scope (0: the outermost), its method, its bci. */
struct hs_scope {
	uint32_t sender;	/* the decode offset of the scope it is inlined into, 0: none */
	uint32_t method;	/* an index in the nmethod's metadata, from 1 */
	int32_t bci;		/* -1: the method's entry (InvocationEntryBci) */
};

/* hs_scope - the scope whose bytes start at @b (@n bytes): 0 and *@s, or -1. */
int hs_scope(const uint8_t *b, size_t n, int x, struct hs_scope *s);

#endif /* COLLECTOR_HSDECODE_H */
