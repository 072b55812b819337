/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * html: --plot's index.html, one page that opens from the file: the phase
 * table, the critical-path summary (with a timeline: analysis.tl) and
 * every figure of the run, as <img> of the PNGs beside it.
 *
 * No script and no resource from elsewhere: one inline <style>, images by
 * their bare file names (written by plot.c, never taken from the data),
 * and a Content-Security-Policy that forbids scripts, frames, forms and
 * any fetch but those images. Every string from the trace (phase labels,
 * container names, the critical path's comms and paths) is printed in its
 * TSV-escaped form (no control byte, invalid UTF-8 as \xHH, as text
 * output prints it), then HTML-escaped by html_text().
 */
#ifndef ANALYZE_HTML_H
#define ANALYZE_HTML_H

#include <stddef.h>
#include <stdio.h>

#include "analyze/boot/analysis.h"

struct plot;

/*
 * html_text - write @n bytes at @s as HTML text, fit for element content
 * and quoted attributes: & < > " ' as entities, bytes below 0x20 and 0x7f
 * as &#xHH; (a space would hide them), a byte that does not start valid
 * UTF-8 as U+FFFD. Returns 0, or -1 when writing failed.
 */
int html_text(FILE *f, const char *s, size_t n);

/*
 * html_write - write index.html in plot @p's directory, for analysis @a and
 * the figures whose scripts are @scripts[0..@n) ("base.gp": the page shows
 * base.png). Called by plot_write() after gnuplot ran (or did not: the
 * images appear once the scripts are rendered). Failures are said on the
 * plot's stream and mark the run failed.
 */
/*
 * It also links flame-1.svg .. flame-@nflames.svg, of profile @prof's
 * containers, and offcpu-flame-1.svg .. offcpu-flame-@noff.svg, of
 * off-CPU profile @offcpu's.
 */
struct profile;
void html_write(struct plot *p, const struct analysis *a, char *const *scripts, size_t n,
		const struct profile *prof, size_t nflames, const struct profile *offcpu,
		size_t noff);

#endif /* ANALYZE_HTML_H */
