// SPDX-License-Identifier: BSD-2-Clause
/* The tiny HTTP server of --metrics: see http.h. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "collector/serve/http.h"

/* The text of /metrics at most: 64 MiB is some 500,000 series. */
#define BODY_MAX (64u << 20)

static const char index_page[] =
	"<html><head><title>boottrace collector</title></head><body>\n"
	"<h1>boottrace collector</h1>\n"
	"<p><a href=\"/metrics\">Metrics</a></p>\n"
	"</body></html>\n";

struct http_client {
	int fd;				/* -1: a free slot */
	unsigned long long deadline;	/* closed when passed */
	unsigned long long since;	/* accepted */
	size_t len;			/* of req */
	char *out;			/* the answer, once there is one */
	size_t out_len, out_off;
	char req[HTTP_MAX_REQUEST];
};

struct http_server {
	int lfd;
	http_render_fn render;
	void *ctx;
	char addr[INET6_ADDRSTRLEN + 8];
	struct mbuf body;
	struct http_client c[HTTP_MAX_CLIENTS];
};

/* --- parsing (pure) -------------------------------------------------------- */

static int is_tchar(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* The length of the head in @buf (through its empty line), or 0 when it is not all there. */
static size_t head_end(const char *buf, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (buf[i] != '\n')
			continue;
		if (i + 1 < n && buf[i + 1] == '\n')
			return i + 2;
		if (i + 2 < n && buf[i + 1] == '\r' && buf[i + 2] == '\n')
			return i + 3;
	}
	return 0;
}

int http_parse(const char *buf, size_t n, struct http_request *req)
{
	const char *p = buf, *end, *m, *t, *q;
	size_t mlen, tlen;

	if (!head_end(buf, n))
		return n >= HTTP_MAX_REQUEST ? 431 : 0;
	end = memchr(buf, '\n', n);
	if (end > buf && end[-1] == '\r')
		end--;
	/* method SP request-target SP HTTP-version */
	for (m = p; p < end && is_tchar(*p); p++)
		;
	mlen = (size_t)(p - m);
	if (!mlen || p >= end || *p++ != ' ')
		return 400;
	for (t = p; p < end && *p > ' ' && *p != 0x7f; p++)
		;
	tlen = (size_t)(p - t);
	if (!tlen || p >= end || *p++ != ' ')
		return 400;
	if (end - p != 8 || memcmp(p, "HTTP/1.", 7) != 0)
		return (end - p == 8 && memcmp(p, "HTTP/", 5) == 0 && p[5] >= '0' && p[5] <= '9' &&
			p[6] == '.' && p[7] >= '0' && p[7] <= '9') ? 505 : 400;
	if (p[7] != '0' && p[7] != '1')
		return 505;
	if (mlen == 3 && memcmp(m, "GET", 3) == 0)
		req->head = 0;
	else if (mlen == 4 && memcmp(m, "HEAD", 4) == 0)
		req->head = 1;
	else
		return 405;
	/* the path, without a query: nothing here reads one */
	q = memchr(t, '?', tlen);
	if (q)
		tlen = (size_t)(q - t);
	if (tlen == 8 && memcmp(t, "/metrics", 8) == 0)
		req->route = HTTP_ROUTE_METRICS;
	else if (tlen == 1 && t[0] == '/')
		req->route = HTTP_ROUTE_INDEX;
	else
		return 404;
	return 200;
}

int http_parse_addr(const char *spec, struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in *in = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
	const char *colon = strrchr(spec, ':'), *port = colon ? colon + 1 : spec;
	char host[INET6_ADDRSTRLEN + 2], *end;
	unsigned long v;
	size_t hn;

	if (!*port || *port < '0' || *port > '9')
		return -1;
	errno = 0;
	v = strtoul(port, &end, 10);
	if (errno || *end || v > 65535)
		return -1;
	memset(ss, 0, sizeof(*ss));
	if (!colon) {
		in->sin_family = AF_INET;
		in->sin_port = htons((unsigned short)v);
		in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		*len = sizeof(*in);
		return 0;
	}
	hn = (size_t)(colon - spec);
	if (hn >= sizeof(host) || hn == 0)
		return -1;
	memcpy(host, spec, hn);
	host[hn] = '\0';
	if (host[0] == '[') {
		if (hn < 3 || host[hn - 1] != ']')
			return -1;
		host[hn - 1] = '\0';
		if (inet_pton(AF_INET6, host + 1, &in6->sin6_addr) != 1)
			return -1;
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((unsigned short)v);
		*len = sizeof(*in6);
		return 0;
	}
	if (inet_pton(AF_INET, host, &in->sin_addr) != 1)
		return -1;
	in->sin_family = AF_INET;
	in->sin_port = htons((unsigned short)v);
	*len = sizeof(*in);
	return 0;
}

