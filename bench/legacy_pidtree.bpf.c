// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* legacy_bare.bpf.c as a pidtree must do it: see there. */
#define BARE_PIDTREE
#include "legacy_bare.bpf.c"
