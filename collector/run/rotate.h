/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Output for days: the TSV of one run in several files, each complete
 * (version line, metadata, header, rows, trailer with that file's counts),
 * all with the run's `# run_id=` and their `# part=N` (1, 2, ...), so that
 * analyze joins a container whose rows straddle two of them
 * (docs/tsv-format.md). A new file begins:
 *   - on SIGHUP, at the same path (logrotate moved the old one away:
 *     its `create` mode with a postrotate `kill -HUP`, or systemctl reload);
 *   - with --rotate SIZE, once the file has SIZE bytes: it is renamed
 *     FILE.N (N its part) and FILE begins again.
 * Both at a turn of the loop (the file ends at a whole row; it may pass
 * SIZE by what one turn wrote), and only when -o names a regular file.
 * The collector forgets the names of the containers that ended (bounded
 * memory): a name may come back in a later file, as a new boot with a
 * start row there.
 */
#ifndef COLLECTOR_ROTATE_H
#define COLLECTOR_ROTATE_H

#include <signal.h>

struct collector;

/* Set by SIGHUP: a new file at the next turn. */
extern volatile sig_atomic_t rotate_hup;

/* rotate_on_hup - the SIGHUP handler. */
void rotate_on_hup(int sig);

/*
 * rotate_init - the run's id (random, 32 hex digits), part 1, and whether
 * the output (on @fd) is a regular file. 0, or -1 after a message (--rotate
 * on something else). Call before the header is written.
 */
int rotate_init(struct collector *c, int fd);

/* rotate_turn - after a flush: a new file when SIGHUP came or --rotate's size is reached. */
void rotate_turn(struct collector *c);

#endif /* COLLECTOR_ROTATE_H */
