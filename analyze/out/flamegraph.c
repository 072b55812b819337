// SPDX-License-Identifier: BSD-2-Clause
/*
 * SVG flame graphs: see flamegraph.h. Three steps, none recursive:
 *   1. merge: each stack walks down from the root, a node per (parent,
 *      name) found in a hash table or added (past FLAME_MAX_NODES or
 *      FLAME_MAX_DEPTH the walk stops: the rest of the stack is merged
 *      into the node it reached), adding its samples on the way;
 *   2. lay out: the children of each node sorted by name, then a walk in
 *      pre-order with a stack of our own that gives each box its start
 *      (in samples from the left) and drops boxes under MIN_BOX_PX;
 *   3. write the SVG, boxes in that order: the same stacks give the same
 *      bytes whatever their order and repetitions.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/array.h"
#include "analyze/out/flamegraph.h"
#include "common/tsv.h"

#define XPAD 10			/* left and right margins */
#define GRAPH_W (FLAME_WIDTH_PX - 2 * XPAD)
#define TOP_PX 60		/* the title, the totals line, the controls */
#define BOTTOM_PX 30		/* the details line (hover) */
#define FONT_PX 12
#define TITLE_FONT_PX 17
/* an average character's width in Verdana, as a fraction of the font size */
#define CHAR_EM 0.59
/* flamegraph.pl's --minwidth, at a pixel: a Rails boot's 48,000 boxes under
 * it made a 12 MB picture of thin spikes (its default, 0.1 px, draws them) */
#define MIN_BOX_PX 1.0
#define ROOT_NAME "all"

struct node {
	const char *name;	/* NULL: the root */
	uint64_t total;		/* samples here and in every node above */
	uint64_t start;		/* laid out: samples left of the box */
	uint32_t parent;
	uint32_t depth;		/* the root 0 */
	uint32_t kids;		/* its children: kid[kids .. kids + nkids) */
	uint32_t nkids;
};

struct tree {
	struct node *nodes;
	size_t n, cap;
	uint32_t *slots;	/* the (parent, name) hash: node index + 1, 0 free */
	size_t nslots;		/* a power of two, more than twice n */
	bool capped;		/* frames were merged into their parent */
};

/* ---- step 1: merge ---------------------------------------------------- */

static uint64_t hash_name(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;	/* FNV-1a, 64 bits */

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return h;
}

static size_t slot_of(uint32_t parent, uint64_t h, size_t nslots)
{
	h ^= (uint64_t)parent * 0x9e3779b97f4a7c15ULL;
	h ^= h >> 29;
	return (size_t)h & (nslots - 1);
}

/* Double the hash table; -1 out of memory. */
static int rehash(struct tree *t)
{
	size_t ns = t->nslots ? t->nslots * 2 : 1024, i, k;
	uint32_t *s = calloc(ns, sizeof(*s));

	if (!s)
		return -1;
	for (i = 1; i < t->n; i++) {	/* the root is in no slot */
		k = slot_of(t->nodes[i].parent, hash_name(t->nodes[i].name), ns);
		while (s[k])
			k = (k + 1) & (ns - 1);
		s[k] = (uint32_t)i + 1;
	}
	free(t->slots);
	t->slots = s;
	t->nslots = ns;
	return 0;
}

/*
 * The child @name of @parent, added when new: its index; UINT32_MAX when
 * the tree is full (the caller merges into the parent), -1 cast when out
 * of memory (*@oom set).
 */
