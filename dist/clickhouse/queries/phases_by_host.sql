-- SPDX-License-Identifier: BSD-2-Clause
-- Boot phases by host: which hosts boot slowly.
-- Percentiles by nearest rank, as analyze's (analyze/stats/stats.h): the
-- p-th of n sorted values is the r-th, r = ceil(p * n / 100) (at least 1),
-- always one of the values. (ClickHouse's quantileExact takes the value at
-- floor(p * n / 100) + 1 instead, one rank higher when p * n / 100 is whole
-- and n is even: its median of 1 2 3 4 is 3, analyze's 2.)
SELECT phase, host, boots, p50_ns, p99_ns, max_ns
FROM
(
    SELECT phase, host, count() AS boots, arraySort(groupArray(value_ns)) AS v,
           v[greatest(1, intDiv(50 * length(v) + 99, 100))] AS p50_ns,
           v[greatest(1, intDiv(99 * length(v) + 99, 100))] AS p99_ns,
           v[length(v)] AS max_ns
    FROM boottrace.phases
    GROUP BY phase, host
)
ORDER BY phase, host;
