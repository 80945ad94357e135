/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a record can report as measured or as null (not measured is not zero): one name per
 * thing a probe, or a set of probes, measures. Whether each is measured on this host is derived
 * once per run from the figure registry's rules (figures.c, measures_derive()); the JSON record,
 * the table and the exposition ask that, never a probe.
 */
#ifndef FS_MEASURES_H
#define FS_MEASURES_H

#include <linux/types.h>

#include "foliostat.h"

/* The system's vmscan figures, each from its own tracepoint. */
enum fs_vmscan_figure {
	FS_VMSCAN_SCANNED,
	FS_VMSCAN_RECLAIMED,
	FS_VMSCAN_DEACTIVATED,
	FS_VMSCAN_KSWAPD_WAKES,
	FS_VMSCAN_WRITTEN,
	FS_NR_VMSCAN_FIGURES,
};

enum fs_measure {
	MEASURE_NONE, /* ends nothing, measures nothing: a registry row's "no such condition" */
	MEASURE_ALLOCATED, /* folios allocated (by kind, and failed): the required probe */
	MEASURE_PAGECACHE,
	MEASURE_DISCARDED,
	MEASURE_FREED,
	MEASURE_FAULT_KINDS, /* faults by access and cause */
	MEASURE_FAULT_USER,  /* faults by mode: user, then kernel */
	MEASURE_FAULT_KERNEL,
	MEASURE_FAULT_FILE,
	MEASURE_FAULT_MAJOR,
	MEASURE_FAULT_MINOR,
	MEASURE_THP_FAULT_ALLOC,
	MEASURE_THP_RESULTS, /* + enum fs_thp_event: each event's collapse outcomes */
	MEASURE_STALLS = MEASURE_THP_RESULTS + FS_NR_THP_EVENTS, /* + enum fs_stall_kind */
	MEASURE_COMPACTION_BY_ORDER = MEASURE_STALLS + FS_NR_STALLS,
	MEASURE_VMSCAN, /* + enum fs_vmscan_figure */
	MEASURE_TLB = MEASURE_VMSCAN + FS_NR_VMSCAN_FIGURES,
	MEASURE_LRU_INSERT,
	MEASURE_LRU_ACTIVATE, /* and not under the multi-generational LRU */
	MEASURE_MIGRATE,
	MEASURE_MIGRATE_LARGE_FOLIO_SPLIT, /* and the kernel reports it */
	MEASURE_FILES_READAHEAD,	   /* --files: each file's readahead order */
	MEASURE_NODES, /* allocations by node: one node, or page flags checked (nodes.h) */
	NR_MEASURES,
};

#endif /* FS_MEASURES_H */