static uint32_t child(struct tree *t, uint32_t parent, const char *name, bool *oom)
{
	uint64_t h = hash_name(name);
	size_t k;
	uint32_t i;

	for (k = slot_of(parent, h, t->nslots); t->slots[k]; k = (k + 1) & (t->nslots - 1)) {
		i = t->slots[k] - 1;
		if (t->nodes[i].parent == parent && !strcmp(t->nodes[i].name, name))
			return i;
	}
	if (t->n >= FLAME_MAX_NODES)
		return UINT32_MAX;
	if (array_grow((void **)&t->nodes, &t->cap, t->n + 1, sizeof(*t->nodes), 256)) {
		*oom = true;
		return UINT32_MAX;
	}
	i = (uint32_t)t->n++;
	t->nodes[i] = (struct node){ .name = name, .parent = parent,
				     .depth = t->nodes[parent].depth + 1 };
	t->slots[k] = i + 1;
	if (t->n * 2 >= t->nslots && rehash(t)) {
		*oom = true;
		return UINT32_MAX;
	}
	return i;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static int merge(struct tree *t, const struct flame_stack *stacks, size_t n)
{
	size_t s, d;
	bool oom = false;

	if (array_grow((void **)&t->nodes, &t->cap, 1, sizeof(*t->nodes), 256) || rehash(t))
		return -1;
	t->nodes[0] = (struct node){ .name = NULL };
	t->n = 1;
	for (s = 0; s < n; s++) {
		const struct flame_stack *st = &stacks[s];
		uint32_t at = 0, next;

		if (!st->count)
			continue;
		t->nodes[0].total = add_sat(t->nodes[0].total, st->count);
		for (d = 0; st->frames && d < st->nframes; d++) {
			if (d >= FLAME_MAX_DEPTH) {
				t->capped = true;
				break;
			}
			next = child(t, at, st->frames[d] ? st->frames[d] : "[unknown]", &oom);
			if (oom)
				return -1;
			if (next == UINT32_MAX) {
				t->capped = true;
				break;
			}
			at = next;
			t->nodes[at].total = add_sat(t->nodes[at].total, st->count);
		}
	}
	return 0;
}

/* ---- step 2: lay out -------------------------------------------------- */

struct kid {
	uint32_t parent;
	uint32_t node;
	const char *name;
};

static int cmp_kid(const void *x, const void *y)
{
	const struct kid *a = x, *b = y;

	if (a->parent != b->parent)
		return a->parent < b->parent ? -1 : 1;
	return strcmp(a->name, b->name);	/* siblings' names differ */
}

/*
 * Sort every node's children into @kid (n - 1 of them), then walk the
 * tree: @order gets the boxes to draw, parents before children, siblings
 * left to right; *@maxdepth the deepest of them. Returns how many, or -1
 * out of memory.
 */
static long lay_out(struct tree *t, uint32_t *order, uint32_t *maxdepth)
{
	struct node *nd = t->nodes;
	struct kid *kid = malloc((t->n > 1 ? t->n - 1 : 1) * sizeof(*kid));
	uint32_t *todo = malloc(t->n * sizeof(*todo));
	size_t i, ntodo = 0, norder = 0;
	double scale = GRAPH_W / (double)nd[0].total;

	if (!kid || !todo) {
		free(kid);
		free(todo);
		return -1;
	}
	for (i = 1; i < t->n; i++)
		kid[i - 1] = (struct kid){ .parent = nd[i].parent, .node = (uint32_t)i,
					   .name = nd[i].name };
	qsort(kid, t->n - 1, sizeof(*kid), cmp_kid);
	for (i = 0; i < t->n - 1; i++) {
		struct node *p = &nd[kid[i].parent];

		if (!p->nkids)
			p->kids = (uint32_t)i;
		p->nkids++;
	}
	*maxdepth = 0;
	nd[0].start = 0;
	todo[ntodo++] = 0;
	while (ntodo) {
		struct node *v = &nd[todo[--ntodo]];
		uint64_t at = v->start, end = add_sat(v->start, v->total);
		uint32_t k;

		if ((double)v->total * scale < MIN_BOX_PX)
			continue;	/* nor anything above it: narrower still */
		order[norder++] = (uint32_t)(v - nd);
		if (v->depth > *maxdepth)
			*maxdepth = v->depth;
		for (k = 0; k < v->nkids; k++) {
			struct node *c = &nd[kid[v->kids + k].node];

			/* saturated counts only: a child is never wider than its parent */
			if (c->total > end - at)
				c->total = end - at;
			c->start = at;
			at += c->total;
		}
		for (k = v->nkids; k-- > 0;)	/* each node is pushed once: n is room enough */
			todo[ntodo++] = kid[v->kids + k].node;
	}
	free(kid);
	free(todo);
	return (long)norder;
}

/* ---- step 3: write ---------------------------------------------------- */

enum unit_kind { U_PLAIN, U_ENTITY, U_CTRL, U_BAD };

/*
 * The next character of @s as we write it: its bytes (returned), its kind
 * and its width in characters (*@w): "\xHH" for a control byte, U+FFFD
 * for what XML 1.0 cannot hold.
 */
static size_t unit_at(const char *s, enum unit_kind *kind, size_t *w)
{
	unsigned char c = (unsigned char)s[0];
	size_t len;

	*w = 1;
	if (c < 0x20 || c == 0x7f) {
		*kind = U_CTRL;
		*w = 4;
		return 1;
	}
	if (c < 0x80) {
		*kind = strchr("&<>\"'", c) ? U_ENTITY : U_PLAIN;
		return 1;
	}
	len = tsv_utf8_seq_len((const unsigned char *)s, strnlen(s, 4));
	if (!len) {
		*kind = U_BAD;
		return 1;
	}
	/* U+FFFE and U+FFFF are valid UTF-8 but not XML 1.0 characters */
	*kind = len == 3 && c == 0xef && (unsigned char)s[1] == 0xbf &&
		(unsigned char)s[2] >= 0xbe ? U_BAD : U_PLAIN;
	return len;
}

static void put_unit(FILE *f, const char *s, size_t len, enum unit_kind kind)
{
	switch (kind) {
	case U_PLAIN:
		fwrite(s, 1, len, f);
		break;
	case U_ENTITY:
		fputs(*s == '&' ? "&amp;" : *s == '<' ? "&lt;" : *s == '>' ? "&gt;" :
		      *s == '"' ? "&quot;" : "&apos;", f);
		break;
	case U_CTRL:
		fprintf(f, "\\x%02x", (unsigned char)*s);
		break;
	case U_BAD:
		fputs("\xef\xbf\xbd", f);	/* U+FFFD */
		break;
	}
}

/* The width of @s in characters, counted up to @limit + 1 at most. */
static size_t text_width(const char *s, size_t limit)
{
	size_t w = 0, uw;
	enum unit_kind kind;

	while (*s && w <= limit) {
		s += unit_at(s, &kind, &uw);
		w += uw;
	}
	return w;
}

/*
 * Write @s escaped, fit for XML text and quoted attributes, @maxw
 * characters at most: when longer, as many as fit in @maxw - 2, then "..".
 */
static void put_text(FILE *f, const char *s, size_t maxw)
{
	bool cut = text_width(s, maxw) > maxw;
	size_t room = cut ? (maxw >= 2 ? maxw - 2 : 0) : SIZE_MAX, len, uw;
	enum unit_kind kind;

	while (*s) {
		len = unit_at(s, &kind, &uw);
		if (uw > room)
			break;
		room -= uw;
		put_unit(f, s, len, kind);
		s += len;
	}
	if (cut)
		fputs("..", f);
}

/* A box's fill: see flamegraph.h. */
/*
 * @name's box colour: hot (red, yellow; the kernel's orange) for CPU time,
 * @cold (blue; the kernel's lighter) for off-CPU time, as flamegraph.pl's
 * --colors=io.
 */
static void put_colour(FILE *f, const char *name, bool cold)
{
	uint64_t h = hash_name(name);
	double v1 = (double)(h & 0xffff) / 65535, v2 = (double)((h >> 16) & 0xffff) / 65535;
	double v3 = (double)((h >> 32) & 0xffff) / 65535;
	size_t len = strlen(name);
	int r, g, b;

	if (!strncmp(name, "[unknown]", 9)) {
		r = g = b = 170 + (int)(20 * v1);
	} else if (cold) {
		bool k = len >= 4 && !strcmp(name + len - 4, "_[k]");

		r = (k ? 120 : 60) + (int)(50 * v1);
		g = (k ? 150 : 90) + (int)(50 * v2);
		b = 200 + (int)(55 * v3);
	} else if (len >= 4 && !strcmp(name + len - 4, "_[k]")) {
		r = 240 + (int)(15 * v3);		/* orange */
		g = 128 + (int)(32 * v1);
		b = (int)(30 * v2);
	} else {
		/* red (g under 60) or yellow (g 185 up): orange is the kernel's */
		r = 205 + (int)(50 * v3);
		g = v1 < 0.5 ? (int)(120 * v1) : 185 + (int)(90 * (v1 - 0.5));
		b = (int)(55 * v2);
	}
	fprintf(f, "rgb(%d,%d,%d)", r, g, b);
}

/* @samples of @unit_ns each in ms, 2 decimals; in long double: no overflow. */
static void put_ms(FILE *f, uint64_t samples, uint64_t unit_ns)
{
	fprintf(f, "%.2Lf ms", (long double)samples * unit_ns / 1e6L);
}

/*
 * The script: hover, zoom, search (flamegraph.h). Boxes are
 * <g class="f"><title>NAME (...)</title><rect/><text/></g>; the name is the
 * title up to its last " (", and goes back to the page by textContent only.
 */
static const char script[] =
"<script type=\"text/ecmascript\"><![CDATA[\n"
"\"use strict\";\n"
"var W = %d, XPAD = %d, CW = %g, frames = [], zoomed = null;\n"
"var E = 0.03; /* x and widths are rounded to 0.01 px */\n"
"function $(id) { return document.getElementById(id); }\n"
"function fname(g) {\n"
"  var t = g.firstElementChild.textContent;\n"
"  return t.slice(0, t.lastIndexOf(' ('));\n"
"}\n"
"function fit(f, w) {\n"
"  var n = Math.floor((w - 3) / CW), c = Array.from(f.name); /* code points */\n"
"  f.text.textContent = n < 3 ? '' : c.length <= n ? f.name : c.slice(0, n - 2).join('') + '..';\n"
"}\n"
"function place(f, x, w, cls) {\n"
"  if (!f.text) {\n"
"    f.text = f.g.appendChild(document.createElementNS('http://www.w3.org/2000/svg', 'text'));\n"
"    f.text.setAttribute('y', (f.y + 11.5).toFixed(1));\n"
"  }\n"
"  f.rect.setAttribute('x', x.toFixed(2)); f.rect.setAttribute('width', w.toFixed(2));\n"
"  f.text.setAttribute('x', (x + 3).toFixed(2)); fit(f, w);\n"
"  f.g.setAttribute('class', cls);\n"
"}\n"
"function zoom(z) {\n"
"  zoomed = z === frames[0] ? null : z;\n"
"  $('unzoom').setAttribute('class', zoomed ? 'ctl' : 'ctl hidden');\n"
"  frames.forEach(function (f) {\n"
"    if (!zoomed) { place(f, f.x, f.w, 'f'); return; }\n"
"    var inside = f.x >= z.x - E && f.x + f.w <= z.x + z.w + E;\n"
"    var under = f.x <= z.x + E && f.x + f.w >= z.x + z.w - E;\n"
"    if (f.y < z.y && inside) place(f, XPAD + (f.x - z.x) * W / z.w, f.w * W / z.w, 'f');\n"
"    else if (f.y >= z.y && under) place(f, XPAD, W, f === z ? 'f' : 'f parent');\n"
"    else f.g.setAttribute('class', 'f hidden');\n"
"  });\n"
"}\n"
"function search() {\n"
"  var re = null, q, spans = [], total = 0, end = -1;\n"
"  if ($('search').getAttribute('class') === 'ctl') {\n"
"    q = prompt('Search (a regular expression)', '');\n"
"    if (!q) return;\n"
"    try { re = new RegExp(q); } catch (e) { alert(e.message); return; }\n"
"  }\n"
"  frames.forEach(function (f) {\n"
"    var hit = re && re.test(f.name);\n"
"    f.rect.setAttribute('fill', hit ? 'rgb(230,0,230)' : f.fill);\n"
"    if (hit) spans.push([f.x, f.x + f.w]);\n"
"  });\n"
"  spans.sort(function (a, b) { return a[0] - b[0] || b[1] - a[1]; });\n"
"  spans.forEach(function (s) {\n"
"    if (s[0] >= end) { total += s[1] - s[0]; end = s[1]; }\n"
"    else if (s[1] > end) { total += s[1] - end; end = s[1]; }\n"
"  });\n"
"  $('search').setAttribute('class', re ? 'ctl on' : 'ctl');\n"
"  $('matched').textContent = re ? 'Matched: ' + (100 * total / W).toFixed(1) + '%%' : '';\n"
"}\n"
"window.addEventListener('load', function () {\n"
"  /* the root and the spans above it at the bottom: in view, whatever the height */\n"
"  window.scrollTo(0, document.documentElement.scrollHeight);\n"
"  Array.prototype.forEach.call(document.querySelectorAll('g.f'), function (g) {\n"
"    var r = g.querySelector('rect'), t = g.querySelector('text');\n"
"    frames.push({ g: g, rect: r, text: t, name: fname(g), fill: r.getAttribute('fill'),\n"
"      x: +r.getAttribute('x'), w: +r.getAttribute('width'), y: +r.getAttribute('y') });\n"
"  });\n"
"  document.addEventListener('mouseover', function (e) {\n"
"    var g = e.target.closest && e.target.closest('g.f');\n"
"    $('details').textContent = g ? g.firstElementChild.textContent : ' ';\n"
"  });\n"
"  document.addEventListener('click', function (e) {\n"
"    var g = e.target.closest && e.target.closest('g.f, #unzoom, #search');\n"
"    if (!g) return;\n"
"    if (g.id === 'unzoom') zoom(frames[0]);\n"
"    else if (g.id === 'search') search();\n"
"    else frames.some(function (f) { if (f.g === g) { zoom(f); return true; } });\n"
"  });\n"
"});\n"
"]]></script>\n";

static const char style[] =
"<style type=\"text/css\">\n"
"text { font-family: Verdana, sans-serif; font-size: %dpx; fill: #000; }\n"
"#title { font-size: %dpx; }\n"
"#totals, #details, #matched { fill: #333; }\n"
".ctl { cursor: pointer; fill: #555; } .ctl.on { fill: rgb(230,0,230); }\n"
".hidden { display: none; }\n"
".parent rect { fill-opacity: 0.5; } .parent text { fill-opacity: 0.6; }\n"
"g.f { cursor: pointer; } g.f:hover rect { stroke: #000; stroke-width: 0.5; }\n"
"g.f rect { rx: 2px; ry: 2px; }\n"
"g.f text { pointer-events: none; }\n"
"</style>\n";

static void put_box(FILE *f, const struct node *v, uint64_t total, int height,
		    uint64_t unit_ns, const char *unit)
{
	const char *name = v->name ? v->name : ROOT_NAME;
	double x = XPAD + (double)v->start * GRAPH_W / (double)total;
	double w = (double)v->total * GRAPH_W / (double)total;
	int y = height - BOTTOM_PX - (int)(v->depth + 1) * FLAME_ROW_PX;
	double chars = (w - 3) / (FONT_PX * CHAR_EM);

	fputs("<g class=\"f\"><title>", f);
	put_text(f, name, FLAME_MAX_NAME);
	fprintf(f, " (%" PRIu64 " %s, ", v->total, unit);
	put_ms(f, v->total, unit_ns);
	/* (the rounded corners in the style: 14 bytes a box) */
	fprintf(f, ", %.2f%%)</title><rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" "
		"fill=\"", 100.0 * (double)v->total / (double)total, x, y, w, FLAME_ROW_PX - 1);
	put_colour(f, name, !strcmp(unit, "us"));
	fputs("\"/>", f);
	/* no text in a box too narrow for it: the script makes one when it zooms
	 * (most boxes of a big graph are narrow: 40 bytes each) */
	if (chars >= 3) {
		fprintf(f, "<text x=\"%.2f\" y=\"%.1f\">", x + 3, y + 11.5);
		put_text(f, name, chars > FLAME_MAX_NAME ? FLAME_MAX_NAME : (size_t)chars);
		fputs("</text>", f);
	}
	fputs("</g>\n", f);
}

int flamegraph_write(FILE *f, const char *title, const struct flame_stack *stacks, size_t n,
		     uint64_t unit_ns)
{
	return flamegraph_write_unit(f, title, stacks, n, unit_ns, "samples");
}

int flamegraph_write_unit(FILE *f, const char *title, const struct flame_stack *stacks, size_t n,
			  uint64_t unit_ns, const char *unit)
{
	struct tree t = { 0 };
	uint32_t *order = NULL, maxdepth = 0, i;
	long norder = 0;
	uint64_t total;
	int height, rc = -1;
	/* the title in its font, a little narrower than the picture */
	size_t title_chars = (size_t)(GRAPH_W / (TITLE_FONT_PX * CHAR_EM)) - 4;

	if (!title)
		title = "";
	if (!stacks)
		n = 0;
	if (merge(&t, stacks, n))
		goto oom;
	total = t.nodes[0].total;
	if (total) {
		order = malloc(t.n * sizeof(*order));
		if (!order || (norder = lay_out(&t, order, &maxdepth)) < 0)
			goto oom;
	}
	height = TOP_PX + (int)(maxdepth + 1) * FLAME_ROW_PX + BOTTOM_PX;

	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\">\n<title>", FLAME_WIDTH_PX, height,
		FLAME_WIDTH_PX, height);
	put_text(f, title, FLAME_MAX_NAME);
	fputs("</title>\n<defs><linearGradient id=\"background\" x1=\"0\" y1=\"0\" x2=\"0\" "
	      "y2=\"1\"><stop stop-color=\"#eeeeee\" offset=\"5%\"/><stop stop-color=\"#eeeeb0\" "
	      "offset=\"95%\"/></linearGradient></defs>\n", f);
	fprintf(f, style, FONT_PX, TITLE_FONT_PX);
	if (total)
		fprintf(f, script, GRAPH_W, XPAD, FONT_PX * CHAR_EM);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"url(#background)\"/>\n",
		FLAME_WIDTH_PX, height);
	fprintf(f, "<text id=\"title\" x=\"%d\" y=\"24\" text-anchor=\"middle\">",
		FLAME_WIDTH_PX / 2);
	put_text(f, title, title_chars);
	fprintf(f, "</text>\n<text id=\"totals\" x=\"%d\" y=\"44\" text-anchor=\"middle\">",
		FLAME_WIDTH_PX / 2);
	if (total) {
		fprintf(f, "%" PRIu64 " %s, ", total, unit);
		put_ms(f, total, unit_ns);
		if (t.capped)
			fprintf(f, " (over %d nodes or %d frames deep: the rest merged into "
				"their parents)", FLAME_MAX_NODES, FLAME_MAX_DEPTH);
	} else {
		fprintf(f, "no %s", unit);
	}
	fputs("</text>\n", f);
	if (total) {
		fprintf(f, "<text id=\"unzoom\" class=\"ctl hidden\" x=\"%d\" y=\"24\">Reset Zoom"
			"</text>\n<text id=\"search\" class=\"ctl\" x=\"%d\" y=\"24\" "
			"text-anchor=\"end\">Search</text>\n", XPAD, FLAME_WIDTH_PX - XPAD);
		fprintf(f, "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n<text id=\"matched\" "
			"x=\"%d\" y=\"%d\" text-anchor=\"end\"></text>\n", XPAD, height - 10,
			FLAME_WIDTH_PX - XPAD, height - 10);
	}
	fputs("<g id=\"frames\">\n", f);
	for (i = 0; i < (uint32_t)norder; i++)
		put_box(f, &t.nodes[order[i]], total, height, unit_ns, unit);
	fputs("</g>\n</svg>\n", f);
	rc = fflush(f) || ferror(f) ? -1 : 0;
	goto out;
oom:
	errno = ENOMEM;
out:
	free(order);
	free(t.nodes);
	free(t.slots);
	return rc;
}
