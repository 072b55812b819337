/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * plot: --plot DIR, gnuplot data files, one script per figure, the PNGs
 * gnuplot renders from them (pngcairo) and index.html showing them all
 * (html.h).
 *
 * Security: container names, comms, syscall names and mark labels come from
 * traced processes. gnuplot runs system() and `backquotes` and expands
 * @macros in its command lines, and its enhanced text mode interprets
 * ^ _ @ & { } \. So no string from the data goes anywhere gnuplot reads
 * without plot_sanitize(): a whitelist of bytes, everything else becomes
 * '?'. In scripts, sanitized strings go inside single quotes (which the
 * whitelist excludes); in data files inside double quotes (also excluded),
 * and the scripts set "noenhanced". File names never come from the data.
 */
#ifndef ANALYZE_PLOT_H
#define ANALYZE_PLOT_H

#include <stddef.h>
#include <stdio.h>

#include "analyze/boot/analysis.h"

/*
 * The bytes plot_sanitize() keeps; everything else becomes '?'. Brackets
 * are in it for runc's comms (runc:[2:INIT]): gnuplot gives them no
 * meaning inside a string, in a script or a data file.
 */
#define PLOT_SAFE_CHARS \
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 ._:/+=,()[]-"

/*
 * plot_sanitize - copy @n bytes of @in to @out (@outsz > 0 bytes, always
 * NUL-terminated, cut short when it does not fit) keeping only
 * PLOT_SAFE_CHARS. Returns the output length. Cannot fail.
 */
size_t plot_sanitize(const char *in, size_t n, char *out, size_t outsz);

/*
 * plot_write - create @dir (it may exist), write the figures' data and
 * scripts and run gnuplot on them in @dir. Messages on @err. Returns 0, or 1
 * on a failure (gnuplot missing is not one: it says how to render later).
 * With @prof (NULL: none) of an input with profile rows, a flame graph per
 * container too (profile_flame.h), linked from index.html; with @offcpu
 * (an off-CPU profile, NULL: none) of an input with off-CPU stacks, an
 * off-CPU flame graph per container (offcpu-flame-N.svg).
 */
struct profile;
int plot_write(const char *dir, const struct analysis *a, FILE *err, struct profile *prof,
	       struct profile *offcpu);

/*
 * For figures kept in files of their own (bootchart.c), while plot_write()
 * runs: plot_file() creates @name (never from the data) in the directory,
 * plot_file_done() closes it (both say what failed and mark the run
 * failed: NULL / -1); plot_script() opens script @base.gp with the common
 * header (pngcairo @w x @h, noenhanced, @base.png) and queues it for
 * gnuplot; plot_safe() is a data string sanitized and cut to 48 bytes in
 * @buf (PLOT_NAME_BUF bytes).
 */
#define PLOT_NAME_BUF 49
struct plot;
FILE *plot_file(struct plot *p, const char *name);
int plot_file_done(struct plot *p, FILE *f, const char *name);
FILE *plot_script(struct plot *p, const char *base, int w, int h);
const char *plot_safe(const char *s, char *buf);
/* plot_failed - mark the run failed (out of memory in a figure). */
void plot_failed(struct plot *p);
/* plot_err - the stream for the run's messages. */
FILE *plot_err(struct plot *p);

#endif /* ANALYZE_PLOT_H */
