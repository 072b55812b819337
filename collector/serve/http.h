/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The tiny HTTP/1.x server of --metrics: GET and HEAD of /metrics (and of
 * /, a page that links to it), nothing else. It never blocks: the
 * collector's loop calls http_turn() after each poll of the BPF buffer,
 * and a turn does what the sockets allow without waiting (non-blocking
 * sockets, poll(2) with a zero timeout). So tracing never waits on a
 * scraper, and a scraper waits at most one loop turn (50 ms in watch mode).
 *
 * Bounds, against hostile or broken clients (docs/metrics.md):
 *   - HTTP_MAX_CLIENTS connections at once; when full, a new one takes the
 *     place of the oldest still sending its request (so idle connections
 *     cannot lock a scraper out), or is closed when all are being answered;
 *   - a request head of HTTP_MAX_REQUEST bytes at most (else 431), read
 *     within HTTP_TIMEOUT_NS of the accept (else closed without a word),
 *     and its answer written within HTTP_TIMEOUT_NS too;
 *   - one request per connection (Connection: close); a body is not read.
 * Answers: 200; 400 (not an HTTP/1.x request line); 404 (another path:
 * "..", "%2e", absolute forms included, nothing is a file here); 405
 * (another method, with Allow: GET, HEAD); 431; 500 (the text would pass
 * its bound); 505 (another HTTP version).
 */
#ifndef COLLECTOR_HTTP_H
#define COLLECTOR_HTTP_H

#include <stddef.h>
#include <sys/socket.h>

#include "collector/serve/metrics.h"

#define HTTP_MAX_CLIENTS 16
#define HTTP_MAX_REQUEST 8192
#define HTTP_TIMEOUT_NS 5000000000ULL

enum http_route { HTTP_ROUTE_METRICS, HTTP_ROUTE_INDEX };

/* A parsed request line. */
struct http_request {
	int head;			/* HEAD (else GET) */
	enum http_route route;
};

/*
 * http_parse - the request whose first @n bytes are @buf: 0 while its head
 * (up to an empty line) is not all there and may still come; else an HTTP
 * status: 200 with *@req filled, or 400, 404, 405, 431 or 505. Pure.
 */
int http_parse(const char *buf, size_t n, struct http_request *req);

/*
 * http_parse_addr - --metrics' [ADDR:]PORT: a bare PORT is 127.0.0.1
 * (loopback only); ADDR is a numeric IPv4 address or [IPv6] (0.0.0.0 or
 * [::] for every address). 0, or -1 when @spec is none of these.
 */
int http_parse_addr(const char *spec, struct sockaddr_storage *ss, socklen_t *len);

/* Writes the text of /metrics into @body: 0, or -1 (then 500). */
typedef int (*http_render_fn)(void *ctx, struct mbuf *body);

struct http_server;

/*
 * http__new - listen on @spec (http_parse_addr(); port 0: the kernel picks
 * one, see http_addr()). NULL with a message in @err (@errn bytes).
 */
struct http_server *http__new(const char *spec, http_render_fn render, void *ctx,
			      char *err, size_t errn);
/* http__free - close every socket; accepts NULL. */
void http__free(struct http_server *h);

/* http_addr - the address listened on, "127.0.0.1:9432" or "[::1]:9432". */
const char *http_addr(const struct http_server *h);

/*
 * http_turn - accept, read, answer and write what can be without waiting,
 * and close the connections past their time (@now: CLOCK_MONOTONIC ns).
 */
void http_turn(struct http_server *h, unsigned long long now);

#endif /* COLLECTOR_HTTP_H */
