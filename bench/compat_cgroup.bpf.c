// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* legacy_bare.bpf.c as the compat object's cgroup mode must do it: see there. */
#define BARE_PIDTREE
#define BARE_CGROUP
#include "legacy_bare.bpf.c"
