// SPDX-License-Identifier: BSD-2-Clause
/* PLACEHOLDER until the legacy backend lands: the helper writing it replaces this file. */
#include <errno.h>
#include <stdio.h>

#include "collector/backend.h"

int backend_legacy_open(const struct backend_config *cfg, struct backend **out)
{
	(void)cfg;
	(void)out;
	fprintf(stderr, "collector: the legacy BPF object is not built in this version\n");
	return -ENOTSUP;
}
