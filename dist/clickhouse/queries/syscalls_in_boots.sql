-- SPDX-License-Identifier: BSD-2-Clause
-- Syscall time within boot windows [start, listen], over the fleet: per
-- syscall, the calls, errors (ret < 0), the time inside the windows summed
-- over all threads (not wall time) and the longest (analyze --by syscall
-- --until listen on the same files, see boottrace.boot_syscalls).
SELECT syscall, count() AS calls, countIf(ret < 0) AS errors,
       sum(in_window_ns) AS total_ns, max(in_window_ns) AS max_ns,
       uniqExact(host) AS hosts
FROM boottrace.boot_syscalls
GROUP BY syscall
ORDER BY total_ns DESC, calls DESC, syscall
LIMIT 20;
