/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * otlp_http: --otlp-endpoint's HTTP/1.1 POST, over a plain TCP socket.
 *
 * http:// only: analyze links no TLS library. For https, or a receiver
 * that speaks gRPC only, run an OpenTelemetry collector on this host with
 * an otlp receiver on http://127.0.0.1:4318 and an exporter to the far
 * end; it also retries and batches, which this client does not.
 *
 * An endpoint without a path (http://host:4318 or http://host:4318/) is
 * a base URL: requests go to /v1/traces, as OTEL_EXPORTER_OTLP_ENDPOINT
 * means; a path given is used as it is (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT).
 * The port defaults to 80. Each request is its own connection
 * (Connection: close), with Content-Type: application/json; any 2xx is
 * success. Connect, send and each read time out after 10 s.
 */
#ifndef ANALYZE_OTLP_HTTP_H
#define ANALYZE_OTLP_HTTP_H

#include <stddef.h>

struct otlp_url {
	char host[256];		/* a name, an IPv4 address, or an IPv6 one without [] */
	char port[8];
	char path[1024];
	const char *text;	/* the URL as given, for messages */
};

/*
 * otlp_url_parse - parse @s into @u (@u->text = @s). 0, or -1 with a
 * reason in @why (@n bytes): not http://, no host, a bad port, too long.
 */
int otlp_url_parse(const char *s, struct otlp_url *u, char *why, size_t n);

/*
 * otlp_http_post - POST @len bytes at @body to @u. 0 on a 2xx answer;
 * -1 otherwise, with the reason in @why (@n bytes): the address did not
 * resolve, the connection or a write failed or timed out, no HTTP answer,
 * or the status line and the start of the answer's body (printable
 * bytes only).
 */
int otlp_http_post(const struct otlp_url *u, const char *body, size_t len, char *why, size_t n);

#endif /* ANALYZE_OTLP_HTTP_H */
