-- SPDX-License-Identifier: BSD-2-Clause
-- The 10 slowest boots to listen, and where their time went: start -> exec
-- (the runtime's part), exec -> listen (the entrypoint's), and the three
-- syscalls that took most of the window (summed over its threads, in ns).
-- For one of them, in detail: analyze --critical-path on its host's file.
SELECT host, container, listen_ns, exec_ns, listen_ns - exec_ns AS exec_to_listen_ns,
       top_syscalls
FROM
(
    SELECT host, run_id, container, assumeNotNull(listen_ns) AS listen_ns, exec_ns
    FROM boottrace.boots
    WHERE listen_ns IS NOT NULL
)
ANY LEFT JOIN
(
    SELECT host, run_id, container,
           arraySlice(arrayReverseSort(x -> tupleElement(x, 2), groupArray((syscall, total))), 1, 3)
               AS top_syscalls
    FROM
    (
        SELECT host, run_id, container, syscall, sum(in_window_ns) AS total
        FROM boottrace.boot_syscalls
        GROUP BY host, run_id, container, syscall
    )
    GROUP BY host, run_id, container
) USING (host, run_id, container)
ORDER BY listen_ns DESC, host, container
LIMIT 10;
