# shellcheck shell=bash
# Transparent huge pages: order-9 folios of a MADV_HUGEPAGE region and of MADV_COLLAPSE, charged
# to the process whose memory it is, against the workload's smaps, perf and /proc/vmstat.
# (THP faults that got none: integration_fault_outcomes.sh; khugepaged's scans:
# integration_figures.sh.)

# Touching 64 MiB of MADV_HUGEPAGE memory, 2 MiB aligned, gives an order-9 folio per 2 MiB: 32,
# unless the kernel found no free 2 MiB block for some (then it falls back to small pages, and
# the workload's own count of its huge pages, from smaps, says how many it got).
test_thp_region_gives_order9_folios() {
	need_root
	mount_tracefs
	need_pmd_thp
	run_workload_traced -e kmem:mm_page_alloc --filter 'order == 9' -- thp 64
	local pid huge
	pid=$(json_field "$(cat "$T/workload")" pid)
	huge=$(json_field "$(cat "$T/workload")" huge_pages)
	assert_between "$huge" 1 32 "huge pages the workload got (smaps), of 32"
	[ "$huge" -eq 32 ] || echo "note: the kernel fell back to small pages for $((32 - huge)) of 32"
	assert_eq "$(query "$T/out" "hist($pid, 'alloc').get('9', 0)")" "$huge" "order-9 folios charged to the workload"
	assert_eq "$(query "$T/out" "hist($pid, 'alloc_movable').get('9', 0)")" "$huge" "of which movable"
	# perf also counts the allocations that found no block (the kernel traces them with no page).
	assert_eq "$(perf_count "$T/perf" kmem:mm_page_alloc)" \
		"$((huge + $(query "$T/out" "hist($pid, 'alloc_failed').get('9', 0)")))" \
		"perf's count of order-9 allocations (got and found none)"
	assert_between "$(vmstat_delta outer thp_fault_alloc)" "$huge" 100000000 "/proc/vmstat thp_fault_alloc delta"
	assert_sandwiched "$(query "$T/out" "vmstat('thp_fault_alloc')")" "$(vmstat_delta inner thp_fault_alloc)" \
		"$(vmstat_delta outer thp_fault_alloc)" "thp_fault_alloc change in the records"
	assert_between "$(query "$T/out" "system('alloc').get('9', 0)")" "$huge" 100000000 "system order-9 folios"
}

# MADV_COLLAPSE of a populated, 2 MiB-aligned 8 MiB region: 4 successful collapses charged to
# the process whose memory it is, and 4 order-9 folios allocated for them. (With THP always on,
# the workload faults the region with THP off first; khugepaged could only race it for the
# microseconds between its two madvise calls.)
test_madv_collapse_is_charged_to_the_process() {
	need_root
	mount_tracefs
	run_workload_traced -e huge_memory:mm_collapse_huge_page --filter 'status == 1' -- collapse 8
	local line pid
	line=$(cat "$T/workload")
	pid=$(json_field "$line" pid)
	assert_eq "$(json_field "$line" collapse_errno)" 0 "MADV_COLLAPSE's errno"
	assert_eq "$(json_field "$line" huge_pages)" 4 "huge pages in the region after the collapse (smaps)"
	echo "order-9 folios: system $(query "$T/out" "system('alloc').get('9', 0)")," \
		"interrupt $(query "$T/out" "group('interrupt', 'alloc').get('9', 0)")," \
		"untracked $(query "$T/out" "group('untracked', 'alloc').get('9', 0)")"
	assert_eq "$(query "$T/out" "thp($pid, 'collapse')")" '{"succeed": 4}' "collapse results charged to the workload"
	assert_eq "$(query "$T/out" "hist($pid, 'alloc').get('9', 0)")" 4 "order-9 folios allocated by the workload"
	assert_eq "$(perf_count "$T/perf" huge_memory:mm_collapse_huge_page)" 4 "perf's count of successful collapses"
	assert_sandwiched "$(query "$T/out" "vmstat('thp_collapse_alloc')")" "$(vmstat_delta inner thp_collapse_alloc)" \
		"$(vmstat_delta outer thp_collapse_alloc)" "thp_collapse_alloc change in the records"
	assert_between "$(vmstat_delta inner thp_collapse_alloc)" 4 100000000 "/proc/vmstat thp_collapse_alloc delta"
	# Per-size counters where the kernel keeps them (6.1 has none).
	local has_stats=false
	[ -d /sys/kernel/mm/transparent_hugepage/hugepages-2048kB/stats ] && has_stats=true
	assert_eq "$(query "$T/out" "all('2048kB' in (r['system']['thp']['mthp'] or {}) for r in recs)")" "$has_stats" \
		"mTHP counters for 2 MiB (as the kernel has hugepages-2048kB/stats)"
}
