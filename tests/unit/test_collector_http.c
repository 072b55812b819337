// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: collector/serve/http.c's parsing, pure: which requests are answered
 * and with what status (GET and HEAD of /metrics and /, a query ignored;
 * 404 for any other path, ".." and encodings included; 405, 400, 431,
 * 505), when a head is not all there yet, and --metrics' [ADDR:]PORT.
 * The server itself is tested live by tests/integration/test_collector_metrics.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "collector/serve/http.h"

static int parse(const char *s, struct http_request *r)
{
	return http_parse(s, strlen(s), r);
}

static void test_parse_ok(void **state)
{
	struct http_request r;

	(void)state;
	assert_int_equal(parse("GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: */*\r\n\r\n", &r), 200);
	assert_int_equal(r.head, 0);
	assert_int_equal(r.route, HTTP_ROUTE_METRICS);
	assert_int_equal(parse("HEAD /metrics HTTP/1.0\r\n\r\n", &r), 200);
	assert_int_equal(r.head, 1);
	assert_int_equal(parse("GET /metrics?name[]=x HTTP/1.1\n\n", &r), 200);	/* LF alone, a query */
	assert_int_equal(r.route, HTTP_ROUTE_METRICS);
	assert_int_equal(parse("GET / HTTP/1.1\r\n\r\n", &r), 200);
	assert_int_equal(r.route, HTTP_ROUTE_INDEX);
}

static void test_parse_incomplete(void **state)
{
	struct http_request r;
	char big[HTTP_MAX_REQUEST];

	(void)state;
	assert_int_equal(parse("", &r), 0);
	assert_int_equal(parse("GET /metrics HTTP/1.1\r\n", &r), 0);
	assert_int_equal(parse("GET /metrics HTTP/1.1\r\nHost: x\r\n", &r), 0);
	/* a head that fills the buffer without ending: 431 */
	memset(big, 'a', sizeof(big));
	memcpy(big, "GET /metrics HTTP/1.1\r\nX: ", 26);
	assert_int_equal(http_parse(big, sizeof(big), &r), 431);
	assert_int_equal(http_parse(big, sizeof(big) - 1, &r), 0);
}

static void test_parse_errors(void **state)
{
	struct http_request r;

	(void)state;
	assert_int_equal(parse("POST /metrics HTTP/1.1\r\n\r\n", &r), 405);
	assert_int_equal(parse("DELETE / HTTP/1.1\r\n\r\n", &r), 405);
	assert_int_equal(parse("get /metrics HTTP/1.1\r\n\r\n", &r), 405);	/* methods are case-sensitive */
	assert_int_equal(parse("GET /metrics/../metrics HTTP/1.1\r\n\r\n", &r), 404);
	assert_int_equal(parse("GET /../../etc/passwd HTTP/1.1\r\n\r\n", &r), 404);
	assert_int_equal(parse("GET /%6detrics HTTP/1.1\r\n\r\n", &r), 404);
	assert_int_equal(parse("GET http://x/metrics HTTP/1.1\r\n\r\n", &r), 404);
	assert_int_equal(parse("GET /metrics/ HTTP/1.1\r\n\r\n", &r), 404);
	assert_int_equal(parse("GET /metricsx HTTP/1.1\r\n\r\n", &r), 404);
	assert_int_equal(parse("GET /metrics HTTP/2.0\r\n\r\n", &r), 505);
	assert_int_equal(parse("GET /metrics HTTP/1.2\r\n\r\n", &r), 505);
	assert_int_equal(parse("GET /metrics\r\n\r\n", &r), 400);	/* HTTP/0.9 */
	assert_int_equal(parse("GET  /metrics HTTP/1.1\r\n\r\n", &r), 400);
	assert_int_equal(parse("GET /metrics HTTP/1.1 x\r\n\r\n", &r), 400);
	assert_int_equal(parse("GET /met\x01rics HTTP/1.1\r\n\r\n", &r), 400);
	assert_int_equal(parse("\r\n\r\n", &r), 400);
	assert_int_equal(http_parse("\x16\x03\x01\x02\x00\x01\n\n", 8, &r), 400);	/* TLS to a plain port */
	assert_int_equal(http_parse("GET /metrics\0 HTTP/1.1\r\n\r\n", 27, &r), 400);
}

static void test_addr(void **state)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *in = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
	socklen_t len;

	(void)state;
	/* a bare port: loopback only */
	assert_int_equal(http_parse_addr("9432", &ss, &len), 0);
	assert_int_equal(ss.ss_family, AF_INET);
	assert_int_equal(ntohs(in->sin_port), 9432);
	assert_int_equal(ntohl(in->sin_addr.s_addr), INADDR_LOOPBACK);
	assert_int_equal(http_parse_addr("0.0.0.0:80", &ss, &len), 0);
	assert_int_equal(in->sin_addr.s_addr, 0);
	assert_int_equal(http_parse_addr("10.1.2.3:0", &ss, &len), 0);
	assert_int_equal(ntohl(in->sin_addr.s_addr), 0x0a010203);
	assert_int_equal(http_parse_addr("[::1]:9432", &ss, &len), 0);
	assert_int_equal(ss.ss_family, AF_INET6);
	assert_int_equal(ntohs(in6->sin6_port), 9432);
	assert_int_equal(len, sizeof(*in6));
	assert_int_equal(http_parse_addr("[::]:1", &ss, &len), 0);
	assert_int_equal(http_parse_addr("", &ss, &len), -1);
	assert_int_equal(http_parse_addr(":9432", &ss, &len), -1);	/* say 0.0.0.0 or [::] */
	assert_int_equal(http_parse_addr("65536", &ss, &len), -1);
	assert_int_equal(http_parse_addr("-1", &ss, &len), -1);
	assert_int_equal(http_parse_addr("94x", &ss, &len), -1);
	assert_int_equal(http_parse_addr("localhost:9432", &ss, &len), -1);	/* numeric only */
	assert_int_equal(http_parse_addr("::1:9432", &ss, &len), -1);
	assert_int_equal(http_parse_addr("[::1:9432", &ss, &len), -1);
	assert_int_equal(http_parse_addr("1.2.3.4:", &ss, &len), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_ok),
		cmocka_unit_test(test_parse_incomplete),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_addr),
	};

	return cmocka_run_group_tests_name("collector_http", tests, NULL, NULL);
}
