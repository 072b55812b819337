/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * strtab: interning of byte strings (container names, syscall names, mark
 * labels) into dense ids 0..n-1, in order of first insertion. The strings
 * live in one arena owned by the table; callers keep per-id data in their
 * own arrays indexed by id. No per-lookup allocation.
 */
#ifndef ANALYZE_STRTAB_H
#define ANALYZE_STRTAB_H

#include <stddef.h>
#include <stdint.h>

struct strtab;

/* strtab__new - an empty table, or NULL when out of memory. */
struct strtab *strtab__new(void);
/* strtab__free - free the table and its strings; accepts NULL. */
void strtab__free(struct strtab *t);

/*
 * strtab_intern - the id of @n bytes at @s, inserting them when new
 * (*@added is then set to 1, else 0; @added may be NULL). Returns -1 when
 * out of memory.
 */
long strtab_intern(struct strtab *t, const char *s, size_t n, int *added);
/* strtab_find - the id of @s, or -1 when absent. */
long strtab_find(const struct strtab *t, const char *s, size_t n);
/* strtab_count - how many strings the table holds. */
size_t strtab_count(const struct strtab *t);
/*
 * strtab_str - the string of @id (NUL-terminated; *@n gets its length when
 * @n is not NULL). Valid until the table is freed.
 */
const char *strtab_str(const struct strtab *t, size_t id, size_t *n);

#endif /* ANALYZE_STRTAB_H */
