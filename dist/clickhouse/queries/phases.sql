-- SPDX-License-Identifier: BSD-2-Clause
-- Boot phases over the whole fleet: count, p50, p99 (nearest rank, as
-- analyze's) and max, in ns from each boot's start (boottrace.phase_stats
-- in schema.sql); analyze of every file prints the same.
SELECT phase, boots, p50_ns, p99_ns, max_ns
FROM boottrace.phase_stats
WHERE by = 'fleet'
ORDER BY phase;