/* --- the server ------------------------------------------------------------ */

struct http_server *http__new(const char *spec, http_render_fn render, void *ctx,
			      char *err, size_t errn)
{
	struct sockaddr_storage ss;
	socklen_t len;
	struct http_server *h;
	char host[INET6_ADDRSTRLEN];
	int one = 1, i;

	if (http_parse_addr(spec, &ss, &len) < 0) {
		snprintf(err, errn, "--metrics: '%s' is no [ADDR:]PORT", spec);
		return NULL;
	}
	h = calloc(1, sizeof(*h));
	if (!h) {
		snprintf(err, errn, "out of memory");
		return NULL;
	}
	for (i = 0; i < HTTP_MAX_CLIENTS; i++)
		h->c[i].fd = -1;
	h->render = render;
	h->ctx = ctx;
	mbuf_init(&h->body, BODY_MAX);
	h->lfd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (h->lfd < 0 ||
	    setsockopt(h->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    (ss.ss_family == AF_INET6 &&
	     setsockopt(h->lfd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) < 0) ||
	    bind(h->lfd, (struct sockaddr *)&ss, len) < 0 ||
	    listen(h->lfd, HTTP_MAX_CLIENTS) < 0 ||
	    getsockname(h->lfd, (struct sockaddr *)&ss, &len) < 0) {
		snprintf(err, errn, "--metrics: cannot listen on %s: %s", spec, strerror(errno));
		if (h->lfd >= 0)
			close(h->lfd);
		free(h);
		return NULL;
	}
	if (ss.ss_family == AF_INET6) {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;

		inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
		snprintf(h->addr, sizeof(h->addr), "[%s]:%u", host, ntohs(in6->sin6_port));
	} else {
		struct sockaddr_in *in = (struct sockaddr_in *)&ss;

		inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
		snprintf(h->addr, sizeof(h->addr), "%s:%u", host, ntohs(in->sin_port));
	}
	return h;
}

static void client_close(struct http_client *c)
{
	char sink[4096];
	int i;

	if (c->fd < 0)
		return;
	/*
	 * What the client sent beyond its head: read (some of it: a flood
	 * cannot hold the loop), so that close sends FIN rather than RST,
	 * which could cut the answer short at the client.
	 */
	for (i = 0; i < 16 && read(c->fd, sink, sizeof(sink)) > 0; i++)
		;
	close(c->fd);
	free(c->out);
	c->fd = -1;
	c->out = NULL;
	c->len = c->out_len = c->out_off = 0;
}

void http__free(struct http_server *h)
{
	int i;

	if (!h)
		return;
	for (i = 0; i < HTTP_MAX_CLIENTS; i++)
		client_close(&h->c[i]);
	close(h->lfd);
	mbuf_release(&h->body);
	free(h);
}

const char *http_addr(const struct http_server *h)
{
	return h->addr;
}

static const char *reason(int status)
{
	switch (status) {
	case 200: return "OK";
	case 400: return "Bad Request";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 431: return "Request Header Fields Too Large";
	case 505: return "HTTP Version Not Supported";
	default: return "Internal Server Error";
	}
}

/* The answer to @status (@req when 200) into c->out, from @now on. */
static void answer(struct http_server *h, struct http_client *c, int status,
		   const struct http_request *req, unsigned long long now)
{
	const char *type = "text/plain; charset=utf-8", *body;
	char head[512], err[64];
	size_t blen;
	int n;

	if (status == 200 && req->route == HTTP_ROUTE_METRICS) {
		h->body.len = 0;
		h->body.err = 0;
		if (h->render(h->ctx, &h->body) < 0 || h->body.err)
			status = 500;
	}
	if (status == 200 && req->route == HTTP_ROUTE_METRICS) {
		type = "text/plain; version=0.0.4; charset=utf-8";
		body = h->body.p ? h->body.p : "";
		blen = h->body.len;
	} else if (status == 200) {
		type = "text/html; charset=utf-8";
		body = index_page;
		blen = sizeof(index_page) - 1;
	} else {
		snprintf(err, sizeof(err), "%d %s\n", status, reason(status));
		body = err;
		blen = strlen(err);
	}
	n = snprintf(head, sizeof(head),
		     "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s"
		     "Connection: close\r\n\r\n",
		     status, reason(status), type, blen,
		     status == 405 ? "Allow: GET, HEAD\r\n" : "");
	if (status == 200 && req->head)
		blen = 0;
	c->out = malloc((size_t)n + blen);
	if (!c->out) {
		client_close(c);
		return;
	}
	memcpy(c->out, head, (size_t)n);
	memcpy(c->out + n, body, blen);
	c->out_len = (size_t)n + blen;
	c->out_off = 0;
	c->deadline = now + HTTP_TIMEOUT_NS;
}

/* Read what there is; answer once the head is in (or cannot be). */
static void client_read(struct http_server *h, struct http_client *c, unsigned long long now)
{
	struct http_request req = { 0 };
	ssize_t r;
	int status;

	while (c->len < sizeof(c->req)) {
		r = read(c->fd, c->req + c->len, sizeof(c->req) - c->len);
		if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) {
			client_close(c);	/* gone before its answer */
			return;
		}
		if (r < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		c->len += (size_t)r;
		status = http_parse(c->req, c->len, &req);
		if (status) {
			answer(h, c, status, &req, now);
			return;
		}
	}
	if (c->len == sizeof(c->req))
		answer(h, c, 431, &req, now);
}

static void client_write(struct http_client *c)
{
	while (c->out_off < c->out_len) {
		ssize_t w = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (w < 0) {
			client_close(c);
			return;
		}
		c->out_off += (size_t)w;
	}
	shutdown(c->fd, SHUT_WR);
	client_close(c);
}

/* A slot for a new connection: a free one, else the oldest still reading, else NULL. */
static struct http_client *slot_for_new(struct http_server *h)
{
	struct http_client *oldest = NULL;
	int i;

	for (i = 0; i < HTTP_MAX_CLIENTS; i++) {
		if (h->c[i].fd < 0)
			return &h->c[i];
		if (!h->c[i].out && (!oldest || h->c[i].since < oldest->since))
			oldest = &h->c[i];
	}
	if (oldest)
		client_close(oldest);
	return oldest;
}

static void accept_new(struct http_server *h, unsigned long long now)
{
	int i, fd;

	/* a bounded number per turn: a flood cannot keep the loop here */
	for (i = 0; i < HTTP_MAX_CLIENTS; i++) {
		struct http_client *c;

		fd = accept4(h->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;
		c = slot_for_new(h);
		if (!c) {
			close(fd);
			continue;
		}
		c->fd = fd;
		c->since = now;
		c->deadline = now + HTTP_TIMEOUT_NS;
		c->len = 0;
		/* the request is often there with the connection */
		client_read(h, c, now);
		if (c->fd >= 0 && c->out)
			client_write(c);
	}
}

void http_turn(struct http_server *h, unsigned long long now)
{
	struct pollfd p[HTTP_MAX_CLIENTS + 1];
	int i, n = 0, at[HTTP_MAX_CLIENTS + 1];

	p[n].fd = h->lfd;
	p[n].events = POLLIN;
	at[n++] = -1;
	for (i = 0; i < HTTP_MAX_CLIENTS; i++) {
		struct http_client *c = &h->c[i];

		if (c->fd < 0)
			continue;
		if (now >= c->deadline) {
			client_close(c);	/* idle, slow or not reading: no answer */
			continue;
		}
		p[n].fd = c->fd;
		p[n].events = c->out ? POLLOUT : POLLIN;
		at[n++] = i;
	}
	if (poll(p, (nfds_t)n, 0) <= 0)
		return;
	for (i = 1; i < n; i++) {
		struct http_client *c = &h->c[at[i]];

		if (!p[i].revents)
			continue;
		if (!c->out)
			client_read(h, c, now);
		if (c->fd >= 0 && c->out)
			client_write(c);
	}
	if (p[0].revents & POLLIN)
		accept_new(h, now);
}
