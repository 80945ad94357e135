// SPDX-License-Identifier: GPL-2.0
/* The names of the parts of figures, one table each (see figure_names.h). */
#include "figure_names.h"

const struct figure_name stall_kind_names[FS_NR_STALLS] = {
    [FS_STALL_COMPACTION] = STALL_COMPACTION_NAME(FIGURE_NAME),
    [FS_STALL_DIRECT_RECLAIM] = STALL_DIRECT_RECLAIM_NAME(FIGURE_NAME),
    [FS_STALL_MEMCG_RECLAIM] = STALL_MEMCG_RECLAIM_NAME(FIGURE_NAME),
};

const struct figure_name reclaimer_names[FS_NR_RECLAIMERS] = {
    [FS_BY_KSWAPD] = RECLAIMER_KSWAPD_NAME(FIGURE_NAME),
    [FS_BY_DIRECT] = RECLAIMER_DIRECT_NAME(FIGURE_NAME),
};

const char *const thp_event_names[FS_NR_THP_EVENTS] = {
    [FS_THP_COLLAPSE] = THP_COLLAPSE_NAME,
    [FS_THP_COLLAPSE_FILE] = THP_COLLAPSE_FILE_NAME,
    [FS_THP_SCAN] = THP_SCAN_NAME,
    [FS_THP_SCAN_FILE] = THP_SCAN_FILE_NAME,
};

const char *const vmscan_action_names[FS_NR_VMSCAN_ACTIONS] = {
    [FS_VMSCAN_SCANNED] = VMSCAN_SCANNED_NAME,
    [FS_VMSCAN_RECLAIMED] = VMSCAN_RECLAIMED_NAME,
    [FS_VMSCAN_DEACTIVATED] = VMSCAN_DEACTIVATED_NAME,
};
_Static_assert(FS_VMSCAN_DEACTIVATED + 1 == FS_NR_VMSCAN_ACTIONS, "the actions come first");

const char *const resident_type_names[NR_RESIDENT_TYPES] = {
    [RESIDENT_ANON] = "anon",
    [RESIDENT_FILE] = "file",
    [RESIDENT_SHMEM] = "shmem",
};

const char *const resident_mapping_names[NR_RESIDENT_MAPPINGS] = {
    [MAPPED_PMD] = "pmd",
    [MAPPED_PTE] = "pte",
    [MAPPED_PTE_UNALIGNED] = "pte_unaligned",
    [MAPPED_PARTIAL] = "partial",
};

const char *const migrate_names[FS_NR_MIGRATE_COUNTERS] = {
    [FS_MIGRATE_SUCCEEDED] = "succeeded",
    [FS_MIGRATE_FAILED] = "failed",
    [FS_MIGRATE_THP_SUCCEEDED] = "thp_succeeded",
    [FS_MIGRATE_THP_FAILED] = "thp_failed",
    [FS_MIGRATE_THP_SPLIT] = "thp_split",
    [FS_MIGRATE_LARGE_FOLIO_SPLIT] = "large_folio_split",
};

const enum fs_measure migrate_measures[FS_NR_MIGRATE_COUNTERS] = {
    [FS_MIGRATE_SUCCEEDED] = MEASURE_MIGRATE,
    [FS_MIGRATE_FAILED] = MEASURE_MIGRATE,
    [FS_MIGRATE_THP_SUCCEEDED] = MEASURE_MIGRATE,
    [FS_MIGRATE_THP_FAILED] = MEASURE_MIGRATE,
    [FS_MIGRATE_THP_SPLIT] = MEASURE_MIGRATE,
    [FS_MIGRATE_LARGE_FOLIO_SPLIT] = MEASURE_MIGRATE_LARGE_FOLIO_SPLIT,
};

const enum fs_measure fault_measures[FS_NR_FAULT_COUNTERS] = {
    [FS_FAULT_USER] = MEASURE_FAULT_USER,	 [FS_FAULT_KERNEL] = MEASURE_FAULT_KERNEL,
    [FS_FAULT_READ] = MEASURE_FAULT_KINDS,	 [FS_FAULT_WRITE] = MEASURE_FAULT_KINDS,
    [FS_FAULT_EXEC] = MEASURE_FAULT_KINDS,	 [FS_FAULT_NOT_PRESENT] = MEASURE_FAULT_KINDS,
    [FS_FAULT_PROTECTION] = MEASURE_FAULT_KINDS, [FS_FAULT_FILE] = MEASURE_FAULT_FILE,
    [FS_FAULT_MAJOR] = MEASURE_FAULT_MAJOR,	 [FS_FAULT_MINOR] = MEASURE_FAULT_MINOR,
};

const char *const fault_mode_names[FS_NR_FAULT_MODES] = {FAULT_MODE_NAMES};
const char *const fault_access_names[FS_NR_FAULT_ACCESSES] = {FAULT_ACCESS_NAMES};
const char *const fault_cause_names[FS_NR_FAULT_CAUSES] = {"not_present", "protection"};
const char *const folio_kind_names[2] = {"movable", "kernel"};
