-- SPDX-License-Identifier: BSD-2-Clause
-- Boot phases by image (from each container's meta row; '' without one):
-- count, p50, p99 (nearest rank, as analyze's) and max, in ns from each
-- boot's start (boottrace.phase_stats, schema.sql).
SELECT phase, key AS image, boots, p50_ns, p99_ns, max_ns
FROM boottrace.phase_stats
WHERE by = 'image'
ORDER BY phase, image;
