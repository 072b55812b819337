/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The kernel's function symbols, from /proc/kallsyms, for --profile's
 * kernel frames: the collector names them when it writes the sample,
 * since the analyzer may run on another host (or after a reboot, when
 * KASLR moved them). Text symbols only (t, T, w, W), sorted by address;
 * a module's functions too. Read once: a module loaded later is not
 * named (its addresses stay k:0xADDR).
 */
#ifndef COLLECTOR_KSYMS_H
#define COLLECTOR_KSYMS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct ksyms;

/*
 * ksyms__load - the text symbols of @f (kallsyms' format: "ADDR TYPE
 * NAME [MODULE]"). NULL when out of memory; no symbols (kptr_restrict
 * shows every address as 0) is an empty table.
 */
struct ksyms *ksyms__load(FILE *f);
void ksyms__free(struct ksyms *k);
size_t ksyms_count(const struct ksyms *k);

/*
 * ksyms_find - the symbol @addr is in: its name, and *@off the offset in
 * it. NULL when @addr is below the first symbol or the table is empty.
 */
const char *ksyms_find(const struct ksyms *k, uint64_t addr, uint64_t *off);

#endif /* COLLECTOR_KSYMS_H */
