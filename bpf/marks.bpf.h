/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Mark programs of the modern object, included at the end of
 * boottrace.bpf.c (they use its maps and current_container()).
 */
