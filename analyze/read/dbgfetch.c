// SPDX-License-Identifier: BSD-2-Clause
/* Debug files fetched from DEBUGINFOD_URLS (dbgfetch.h). */
#include <elfutils/debuginfod.h>
#include <stdlib.h>
#include <unistd.h>

#include "analyze/read/dbgfetch.h"

struct dbgfetch {
	debuginfod_client *client;
	bool tried;		/* debuginfod_begin() called (or not wanted) */
};

struct dbgfetch *dbgfetch__new(void)
{
	return calloc(1, sizeof(struct dbgfetch));
}

void dbgfetch__free(struct dbgfetch *d)
{
	if (!d)
		return;
	if (d->client)
		debuginfod_end(d->client);
	free(d);
}

/*
 * The length of build id @id: 20 (SHA-1, GNU ld's default), else 16 (MD5)
 * or 8 (xxhash) when the bytes past them are zero, the padding frames.h's
 * reader adds (a 20-byte id ending in 12 zero bytes is not a real one).
 */
static int id_len(const uint8_t id[20])
{
	int n = 20;

	while (n > 8 && !id[n - 1])
		n--;
	return n <= 8 ? 8 : n <= 16 ? 16 : 20;
}

char *dbgfetch_get(struct dbgfetch *d, const uint8_t id[20], bool executable)
{
	const char *urls;
	char *path = NULL;
	int fd;

	if (!d->tried) {
		d->tried = true;
		urls = getenv(DEBUGINFOD_URLS_ENV_VAR);
		if (urls && *urls)
			d->client = debuginfod_begin();
	}
	if (!d->client)
		return NULL;
	fd = executable ? debuginfod_find_executable(d->client, id, id_len(id), &path)
			: debuginfod_find_debuginfo(d->client, id, id_len(id), &path);
	if (fd < 0) {
		free(path);
		return NULL;
	}
	close(fd);
	return path;
}
