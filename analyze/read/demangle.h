/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * demangle: C++ symbol names (the Itanium ABI's, "_ZN11FileMapInfo...")
 * as people read them ("FileMapInfo::relocate_pointers_in_core_regions(
 * long)"), as perf and every profiler shows them, with libstdc++'s
 * __cxa_demangle() (libstdc++.so.6 is on every Debian machine; the
 * prototype is declared here, not from <cxxabi.h>, so analyze stays C).
 *
 * Each distinct name is demangled once: the results are cached by the
 * mangled name, and live as long as the struct demangler. Names come from
 * the traced machine's files (hostile): only a name of at most
 * DEMANGLE_IN_MAX bytes, "_Z" then the characters a mangled name is made
 * of ([A-Za-z0-9_.$]), is given to the demangler (whose recursion on a
 * long crafted name is what it would choke on), and a result longer than
 * DEMANGLE_OUT_MAX bytes (a template's back-references expand) or holding
 * a byte below 0x20 is not used. A name not demangled is kept as it is.
 */
#ifndef ANALYZE_DEMANGLE_H
#define ANALYZE_DEMANGLE_H

#include <stddef.h>

#define DEMANGLE_IN_MAX 1024
#define DEMANGLE_OUT_MAX 4096

struct demangler;

/* demangler__new - an empty cache, or NULL when out of memory. */
struct demangler *demangler__new(void);
/* demangler__free - free it and every name it gave; accepts NULL. */
void demangler__free(struct demangler *d);

/*
 * demangle - @name (NUL-terminated) demangled, or @name itself when it is
 * no C++ name the demangler takes (see above), or when out of memory.
 * The result lives as long as @d (or as @name, when it is @name).
 */
const char *demangle(struct demangler *d, const char *name);

/*
 * demangle_ok - would demangle() give @name (@n bytes) to the demangler:
 * "_Z", then only [A-Za-z0-9_.$], at most DEMANGLE_IN_MAX bytes. Pure.
 */
int demangle_ok(const char *name, size_t n);

#endif /* ANALYZE_DEMANGLE_H */
