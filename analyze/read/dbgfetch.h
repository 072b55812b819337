/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dbgfetch: debug files and binaries fetched by build id from the
 * debuginfod servers of DEBUGINFOD_URLS (elfutils' libdebuginfod), for
 * the build ids symbols.h found nowhere on this machine. Debian's server
 * (https://debuginfod.debian.net) serves every -dbgsym package's files
 * and the binaries of the archive's packages.
 *
 * Only when DEBUGINFOD_URLS is set and not empty: otherwise no client is
 * made and nothing is asked (analyze never goes to the network unasked).
 * libdebuginfod keeps what it fetched, and the build ids it did not find,
 * in its cache (DEBUGINFOD_CACHE_PATH, default ~/.cache/debuginfod_client),
 * so a second run asks nothing again; DEBUGINFOD_TIMEOUT and
 * DEBUGINFOD_MAXTIME bound each fetch (libdebuginfod's defaults: 90 s
 * without progress, no limit).
 */
#ifndef ANALYZE_DBGFETCH_H
#define ANALYZE_DBGFETCH_H

#include <stdbool.h>
#include <stdint.h>

struct dbgfetch;

/* dbgfetch__new - a fetcher (no client yet), or NULL when out of memory. */
struct dbgfetch *dbgfetch__new(void);
/* dbgfetch__free - end its client; accepts NULL. */
void dbgfetch__free(struct dbgfetch *d);

/*
 * dbgfetch_get - the path of the debug file (@executable false) or the
 * binary (@executable true) of build id @id (20 bytes, a shorter one
 * padded with zero bytes), in libdebuginfod's cache: malloc'd, the caller
 * frees it. NULL when DEBUGINFOD_URLS is unset or empty, no server has
 * it, or the client cannot be made.
 */
char *dbgfetch_get(struct dbgfetch *d, const uint8_t id[20], bool executable);

#endif /* ANALYZE_DBGFETCH_H */
