/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Exit codes of processes killed by a signal, for the legacy object and
 * its compat build: the last default-fatal signal sent to a traced
 * process, and the one it dies of, kept in its `procs` entry for bt_exit.
 * Included at the end of boottrace_legacy.bpf.c (it uses the object's
 * config, `tasks`, proc_of() and ctx_read()).
 */

#define SIGKILL 9
/* Signals whose default action kills (all but CHLD CONT STOP TSTP TTIN TTOU URG WINCH). */
#define SIG_FATAL_MASK	(~((1U << 17) | (1U << 18) | (1U << 19) | (1U << 20) | \
			   (1U << 21) | (1U << 22) | (1U << 23) | (1U << 28) | 1U))
/* ... and of those, the ones that dump core (not turned into SIGKILL, see sig_deliver) */
#define SIG_CORE_MASK	((1U << 3) | (1U << 4) | (1U << 5) | (1U << 6) | (1U << 7) | \
			 (1U << 8) | (1U << 11) | (1U << 24) | (1U << 25) | (1U << 31))

static __always_inline int sig_fatal(__u32 sig)
{
	/* real-time signals kill by default too */
	return sig >= 32 ? sig <= 64 : (SIG_FATAL_MASK >> sig) & 1;
}

/*
 * Exit codes of processes killed by a signal, part 1: a default-fatal
 * signal is sent to a traced task (in the sender's context).
 */
SEC("tracepoint/signal/signal_generate")
int bt_sig_generate(void *ctx)
{
	struct bt_legacy_config *cfg = get_config();
	struct bt_legacy_task *t;
	struct bt_legacy_proc *p;
	__u32 pid = 0, sig = 0;
	int result = 0;

	if (!cfg)
		return 0;
	ctx_read(ctx, cfg->sgen_pid, &pid, sizeof(pid));
	t = bpf_map_lookup_elem(&tasks, &pid);
	if (!t)
		return 0;
	ctx_read(ctx, cfg->sgen_sig, &sig, sizeof(sig));
	ctx_read(ctx, cfg->sgen_result, &result, sizeof(result));
	/* TRACE_SIGNAL_IGNORED, TRACE_SIGNAL_OVERFLOW_FAIL: not queued */
	if (result == 1 || result == 3 || !sig_fatal(sig))
		return 0;
	p = proc_of(t->tgid);
	if (p)
		p->last_sig = sig;
	return 0;
}

/*
 * Part 2: a traced task takes a signal whose action is the default and
 * kills. A fatal signal that dumps no core reaches every thread as
 * SIGKILL (complete_signal()), so a SIGKILL here stands for the last
 * fatal signal sent to the process.
 */
SEC("tracepoint/signal/signal_deliver")
int bt_sig_deliver(void *ctx)
{
	struct bt_legacy_config *cfg = get_config();
	struct bt_legacy_task *t;
	struct bt_legacy_proc *p;
	__u32 tid = (__u32)bpf_get_current_pid_tgid(), sig = 0;
	unsigned long handler = 1;

	if (!cfg)
		return 0;
	t = bpf_map_lookup_elem(&tasks, &tid);
	if (!t)
		return 0;
	ctx_read(ctx, cfg->sdel_sig, &sig, sizeof(sig));
	ctx_read(ctx, cfg->sdel_handler, &handler, sizeof(handler));
	if (handler != 0 /* SIG_DFL */ || !sig_fatal(sig))
		return 0;
	p = proc_of(t->tgid);
	if (!p || p->exit_how == BT_LEGACY_EXIT_FINAL)
		return 0;
	if (sig == SIGKILL && p->last_sig &&
	    (p->last_sig >= 32 || !((SIG_CORE_MASK >> p->last_sig) & 1)))
		sig = p->last_sig;
	p->exit_code = sig & 0x7f;
	p->exit_how = BT_LEGACY_EXIT_FINAL;
	return 0;
}
