// SPDX-License-Identifier: BSD-2-Clause
/* A run's TSV in several files: see rotate.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "collector/collector.h"
#include "collector/run/rotate.h"
#include "collector/profile/offstacks.h"
#include "collector/profile/samples.h"

volatile sig_atomic_t rotate_hup;

void rotate_on_hup(int sig)
{
	(void)sig;
	rotate_hup = 1;
}

int rotate_init(struct collector *c, int fd)
{
	unsigned char id[16];
	struct stat st;
	size_t i;

	if (getrandom(id, sizeof(id), GRND_NONBLOCK) != (ssize_t)sizeof(id)) {
		/* no entropy yet (early boot): unique enough on this host */
		unsigned long long t = (unsigned long long)time(NULL) ^ ((unsigned long long)getpid() << 32);

		for (i = 0; i < sizeof(id); i++)
			id[i] = (unsigned char)(t >> (8 * (i % 8))) ^ (unsigned char)(c->started_ns >> (8 * (i % 8)));
	}
	for (i = 0; i < sizeof(id); i++)
		snprintf(c->run_id + 2 * i, 3, "%02x", id[i]);
	c->part = 1;
	c->output_file = !c->stdout_is_tsv && fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
	if (c->opt.rotate_bytes && !c->output_file) {
		fprintf(stderr, "collector: --rotate: %s is not a regular file\n",
			c->opt.output ? c->opt.output : "stdout");
		return -1;
	}
	return 0;
}

/*
 * The rows so far end this file (its trailer); the next go to a new one at
 * the same path. @moved: the old file was moved away already (SIGHUP);
 * else it is renamed FILE.<part>. On failure, said, the rows go on in the
 * old file (--rotate is turned off: it would fail again each turn).
 */
static void next_file(struct collector *c, int moved)
{
	const char *path = c->opt.output;
	unsigned long long lost = c->be->ops->lost(c->be);
	char old[PATH_MAX + 16];
	int fd, err;

	snprintf(old, sizeof(old), "%s.%u", path, c->part);
	if (!moved && rename(path, old) < 0) {
		fprintf(stderr, "collector: --rotate: cannot rename %s to %s: %s; rotation off\n", path,
			old, strerror(errno));
		c->opt.rotate_bytes = 0;
		return;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		fprintf(stderr, "collector: cannot open %s: %s; the rows go on in the old file\n", path,
			strerror(errno));
		if (!moved && rename(old, path) < 0)
			fprintf(stderr, "collector: cannot rename %s back to %s: %s\n", old, path,
				strerror(errno));
		c->opt.rotate_bytes = 0;
		return;
	}
	output_trailer(c->out, lost - c->lost_base);
	output_flush(c->out);
	if ((err = output_next_file(c->out, fd)) < 0) {
		fprintf(stderr, "collector: cannot go on in %s: %s\n", path, strerror(-err));
		return;
	}
	c->part++;
	c->lost_base = lost;
	/* the names of the containers that ended may be given again (rotate.h) */
	containers_forget_names(&c->containers);
	samples_new_file(c->samples);	/* a file is complete: its stacks in it */
	if (c->offstacks)	/* their ids were the last file's */
		memset(c->offstacks, 0, sizeof(*c->offstacks));
	records_write_header(c);
	if (c->opt.verbose)
		fprintf(stderr, "collector: %s: part %u of run %s\n", path, c->part, c->run_id);
}

void rotate_turn(struct collector *c)
{
	if (rotate_hup) {
		rotate_hup = 0;
		if (c->output_file)
			next_file(c, 1);
	} else if (c->opt.rotate_bytes && c->out->bytes >= c->opt.rotate_bytes) {
		next_file(c, 0);
	}
}
