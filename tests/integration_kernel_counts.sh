# shellcheck shell=bash
# foliostat's system figures against the kernel's own count of the same tracepoint events over
# the same run (tests/lib_kernel_counts.sh): each figure lies between perf's count over a span
# within foliostat's and perf's count over a span around it. These are the checks that fail on
# an event the BPF side counts twice or misses; the "adds up" checks (tests/invariant.py) only
# see rows lost in user space.

# The x86 page-fault error code's bits (as bpf/faults.bpf.c reads them).
PF_PROT=1 PF_WRITE=2 PF_INSTR=16
NO_PAGE=18446744073709551615 # mm_page_alloc's pfn for an allocation that got no page (-1UL)

# kernel_name ENUM_VALUE_NAME PREFIX: the name foliostat gives a kernel enum value (lowercased,
# without its prefix).
kernel_name() {
	local name=${1#"$2"}
	echo "${name,,}"
}

# btf_enum_names ENUM: the value names of a kernel enum, from its BTF, one per line.
btf_enum_names() {
	bpftool btf dump file /sys/kernel/btf/vmlinux format c |
		awk -v e="enum $1 {" 'index($0, e) == 1 { on = 1; next } on && /^}/ { exit }
			on { print $1 }'
}

# Everything the mixed workload and a compaction of all memory make, each figure against the
# kernel's count of the events it counts: allocations by order (and those that got no page),
# frees, page-cache additions, faults by mode, access and cause, completed faults, faults
# served from the page cache, TLB flushes by reason, LRU insertions by list and activations,
# collapses, compaction runs, and pages migrated (summed from each mm_migrate_pages event).
# The same records also add up (no row lost in user space: tests/invariant.py).
test_system_totals_match_the_kernels_counts() {
	system_totals_match_the_kernels_counts
}

# The same where tracepoint programs can be preempted (PREEMPT_RT, forced here by the test
# build): foliostat then finds each event's thread by lookups and adds with atomics, another
# way to count twice or lose an event.
test_system_totals_match_the_kernels_counts_when_preemptible() {
	need_root
	use_test_build
	export FOLIOSTAT_TEST_PREEMPTIBLE=1
	system_totals_match_the_kernels_counts
}

system_totals_match_the_kernels_counts() {
	need_root
	mount_tracefs
	make_uncached_file 128
	local movable alloc_ok="pfn != $NO_PAGE" mode
	movable=$(tracepoint_enum MIGRATE_MOVABLE) || fail "$movable"
	kcount_define alloc0 kmem:mm_page_alloc "order == 0 && $alloc_ok"
	kcount_define alloc9 kmem:mm_page_alloc "order == 9 && $alloc_ok"
	kcount_define alloc_movable0 kmem:mm_page_alloc "order == 0 && $alloc_ok && migratetype == $movable"
	kcount_define alloc_failed kmem:mm_page_alloc "pfn == $NO_PAGE && migratetype == $movable"
	kcount_define free0 kmem:mm_page_free "order == 0"
	kcount_define free9 kmem:mm_page_free "order == 9"
	kcount_define free kmem:mm_page_free
	kcount_define pagecache filemap:mm_filemap_add_to_page_cache
	kcount_define pagecache0 filemap:mm_filemap_add_to_page_cache "order == 0"
	for mode in user kernel; do
		kcount_define "$mode" "$(fault_event "$mode")"
		faults_from_exceptions || continue
		kcount_define "read_$mode" "exceptions:page_fault_$mode" "!(error_code & $((PF_WRITE | PF_INSTR)))"
		kcount_define "write_$mode" "exceptions:page_fault_$mode" "error_code & $PF_WRITE && !(error_code & $PF_INSTR)"
		kcount_define "exec_$mode" "exceptions:page_fault_$mode" "error_code & $PF_INSTR"
		kcount_define "protection_$mode" "exceptions:page_fault_$mode" "error_code & $PF_PROT"
		kcount_define "not_present_$mode" "exceptions:page_fault_$mode" "!(error_code & $PF_PROT)"
	done
	kcount_define major major-faults
	kcount_define minor minor-faults
	# Figures of tracepoints some kernels lack (file faults on 6.1, TLB flushes off x86)
	# are counted where the host has them, and must be null where it does not.
	local file_traced='' tlb_traced=''
	probe_offered filemap:mm_filemap_fault && file_traced=1
	probe_offered tlb:tlb_flush && tlb_traced=1
	[ -z "$file_traced" ] || kcount_define file_faults filemap:mm_filemap_fault
	local name reasons=() lists=()
	while read -r name; do
		[[ $name == NR_* ]] && continue
		reasons+=("$(kernel_name "$name" TLB_)")
		[ -z "$tlb_traced" ] && continue
		kcount_define "tlb_${reasons[-1]}" tlb:tlb_flush "reason == $(tracepoint_enum "$name")"
		kcontrol_define "tlb_${reasons[-1]}" "$(tracepoint_enum "$name")"
	done < <(btf_enum_names tlb_flush_reason)
	while read -r name; do
		[[ $name == NR_* ]] && continue
		lists+=("$(kernel_name "$name" LRU_)")
		kcount_define "lru_${lists[-1]}" pagemap:mm_lru_insertion "lru == $(tracepoint_enum "$name")"
	done < <(btf_enum_names lru_list)
	if [ "${#reasons[@]}" -lt 1 ] || [ "${#lists[@]}" -lt 5 ]; then
		fail "TLB flush reasons (${reasons[*]}) or LRU lists (${lists[*]}) not in the kernel's BTF"
	fi
	kcount_define activate pagemap:mm_lru_activate
	kcount_define collapse huge_memory:mm_collapse_huge_page
	kcount_define collapse_succeeded huge_memory:mm_collapse_huge_page "status == $(tracepoint_enum SCAN_SUCCEED)"
	kcount_define compaction compaction:mm_compaction_end
	ktrace_define migrate:mm_migrate_pages

	run_foliostat_counted "$T/out" compact_after_mixed_workload

	local o
	for o in 0 9; do
		assert_system_matches_kernel "$T/out" "alloc$o" "order(total('folios', 'alloc'), $o)" \
			"folios of order $o allocated"
		assert_system_matches_kernel "$T/out" "free$o" "order(total('folios', 'free'), $o)" \
			"folios of order $o freed"
	done
	assert_system_matches_kernel "$T/out" alloc_movable0 "order(total('folios', 'alloc_movable'), 0)" \
		"movable folios of order 0 allocated"
	assert_system_matches_kernel "$T/out" alloc_failed "folios(total('folios', 'alloc_failed'))" \
		"movable allocations that got no folio"
	assert_system_matches_kernel "$T/out" free "folios(total('folios', 'free'))" "folios freed"
	assert_system_matches_kernel "$T/out" pagecache "folios(total('folios', 'pagecache'))" \
		"folios added to the page cache"
	assert_system_matches_kernel "$T/out" pagecache0 "order(total('folios', 'pagecache'), 0)" \
		"folios of order 0 added to the page cache"
	# Faults by access and cause against the kernel's counts of each, not against each other.
	local kind
	for mode in user kernel; do
		assert_system_matches_kernel "$T/out" "$mode" "total('faults', '$mode')" "$mode-mode faults"
	done
	for kind in read write exec protection not_present; do
		if ! faults_from_exceptions; then
			assert_system_null "$T/out" "['faults']['$kind']" "$kind faults (perf's software event tells no access)"
			continue
		fi
		kcount_sum_define "$kind" "${kind}_user" "${kind}_kernel"
		assert_system_matches_kernel "$T/out" "$kind" "total('faults', '$kind')" "$kind faults"
	done
	assert_system_matches_kernel "$T/out" major "total('faults', 'major')" "major faults (perf's major-faults)"
	assert_system_matches_kernel "$T/out" minor "total('faults', 'minor')" "minor faults (perf's minor-faults)"
	if [ -n "$file_traced" ]; then
		assert_system_matches_kernel "$T/out" file_faults "total('faults', 'file')" "faults served through the page cache"
	else
		assert_system_null "$T/out" "['faults']['file']" "faults served through the page cache"
	fi
	local reason lst
	[ -n "$tlb_traced" ] || assert_system_null "$T/out" "['tlb']" "TLB flushes"
	for reason in "${reasons[@]}"; do
		[ -n "$tlb_traced" ] || break
		assert_system_matches_kernel "$T/out" "tlb_$reason" "total('tlb', 'flushes', '$reason')" \
			"TLB flushes for $reason" tlb:tlb_flush
	done
	for lst in "${lists[@]}"; do
		assert_system_matches_kernel "$T/out" "lru_$lst" "total('lru', 'insert', '$lst', 'folios')" \
			"folios put on the $lst list"
	done
	assert_system_matches_kernel "$T/out" activate "total('lru', 'activate', 'folios')" "folios activated"
	assert_system_matches_kernel "$T/out" collapse "sum(total('thp', 'collapse').values())" "collapses"
	assert_system_matches_kernel "$T/out" collapse_succeeded \
		"total('thp', 'collapse')['$(kernel_name SCAN_SUCCEED SCAN_)']" "collapses that succeeded"
	assert_system_matches_kernel "$T/out" compaction "total('thp', 'compaction', 'stalls')" \
		"compaction runs (stalls)"
	local field fields=(succeeded:nr_succeeded failed:nr_failed thp_succeeded:nr_thp_succeeded
		thp_failed:nr_thp_failed thp_split:nr_thp_split)
	# (6.1's mm_migrate_pages reports no large folio splits: the figure is null there)
	if migrate_reports_large_split; then
		fields+=(large_folio_split:nr_split)
	else
		assert_system_null "$T/out" "['thp']['migrate']['large_folio_split']" \
			"large folios split by migration, which this kernel does not report"
	fi
	for field in "${fields[@]}"; do
		assert_system_matches_kernel "$T/out" "trace:migrate:mm_migrate_pages:${field#*:}" \
			"total('thp', 'migrate', '${field%%:*}')" "pages migrated: ${field%%:*}"
	done
	assert_records_add_up "$T/out"
	# The workload's events dominate each count, or the checks above could not fail.
	# (those of the figures this host measures; not the pages migrated: whether compaction finds
	# any to move depends on how fragmented the host's memory is, and a CI run once had none,
	# within foliostat's span or around it)
	local label decisive=(alloc0 alloc9 free0 free9 alloc_movable0 free pagecache pagecache0 user
		kernel major minor lru_inactive_anon lru_inactive_file activate collapse
		collapse_succeeded compaction)
	! faults_from_exceptions || decisive+=(read write exec protection not_present)
	[ -z "$file_traced" ] || decisive+=(file_faults)
	[ -z "$tlb_traced" ] || decisive+=(tlb_flush_on_task_switch tlb_remote_send_ipi tlb_local_mm_shootdown)
	for label in "${decisive[@]}"; do
		assert_kernel_count_decisive "$label" "$label"
	done
}

# The mixed workload, then a compaction of all memory (in this shell's process: compaction runs
# and migrates pages for it, which foliostat counts like any other). FILE read twice more
# activates its folios: hundreds, where the rest of the work activates tens, no more than the
# host's own (CI once had 47 within foliostat's span and 98 around it: not decisive).
compact_after_mixed_workload() {
	mixed_workload
	# 32 collapses more, to outnumber khugepaged's own on a host that has just booted (the 6.1
	# VM had 3 of its own around foliostat's span, where the mixed workload makes 2); and ten
	# times the mixed workload's mprotect flips, whose shootdowns must outnumber those of
	# foliostat's and perf's start and exit (the VM sent 5 within the span and 25 around it).
	"$WORKLOAD" collapse 64 >/dev/null || fail "collapse workload"
	"$WORKLOAD" tlbflip 5000 >/dev/null || fail "tlbflip workload"
	anonymous_pages_and_uncached_reads
	"$WORKLOAD" reread "$FILE" >/dev/null || fail "reread workload"
	echo 1 >/proc/sys/vm/compact_memory || fail "cannot compact memory"
}

# Anonymous pages enough that the workload's allocations, faults, LRU insertions and frees
# outnumber those of foliostat's and perf's start and exit, and of the rest of the host; then
# FILE, uncached, through a mapping read a page at a time without readahead (which would add
# large folios, fewer of them): a major fault and a page-cache addition per page; then read()
# into a fresh mapping: a kernel-mode fault per page.
anonymous_pages_and_uncached_reads() {
	"$WORKLOAD" pages 262144 >/dev/null || fail "pages workload"
	python3 - "$FILE" <<'READ' || fail "uncached reads"
import mmap, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
size = os.fstat(fd).st_size
os.fdatasync(fd)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
m = mmap.mmap(fd, size, prot=mmap.PROT_READ)
m.madvise(mmap.MADV_RANDOM)
total = sum(m[off] for off in range(0, size, mmap.PAGESIZE))
fresh = mmap.mmap(-1, size)
if os.preadv(fd, [fresh], 0) != size:
    sys.exit("short read")
READ
}

# A read in a memory cgroup limited to a quarter of the file reclaims; foliostat's reclaim
# figures by reclaimer and list, and its reclaim stalls, against the kernel's counts: each
# figure summed from the events it is made of (pages scanned from mm_vmscan_lru_isolate,
# reclaimed from mm_vmscan_lru_shrink_inactive, deactivated from mm_vmscan_lru_shrink_active, by
# kswapd or not), stalls counted as perf counts their end. (The read deactivates nothing and
# kswapd does not run: those figures are compared, but 0 in both counts here.)
test_reclaim_totals_match_the_kernels_counts() {
	need_root
	mount_tracefs
	make_uncached_file 64
	make_memcg 16
	kcount_define memcg_stalls vmscan:mm_vmscan_memcg_reclaim_end
	kcount_define direct_stalls vmscan:mm_vmscan_direct_reclaim_end
	ktrace_define vmscan:mm_vmscan_lru_isolate vmscan:mm_vmscan_lru_shrink_inactive \
		vmscan:mm_vmscan_lru_shrink_active vmscan:mm_vmscan_memcg_reclaim_end
	run_foliostat_counted "$T/out" "${WRAP[@]}" "$WORKLOAD" read "$FILE"
	local by lst kind
	for by in direct kswapd; do
		for lst in inactive_anon active_anon inactive_file active_file unevictable; do
			assert_system_matches_kernel "$T/out" \
				"trace:vmscan:mm_vmscan_lru_isolate:nr_scanned:by=$by:lru=$lst" \
				"total('reclaim', 'vmscan', '$by', 'scanned', '$lst')" "pages $by reclaim scanned on $lst"
		done
		for kind in anon file; do
			assert_system_matches_kernel "$T/out" \
				"trace:vmscan:mm_vmscan_lru_shrink_inactive:nr_reclaimed:by=$by:flags~RECLAIM_WB_${kind^^}" \
				"total('reclaim', 'vmscan', '$by', 'reclaimed', 'inactive_$kind')" \
				"pages $by reclaim reclaimed from inactive_$kind"
			assert_system_matches_kernel "$T/out" \
				"trace:vmscan:mm_vmscan_lru_shrink_active:nr_deactivated:by=$by:flags~RECLAIM_WB_${kind^^}" \
				"total('reclaim', 'vmscan', '$by', 'deactivated', 'active_$kind')" \
				"pages $by reclaim deactivated from active_$kind"
		done
	done
	assert_system_matches_kernel "$T/out" memcg_stalls "total('reclaim', 'memcg', 'stalls')" "memcg reclaim stalls"
	assert_system_matches_kernel "$T/out" "trace:vmscan:mm_vmscan_memcg_reclaim_end:nr_reclaimed" \
		"total('reclaim', 'memcg', 'reclaimed')" "pages memcg reclaim stalls reclaimed"
	assert_system_matches_kernel "$T/out" direct_stalls "total('reclaim', 'direct', 'stalls')" \
		"direct (global) reclaim stalls"
	# The read reclaimed (the file is four times the limit), and the workload's reclaim is the
	# run's, or the checks above could not fail.
	assert_between "$(ktrace_sum inner vmscan:mm_vmscan_lru_isolate nr_scanned by=direct lru=inactive_file)" \
		$(((64 - 16) * 256)) 100000000 "inactive file pages direct reclaim scanned (perf)"
	local label
	for label in memcg_stalls trace:vmscan:mm_vmscan_memcg_reclaim_end:nr_reclaimed \
		trace:vmscan:mm_vmscan_lru_isolate:nr_scanned:by=direct:lru=inactive_file \
		trace:vmscan:mm_vmscan_lru_shrink_inactive:nr_reclaimed:by=direct; do
		assert_kernel_count_decisive "$label" "$label"
	done
}

# The exporter's system figures (/metrics, counts since its start) against the kernel's counts
# of the same events: the scrape at the end is foliostat's last read, so the inner span ends
# before it and the outer one after it. (The exporter's own groups adding up to these, checked
# by exposition.py --adds-up, says nothing of a double count or a loss in BPF.)
test_exported_system_totals_match_the_kernels_counts() {
	need_root
	mount_tracefs
	make_uncached_file 128
	kcount_define user "$(fault_event user)"
	kcount_define kernel "$(fault_event kernel)"
	kcount_define major major-faults
	kcount_define minor minor-faults
	kcount_define alloc0 kmem:mm_page_alloc "order == 0 && pfn != $NO_PAGE"
	kcount_define free0 kmem:mm_page_free "order == 0"
	kcount_define pagecache0 filemap:mm_filemap_add_to_page_cache "order == 0"
	kcount_define lru_inactive_anon pagemap:mm_lru_insertion "lru == $(tracepoint_enum LRU_INACTIVE_ANON)"
	local tlb_traced=''
	probe_offered tlb:tlb_flush && tlb_traced=1
	[ -z "$tlb_traced" ] ||
		kcount_define tlb_flush_on_task_switch tlb:tlb_flush "reason == $(tracepoint_enum TLB_FLUSH_ON_TASK_SWITCH)"
	kernel_counts_start outer
	kernel_counts_start inner
	kernel_counts_enable outer
	start_endpoint
	kernel_counts_enable inner
	(anonymous_pages_and_uncached_reads) || fail "the workload failed"
	kernel_counts_end inner
	scrape "$T/metrics"
	kernel_counts_end outer
	stop_foliostat "$T/endpoint"
	local mode
	for mode in user kernel; do
		assert_matches_kernel "$(expo "$T/metrics" --sum "foliostat_system_page_faults_total{mode=\"$mode\"}")" \
			"$mode" "$mode-mode faults (exported)"
	done
	assert_matches_kernel "$(expo "$T/metrics" --sum foliostat_system_major_faults_total)" major "major faults (exported)"
	assert_matches_kernel "$(expo "$T/metrics" --sum foliostat_system_minor_faults_total)" minor "minor faults (exported)"
	assert_matches_kernel "$(expo "$T/metrics" --sum 'foliostat_system_folios_allocated_total{order="0"}')" \
		alloc0 "folios of order 0 allocated (exported)"
	assert_matches_kernel "$(expo "$T/metrics" --sum 'foliostat_system_folios_freed_total{order="0"}')" \
		free0 "folios of order 0 freed (exported)"
	assert_matches_kernel "$(expo "$T/metrics" --sum 'foliostat_system_pagecache_folios_added_total{order="0"}')" \
		pagecache0 "folios of order 0 added to the page cache (exported)"
	assert_matches_kernel "$(expo "$T/metrics" --sum 'foliostat_system_lru_inserted_folios_total{list="inactive_anon"}')" \
		lru_inactive_anon "folios put on the inactive_anon list (exported)"
	if [ -n "$tlb_traced" ]; then
		assert_matches_kernel "$(expo "$T/metrics" --sum 'foliostat_system_tlb_flushes_total{reason="flush_on_task_switch"}')" \
			tlb_flush_on_task_switch "TLB flushes on task switch (exported)"
	else
		# Not measured: no series at all (a series of 0 would claim there were none).
		assert_empty "$(grep '^foliostat_system_tlb_flushes_total' "$T/metrics")" "TLB flush series where the kernel has no tlb:tlb_flush"
	fi
	local label
	for label in user kernel major minor alloc0 free0 pagecache0 lru_inactive_anon; do
		assert_kernel_count_decisive "$label" "$label"
	done
}
