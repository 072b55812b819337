/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * axis: a figure's value axis chosen from its data, for --plot. A boot's
 * phases and syscall times span decades: exec ~1 ms and listen ~900 ms on
 * one linear axis put every exec in the first pixels, and a log axis drawn
 * to two decades past the data (the syscalls' 1e6 ms for a 5.7 s maximum)
 * leaves a third of the picture empty.
 *
 * The rule: a log axis when the largest value is AXIS_LOG_RATIO times the
 * smallest positive one or more (on a linear axis the smallest would then
 * sit in the first twentieth, 40 of 800 pixels, its shape unreadable);
 * it runs from the power of ten below the smallest (strictly below: a bar
 * drawn from the axis' start keeps a length) to the power of ten at or
 * above the largest. Else a linear axis from 0 (bars, whose length is the
 * value) or from the smallest value (curves: 800 ms to 2.2 s of docker
 * runs' phases, not 0 to 2.5 s) to the largest, both ends rounded out to a
 * multiple of the tic step, 1, 2 or 5 times a power of ten that makes 4
 * to 10 tics over the values' span (gnuplot's own steps).
 */
#ifndef ANALYZE_AXIS_H
#define ANALYZE_AXIS_H

#include <stdbool.h>

#define AXIS_LOG_RATIO 20.0

struct axis {
	bool log;
	double lo, hi;		/* the range; lo > 0 on a log axis */
	double step;		/* a linear axis' tic step; 0 on a log one */
};

/*
 * axis_choose - the axis for values whose smallest positive one is
 * @min_pos and largest @max (none positive: @max <= 0; then a linear
 * axis from 0 to 1); a linear one starts at 0 when @from_zero, else at
 * the smallest value. @min_pos <= @max. Cannot fail.
 */
void axis_choose(double min_pos, double max, bool from_zero, struct axis *ax);

#endif /* ANALYZE_AXIS_H */
