/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dpkg: the Debian package that installed a file, from dpkg's database
 * (the INFODIR/PKG[:ARCH].list files, one path a line, as `dpkg -S`
 * reads them), and the package whose debug symbols would name its code.
 * For --profile's closing lines on the modules left unnamed.
 *
 * A path is looked for as given, as realpath() resolves it, and with
 * Debian 12's merged /usr undone or done (/usr/lib/x/libc.so.6 is
 * listed as /lib/x/libc.so.6: dpkg -S misses it), the first found
 * wins. One pass over the database for all the paths of a call (Debian
 * 12 with 945 packages: 9.6 MB of lists).
 */
#ifndef ANALYZE_DPKG_H
#define ANALYZE_DPKG_H

#include <stddef.h>

/* dpkg's database of installed files. */
#define DPKG_INFO_DIR "/var/lib/dpkg/info"

/*
 * dpkg_owners - for each of the @n @paths (NUL-terminated), its package's
 * name (without :ARCH) into @pkgs[i], malloc'd (the caller frees each), or
 * NULL when no list in @infodir names it. @infodir unreadable: all NULL.
 * 0, or -1 out of memory (the names given so far are the caller's).
 */
int dpkg_owners(const char *infodir, const char *const *paths, size_t n, char **pkgs);

/*
 * dpkg_debug_package - the package of @pkg's debug symbols into @out (@sz
 * bytes): PKG-dbgsym, as Debian's build tools name them (from the
 * debian-debug archive), but glibc's libc6-dbg.
 */
void dpkg_debug_package(const char *pkg, char *out, size_t sz);

#endif /* ANALYZE_DPKG_H */
