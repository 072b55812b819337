// SPDX-License-Identifier: BSD-2-Clause
/* The detail of an end row: see end_detail.h. */
#include <stdio.h>
#include <string.h>

#include "common/end_detail.h"
#include "common/sched_detail.h"

/* Linux's numbers on x86-64 and arm64 (asm-generic/signal.h): a name in the file means this. */
static const char *const sig_names[32] = {
	NULL, "HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "BUS", "FPE", "KILL", "USR1", "SEGV",
	"USR2", "PIPE", "ALRM", "TERM", "STKFLT", "CHLD", "CONT", "STOP", "TSTP", "TTIN", "TTOU",
	"URG", "XCPU", "XFSZ", "VTALRM", "PROF", "WINCH", "IO", "PWR", "SYS",
};
#define SIG_RTMIN 34	/* the kernel's; glibc keeps 32 and 33 for itself */
#define SIG_MAX 64

const char *end_signal_name(int sig, char buf[16])
{
	if (sig > 0 && sig < 32)
		return sig_names[sig];
	if (sig >= SIG_RTMIN && sig <= SIG_MAX)
		snprintf(buf, 16, "RTMIN+%d", sig - SIG_RTMIN);
	else
		snprintf(buf, 16, "%d", sig);
	return buf;
}

size_t end_detail_format(char *buf, size_t n, long pid, unsigned wstatus)
{
	unsigned sig = wstatus & 0x7f;
	char name[16];
	int len;

	/* the encoding of wait(2)'s status, as the kernel keeps task->exit_code */
	if (sig == 0)
		len = snprintf(buf, n, "init=%ld exit=%u", pid, (wstatus >> 8) & 0xff);
	else
		len = snprintf(buf, n, "init=%ld signal=%s%s", pid, end_signal_name((int)sig, name),
			       wstatus & 0x80 ? " core" : "");
	if (len < 0)
		return 0;
	return (size_t)len < n ? (size_t)len : n ? n - 1 : 0;
}

/* The decimal number @s (@n bytes), at most 9 digits (a pid, a status), or -1. */
static long small_number(const char *s, size_t n)
{
	return n <= 9 ? (long)detail_number(s, n) : -1;
}

/* Signal number of name @s (@n bytes), or -1. */
static int signal_number(const char *s, size_t n)
{
	long v;
	int k;

	for (k = 1; k < 32; k++)
		if (strlen(sig_names[k]) == n && memcmp(sig_names[k], s, n) == 0)
			return k;
	if (n > 6 && memcmp(s, "RTMIN+", 6) == 0) {
		v = small_number(s + 6, n - 6);
		return v >= 0 && SIG_RTMIN + v <= SIG_MAX ? SIG_RTMIN + (int)v : -1;
	}
	return -1;
}


int end_detail_parse(const char *s, size_t n, long *pid)
{
	const char *end = s + n, *w, *eq;
	int how = END_UNKNOWN;
	long v;

	*pid = -1;
	while (s < end) {
		while (s < end && *s == ' ')
			s++;
		for (w = s; w < end && *w != ' '; w++)
			;
		eq = memchr(s, '=', (size_t)(w - s));
		if (eq) {
			size_t kn = (size_t)(eq - s), vn = (size_t)(w - eq - 1);

			if (kn == 4 && memcmp(s, "init", 4) == 0)
				*pid = small_number(eq + 1, vn);
			else if (kn == 4 && memcmp(s, "exit", 4) == 0 &&
				 (v = small_number(eq + 1, vn)) >= 0 && v <= 255)
				how = (int)v;
			else if (kn == 6 && memcmp(s, "signal", 6) == 0 &&
				 (v = signal_number(eq + 1, vn)) > 0)
				how = END_SIGNAL + (int)v;
		}
		s = w;
	}
	return how;
}

const char *end_how_text(int how, char *buf, size_t n)
{
	char name[16];

	if (how >= END_SIGNAL)
		snprintf(buf, n, "killed by SIG%s", end_signal_name(how - END_SIGNAL, name));
	else if (how >= 0)
		snprintf(buf, n, "exited %d", how);
	else
		snprintf(buf, n, "ended (how unknown)");
	return buf;
}
