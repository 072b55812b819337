/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A small JSON reader, enough for the runtimes' state files the collector
 * reads names from (an OCI bundle's config.json, Docker's config.v2.json):
 * values are found in place, in the text, and only strings are decoded.
 * The text is hostile (anyone who can start a container writes some of
 * it): every step is bounded by the end of the text and nesting by 64
 * levels; malformed text gives NULL or -1, never a read past the end.
 * Pure.
 */
#ifndef COLLECTOR_JSON_H
#define COLLECTOR_JSON_H

#include <stddef.h>

/* json_skip - the end of the value at @p (after white space) in [@p, @end), or NULL. */
const char *json_skip(const char *p, const char *end);

/*
 * json_member - the value of member @key of the object at @p (after white
 * space), the first of that name; NULL when @p is no object, has no such
 * member, or is malformed up to it.
 */
const char *json_member(const char *p, const char *end, const char *key);

/*
 * json_next - iterate the array or object at @p: *@it starts NULL; each
 * call moves *@it to the next element (an object's: the member's key
 * string, its value at json_skip() of it and a ':') and returns it, or
 * NULL at the end or on malformed text.
 */
const char *json_next(const char *p, const char *end, const char **it);

/*
 * json_string - the string at @p, decoded (escapes, \uXXXX as UTF-8, a
 * lone surrogate as U+FFFD) into @out (@n bytes, NUL-terminated;
 * truncated). Returns its decoded length (NULs included: the bytes may
 * hold one), or -1 when @p is no string.
 */
long json_string(const char *p, const char *end, char *out, size_t n);

#endif /* COLLECTOR_JSON_H */
