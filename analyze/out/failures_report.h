/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * failures_report: the printer of --failures (boot/failures.h), a boot
 * per container of the timeline:
 *   text  its end, lifetime and restart back-off; its failed syscalls in the
 *         last stretch, grouped (`connect ECONNREFUSED 127.0.0.1:5432 × 12`);
 *         the signal and what the rows say of its sender;
 *   tsv   one table: container kind name error count ns detail, where kind
 *         is end (name exit|signal|unknown|running, error the status or the
 *         signal, ns the lifetime, detail init=PID), restart (name the boot
 *         before, ns the back-off, \N when that one never ended), syscall
 *         (name, error ECONNREFUSED, count, ns the last one's time before
 *         the end, detail the path or address), sender (name waker|kill|
 *         interrupt|unknown|running, ns its time before the end, detail
 *         tid=TID comm=COMM [container=NAME]);
 *   json  {"stretch_ns", "boots": [{"container", "end", "status", "signal",
 *         "lifetime_ns", "restart_of", "backoff_ns", "failed_syscalls": [...],
 *         "sender": {...}}]}.
 * Names are as the file has them (TSV-escaped; unescaped in JSON strings).
 */
#ifndef ANALYZE_FAILURES_REPORT_H
#define ANALYZE_FAILURES_REPORT_H

#include <stdio.h>

#include "analyze/boot/failures.h"
#include "analyze/out/report.h"

/* failures_print - @fl in @fmt (text, tsv or json). 0, or -1 when writing failed (errno). */
int failures_print(FILE *f, const struct failures *fl, enum report_format fmt);

/*
 * failures_list_unreached - text: a line "  NAME: exited 3 after 983.1ms"
 * per timed container of @tl (finished) that never reached phase @phase,
 * @max at most, then how many more: the analyses that leave them out say
 * which and how they ended (--profile, --critical-path).
 */
void failures_list_unreached(FILE *f, const struct timeline *tl, uint32_t phase, size_t max);

#endif /* ANALYZE_FAILURES_REPORT_H */
