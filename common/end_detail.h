/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The detail of an `end` row (docs/tsv-format.md): how the container's
 * init process ended, as space-separated key=value fields (a reader skips
 * keys it does not know):
 *
 *   init=4711 exit=3          it exited with status 3
 *   init=4711 signal=KILL     a signal killed it (core: it dumped core)
 *
 * `init` is the host pid of the process the collector took for the init
 * (the first exec flagged `init`, else the container's first exec); a
 * container whose init's exit it did not see has `\N`. The collector
 * formats it, the analyzer parses it; both on the field's unescaped bytes.
 * Pure.
 */
#ifndef BOOTTRACE_END_DETAIL_H
#define BOOTTRACE_END_DETAIL_H

#include <stdbool.h>
#include <stddef.h>

/* How an init ended: END_UNKNOWN, an exit status 0..255, or END_SIGNAL + signal. */
#define END_UNKNOWN (-1)
#define END_SIGNAL 256

/*
 * end_detail_format - the detail of init @pid's end from its wait(2)
 * status @wstatus, NUL-terminated in @buf (@n bytes; 64 are enough).
 * Returns its length.
 */
size_t end_detail_format(char *buf, size_t n, long pid, unsigned wstatus);

/*
 * end_detail_parse - how the end row's detail (@s, @n unescaped bytes)
 * says the init ended (END_UNKNOWN when it does not say, or says it in a
 * way this build does not know); *@pid its init= (-1 when absent).
 */
int end_detail_parse(const char *s, size_t n, long *pid);

/*
 * end_signal_name - signal @sig's name without "SIG" ("KILL", "RTMIN+2"),
 * in @buf (16 bytes); its number's text for one without a name.
 */
const char *end_signal_name(int sig, char buf[16]);

/*
 * end_how_text - @how (END_UNKNOWN, a status or END_SIGNAL + sig) in
 * words: "exited 3", "killed by SIGKILL", "ended (how unknown)"; in @buf
 * (@n bytes, 40 are enough). Returns @buf.
 */
const char *end_how_text(int how, char *buf, size_t n);

#endif /* BOOTTRACE_END_DETAIL_H */
