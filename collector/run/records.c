// SPDX-License-Identifier: BSD-2-Clause
/*
 * Records from the kernel (bpf/boottrace.h) → TSV rows
 * (docs/tsv-format.md), and the header lines before them.
 */
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>

#include <linux/types.h>

#include "bpf/boottrace.h"
#include "collector/kernel/cgroup.h"
#include "collector/collector.h"
#include "collector/kernel/marks.h"
#include "collector/rows/names.h"
#include "collector/run/progress.h"
#include "collector/profile/offstacks.h"
#include "collector/profile/samples.h"
#include "collector/kernel/spans.h"
#include "collector/rows/spanrows.h"
#include "collector/rows/sockport.h"
#include "common/entrypoint.h"
#include "common/sched_detail.h"
#include "common/tsv.h"

/* The row of @h, of container @k; @k NULL: a host row (container and cgroup_id \N). */
static void row_from_hdr(const struct collector *c, struct row *r, const struct bt_event_hdr *h,
			 const struct container *k, const char *event)
{
	memset(r, 0, sizeof(*r));
	r->ts_ns = h->ts_ns;
	r->container = field_str(k ? k->top->name : NULL);
	r->cgroup_id = c->mode == BT_MODE_CGROUP && k ? h->cgroup_id : 0;
	r->pid = h->pid;
	r->tid = h->tid;
	r->ppid = h->ppid;
	r->comm = field_strn(h->comm, sizeof(h->comm));
	r->event = event;
}

void records_row_from_hdr(const struct collector *c, struct row *r, const struct bt_event_hdr *h,
			  const struct container *k, const char *event)
{
	row_from_hdr(c, r, h, k, event);
}

/*
 * The legacy and compat objects' successful listen (BT_SC_FD): their
 * detail is the address bind() was given, port 0 when the kernel was to
 * choose, or none (autobind). The socket's own address with the port it
 * has, found through the fd while the socket is open (collector/rows/sockport.c),
 * into @r's detail (@buf, @n bytes); else @r keeps what the kernel sent.
 */
static void listen_detail(const struct bt_syscall_event *e, const void *data, size_t size,
			  struct row *r, char *buf, size_t n)
{
	const struct bt_syscall_detail_event *d = data;
	struct sockaddr_storage ss;
	size_t len = 0, got;

	if (e->detail_kind == BT_DETAIL_SOCKADDR && e->hdr.type == BT_EV_SYSCALL_DETAIL &&
	    size >= sizeof(*d))
		len = e->detail_len < BT_DETAIL_MAX ? e->detail_len : BT_DETAIL_MAX;
	else if (e->detail_kind != BT_DETAIL_NONE)
		return;
	got = sockport_listen_addr((pid_t)e->hdr.pid, (pid_t)e->hdr.tid, (int)e->fd,
				   len ? d->detail : NULL, len, &ss);
	if (!got)
		return;
	r->detail.s = buf;
	r->detail.n = sockaddr_format(&ss, got, buf, n);
}

/* The comm at @c (BT_COMM_LEN bytes, NUL-padded) as a detail string. */
static struct sched_str comm_str(const char *c)
{
	struct field f = field_strn(c, BT_COMM_LEN);

	return (struct sched_str){ f.s, f.n };
}

/*
 * A task's off-CPU interval (bt_sched_event): the sched row, written at
 * its switch-in (docs/tsv-format.md, Scheduler rows).
 */
