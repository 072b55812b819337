-- SPDX-License-Identifier: BSD-2-Clause
-- boottrace's TSV from many hosts in ClickHouse (docs/tsv-format.md).
-- Runs on ClickHouse 18.16 (Debian 12's) and later: no LowCardinality, Map,
-- DateTime64, codecs or skip indexes, which 18.16 lacks or hides behind
-- experimental settings.
--
-- Per server, the *_local tables hold the rows; boottrace.events and
-- boottrace.files are Distributed tables over them on the cluster
-- `boottrace` (remote_servers in the server's config: cluster.xml here
-- has one of a single server, edit its shards for yours), sharded by host so
-- that one host's runs are on one shard. Load and query through the
-- Distributed tables (load.sh, queries/*.sql).
--   clickhouse-client --multiquery < schema.sql    (on every server)

CREATE DATABASE IF NOT EXISTS boottrace;

-- One row per TSV row, with its file's host, run, part and kernel (the
-- metadata lines, docs/tsv-format.md). The TSV's \N fields are NULL.
-- `day` (the row's UTC day, from ts_ns and the file's realtime offset)
-- partitions: old days are dropped whole (ALTER TABLE ... DROP PARTITION).
CREATE TABLE IF NOT EXISTS boottrace.events_local
(
    host String,
    run_id String,
    part UInt32,
    kernel String,
    realtime_offset_ns Int64,
    ts_ns UInt64,
    container Nullable(String),
    cgroup_id Nullable(UInt64),
    pid Nullable(Int64),
    tid Nullable(Int64),
    ppid Nullable(Int64),
    comm Nullable(String),
    event String,
    name Nullable(String),
    ret Nullable(Int64),
    dur_ns Nullable(UInt64),
    detail Nullable(String),
    day Date DEFAULT toDate(toDateTime(intDiv(toInt64(ts_ns) + realtime_offset_ns, 1000000000)))
)
ENGINE = MergeTree
PARTITION BY day
ORDER BY (host, run_id, ifNull(container, ''), ts_ns);

-- One row per file loaded: its metadata and its trailer (events written,
-- events the kernel could not queue). load.sh asks it which files it has.
CREATE TABLE IF NOT EXISTS boottrace.files_local
(
    host String,
    run_id String,
    part UInt32,
    kernel String,
    started String,
    mode String,
    bpf_object String,
    realtime_offset_ns Int64,
    events UInt64,
    lost UInt64,
    path String,
    day Date
)
ENGINE = MergeTree
PARTITION BY day
ORDER BY (host, run_id, part);

CREATE TABLE IF NOT EXISTS boottrace.events AS boottrace.events_local
ENGINE = Distributed(boottrace, boottrace, events_local, cityHash64(host));

CREATE TABLE IF NOT EXISTS boottrace.files AS boottrace.files_local
ENGINE = Distributed(boottrace, boottrace, files_local, cityHash64(host));
-- Each container's boot (analyze/boot/analysis.h's phases, in SQL): one
-- row per (host, run_id, container) with a start row, over all the parts
-- of its run (a boot that straddles two files is one, as analyze joins
-- them). Times in ns from the start (t_start: its earliest start row):
--   exec_ns    the first exec the collector marked init (pid 1 of a new
--              pid namespace), else the first that is no runtime's own
--              (common/entrypoint.c: runc/crun's re-execs of themselves,
--              /dev/fd/N, /proc/self/fd/N, runc, crun, youki, conmon,
--              containerd-shim*); NULL when none;
--   listen_ns  the first successful listen()'s return (ts_ns + dur_ns);
--              NULL when none.
-- image: the container's image from its meta row (the collector's names
-- from the runtimes, docs/tsv-format.md, Meta rows: its detail begins
-- "image=LEN:" and LEN bytes), '' without one.
-- Not the same as analyze: a name the collector gave again in one run
-- (after its container ended, in a later file) is one boot here (the
-- earliest start), two in analyze; analyze --exec PATTERN has no
-- counterpart (edit the view's exec rule).
CREATE VIEW IF NOT EXISTS boottrace.boots AS
SELECT
    host, run_id, container,
    any(kernel) AS kernel,
    anyIf(substring(ifNull(detail, ''), position(ifNull(detail, ''), ':') + 1,
                    toUInt64OrZero(extract(ifNull(detail, ''), '^image=([0-9]+):'))),
          event = 'meta' AND match(ifNull(detail, ''), '^image=[0-9]+:')) AS image,
    minIf(ts_ns, event = 'start') AS t_start,
    countIf(event = 'exec' AND ifNull(name, '') = 'init') AS n_init,
    minIf(ts_ns, event = 'exec' AND ifNull(name, '') = 'init') AS t_init,
    countIf(event = 'exec' AND NOT runtime_exec) AS n_exec,
    minIf(ts_ns, event = 'exec' AND NOT runtime_exec) AS t_exec,
    countIf(is_listen) AS n_listen,
    minIf(ts_ns + ifNull(dur_ns, 0), is_listen) AS t_listen,
    if(n_init > 0, toInt64(t_init) - toInt64(t_start),
       if(n_exec > 0, toInt64(t_exec) - toInt64(t_start), NULL)) AS exec_ns,
    if(n_listen > 0, toInt64(t_listen) - toInt64(t_start), NULL) AS listen_ns
FROM
(
    SELECT host, run_id, assumeNotNull(container) AS container, kernel, ts_ns, dur_ns,
           event, name, detail,
           match(ifNull(detail, ''),
                 '^(/proc/self/exe|/dev/fd/[0-9]+|/proc/self/fd/[0-9]+)$|(^|/)(runc|crun|youki|conmon|containerd-shim[^/]*)$')
               AS runtime_exec,
           event = 'syscall' AND ifNull(name, '') = 'listen' AND ifNull(ret, -1) = 0 AS is_listen
    FROM boottrace.events
    WHERE container IS NOT NULL
)
GROUP BY host, run_id, container
HAVING countIf(event = 'start') > 0;

-- Each phase a boot reached, one row each: exec, listen, and every mark
-- label (its first mark row), in ns from the boot's start.
CREATE VIEW IF NOT EXISTS boottrace.phases AS
SELECT host, run_id, container, kernel, image, phase, value_ns
FROM
(
    SELECT host, run_id, container, kernel, image, 'exec' AS phase,
           assumeNotNull(exec_ns) AS value_ns
    FROM boottrace.boots WHERE exec_ns IS NOT NULL
    UNION ALL
    SELECT host, run_id, container, kernel, image, 'listen' AS phase,
           assumeNotNull(listen_ns) AS value_ns
    FROM boottrace.boots WHERE listen_ns IS NOT NULL
    UNION ALL
    SELECT host, run_id, container, kernel, image, phase,
           toInt64(t_mark) - toInt64(t_start) AS value_ns
    FROM
    (
        SELECT host, run_id, assumeNotNull(container) AS container,
               assumeNotNull(name) AS phase, min(ts_ns) AS t_mark
        FROM boottrace.events
        WHERE event = 'mark' AND container IS NOT NULL AND name IS NOT NULL
        GROUP BY host, run_id, container, phase
    )
    ANY INNER JOIN
    (
        SELECT host, run_id, container, kernel, image, t_start FROM boottrace.boots
    ) USING (host, run_id, container)
);

-- The syscall rows inside each boot's window [start, listen] (analyze's
-- --until listen, analyze/boot/window.h): a row that straddles an edge is
-- clipped to the window (in_window_ns), one entering at listen or later,
-- or over before the start, is left out; a row without dur_ns (exit,
-- exit_group) counts as a call, with no time.
CREATE VIEW IF NOT EXISTS boottrace.boot_syscalls AS
SELECT host, run_id, container, kernel, image, syscall, ret, in_window_ns
FROM
(
    SELECT host, run_id, container, kernel, image, syscall, ret, t_start, t_end, ts_ns, dur_ns,
           if(dur_ns IS NULL, NULL,
              least(ts_ns + assumeNotNull(dur_ns), t_end) - greatest(ts_ns, t_start)) AS in_window_ns
    FROM
    (
        SELECT host, run_id, assumeNotNull(container) AS container,
               ifNull(name, '') AS syscall, ret, ts_ns, dur_ns
        FROM boottrace.events
        WHERE event = 'syscall' AND container IS NOT NULL
    )
    ANY INNER JOIN
    (
        SELECT host, run_id, container, kernel, image, t_start,
               t_start + toUInt64(assumeNotNull(listen_ns)) AS t_end
        FROM boottrace.boots
        WHERE listen_ns IS NOT NULL AND listen_ns >= 0
    ) USING (host, run_id, container)
    WHERE ts_ns < t_end
      AND ((dur_ns IS NULL AND ts_ns >= t_start)
        OR (dur_ns IS NOT NULL AND (ts_ns + assumeNotNull(dur_ns) > t_start
            OR (ts_ns + assumeNotNull(dur_ns) = t_start AND ts_ns >= t_start))))
);

-- Each phase's count, p50, p99 and max over the fleet (by = 'fleet', key
-- ''), and per host, kernel and image (by = 'host' ... , key its value):
-- the one place the percentiles are defined. Nearest rank, as analyze's
-- (analyze/stats/stats.h): the p-th of n sorted values is the r-th,
-- r = ceil(p * n / 100) (at least 1), always one of the values.
-- (ClickHouse's quantileExact takes the value at floor(p * n / 100) + 1,
-- one rank higher when p * n / 100 is whole: its median of 1 2 3 4 is 3,
-- analyze's 2.) Boots, not rows, are sorted: a fleet's million boots a day
-- is 8 MB of values.
CREATE VIEW IF NOT EXISTS boottrace.phase_stats AS
SELECT phase, by, key, boots, p50_ns, p99_ns, max_ns
FROM
(
    SELECT phase, tupleElement(g, 1) AS by, tupleElement(g, 2) AS key,
           count() AS boots, arraySort(groupArray(value_ns)) AS v,
           v[greatest(1, intDiv(50 * length(v) + 99, 100))] AS p50_ns,
           v[greatest(1, intDiv(99 * length(v) + 99, 100))] AS p99_ns,
           v[length(v)] AS max_ns
    FROM boottrace.phases
    ARRAY JOIN [('fleet', ''), ('host', host), ('kernel', kernel), ('image', image)] AS g
    GROUP BY phase, by, key
);
