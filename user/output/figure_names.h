/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The names of the parts of figures (stall kinds, reclaimers, collapse events, migration
 * counters, fault modes, ...), one table each, which every output reads. Where the outputs
 * spell a name differently, the spellings are columns of its one row: the JSON record's key,
 * the exposition's label value, the table's text. A row is a macro of its spellings, so that
 * record_layout.c's keys (constant initializers) come from the same row as the tables here.
 */
#ifndef FS_FIGURE_NAMES_H
#define FS_FIGURE_NAMES_H

#include <linux/types.h>

#include "foliostat.h"
#include "measures.h"
#include "resident.h"

struct figure_name {
	const char *json;  /* the JSON record's key */
	const char *label; /* the exposition's label value */
	const char *table; /* the table's text */
};

/* A row's spellings to a struct figure_name, or one of them alone. */
#define FIGURE_NAME(json, label, table) {json, label, table}
#define JSON_KEY(json, label, table) json
#define TABLE_TEXT(json, label, table) table

/* Stall kinds (enum fs_stall_kind). */
#define STALL_COMPACTION_NAME(as) as("compaction", "compaction", "compaction")
#define STALL_DIRECT_RECLAIM_NAME(as) as("direct", "direct_reclaim", "direct reclaim")
#define STALL_MEMCG_RECLAIM_NAME(as) as("memcg", "memcg_reclaim", "memcg reclaim")
extern const struct figure_name stall_kind_names[FS_NR_STALLS];

/* Reclaimers (enum fs_reclaimer). */
#define RECLAIMER_KSWAPD_NAME(as) as("kswapd", "kswapd", "kswapd")
#define RECLAIMER_DIRECT_NAME(as) as("direct", "direct", "direct")
extern const struct figure_name reclaimer_names[FS_NR_RECLAIMERS];

/* khugepaged's events (enum fs_thp_event): one spelling everywhere. */
#define THP_COLLAPSE_NAME "collapse"
#define THP_COLLAPSE_FILE_NAME "collapse_file"
#define THP_SCAN_NAME "scan"
#define THP_SCAN_FILE_NAME "scan_file"
extern const char *const thp_event_names[FS_NR_THP_EVENTS];

/* What reclaim did to a list's pages (enum fs_vmscan_figure's first three): one spelling. */
#define VMSCAN_SCANNED_NAME "scanned"
#define VMSCAN_RECLAIMED_NAME "reclaimed"
#define VMSCAN_DEACTIVATED_NAME "deactivated"
#define FS_NR_VMSCAN_ACTIONS 3
extern const char *const vmscan_action_names[FS_NR_VMSCAN_ACTIONS];

/* What --resident tells apart, one spelling in every output: the types of memory (enum
 * resident_type) and how large folios are mapped (enum resident_mapping). */
extern const char *const resident_type_names[NR_RESIDENT_TYPES];
extern const char *const resident_mapping_names[NR_RESIDENT_MAPPINGS];

/* Migration's counters (enum fs_migrate_counter), and what measures each. */
extern const char *const migrate_names[FS_NR_MIGRATE_COUNTERS];
extern const enum fs_measure migrate_measures[FS_NR_MIGRATE_COUNTERS];

/* What measures each fault counter (enum fs_fault_counter). */
extern const enum fs_measure fault_measures[FS_NR_FAULT_COUNTERS];

/* Fault modes, accesses and causes; the kinds of folios allocated (movable, kernel). */
#define FAULT_USER_NAME "user"
#define FAULT_KERNEL_NAME "kernel"
#define FAULT_MODE_NAMES FAULT_USER_NAME, FAULT_KERNEL_NAME
#define FAULT_ACCESS_NAMES "read", "write", "exec"
extern const char *const fault_mode_names[FS_NR_FAULT_MODES];
extern const char *const fault_access_names[FS_NR_FAULT_ACCESSES];
extern const char *const fault_cause_names[FS_NR_FAULT_CAUSES];
extern const char *const folio_kind_names[2];

#endif /* FS_FIGURE_NAMES_H */