static void on_sched(struct collector *c, struct container *k, const struct bt_sched_event *e)
{
	static const enum sched_wake wakes[] = {
		[BT_WAKE_UNSEEN] = SCHED_WAKE_MISSING, [BT_WAKE_TASK] = SCHED_WAKE_TASK,
		[BT_WAKE_IRQ] = SCHED_WAKE_IRQ, [BT_WAKE_SOFTIRQ] = SCHED_WAKE_SOFTIRQ,
		[BT_WAKE_NEW] = SCHED_WAKE_NEW, [BT_WAKE_NONE] = SCHED_WAKE_NONE,
		[BT_WAKE_UNKNOWN] = SCHED_WAKE_UNKNOWN,
	};
	struct sched_task none = { -1, -1, { NULL, 0 } }, waker = {
		e->waker_tid, e->waker_pid, comm_str(e->waker_comm) };
	struct sched_detail d = { SCHED_WAKE_MISSING, none, none, none, e->cpu, false, 0 };
	char state[2] = { (char)e->state, 0 }, detail[256];
	bool woken = e->wake_ts && e->wake < sizeof(wakes) / sizeof(wakes[0]);
	struct row r;

	row_from_hdr(c, &r, &e->hdr, k, "sched");
	if (!strchr("RSDIT", state[0]) || !state[0])	/* I: TASK_IDLE, an idle kworker */
		state[0] = '?';
	r.name = field_str(state);
	r.has_dur = true;
	r.dur_ns = e->in_ts > e->hdr.ts_ns ? e->in_ts - e->hdr.ts_ns : 0;
	if (woken) {
		r.has_ret = true;
		r.ret = e->in_ts > e->wake_ts ? (int64_t)(e->in_ts - e->wake_ts) : 0;
		d.wake = wakes[e->wake];
		if (e->wake == BT_WAKE_TASK || e->wake == BT_WAKE_NEW)
			d.waker = waker;
		else if (e->wake == BT_WAKE_UNKNOWN)
			d.cur = waker;	/* the waker, or the task an interrupt came in */
	}
	d.in_inferred = e->flags & BT_SCHED_IN_INFERRED;
	/* its stack as it blocked (--offcpu-stacks), given by a record before this one */
	if (c->offstacks && (e->state == 'S' || e->state == 'D'))
		d.stack = (long long)offstacks_take(c->offstacks, e->hdr.tid, e->hdr.ts_ns);
	/* who had the CPU while it waited for it (unknown wait: named too) */
	if (!d.in_inferred && (!woken || r.ret > 0)) {
		d.holder.tid = e->holder_tid;
		d.holder.comm = comm_str(e->holder_comm);
	}
	r.detail.s = detail;
	r.detail.n = sched_detail_format(&d, detail, sizeof(detail));
	output_row(c->out, &r);
}

/*
 * The stack id of sample or off-CPU stack @e, its stack row written the
 * first time this file sees the stack (docs/tsv-format.md, Profile rows).
 */
static uint64_t stack_row(struct collector *c, struct container *k, const struct bt_sample_event *e,
			  size_t size)
{
	uint64_t sid;
	char id[24];
	const char *frames;
	size_t n;
	int fresh;
	struct row r;

	sid = samples_stack(c->samples, e, size, &frames, &n, &fresh);
	if (fresh) {
		snprintf(id, sizeof(id), "%llu", (unsigned long long)sid);
		row_from_hdr(c, &r, &e->hdr, k, "stack");
		r.name = field_str(id);
		r.detail = field_strn(frames, n);
		output_row(c->out, &r);
	}
	return sid;
}

/*
 * A profile sample (bt_sample_event): its stack row the first time this
 * file sees the stack, then the sample row (docs/tsv-format.md, Profile
 * rows).
 */
static void on_sample(struct collector *c, struct container *k, const struct bt_sample_event *e,
		      size_t size)
{
	char id[24], cpu[24];
	struct row r;

	if (!c->samples || !c->opt.profile_hz)
		return;
	snprintf(id, sizeof(id), "%llu", (unsigned long long)stack_row(c, k, e, size));
	row_from_hdr(c, &r, &e->hdr, k, "sample");
	r.name = field_str(id);
	r.has_dur = true;
	r.dur_ns = e->period_ns;
	snprintf(cpu, sizeof(cpu), "cpu=%u", e->cpu);
	r.detail = field_str(cpu);
	output_row(c->out, &r);
}

