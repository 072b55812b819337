// SPDX-License-Identifier: BSD-2-Clause
/* --otlp-endpoint's POST over a plain socket: see otlp_http.h. */
#include <errno.h>
#include <netdb.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "analyze/out/otlp_http.h"

#define TIMEOUT_S 10
/* The answer kept: an OTLP answer is an empty or tiny ExportTraceServiceResponse. */
#define ANSWER_MAX 8192

int otlp_url_parse(const char *s, struct otlp_url *u, char *why, size_t n)
{
	const char *h, *hend, *p, *port = NULL;
	size_t hl;

	memset(u, 0, sizeof(*u));
	u->text = s;
	if (strncasecmp(s, "https://", 8) == 0) {
		snprintf(why, n, "https is not supported (no TLS in analyze): send to an "
			 "OpenTelemetry collector's otlp receiver on http://127.0.0.1:4318 "
			 "that exports over TLS");
		return -1;
	}
	if (strncasecmp(s, "http://", 7) != 0) {
		snprintf(why, n, "not an http:// URL");
		return -1;
	}
	h = s + 7;
	p = h + strcspn(h, "/?#");
	if (*h == '[') {		/* [v6]:port */
		hend = strchr(h, ']');
		if (!hend || hend > p) {
			snprintf(why, n, "bad IPv6 address");
			return -1;
		}
		h++;
		port = hend[1] == ':' ? hend + 2 : NULL;
		if (hend[1] && hend[1] != ':' && hend + 1 != p) {
			snprintf(why, n, "bad IPv6 address");
			return -1;
		}
	} else {
		hend = memchr(h, ':', (size_t)(p - h));
		if (hend)
			port = hend + 1;
		else
			hend = p;
	}
	hl = (size_t)(hend - h);
	if (!hl || hl >= sizeof(u->host)) {
		snprintf(why, n, hl ? "host name too long" : "no host");
		return -1;
	}
	memcpy(u->host, h, hl);
	if (port) {
		size_t pl = (size_t)(p - port);
		long v;
		char *end;

		if (!pl || pl >= sizeof(u->port) || strspn(port, "0123456789") != pl) {
			snprintf(why, n, "bad port");
			return -1;
		}
		memcpy(u->port, port, pl);
		v = strtol(u->port, &end, 10);
		if (v < 1 || v > 65535) {
			snprintf(why, n, "bad port");
			return -1;
		}
	} else {
		strcpy(u->port, "80");
	}
	if (*p != '/' && *p) {
		snprintf(why, n, "bad URL");
		return -1;
	}
	if (!*p || strcmp(p, "/") == 0)
		p = "/v1/traces";
	if (strlen(p) >= sizeof(u->path) || strpbrk(p, " \r\n\t")) {
		snprintf(why, n, "bad path");
		return -1;
	}
	strcpy(u->path, p);
	return 0;
}

static int connect_to(const struct otlp_url *u, char *why, size_t n)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	struct timeval tv = { .tv_sec = TIMEOUT_S };
	struct addrinfo *res, *ai;
	int fd = -1, rc, e = 0;

	rc = getaddrinfo(u->host, u->port, &hints, &res);
	if (rc) {
		snprintf(why, n, "cannot resolve %s: %s", u->host, gai_strerror(rc));
		return -1;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		if (fd < 0) {
			e = errno;
			continue;
		}
		/* SO_SNDTIMEO bounds connect() too on Linux (socket(7)) */
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		e = errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		snprintf(why, n, "cannot connect to %s port %s: %s", u->host, u->port,
			 strerror(e == EINPROGRESS ? ETIMEDOUT : e));
	return fd;
}

static int send_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t w = send(fd, p, len, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

/* Has @a (@n bytes) the whole answer: headers, and its Content-Length or last chunk? */
static bool answer_complete(const char *a, size_t n)
{
	const char *end = memmem(a, n, "\r\n\r\n", 4), *cl;
	size_t head;

	if (!end)
		return false;
	head = (size_t)(end - a) + 4;
	for (cl = a; (cl = memmem(cl, head - (size_t)(cl - a), "\r\n", 2)); cl += 2) {
		if (strncasecmp(cl + 2, "content-length:", 15) == 0)
			return n - head >= strtoul(cl + 17, NULL, 10);
		if (strncasecmp(cl + 2, "transfer-encoding:", 18) == 0 &&
		    memmem(cl, head - (size_t)(cl - a), "chunked", 7))
			return n >= 5 && memcmp(a + n - 5, "0\r\n\r\n", 5) == 0;
	}
	return false;	/* until the server closes */
}

/* The status line and the start of the body, printable ASCII only, in @why. */
static void describe(const char *a, size_t n, char *why, size_t wn)
{
	const char *eol = memmem(a, n, "\r\n", 2), *body = memmem(a, n, "\r\n\r\n", 4);
	size_t i, k = 0, sl = eol ? (size_t)(eol - a) : n;
	char txt[200];

	if (body) {
		for (body += 4, i = 0; body + i < a + n && k < sizeof(txt) - 1; i++) {
			unsigned char c = (unsigned char)body[i];

			txt[k++] = c >= 0x20 && c < 0x7f ? (char)c : ' ';
		}
	}
	txt[k] = '\0';
	if (sl > 100)
		sl = 100;
	for (i = 0; i < sl; i++)
		if ((unsigned char)a[i] < 0x20 || (unsigned char)a[i] >= 0x7f)
			break;
	snprintf(why, wn, "%.*s%s%s", (int)i, a, k ? ": " : "", txt);
}

int otlp_http_post(const struct otlp_url *u, const char *body, size_t len, char *why, size_t n)
{
	char head[1600], *ans = malloc(ANSWER_MAX);
	size_t got = 0;
	int fd, hl, status = 0, rc = -1;

	if (!ans) {
		snprintf(why, n, "out of memory");
		return -1;
	}
	fd = connect_to(u, why, n);
	if (fd < 0)
		goto out;
	hl = snprintf(head, sizeof(head),
		      "POST %s HTTP/1.1\r\nHost: %s%s%s:%s\r\n"
		      "User-Agent: boottrace-analyze/" BOOTTRACE_VERSION "\r\n"
		      "Content-Type: application/json\r\nContent-Length: %zu\r\n"
		      "Connection: close\r\n\r\n",
		      u->path, strchr(u->host, ':') ? "[" : "", u->host,
		      strchr(u->host, ':') ? "]" : "", u->port, len);
	if (send_all(fd, head, (size_t)hl) < 0 || send_all(fd, body, len) < 0) {
		snprintf(why, n, "cannot send to %s: %s", u->text,
			 errno == EAGAIN ? "timed out" : strerror(errno));
		goto out;
	}
	while (got < ANSWER_MAX && !answer_complete(ans, got)) {
		ssize_t r = recv(fd, ans + got, ANSWER_MAX - got, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			snprintf(why, n, "no answer from %s: %s", u->text,
				 errno == EAGAIN ? "timed out" : strerror(errno));
			goto out;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	if (got < 12 || memcmp(ans, "HTTP/1.", 7) != 0 || sscanf(ans + 9, "%3d", &status) != 1) {
		snprintf(why, n, "no HTTP answer from %s", u->text);
		goto out;
	}
	if (status < 200 || status > 299) {
		describe(ans, got, why, n);
		goto out;
	}
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	free(ans);
	return rc;
}
