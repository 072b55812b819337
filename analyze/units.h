/* SPDX-License-Identifier: BSD-2-Clause */
/* units: durations in human units, and durations parsed from options. */
#ifndef ANALYZE_UNITS_H
#define ANALYZE_UNITS_H

#include <stddef.h>
#include <stdint.h>

#define UNITS_BUFSZ 32

/*
 * units_format - write @ns as a duration with 4 significant digits into
 * @buf (UNITS_BUFSZ bytes): "950ns", "12.34us", "70.95ms", "2.240s"; below
 * 1us it is whole ns, from 1000s up whole seconds. Rounds half up (on the
 * magnitude); a value that rounds up to 1000 of a unit moves to the next
 * unit ("1.000ms"). Returns @buf. Cannot fail.
 */
char *units_format(int64_t ns, char *buf);

/*
 * units_parse - parse "1ms", "500us", "2s", "250ns", "1.5ms" or plain ns
 * ("1000") into *@ns. Returns 0, or -1 when malformed, negative, zero-free
 * of digits or past 64 bits.
 */
int units_parse(const char *s, uint64_t *ns);

/*
 * units_pick - the unit to draw values up to @max_ns in: its name ("ns",
 * "us", "ms", "s") and its size in ns in *@scale.
 */
const char *units_pick(int64_t max_ns, int64_t *scale);

#endif /* ANALYZE_UNITS_H */