/*
 * The progress line's record of the run in progress, when @k is (a part
 * of) its container; else NULL.
 */
static struct progress *run_progress(const struct collector *c, const struct container *k)
{
	return c->progress && c->spawned && k && k->top && (k->top == c->spawned || k->top->run_member) ?
	       c->progress : NULL;
}

/*
 * A --mark fired in container @k: a mark row. A --start probe's time met
 * the spawned container: its start row, once per boot (bpf/marks.bpf.h).
 */
static void on_mark(struct collector *c, struct container *k, const struct bt_mark_event *e)
{
	const struct mark *m = marks_get(c->opt.marks, e->mark_id);
	struct progress *p;
	struct row r;

	if (!m || !m->spec)
		return;
	if (e->flags & BT_MARK_START) {
		/*
		 * Spawn mode: the start row, instead of the spawn time. Watch and
		 * --pid: the container's start row (mkdir, namespace, attach) is
		 * out already; a second one, name=mark, gives the earlier time the
		 * analyzer takes (the runtime fires the probe before it mkdirs).
		 */
		if (c->spawned && c->spawned == k->top) {
			if (!c->start_written)
				lifecycle_write_start(c, k->top, e->hdr.ts_ns, "mark", e->hdr.pid,
					    field_strn(e->hdr.comm, sizeof(e->hdr.comm)).s, m->spec);
			c->start_written = 1;
		} else if (!c->opt.command && !k->top->start_marked) {
			lifecycle_write_start(c, k->top, e->hdr.ts_ns, "mark", e->hdr.pid,
				    field_strn(e->hdr.comm, sizeof(e->hdr.comm)).s, m->spec);
			k->top->start_marked = 1;
		}
		return;
	}
	row_from_hdr(c, &r, &e->hdr, k, "mark");
	r.name = field_str(m->label);
	r.detail = field_str(m->spec);
	output_row(c->out, &r);
	if ((p = run_progress(c, k)))
		progress_reached(p, progress_phase_of(p, m->label), e->hdr.ts_ns);
	if (c->opt.until == UNTIL_MARK && strcmp(m->label, c->opt.until_mark) == 0)
		lifecycle_until_reached(c, k, UNTIL_MARK);
}

struct span_emit {
	struct collector *c;
	const struct container *k;
};

/* A finished span (spanrows.c): its span row (docs/tsv-format.md, Span rows). */
static void emit_span(void *arg, const struct span_done *d)
{
	const struct span_emit *x = arg;
	char detail[3 * BT_SPAN_TEXT_MAX];
	size_t n;
	struct row r;

	row_from_hdr(x->c, &r, d->hdr, x->k, "span");
	r.ts_ns = d->ts;
	r.name = field_str(spanrows_kind_name(d->kind));
	r.has_ret = r.has_dur = true;
	r.ret = d->depth;
	r.dur_ns = d->dur;
	/* LEN:BYTES as in sched rows: a file name may hold anything */
	n = (size_t)snprintf(detail, sizeof(detail), "what=%zu:%.*s", d->name_len,
			     (int)d->name_len, d->name);
	if (d->caller_len && n < sizeof(detail))
		n += (size_t)snprintf(detail + n, sizeof(detail) - n, " caller=%zu:%.*s line=%lld",
				      d->caller_len, (int)d->caller_len, d->caller, d->line);
	if (d->found == 0 && n < sizeof(detail))
		n += (size_t)snprintf(detail + n, sizeof(detail) - n, " found=0");
	if (d->raised && n < sizeof(detail))
		n += (size_t)snprintf(detail + n, sizeof(detail) - n, " raised=1");
	if (d->error && n < sizeof(detail))
		n += (size_t)snprintf(detail + n, sizeof(detail) - n, " error=1");
	r.detail = field_strn(detail, n < sizeof(detail) ? n : sizeof(detail) - 1);
	output_row(x->c->out, &r);
}

