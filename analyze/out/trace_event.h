/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * trace_event: --format trace-event, the analysis' timeline (timeline.h) as
 * Chrome's Trace Event Format (JSON object form), which ui.perfetto.dev and
 * chrome://tracing open.
 *
 * Layout:
 *   - a process per container, pid 1, 2, ... in the timeline's order (never
 *     the real pid: pid 0 is special to Perfetto, and a pid reused by two
 *     containers would merge them), named after the container;
 *   - in it, thread 1 "phases": a slice "start -> PHASE" from 0 to each
 *     phase the container reached (they nest: all begin at 0), and the
 *     start rows as instants; thread 2 "critical path to PHASE": the
 *     critical path's segments (critpath.h), which tile [0, PHASE]; then a
 *     thread per task, 3, 4, ... in the timeline's order (never the real
 *     tid: tid 0 merged with tid 1 in Perfetto, tids past 32 bits are
 *     dropped), named "COMM TID" or "COMM PID/TID", the real pid, tid and
 *     ppid in the args of its thread_name metadata;
 *   - each syscall row a complete slice ("ph":"X") named after the
 *     syscall, category "syscall", its ret and detail in args ("ret": null
 *     and dur 0 for exit and exit_group, which do not return);
 *   - fork, exec, exit and mark rows as thread-scoped instants ("ph":"i",
 *     "s":"t") on their task's thread: "fork" (args: process or thread,
 *     the parent's real tid), "exec" (filename), "exit" (status), and the
 *     mark's label (category "mark");
 *   - with span rows, a task's interpreter spans (requires, loads,
 *     imports, class initializers) as nested complete slices of category
 *     "span" named by what they load, args kind, depth (and raised), on a
 *     thread of their own, "COMM TID spans", sorted beside the task's
 *     (tid: after every task's);
 *   - with profile rows, each sample a thread-scoped instant on its task's
 *     thread, category "sample", named by its innermost frame's function
 *     (boot/profile.h; no --debug-dir), args module and period_ns;
 *   - with scheduler rows, each off-CPU interval of a task as complete
 *     slices of category "sched" on its thread: "blocked (S)" (or
 *     "blocked (D)"; T and unknown states are named S, args.state says)
 *     from when it left the CPU to its wake, then "runnable" to when it
 *     got a CPU back; args: state, wake (task, irq, softirq, new, none,
 *     unknown), waker and waker_comm (with wake unknown, current and
 *     current_comm: the task current at the wake, which the legacy and
 *     compat objects give instead, by which or in whose time an interrupt
 *     woke it), and on runnable slices holder and holder_comm (who had
 *     the CPU). On the thread's own track, not one
 *     of their own: a task off CPU neither enters nor leaves a syscall,
 *     so its off-CPU slices nest inside the syscall slice they fall in
 *     (the blocked part of a futex under the futex) or between two,
 *     which shows why the syscall took its time; one that seems to cross
 *     a syscall's edge (clocks of two CPUs, hostile rows) is ended at
 *     that edge, and otherData.sched_clipped counts them. Each thread's
 *     slices are written by start time, a parent before its children;
 *   - with scheduler rows, each wake-up the critical path followed (from
 *     a waker of the container into the woken task, critpath.h) as a
 *     flow, Trace Event's flow v2 (each end a slice with the same
 *     "bind_id", "flow_out" or "flow_in"): from a 0-long slice "wakes TID
 *     COMM" on the waker's thread at the wake (a slice of its own: the
 *     waker may be in no slice then, and a v1 flow event binds to
 *     whatever slice encloses its time, if any) to the woken task's
 *     runnable slice, which begins at the wake (a 0-long "runnable" when
 *     it got a CPU at once); otherData.flows counts them. A wake-up the
 *     path followed into the task current at the wake (wake=unknown: a
 *     guess) is a flow too, its "wakes" slice saying so in args.waker_is.
 *     The critical path's segments carry their state in args.
 * Every event of the file is there: the syscall slices are the syscall
 * rows, the sched slices the sched rows, the instants the other rows
 * (but end rows). The timeline keeps one
 * fork and one exit row per task (the earliest fork, the latest exit):
 * the collector writes no more; a tid reused within one container is one
 * task of the timeline, so one thread here.
 *
 * Times: ts and dur in microseconds with exactly three decimals, printed
 * from integer ns (no floating point: 1234.567 is 1234567 ns), ts from the
 * container's start row (its earliest event when it has none: the process
 * name says so), so that every boot begins at 0 and boots are compared
 * side by side; rows before the start have negative ts. On a thread the
 * syscall slices must not overlap (Perfetto drops overlapping complete
 * events): a syscall cannot start inside another on the same thread, but
 * rows with equal timestamps, or clocks a few ns apart between CPUs, can
 * look so; such a slice starts where the previous one ended (its duration
 * shrunk, to 0 at worst), and otherData.clipped counts them.
 *
 * Strings: every string from the trace is printed in its TSV-escaped form
 * (\t, \n, \xHH for control bytes and invalid UTF-8), as analyze's text
 * output prints it, with only " and \ JSON-escaped: no \u escape, no
 * control byte, valid UTF-8. Perfetto's JSON tokenizer rejected \u
 * escapes in older versions and keeps them undecoded in newer ones
 * (json_trace_tokenizer.cc): this way both show the same text.
 *
 * The output streams: memory is the timeline's.
 */
#ifndef ANALYZE_TRACE_EVENT_H
#define ANALYZE_TRACE_EVENT_H

#include <stdint.h>
#include <stdio.h>

#include "analyze/boot/analysis.h"

/*
 * trace_event_print - the timeline of @a (a->tl must be set) as Trace Event
 * JSON on @f; the critical path's thread goes to phase @cp_phase (an id of
 * the analysis' phases). Returns 0, or -1 when writing failed or memory ran
 * out (errno says which).
 */
int trace_event_print(FILE *f, const struct analysis *a, uint32_t cp_phase);

#endif /* ANALYZE_TRACE_EVENT_H */
