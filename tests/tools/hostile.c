// SPDX-License-Identifier: BSD-2-Clause
/*
 * hostile DIR: a process whose comm and file names hold bytes that break
 * naive TSV writers: it sets its comm to "a\tb\nc\\d'e\"" and opens (creating)
 * files in DIR named with tabs, newlines, CR, backslashes, quotes,
 * backquotes, "\N" and invalid UTF-8. It prints each name it used, hex
 * encoded, one a line, so a test can compare.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

static const char *const names[] = {
	"tab\there", "new\nline", "cr\rhere", "back\\slash", "quote\"s'q",
	"`touch pwned`", "\\N", "bad\xff\xfeutf8", "sys$(id)tem",
};

static void hex(const char *s)
{
	for (; *s; s++)
		printf("%02x", (unsigned char)*s);
	printf("\n");
}

int main(int argc, char **argv)
{
	const char *comm = "a\tb\nc\\d'e\"";
	char path[4096];
	size_t i;

	if (argc != 2)
		return 2;
	prctl(PR_SET_NAME, comm);
	printf("comm ");
	hex(comm);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		int fd;

		snprintf(path, sizeof(path), "%s/%s", argv[1], names[i]);
		fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
		if (fd >= 0)
			close(fd);
		printf("path ");
		hex(path);
	}
	return 0;
}