/*
 * Whether exec record @e may be its container's entrypoint: pid 1 of the
 * container's namespace, or no runtime's own re-exec (common/entrypoint.h).
 */
static bool exec_is_entrypoint(const struct bt_exec_event *e)
{
	struct field f = field_strn(e->filename, sizeof(e->filename));

	return (e->flags & BT_EXEC_NS_INIT) || !entrypoint_is_runtime(f.s, f.n);
}

int records_on_event(void *ctx, void *data, size_t size)
{
	struct collector *c = ctx;
	const struct bt_event_hdr *h = data;
	struct container *k;
	struct progress *p;
	struct row r;
	char num[32], addr[BT_DETAIL_MAX * 2];

	if (size < sizeof(*h))
		return 0;
	if (h->type == BT_EV_CGROUP_MKDIR || h->type == BT_EV_CGROUP_RMDIR) {
		if (size >= sizeof(struct bt_cgroup_event))
			lifecycle_on_cgroup(c, data);
		return 0;
	}
	if (h->type == BT_EV_ROOT) {
		if (size >= sizeof(struct bt_root_event))
			lifecycle_on_root(c, data);
		return 0;
	}
	if (h->type == BT_EV_GONE) {
		lifecycle_on_gone(c, h);
		return 0;
	}
	/* names for the samples that follow: no row of their own */
	if (h->type == BT_EV_INAME) {
		if (size >= sizeof(struct bt_iname_event))
			samples_iname(c->samples, data);
		return 0;
	}
	if (h->cgroup_id == BT_KEY_HOST) {
		/*
		 * A task outside every container (bpf/host.bpf.h): its row and
		 * nothing else. It makes no container, and its exec is no
		 * container's entrypoint (nor the progress line's).
		 */
		if (h->type == BT_EV_FORK || h->type == BT_EV_EXEC || h->type == BT_EV_EXIT ||
		    h->type == BT_EV_SCHED || h->type == BT_EV_SAMPLE)
			k = NULL;
		else
			return 0;
	} else {
		k = containers_find(&c->containers, h->cgroup_id);
		if (!k) {
			c->stray++;
			return 0;
		}
		if (k->cand && !(k = lifecycle_decide(c, k))) {
			c->stray++;
			return 0;
		}
	}
	if (k && k->top->names)
		lifecycle_names(c, k->top, h->ts_ns, h->pid,
				h->type == BT_EV_EXEC && size >= sizeof(struct bt_exec_event) &&
				exec_is_entrypoint(data));
	switch (h->type) {
	case BT_EV_SYSCALL:
	case BT_EV_SYSCALL_DETAIL: {
		const struct bt_syscall_event *e = data;
		const char *sname = syscall_name(e->nr);

		row_from_hdr(c, &r, h, k, "syscall");
		if (!sname) {
			snprintf(num, sizeof(num), "syscall_%u", e->nr);
			sname = num;
		}
		r.name = field_str(sname);
		if (!(e->flags & BT_SC_NORETURN)) {
			r.has_ret = r.has_dur = true;
			r.ret = e->ret;
			r.dur_ns = e->dur_ns;
		}
		if (e->detail_kind == BT_DETAIL_PIPE || e->detail_kind == BT_DETAIL_FIFO) {
			r.detail.s = addr;
			r.detail.n = pipe_format(e->detail_kind == BT_DETAIL_FIFO, e->ino, addr,
						 sizeof(addr));
		} else if (h->type == BT_EV_SYSCALL_DETAIL &&
			   size >= sizeof(struct bt_syscall_detail_event)) {
			const struct bt_syscall_detail_event *d = data;
			size_t len = e->detail_len < BT_DETAIL_MAX ? e->detail_len : BT_DETAIL_MAX;

			if (e->detail_kind == BT_DETAIL_PATH) {
				r.detail = field_strn(d->detail, len);
			} else if (e->detail_kind == BT_DETAIL_SOCKADDR) {
				r.detail.s = addr;
				r.detail.n = sockaddr_format(d->detail, len, addr, sizeof(addr));
			}
		}
		if ((e->flags & BT_SC_FD) && e->nr == __NR_listen && e->ret == 0)
			listen_detail(e, data, size, &r, addr, sizeof(addr));
		output_row(c->out, &r);
		if (e->nr == __NR_listen && e->ret == 0 && !(e->flags & BT_SC_NORETURN)) {
			/* the analyzer's listen: when it returned */
			if ((p = run_progress(c, k)))
				progress_reached(p, PROGRESS_LISTEN, h->ts_ns + e->dur_ns);
			lifecycle_until_reached(c, k, UNTIL_LISTEN);
		}
		break;
	}
	case BT_EV_FORK: {
		const struct bt_fork_event *e = data;

		row_from_hdr(c, &r, h, k, "fork");
		r.name = field_str(e->is_thread ? "thread" : "process");
		/* the thread that forked it: a host row has no clone row to tell */
		snprintf(num, sizeof(num), "parent=%u", e->parent_tid);
		r.detail = field_str(num);
		output_row(c->out, &r);
		break;
	}
	case BT_EV_EXEC: {
		const struct bt_exec_event *e = data;

		row_from_hdr(c, &r, h, k, "exec");
		jitrows_take(c, k, h);	/* the perf map of the program it was */
		samples_forget(c->samples, (pid_t)h->pid);	/* new mappings */
		if (k && c->spanrows) {
			/* the interpreter it runs, before its first require if we are quick */
			spans_on_exec(c->spans, (pid_t)h->pid);
			spanrows_forget(c->spanrows, (pid_t)h->pid);
		}
		/* the container's init, not a runtime's re-exec of itself (issue 13) */
		if (e->flags & BT_EXEC_NS_INIT)
			r.name = field_str("init");
		r.detail = field_strn(e->filename, sizeof(e->filename));
		output_row(c->out, &r);
		/*
		 * The raw filename: escaping it as the row has it would not
		 * change the answer (a runtime's names have no byte to escape).
		 */
		if ((p = run_progress(c, k)))
			progress_exec(p, h->ts_ns, e->flags & BT_EXEC_NS_INIT,
				      entrypoint_is_runtime(r.detail.s, r.detail.n));
		if (k) {
			lifecycle_saw_exec(k->top, (long)h->pid, e->flags & BT_EXEC_NS_INIT);
			lifecycle_until_reached(c, k, UNTIL_EXEC);
		}
		break;
	}
	case BT_EV_EXIT: {
		const struct bt_exit_event *e = data;

		row_from_hdr(c, &r, h, k, "exit");
		if (h->tid == h->pid)	/* the process, not one of its threads */
			samples_forget(c->samples, (pid_t)h->pid);
		if (c->spanrows)
			spanrows_forget(c->spanrows, (pid_t)h->pid);
		r.has_ret = true;
		/* as a shell reports it: the exit status, or 128 + signal */
		r.ret = WIFSIGNALED(e->exit_code) ? 128 + WTERMSIG(e->exit_code) :
						     WEXITSTATUS(e->exit_code);
		output_row(c->out, &r);
		jitrows_take(c, k, h);	/* a perf map written at its exit */
		if (k)
			lifecycle_saw_exit(k->top, (long)h->pid, e->exit_code);
		break;
	}
	case BT_EV_MARK:
		if (size >= sizeof(struct bt_mark_event))
			on_mark(c, k, data);
		break;
	case BT_EV_SPAN:
		if (size >= sizeof(struct bt_span_event) && c->spanrows) {
			struct span_emit x = { c, k };

			spanrows_event(c->spanrows, data, emit_span, &x);
		}
		break;
	case BT_EV_SCHED:
		if (size >= sizeof(struct bt_sched_event))
			on_sched(c, k, data);
		break;
	case BT_EV_SAMPLE:
		if (size >= sizeof(struct bt_sample_event))
			on_sample(c, k, data, size);
		break;
	case BT_EV_OFFSTACK:
		/* a task blocks (--offcpu-stacks): its stack, for its sched row to name */
		if (size >= sizeof(struct bt_sample_event) && c->samples && c->offstacks)
			offstacks_put(c->offstacks, h->tid, h->ts_ns, stack_row(c, k, data, size));
		break;
	case BT_EV_OFFSTACK_SAME:
		/* where it blocked last: that stack again */
		if (c->offstacks)
			offstacks_same(c->offstacks, h->tid, h->ts_ns);
		break;
	}
	return 0;
}

