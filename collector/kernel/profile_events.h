/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --profile's clock: one CPU-clock perf event per online CPU, each firing
 * every period of that CPU's time and running the modern object's
 * bt_profile (bpf/profile.bpf.h), which samples the task it interrupted.
 * The events count whatever runs, idle included: the program decides what
 * is written. As `perf record -F HZ -a` does, but at a fixed period
 * (1e9 / HZ ns), so that each sample stands for the same CPU time.
 */
#ifndef COLLECTOR_PROFILE_EVENTS_H
#define COLLECTOR_PROFILE_EVENTS_H

struct bpf_program;
struct profile;

/* The period of @hz samples per second, ns. */
static inline unsigned profile_period_ns(unsigned hz)
{
	return 1000000000u / hz;
}

/*
 * profile__start - open the events of every online CPU at @hz and attach
 * @prog to each. 0 and *@out, or -errno after a message on stderr.
 */
int profile__start(struct bpf_program *prog, unsigned hz, struct profile **out);
/* profile__stop - detach and close; accepts NULL. */
void profile__stop(struct profile *p);

#endif /* COLLECTOR_PROFILE_EVENTS_H */
