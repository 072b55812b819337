/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * flamegraph: an SVG flame graph of sampled stacks, in the shape Brendan
 * Gregg's flamegraph.pl made known (written anew from its behaviour):
 *   - the stacks are merged into a tree: a node per distinct prefix (the
 *     same stack may come in any order and more than once); a box per
 *     node, its width in proportion to its samples, its children above it
 *     in alphabetical order (strcmp: bytes), the root "all" at the bottom
 *     over the full width; one row of FLAME_ROW_PX per depth, the picture
 *     FLAME_WIDTH_PX wide; a box under a pixel is not drawn (its samples
 *     still count in its parent's width), nor is anything above it
 *     (flamegraph.pl's --minwidth 1): the picture's size and height are
 *     what can be seen;
 *   - the title at the top, under it the total samples and their time;
 *   - each box's tooltip "NAME (N samples, X ms, P%)", and the name in the
 *     box clipped to its width by an estimate of a character's width
 *     (".." where cut; no text element in a box too narrow for 3
 *     characters: the script makes one when a zoom widens it);
 *   - colours from a hash of the name, the same every run: user frames
 *     red to yellow (no orange), kernel frames (names ending in "_[k]")
 *     orange, "[unknown]" grey;
 *   - a small script (ours, no resource from elsewhere: the file opens
 *     offline) for flamegraph.pl's interactions: hover shows a box's
 *     tooltip on the bottom line, click zooms into a box (its ancestors
 *     stay under it, faded; "Reset Zoom" or a click on "all" zooms out),
 *     "Search" highlights the boxes whose name matches a regular
 *     expression and says what share of the samples they cover; the
 *     page opens scrolled to the bottom, the root and the frames nearest
 *     it (a boot's spans) in view. Where scripts do not run (an <img>)
 *     the picture is the same, static.
 *
 * Names and the title are hostile bytes: written as XML text, & < > " '
 * as entities, control bytes as the text \xHH, bytes that are not valid
 * UTF-8 (and U+FFFE, U+FFFF) as U+FFFD, so that the output is well-formed
 * XML 1.0 whatever the input. The script reads names back from the tree
 * and sets them with textContent only, never as markup.
 *
 * Bounded: at most FLAME_MAX_NODES nodes (the root included) and
 * FLAME_MAX_DEPTH frames a stack; the frames of a stack past either bound
 * are merged into the last node it reached (its samples count there),
 * and the graph says so under its title. A name is written to
 * FLAME_MAX_NAME characters at most (".." where cut). Nothing recurses.
 */
#ifndef ANALYZE_FLAMEGRAPH_H
#define ANALYZE_FLAMEGRAPH_H

#include <stdint.h>
#include <stdio.h>

#define FLAME_WIDTH_PX 1200
#define FLAME_ROW_PX 16
#define FLAME_MAX_NODES 100000
#define FLAME_MAX_DEPTH 1024
#define FLAME_MAX_NAME 1024

struct flame_stack {
	const char *const *frames;	/* root first; each a symbol name (hostile bytes, raw, not escaped) */
	size_t nframes;
	uint64_t count;			/* samples */
};

/*
 * flamegraph_write - an SVG flame graph of @n stacks to @f, titled @title
 * (hostile, escaped inside). @unit_ns: the time one sample stands for (for
 * the tooltips' ms). 0, or -1 on a write error (or, errno ENOMEM, out of
 * memory). With no samples at all (n 0, or every count 0) the SVG says
 * "no samples". A NULL frame name is drawn as "[unknown]". The strings are
 * only read during the call.
 */
/*
 * flamegraph_write_unit - the same, a count being one @unit ("samples",
 * "us": an off-CPU profile's microseconds blocked, its boxes blue) in the
 * tooltips and totals.
 */
int flamegraph_write_unit(FILE *f, const char *title, const struct flame_stack *stacks, size_t n,
			  uint64_t unit_ns, const char *unit);
int flamegraph_write(FILE *f, const char *title, const struct flame_stack *stacks, size_t n,
		     uint64_t unit_ns);

#endif /* ANALYZE_FLAMEGRAPH_H */