/* --- set-up ------------------------------------------------------------------ */

/*
 * Which host rows the file has: all (--sched host), boots (client mode
 * with scheduler rows, during each boot), off.
 */
static const char *host_rows_meta(const struct collector *c)
{
	if (!c->be->ops->host_rows || c->opt.sched == SCHED_OFF)
		return "off";
	if (c->opt.sched == SCHED_HOST)
		return "all";
	return c->opt.command && c->opt.cgroup_glob ? "boots" : "off";
}

void records_write_header(struct collector *c)
{
	struct utsname u;
	struct timespec rt, mono;
	char buf[128];
	time_t t = time(NULL);
	long long off;

	uname(&u);
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	off = ((long long)rt.tv_sec - mono.tv_sec) * 1000000000LL + (rt.tv_nsec - mono.tv_nsec);
	output_raw(c->out, TSV_VERSION_LINE "\n", strlen(TSV_VERSION_LINE) + 1);
	output_meta(c->out, "host", u.nodename);
	output_meta(c->out, "kernel", u.release);
	output_meta(c->out, "mode", c->mode == BT_MODE_CGROUP ? "cgroup" : "pidtree");
	output_meta(c->out, "bpf_object", c->be->ops->name);
	output_meta(c->out, "clock", "CLOCK_MONOTONIC");
	snprintf(buf, sizeof(buf), "%lld", off);
	output_meta(c->out, "realtime_offset_ns", buf);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
	output_meta(c->out, "started", buf);
	output_meta(c->out, "collector", BOOTTRACE_VERSION);
	output_meta(c->out, "cgroup2", c->cg2);
	output_meta(c->out, "cgroup_layout", cgroup_host_layout(c->cg2));
	output_meta(c->out, "sched", c->opt.sched != SCHED_OFF ? "on" : "off");
	output_meta(c->out, "host_rows", host_rows_meta(c));
	snprintf(buf, sizeof(buf), "%u", c->opt.profile_hz);
	output_meta(c->out, "profile", c->samples && c->opt.profile_hz ? buf : "off");
	output_meta(c->out, "offcpu_stacks", c->offstacks ? "on" : "off");
	output_meta(c->out, "spans", c->spanrows ? "on" : "off");
	/* the window each boot was stopped at, as analyze names the phase: its default --until */
	if (c->opt.until != UNTIL_END)
		output_meta(c->out, "until", options_until_name(&c->opt));
	if (c->samples)
		output_meta(c->out, "profile_unwind", c->opt.profile_unwind == PROFILE_UNWIND_FP ? "fp" :
				    c->opt.profile_unwind == PROFILE_UNWIND_DWARF ? "dwarf" : "auto");
	output_meta(c->out, "command_line",
		    !c->opt.command ? "watch" : c->opt.cgroup_glob ? "client" : "spawn");
	/* the run's files: analyze joins a container across them (collector/run/rotate.h) */
	output_meta(c->out, "run_id", c->run_id);
	snprintf(buf, sizeof(buf), "%u", c->part);
	output_meta(c->out, "part", buf);
	output_raw(c->out, TSV_HEADER "\n", strlen(TSV_HEADER) + 1);
	output_flush(c->out);
}
