// SPDX-License-Identifier: BSD-2-Clause
/* A Go sample's caller skipped by frame pointers put back, by pcsp (goleaf.h). */
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collector/profile/frames.h"
#include "collector/profile/goleaf.h"
#include "collector/profile/umaps.h"
#include "common/gosym.h"

struct goleaf {
	struct gosym *g;
	uint64_t start, end;	/* the executable's code mapping */
	uint64_t va_start;	/* the link-time address of start */
	uint64_t pgoff;		/* the file offset of start */
};

/*
 * The code mapping of @exe (its path as /proc shows it) in @pid's maps
 * into @gl. false when none.
 */
static bool code_mapping(struct goleaf *gl, const char *proc, pid_t pid, const char *exe)
{
	char path[96], line[PATH_MAX + 128];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d/maps", proc, (int)pid);
	if (!(f = fopen(path, "re")))
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		uint64_t start, end, pgoff;
		const char *p, *sp;
		size_t plen;

		line[strcspn(line, "\n")] = '\0';
		/* the permissions: the fifth character after the range's space */
		sp = strchr(line, ' ');
		if (!sp || strlen(sp) < 5 || sp[3] != 'x' ||
		    umaps_parse_maps_line(line, &start, &end, &pgoff, &p, &plen) < 0)
			continue;
		if (plen == strlen(exe) && memcmp(p, exe, plen) == 0) {
			gl->start = start;
			gl->end = end;
			gl->pgoff = pgoff;
			found = true;
		}
	}
	fclose(f);
	return found;
}

struct goleaf *goleaf__new(const char *proc, pid_t pid, int exe_fd)
{
	struct goleaf *gl;
	char path[96], exe[PATH_MAX];
	ssize_t n;
	int fd;

	if (exe_fd < 0 || (fd = fcntl(exe_fd, F_DUPFD_CLOEXEC, 0)) < 0)
		return NULL;
	gl = calloc(1, sizeof(*gl));
	if (!gl) {
		close(fd);
		return NULL;
	}
	gl->g = gosym__open(fd);	/* fd is its own now */
	snprintf(path, sizeof(path), "%s/%d/exe", proc, (int)pid);
	n = readlink(path, exe, sizeof(exe) - 1);
	if (!gl->g || n <= 0)
		goto fail;
	exe[n] = '\0';
	if (!code_mapping(gl, proc, pid, exe) || gosym_file_va(gl->g, gl->pgoff, &gl->va_start) < 0)
		goto fail;
	return gl;
fail:
	goleaf__free(gl);
	return NULL;
}

void goleaf__free(struct goleaf *gl)
{
	if (!gl)
		return;
	gosym__free(gl->g);
	free(gl);
}

/* Is @f the frame of address @a, whose file offset is @off? */
static bool frame_is(const struct bt_stack_build_id *f, uint64_t a, uint64_t off)
{
	return f->status == BT_STACK_BUILD_ID_VALID ? f->offset == off :
	       f->status == BT_STACK_BUILD_ID_IP && f->ip == a;
}

int goleaf_fix(const struct gosym *g, uint64_t start, uint64_t end, uint64_t va_start,
	       uint64_t pgoff, const struct bt_stack_build_id *in, int n, uint64_t ip,
	       const unsigned char *stack, size_t stack_bytes, struct bt_stack_build_id *out)
{
	struct bt_stack_build_id ra_frame;
	int32_t delta, ra_delta;
	uint64_t ra;
	int i, k;

	if (!g || n < 1 || ip < start || ip >= end || !frame_is(&in[0], ip, ip - start + pgoff))
		return -1;
	if (gosym_sp_delta(g, ip - start + va_start, &delta) < 0 ||
	    (size_t)delta + sizeof(ra) > stack_bytes)
		return -1;
	memcpy(&ra, stack + delta, sizeof(ra));
	/* a return address into the executable's Go code (the call before it) */
	if (ra <= start || ra > end || gosym_sp_delta(g, ra - 1 - start + va_start, &ra_delta) < 0)
		return -1;
	if (n >= 2 && frame_is(&in[1], ra, ra - start + pgoff))
		return -1;	/* the frame pointers had it */
	ra_frame = in[0];
	if (ra_frame.status == BT_STACK_BUILD_ID_VALID)
		ra_frame.offset = ra - start + pgoff;
	else
		ra_frame.ip = ra;
	out[0] = in[0];
	out[1] = ra_frame;
	for (i = 1, k = 2; i < n && k < BT_STACK_MAX; i++)
		out[k++] = in[i];
	return k;
}

int goleaf_stack(const struct goleaf *gl, const struct bt_sample_event *e,
		 const struct bt_sample_ustack *us, const unsigned char *stack,
		 struct bt_stack_build_id *out)
{
	if (!gl)
		return -1;
	return goleaf_fix(gl->g, gl->start, gl->end, gl->va_start, gl->pgoff, e->ustack,
			  frames_fp_count(e), us->regs[BT_UREG_IP], stack, us->stack_bytes, out);
}
