// SPDX-License-Identifier: BSD-2-Clause
/* A figure's value axis from its data: see axis.h. */
#include <math.h>

#include "analyze/stats/axis.h"

/* The power of ten at or below @v > 0. */
static double decade_below(double v)
{
	double d = pow(10, floor(log10(v)));

	/* log10 of 1000 may come out 2.9999...: step to the exact side */
	while (d * 10 <= v)
		d *= 10;
	while (d > v)
		d /= 10;
	return d;
}

void axis_choose(double min_pos, double max, bool from_zero, struct axis *ax)
{
	double d, step, lo;

	if (!(max > 0)) {
		*ax = (struct axis){ .log = false, .lo = 0, .hi = 1, .step = 0.2 };
		return;
	}
	if (!(min_pos > 0) || min_pos > max)
		min_pos = max;
	if (max >= AXIS_LOG_RATIO * min_pos) {
		d = decade_below(min_pos);
		ax->log = true;
		ax->lo = d < min_pos ? d : d / 10;
		d = decade_below(max);
		ax->hi = d < max ? d * 10 : d;
		ax->step = 0;
		return;
	}
	/* the span / d is in [1, 10): steps of d, d/2 or d/5 make 4 to 10 tics */
	lo = from_zero || min_pos == max ? 0 : min_pos;
	d = decade_below(max - lo);
	step = (max - lo) / d >= 4 ? d : (max - lo) / d >= 2 ? d / 2 : d / 5;
	ax->log = false;
	ax->lo = floor(lo / step + 1e-9) * step;
	ax->hi = ceil(max / step - 1e-9) * step;
	ax->step = step;
}
