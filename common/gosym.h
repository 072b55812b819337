/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * gosym: the functions of a Go binary named from its own function table,
 * the pclntab, which every Go binary keeps for the runtime's tracebacks
 * even when stripped of .symtab and DWARF (`go build -ldflags '-s -w'`,
 * Debian's docker, dockerd, containerd, the shim, runc).
 *
 * Where the table is: the .gopclntab section; else, in a PIE whose linker
 * put it inside .data.rel.ro (Debian's docker and dockerd), found by its
 * header's magic, looked for only in a file that says it is Go (a
 * .note.go.buildid or .go.buildinfo section).
 *
 * Formats, by the header's magic (little-endian tables only: x86-64,
 * arm64, 386, arm):
 *   0xfffffffb  Go 1.2 to 1.15   function, file, line
 *   0xfffffffa  Go 1.16, 1.17    function, file, line, inlined functions
 *   0xfffffff0  Go 1.18, 1.19    the same (Debian 12's golang-go 1.19 and
 *                                its docker, containerd, runc: all 1.19.8)
 *   0xfffffff1  Go 1.20 and on   the same (the layout of 1.18 but for
 *                                _func's startLine and a shorter inlinedCall)
 * Checked against Go's own debug/gosym (tests/integration/
 * test_analyze_gosym.sh): the 1.19 tables of Debian's binaries and of a
 * program built by the tests, and the 1.2 format on Go 1.15's test table.
 * No 1.16 or 1.20+ binary can be had here: those are read as the runtime's
 * sources of those versions describe them, and tested on tables written
 * by tests/unit/test_analyze_gosym.c (names, files, lines; their inline
 * trees only as read from 1.19 binaries).
 *
 * Inlined functions come from the inline tree (FUNCDATA_InlTree, indexed by
 * PCDATA_InlTreeIndex at the pc). From 1.18 its funcdata are offsets from
 * go:func.*, whose address is in the runtime's moduledata (found in
 * .noptrdata by its pointer to the table): a binary where it cannot be
 * found still has its functions named, without their inlines.
 *
 * The SP-delta table (pcsp) of each function, for the collector's Go
 * leaf frames (collector/profile/goleaf.h): gosym_sp_delta().
 *
 * The file is hostile input: every read is bounds-checked against the
 * table or the file, every walk bounded; a malformed table names nothing
 * (or fewer frames), it never crashes.
 */
#ifndef COMMON_GOSYM_H
#define COMMON_GOSYM_H

#include <stddef.h>
#include <stdint.h>

struct gosym;

/*
 * gosym__open - the Go function table of the ELF file open at @fd, read
 * once (the table is copied in memory; @fd is kept to read inline trees,
 * and is the struct's: closed by gosym__free(), or here on failure; a
 * negative @fd is a failure). NULL when the file is no Go binary, cannot
 * be read, its table is malformed, or out of memory.
 */
struct gosym *gosym__open(int fd);
/*
 * gosym__from_table - the table of @len bytes at @tab (copied), its
 * header first, whose link-time address is @va, with no file behind it:
 * functions, files and lines, but no inlined functions (their trees are
 * outside the table). NULL when malformed or out of memory.
 */
struct gosym *gosym__from_table(const void *tab, size_t len, uint64_t va);
/* gosym__free - free it and close its file; accepts NULL. */
void gosym__free(struct gosym *g);

/* The header's magic of @g's table (0xfffffffb, 0xfffffffa, 0xfffffff0, 0xfffffff1). */
uint32_t gosym_magic(const struct gosym *g);

/*
 * A frame: the function's name; the file and line (0 and NULL when the
 * table does not say) of the pc in it. Strings live as long as the
 * struct gosym; their bytes are the binary's (hostile).
 */
struct gosym_frame {
	const char *fn;
	const char *file;
	int32_t line;
};

/*
 * gosym_lookup - the frames at link-time address @va (the ELF's vaddr),
 * innermost first into @out (room for @max >= 1): the functions inlined
 * at @va, then the function the table's entry covering @va is, always
 * last. Inlined frames past @max - 1 are dropped (the innermost kept).
 * Returns the count, 0 when no function covers @va or its table is
 * malformed.
 */
size_t gosym_lookup(struct gosym *g, uint64_t va, struct gosym_frame *out, size_t max);

/* An SP delta past this (bytes) is a malformed table: Go's frames are far smaller. */
#define GOSYM_SP_DELTA_MAX (1 << 24)

/*
 * gosym_sp_delta - how far the stack pointer is below the function's
 * entry at link-time address @va (the table's pcsp, the SP-delta table
 * Go's own tracebacks unwind by) into *@delta, in bytes: the return
 * address to its caller is at SP + *@delta (x86-64: CALL pushed it just
 * above the function's entry SP). 0 for a function with no frame (a leaf
 * that saves no frame pointer) or at its first instruction; -1 when no
 * function covers @va or its table is malformed (a negative delta, one
 * past GOSYM_SP_DELTA_MAX or not a multiple of 8).
 */
int gosym_sp_delta(const struct gosym *g, uint64_t va, int32_t *delta);

/*
 * gosym_file_va - the link-time address of file offset @off through the
 * PT_LOAD segments of a table opened from its file (gosym__open()): 0
 * and *@va, or -1 when no segment holds it (or the table has no file).
 */
int gosym_file_va(const struct gosym *g, uint64_t off, uint64_t *va);

#endif /* COMMON_GOSYM_H */
