/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --metrics: the collector as a Prometheus scrape target. Ties the rooms
 * together: boots.c watches the rows as they are written and fills the
 * registry (metrics.c); http.c serves its text from the collector's own
 * loop (loop.c calls c->on_turn after each poll). The metrics, their
 * labels and buckets: docs/metrics.md.
 */
#ifndef COLLECTOR_EXPORTER_H
#define COLLECTOR_EXPORTER_H

struct collector;
struct exporter;

/*
 * exporter_open - with c->opt.metrics: the registry, the row observer on
 * c->out, the listening socket (its address said on stderr), served at
 * each turn of the loop (c->on_turn). Call once
 * the backend and the output are up. 0 (nothing to do without
 * --metrics), or -1 after a message.
 */
int exporter_open(struct collector *c);

/* exporter_free - close the socket and free everything; accepts NULL. */
void exporter_free(struct exporter *e);

#endif /* COLLECTOR_EXPORTER_H */
