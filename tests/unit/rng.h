/* SPDX-License-Identifier: BSD-2-Clause */
/* rng: the unit tests' random numbers, xorshift64 (Marsaglia 2003): fixed
 * seeds, so that a failure replays. */
#ifndef TESTS_UNIT_RNG_H
#define TESTS_UNIT_RNG_H

#include <stdint.h>

/* rng_next - the next number of the sequence in *@state (never 0). */
static inline uint64_t rng_next(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *state = x;
}

#endif /* TESTS_UNIT_RNG_H */
