/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * symbols: the user frames of a profile (frames.h) named, from the ELF
 * files on this machine, with elfutils (libelf for the file, libdw's
 * dwelf_elf_gnu_build_id() for its build id), and from the debuginfod
 * servers of DEBUGINFOD_URLS when it is set (dbgfetch.h), last.
 *
 * A b: frame names its file by GNU build id (20 bytes; a shorter one is
 * padded with zero bytes, and so is a file's when compared). The file is
 * looked for, the first time its build id is asked for, among
 *   1. the candidate paths the caller gives (symbols_add_path(): the paths
 *      the TSV names — exec filenames, opened paths, f: frame paths — then
 *      the binaries of the sampled processes' comms on the usual
 *      directories: boot/profile.c), each
 *      opened once (regular files only: no FIFO or device is read), in the
 *      order given;
 *   2. DIR/.build-id/xx/rest.debug of each --debug-dir DIR, in order (gdb's
 *      layout: xx the first byte in hex, rest the others);
 *   3. /usr/lib/debug/.build-id/xx/rest.debug (unless symbols_no_system());
 *   4. DEBUGINFOD_URLS (unless symbols_no_system()): the binary itself
 *      (its module then named "executable", the cache's file name).
 * A file offset becomes an address through the file's PT_LOAD program
 * headers (an offset in none of them is not resolved), then a function:
 * the STT_FUNC symbol whose [value, value + size) holds it (a symbol of
 * size 0: up to the next one), from .symtab, else the debug file's
 * .symtab (found as in 2 to 4), else, in a Go binary, its pclntab
 * (gosym.h: Go's function table, kept by stripped Go binaries), else
 * .dynsym. A debug file found without
 * its binary names no frame: its program headers do not say where its
 * code was in the binary's file. An f: frame names its file
 * by path, and is resolved the same way. Each file is read once: results
 * are cached by build id and by path.
 *
 * Inlined functions, with libdw, where DWARF says: the file's own
 * .debug_info, else its debug file's (2 and 3, its build id checked).
 * At an address the compiler inlined functions into (the scopes
 * DW_TAG_inlined_subroutine that hold it), each is a frame of its own,
 * innermost first, inside the symbol's function: so an inlined function's
 * time is its own, not its caller's, as perf report's --inline and gdb's
 * backtrace show it. A Go binary named from its pclntab has its inlined
 * functions from its inline tree, as frames the same way. Inlined frames
 * are named as any (no marker): the
 * same function, inlined or called, is one name.
 *
 * Names are the symbols' bytes as in the file (hostile: escape them when
 * printing); no C++ demangling.
 */
#ifndef ANALYZE_SYMBOLS_H
#define ANALYZE_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct symbols;

/* symbols__new - an empty resolver, or NULL when out of memory. */
struct symbols *symbols__new(void);
/* symbols__free - free it and every file's tables; accepts NULL. */
void symbols__free(struct symbols *s);

/*
 * symbols_add_path - @n bytes at @path (raw, any bytes but NUL; a path
 * with a NUL is ignored) are a candidate file for build ids. A path given
 * twice counts once. 0, or -1 out of memory.
 */
int symbols_add_path(struct symbols *s, const char *path, size_t n);
/* symbols_add_debug_dir - search @dir/.build-id too (copied). 0, or -1 out of memory. */
int symbols_add_debug_dir(struct symbols *s, const char *dir);
/* symbols_no_system - do not search /usr/lib/debug (for tests). */
void symbols_no_system(struct symbols *s);

/* At most this many functions inlined at one address are named (the innermost). */
#define SYMBOLS_INLINE_MAX 8

/*
 * A frame resolved: fn[0] .. fn[n - 1], innermost first, the functions
 * inlined at the address (DWARF), then the symbol's function, fn[n - 1];
 * n 0 when none. module: the file's base name. The strings live as long
 * as the struct symbols.
 */
struct symbols_hit {
	const char *fn[SYMBOLS_INLINE_MAX + 1];
	size_t n;
	const char *module;
};

/*
 * symbols_build_id - resolve offset @off of the file of build id @id
 * (20 bytes); @ret: @off is a return address (a caller's frame): the call
 * before it is what ran, looked up at @off - 1. Returns 1: @h has the
 * functions (n >= 1) and the module; 0: the file was found but no
 * function covers @off (n 0, module set); -1: no file has that build id
 * (n 0, module NULL).
 */
int symbols_build_id(struct symbols *s, const uint8_t id[20], uint64_t off, bool ret,
		     struct symbols_hit *h);

/*
 * symbols_path - the same for the file at path @path (@n raw bytes), as
 * an f: frame names it; -1 when it cannot be read as ELF.
 */
int symbols_path(struct symbols *s, const char *path, size_t n, uint64_t off, bool ret,
		 struct symbols_hit *h);

/*
 * symbols_line - the source file (its base name, living as long as @s)
 * and line, from DWARF's line table, of the address the last
 * symbols_build_id() or symbols_path() that returned 1 named (with @ret,
 * the call before the return address): 1, or 0 when DWARF does not say
 * (*@src NULL).
 */
int symbols_line(struct symbols *s, const char **src, int *line);

/*
 * symbols_build_id_path - the path of the file of build id @id (20
 * bytes) that symbols_build_id() found (the binary's, or a debug file's
 * when found alone), or NULL when none was. It lives as long as @s.
 */
const char *symbols_build_id_path(const struct symbols *s, const uint8_t id[20]);

#endif /* ANALYZE_SYMBOLS_H */
