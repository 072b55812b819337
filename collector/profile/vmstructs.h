/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * HotSpot's description of itself, read from a live JVM: libjvm.so
 * exports four tables, gHotSpotVMStructs (type, field, its offset or,
 * for a static field, its address), gHotSpotVMTypes (type, its size),
 * gHotSpotVMIntConstants and gHotSpotVMLongConstants (name, value), each
 * an array of entries ending with one whose name is NULL, and the layout
 * of those entries (gHotSpotVMStructEntryTypeNameOffset, ...,
 * gHotSpotVMStructEntryArrayStride...). The layout variables are filled
 * when libjvm is loaded (they are in .bss), so everything is read from
 * the process, never from the file: the serviceability agent, the
 * OpenTelemetry eBPF profiler and async-profiler read the same tables
 * instead of hard-coding a JDK's offsets.
 *
 * Pure: the memory and the symbols come through a vms_source, so the
 * tests give a fake JVM.
 */
#ifndef COLLECTOR_VMSTRUCTS_H
#define COLLECTOR_VMSTRUCTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where the tables are read from. */
struct vms_source {
	/* @n bytes at @addr of the process into @buf: 0, or -1 */
	int (*read)(void *ctx, uint64_t addr, void *buf, size_t n);
	/* the address of libjvm's exported symbol @name in the process: 0, or -1 */
	int (*symbol)(void *ctx, const char *name, uint64_t *addr);
	void *ctx;
};

struct vms;

/*
 * vms__load - read the four tables through @src. The tables, or NULL
 * with why in @err (@n bytes): a symbol missing (not a HotSpot libjvm),
 * a read failing, a table too long (VMS_MAX_ENTRIES: not a table), or
 * *@early: libjvm is mapped but its layout variables are not filled yet
 * (its initializers have not run: look again soon).
 */
struct vms *vms__load(const struct vms_source *src, bool *early, char *err, size_t n);
#define VMS_NOT_YET 1
void vms__free(struct vms *v);

/* Entries a table may have at most (JDK 17 has 788 structs, 768 types, 484 constants). */
#define VMS_MAX_ENTRIES 20000

/* vms_offset - the offset of non-static field @type::@field: 0 and *@off, or -1. */
int vms_offset(const struct vms *v, const char *type, const char *field, uint64_t *off);
/* vms_address - the address of static field @type::@field: 0 and *@addr, or -1. */
int vms_address(const struct vms *v, const char *type, const char *field, uint64_t *addr);
/* vms_type_size - sizeof(@type): 0 and *@size, or -1. */
int vms_type_size(const struct vms *v, const char *type, uint64_t *size);
/* vms_constant - int or long constant @name: 0 and *@val, or -1. */
int vms_constant(const struct vms *v, const char *name, int64_t *val);
/* vms_field_type - the type string of field @type::@field ("int", "u2"...), or NULL. */
const char *vms_field_type(const struct vms *v, const char *type, const char *field);

#endif /* COLLECTOR_VMSTRUCTS_H */
