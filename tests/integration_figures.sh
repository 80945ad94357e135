# shellcheck shell=bash
# Figures no other test asserts, each against the kernel's own count of the same events (perf
# on the same tracepoint, per process or over a span that sandwiches foliostat's), a kernel
# counter (/proc/vmstat, bpftool, /proc/PID/stat) or a workload whose count is known. A figure
# that is null, absent or not a number fails (figure, assert_counts_*: tests/lib_figures.sh).
#
# What these tests check but cannot make nonzero on this kind of host (one NUMA node, Linux
# with CONFIG_MEMCG, no CONFIG_MEMORY_FAILURE, 2 MiB huge pages only):
# - thp.unattributed (and group="unattributed"): only memory whose mm has no owner, which a
#   kernel keeps only with CONFIG_MEMCG (every kernel foliostat is tested on has it, Debian
#   12's 6.1 too). Checked to be empty while collapses happen: an outcome counted there is a
#   failure.
# - migrate thp_succeeded, thp_failed, thp_split: a PMD-sized THP is migrated by NUMA balancing,
#   mbind or move_pages to another node (one node here), memory hot-remove or
#   alloc_contig_range (CMA, gigantic pages: none here), never by compaction (it skips folios
#   of the pageblock order). They are checked equal to perf's sums and /proc/vmstat's
#   thp_migration_* (0 here), which a count landing in the wrong field fails. (Offlining the
#   memory block that holds a test THP would provoke them; not done: it takes 128 MiB from
#   the host under every other test.)
# - migrate failed is nonzero only when compaction meets a page in use at that moment: most
#   starve runs have some, some have none; the check is exact either way.
# - vmscan.written folios and pages differ only for large folios written back (mTHP swap-out):
#   here every folio written is one page, so the two are checked against different counts
#   (perf's events, nr_vmscan_write's pages) but a swap of the two would not show.

# MADV_COLLAPSE of 8 MiB of anonymous memory: each 2 MiB is scanned (mm_khugepaged_scan_pmd,
# whose result is the collapse's) and collapsed in the process, 4 of each. The process's scan
# and collapse results are perf's counts of the same events in the process, result by result
# (each value of the kernel's enum scan_result filtered apart). The kernel keeps every mm's owner
# (CONFIG_MEMCG, which every kernel foliostat runs on here has), so nothing is unattributed.
test_figures_anonymous_collapse_scan_results() {
	need_root
	mount_tracefs
	scan_results
	PERF_ARGS=()
	scan_result_events huge_memory:mm_khugepaged_scan_pmd status
	scan_result_events huge_memory:mm_collapse_huge_page status
	run_workload_traced "${PERF_ARGS[@]}" -- collapse 8
	local line pid theirs
	line=$(cat "$T/workload")
	pid=$(json_field "$line" pid)
	assert_eq "$(json_field "$line" collapse_errno)" 0 "MADV_COLLAPSE's errno"
	assert_eq "$(json_field "$line" huge_pages)" 4 "huge pages after the collapse (smaps)"
	theirs=$(perf_results "$T/perf" huge_memory:mm_khugepaged_scan_pmd)
	assert_same_results "$theirs" '{"succeed": 4}' "the kernel's scans of the 4 blocks (perf)"
	assert_same_results "$(query "$T/out" "thp($pid, 'scan')")" "$theirs" "thp.scan of the process vs perf"
	theirs=$(perf_results "$T/perf" huge_memory:mm_collapse_huge_page)
	assert_same_results "$(query "$T/out" "thp($pid, 'collapse')")" "$theirs" "thp.collapse of the process vs perf"
	# Every outcome had an owner: thp.unattributed stays empty, for each of its four events
	# (null for the file events where the kernel has not their tracepoints: before 6.2).
	local event n
	for event in collapse collapse_file scan scan_file; do
		if [ "$event" = collapse_file ] || [ "$event" = scan_file ]; then
			if ! host_has_tracepoint "huge_memory:mm_khugepaged_$event"; then
				assert_eq "$(query "$T/out" "sorted({str(r['system']['thp']['unattributed']['$event']) for r in recs})")" \
					'["None"]' "thp.unattributed.$event where the kernel lacks its tracepoint"
				continue
			fi
		fi
		figure n "$T/out" "sum(len(r['system']['thp']['unattributed']['$event']) for r in recs)" \
			"thp.unattributed.$event results"
		assert_counts_eq "$n" 0 "results in thp.unattributed.$event over the run"
	done
}

# MADV_COLLAPSE of 8 MiB of a memfd (shmem) through a shared mapping: 4 scans of the file
# (mm_khugepaged_scan_file) and 4 file collapses (mm_khugepaged_collapse_file) in the process,
# which thp.scan_file and thp.collapse_file are, result by result, as perf counts them there.
test_figures_file_collapse_scan_results() {
	need_root
	mount_tracefs
	scan_results
	# Each figure where the kernel traces its event (mm_khugepaged_collapse_file came in 6.2,
	# after scan_file: Debian 12's 6.1 has scan_file alone); null, never 0, where it does not.
	local event traced=()
	PERF_ARGS=(-e kmem:mm_page_alloc)
	for event in scan_file collapse_file; do
		if host_has_tracepoint "huge_memory:mm_khugepaged_$event"; then
			traced+=("$event")
			scan_result_events "huge_memory:mm_khugepaged_$event" result
		fi
	done
	run_workload_traced "${PERF_ARGS[@]}" -- collapse_file 8
	local line pid theirs total
	line=$(cat "$T/workload")
	pid=$(json_field "$line" pid)
	assert_eq "$(json_field "$line" collapse_errno)" 0 "MADV_COLLAPSE's errno"
	assert_eq "$(json_field "$line" huge_pages)" 4 "huge pages mapped after the collapse (smaps)"
	for event in scan_file collapse_file; do
		case " ${traced[*]} " in
		*" $event "*) ;;
		*)
			assert_eq "$(query "$T/out" "sorted({str(p['thp']['$event']) for p in procs($pid)})")" \
				'["None"]' "thp.$event where the kernel lacks its tracepoint"
			continue
			;;
		esac
		theirs=$(perf_results "$T/perf" "huge_memory:mm_khugepaged_$event")
		figure total "$T/out" "sum(thp($pid, '$event').values())" "$event results of the process"
		assert_counts_eq "$total" 4 "$event results of the process (one per 2 MiB)"
		assert_same_results "$(query "$T/out" "thp($pid, '$event')")" "$theirs" "thp.$event of the process vs perf"
	done
}

# A process that zaps 8 pages then 512, 200 times: ranged flushes of 8 pages and full flushes
# (512 pages is beyond the kernel's page-by-page ceiling), beside whatever else its life flushes
# (task switches, shootdowns it suffers). tlb.pages and tlb.full are, exactly, the sum of the
# pages of its ranged tlb_flush events and the number of its full ones, as a system-wide perf
# record around its whole life (fork to last switch away) saw them in its threads.
test_figures_tlb_pages_and_full_flushes() {
	need_root
	mount_tracefs
	tlb_null_unless_traced tlbrange 200 && return
	start_foliostat "$T/out" -j 0.5 -r 0
	perf_record_begin tlb tlb:tlb_flush
	"$WORKLOAD" tlbrange 200 >"$T/workload" || fail "tlbrange workload"
	perf_record_end tlb
	wait_next_record "$T/out"
	stop_foliostat "$T/out"
	local pid pages full theirs
	pid=$(json_field "$(cat "$T/workload")" pid)
	figure pages "$T/out" "sum(p['tlb']['pages'] for r in recs for p in r['processes'] if p['pid'] == $pid)" "tlb.pages"
	figure full "$T/out" "sum(p['tlb']['full'] for r in recs for p in r['processes'] if p['pid'] == $pid)" "tlb.full"
	theirs=$(perf_record_sum tlb "$pid" tlb:tlb_flush 'pages if pages != -1 else 0')
	assert_counts_between "$theirs" 1600 100000000 "pages of the process's ranged flushes (perf; 200 of 8 at least)"
	assert_counts_eq "$pages" "$theirs" "tlb.pages of the process vs perf"
	theirs=$(perf_record_sum tlb "$pid" tlb:tlb_flush 'pages == -1')
	assert_counts_between "$theirs" 200 100000000 "full flushes of the process (perf; 200 zaps of 512 at least)"
	assert_counts_eq "$full" "$theirs" "tlb.full of the process vs perf"
}

# Reading a file twice activates its folios on the second read (not under the multi-generational
# LRU, where activate is null, which this test then requires). The process's lru.activate
# folios are, exactly, the mm_lru_activate events a system-wide perf record saw in it; its pages,
# between those folios and the file's pages (page-cache folios may be large; the tracepoint
# does not say how large).
test_figures_lru_activate() {
	need_root
	mount_tracefs
	make_uncached_file 32
	start_foliostat "$T/out" -j 0.5 -r 0
	perf_record_begin lru pagemap:mm_lru_activate
	"$WORKLOAD" reread "$FILE" >"$T/workload" || fail "reread workload"
	perf_record_end lru
	wait_next_record "$T/out"
	stop_foliostat "$T/out"
	local pid folios pages theirs
	pid=$(json_field "$(cat "$T/workload")" pid)
	if [ "$(query "$T/out" "recs[0]['system']['lru']['mglru']")" = true ]; then
		assert_eq "$(query "$T/out" "[p['lru']['activate'] for r in recs for p in r['processes'] if p['pid'] == $pid]")" \
			"$(query "$T/out" "[None for r in recs for p in r['processes'] if p['pid'] == $pid]")" \
			"lru.activate under the multi-generational LRU"
		return 0
	fi
	figure folios "$T/out" "sum(p['lru']['activate']['folios'] for r in recs for p in r['processes'] if p['pid'] == $pid)" "lru.activate.folios"
	figure pages "$T/out" "sum(p['lru']['activate']['pages'] for r in recs for p in r['processes'] if p['pid'] == $pid)" "lru.activate.pages"
	theirs=$(perf_record_sum lru "$pid" pagemap:mm_lru_activate 1)
	assert_counts_between "$theirs" 1 8192 "folios perf saw activated in the process (of a file of 8192 pages)"
	assert_counts_eq "$folios" "$theirs" "lru.activate.folios of the process vs perf"
	# (and perhaps a few of the workload's start-up, which perf's folios count too)
	assert_counts_between "$pages" "$folios" $((8192 + 256)) "lru.activate.pages of the process"
}

# No free 2 MiB block left, then order-9 allocations from one process (hugetlb's pool grown one
# page at a time, until the kernel has counted a direct reclaim: workload starve): they wake
# kswapd, compact (migrating pages, some of which fail) and reclaim, in the process.
# - Per process: reclaim.direct's stalls and reclaimed pages are, exactly, the process's
#   mm_vmscan_direct_reclaim_end events and the sum of their nr_reclaimed in a system-wide perf
#   record around its life; its total_us, perf's begin-to-end time within 1% + 20 us a stall
#   (two clocks read at slightly different points); its migrate figures, exactly, the sums of
#   the fields of its mm_migrate_pages events.
# - System-wide: vmscan.kswapd_wakes between perf's counts of mm_vmscan_kswapd_wake within
#   foliostat's span and around it (the workload guarantees one at least: kswapd sleeps while
#   memory is plentiful, and the first allocation that finds no block wakes it); migrate's
#   counters between /proc/vmstat's counts of the same batches (pgmigrate_success, _fail,
#   thp_migration_success, _fail, _split, counted where the tracepoint is), and
#   large_folio_split, which has no vmstat counter, between perf's sums.
# Starving the allocator compacts and reclaims the whole of memory, a few seconds on a host but
# minutes under software emulation (make vmtest-suite's 4 GiB VM): the timeout is the VM's.
set_test_timeout test_figures_direct_reclaim_kswapd_and_migration 1200
test_figures_direct_reclaim_kswapd_and_migration() {
	need_root
	mount_tracefs
	local events=(vmscan:mm_vmscan_direct_reclaim_begin vmscan:mm_vmscan_direct_reclaim_end
		vmscan:mm_vmscan_kswapd_wake migrate:mm_migrate_pages)
	vmstat_snapshot outer_begin
	perf_record_begin outer "${events[@]}"
	start_foliostat "$T/out" -j 0.5 -r 0
	perf_record_begin inner "${events[@]}"
	vmstat_snapshot inner_begin
	starve_undone_at_exit
	"$WORKLOAD" starve 256 >"$T/workload" || fail "starve workload"
	wait_next_record "$T/out"
	vmstat_snapshot inner_end
	perf_record_end inner
	stop_foliostat "$T/out"
	perf_record_end outer
	vmstat_snapshot outer_end
	local line pid ours theirs
	line=$(cat "$T/workload")
	echo "workload: $line"
	pid=$(json_field "$line" pid)
	# Per process.
	figure ours "$T/out" "reclaim($pid, 'direct', 'stalls')" "reclaim.direct.stalls"
	theirs=$(perf_record_sum outer "$pid" vmscan:mm_vmscan_direct_reclaim_end 1)
	assert_counts_between "$theirs" 1 100000 "direct reclaims perf saw in the process"
	assert_counts_eq "$ours" "$theirs" "reclaim.direct.stalls of the process vs perf"
	figure ours "$T/out" "reclaim($pid, 'direct', 'reclaimed')" "reclaim.direct.reclaimed"
	assert_counts_eq "$ours" "$(perf_record_sum outer "$pid" vmscan:mm_vmscan_direct_reclaim_end nr_reclaimed)" \
		"reclaim.direct.reclaimed of the process vs perf's sum of nr_reclaimed"
	figure ours "$T/out" "reclaim($pid, 'direct', 'total_us')" "reclaim.direct.total_us"
	perf_record_durations outer "$pid" vmscan:mm_vmscan_direct_reclaim_begin vmscan:mm_vmscan_direct_reclaim_end
	assert_stall_time "$ours" "$(query "$T/out" "summed(p['reclaim']['direct']['hist_us'] for p in procs($pid))")" \
		"$T/outer.durations" "reclaim.direct.total_us of the process vs perf's times"
	# (perf script writes the fields as the tracepoint prints them: large_folio_split as nr_split;
	# a kernel that does not report it, 6.1, has it null)
	local pair split=large_folio_split:nr_split
	if ! migrate_reports_large_split; then
		split=''
		assert_eq "$(query "$T/out" "sorted({str(p['thp']['migrate']['large_folio_split']) for p in procs($pid)})")" \
			'["None"]' "thp.migrate.large_folio_split of the process, which this kernel does not report"
		assert_system_null "$T/out" "['thp']['migrate']['large_folio_split']" "thp.migrate.large_folio_split"
	fi
	for pair in succeeded:nr_succeeded failed:nr_failed thp_succeeded:nr_thp_succeeded \
		thp_failed:nr_thp_failed thp_split:nr_thp_split $split; do
		figure ours "$T/out" "thp_sum($pid, 'migrate', '${pair%%:*}')" "thp.migrate.${pair%%:*}"
		assert_counts_eq "$ours" "$(perf_record_sum outer "$pid" migrate:mm_migrate_pages "${pair#*:}")" \
			"thp.migrate.${pair%%:*} of the process vs perf's sum of ${pair#*:}"
	done
	# System-wide.
	figure ours "$T/out" "sum(r['system']['reclaim']['vmscan']['kswapd_wakes'] for r in recs)" "vmscan.kswapd_wakes"
	theirs=$(perf_record_sum inner all vmscan:mm_vmscan_kswapd_wake 1)
	assert_counts_between "$theirs" 1 100000000 "kswapd wake-ups perf counted within foliostat's span"
	assert_sandwiched "$ours" "$theirs" "$(perf_record_sum outer all vmscan:mm_vmscan_kswapd_wake 1)" \
		"vmscan.kswapd_wakes vs perf -a"
	for pair in succeeded:pgmigrate_success failed:pgmigrate_fail thp_succeeded:thp_migration_success \
		thp_failed:thp_migration_fail thp_split:thp_migration_split; do
		figure ours "$T/out" "sys_thp_sum('migrate', '${pair%%:*}')" "system thp.migrate.${pair%%:*}"
		assert_sandwiched "$ours" "$(vmstat_delta inner "${pair#*:}")" "$(vmstat_delta outer "${pair#*:}")" \
			"system thp.migrate.${pair%%:*} vs /proc/vmstat ${pair#*:}"
	done
	[ -n "$split" ] || return 0
	figure ours "$T/out" "sys_thp_sum('migrate', 'large_folio_split')" "system thp.migrate.large_folio_split"
	assert_sandwiched "$ours" "$(perf_record_sum inner all migrate:mm_migrate_pages nr_split)" \
		"$(perf_record_sum outer all migrate:mm_migrate_pages nr_split)" \
		"system thp.migrate.large_folio_split vs perf -a's sums"
}

# 48 MiB of anonymous memory touched in a memory cgroup of 16 MiB, with a swap file: reclaim
# writes at least the 32 MiB over the limit to swap. vmscan.written's folios are between perf's
# counts of mm_vmscan_write_folio within foliostat's span and around it, and its pages between
# /proc/vmstat's nr_vmscan_write over the same two spans (the kernel adds a written folio's pages
# to it where the tracepoint is); both at least the workload's 8192 pages over the limit.
test_figures_reclaim_writes() {
	need_root
	mount_tracefs
	make_swapfile 128
	make_memcg 16
	allow_memcg_swap
	vmstat_exact_snapshot outer_begin
	perf_record_begin outer vmscan:mm_vmscan_write_folio
	start_foliostat "$T/out" -j 0.5 -r 0
	perf_record_begin inner vmscan:mm_vmscan_write_folio
	vmstat_exact_snapshot inner_begin
	"${WRAP[@]}" "$WORKLOAD" pages 12288 >"$T/workload" || fail "workload in the memory cgroup"
	wait_next_record "$T/out"
	vmstat_exact_snapshot inner_end
	perf_record_end inner
	stop_foliostat "$T/out"
	perf_record_end outer
	vmstat_exact_snapshot outer_end
	local folios pages inner
	figure folios "$T/out" "sum(r['system']['reclaim']['vmscan']['written']['folios'] for r in recs)" "vmscan.written.folios"
	figure pages "$T/out" "sum(r['system']['reclaim']['vmscan']['written']['pages'] for r in recs)" "vmscan.written.pages"
	inner=$(perf_record_sum inner all vmscan:mm_vmscan_write_folio 1)
	assert_counts_between "$(vmstat_delta inner nr_vmscan_write)" $(((48 - 16) * 256)) 100000000 \
		"pages reclaim wrote within foliostat's span (/proc/vmstat nr_vmscan_write)"
	assert_sandwiched "$folios" "$inner" "$(perf_record_sum outer all vmscan:mm_vmscan_write_folio 1)" \
		"vmscan.written.folios vs perf -a"
	assert_sandwiched "$pages" "$(vmstat_delta inner nr_vmscan_write)" "$(vmstat_delta outer nr_vmscan_write)" \
		"vmscan.written.pages vs /proc/vmstat nr_vmscan_write"
}

# The exporter, while workloads born in cgroups of their own collapse memory (anonymous and a
# memfd), zap ranges, re-read a file, starve the allocator of 2 MiB blocks (compaction,
# migration, direct reclaim) and read a file in a memory cgroup (memcg reclaim). Each cgroup's
# series are the kernel's count of the same events in its one process (the workload's child
# born there), exactly: collapse results by event and result against perf stat of each result;
# TLB flushes by reason, flushed pages and full flushes, LRU insertions by list and activations,
# migration counters against a system-wide perf record of the child's events; the stall
# histograms' buckets, _count and _sum against the stalls perf timed in it. System-wide,
# foliostat_system_migrate_total between /proc/vmstat's counts within and around its span.
# It starves the allocator too (see above).
set_test_timeout test_figures_exporter_matches_the_kernel 1200
test_figures_exporter_matches_the_kernel() {
	need_root
	mount_tracefs
	make_cgroups collapse fcollapse tlb reread starve memcg
	make_uncached_file 64
	scan_results
	kernel_enum tlb_flush_reason TLB_ "$T/tlb_reasons"
	kernel_enum lru_list LRU_ "$T/lru_lists"
	local events=(pagemap:mm_lru_insertion pagemap:mm_lru_activate
		migrate:mm_migrate_pages compaction:mm_compaction_begin compaction:mm_compaction_end
		vmscan:mm_vmscan_direct_reclaim_begin vmscan:mm_vmscan_direct_reclaim_end
		vmscan:mm_vmscan_memcg_reclaim_begin vmscan:mm_vmscan_memcg_reclaim_end)
	# Tracepoints some hosts lack: the file collapse events on 6.1 (collapse_file came in 6.2),
	# TLB flushes off x86. Their families must then have no series at all (not measured).
	local event file_events=() tlb_traced=''
	for event in scan_file collapse_file; do
		probe_offered "huge_memory:mm_khugepaged_$event" && file_events+=("$event")
	done
	probe_offered tlb:tlb_flush && tlb_traced=1 && events+=(tlb:tlb_flush)
	vmstat_snapshot outer_begin
	start_endpoint
	vmstat_snapshot inner_begin
	perf_record_begin all "${events[@]}"
	PERF_ARGS=()
	scan_result_events huge_memory:mm_khugepaged_scan_pmd status
	scan_result_events huge_memory:mm_collapse_huge_page status
	perf stat -x, "${PERF_ARGS[@]}" -o "$T/collapse.perf" -- \
		"$WORKLOAD" --in-cgroup "${CGROUPS[collapse]}" collapse 8 >"$T/collapse" || fail "collapse"
	PERF_ARGS=(-e page-faults)
	for event in "${file_events[@]}"; do
		scan_result_events "huge_memory:mm_khugepaged_$event" result
	done
	perf stat -x, "${PERF_ARGS[@]}" -o "$T/fcollapse.perf" -- \
		"$WORKLOAD" --in-cgroup "${CGROUPS[fcollapse]}" collapse_file 8 >"$T/fcollapse" || fail "collapse_file"
	"$WORKLOAD" --in-cgroup "${CGROUPS[tlb]}" tlbrange 200 >"$T/tlb" || fail "tlbrange"
	"$WORKLOAD" --in-cgroup "${CGROUPS[reread]}" reread "$FILE" >"$T/reread" || fail "reread"
	starve_undone_at_exit
	"$WORKLOAD" --in-cgroup "${CGROUPS[starve]}" starve 256 >"$T/starve" || fail "starve"
	make_memcg 16
	# (its cgroup2 group inside the memory cgroup where that is cgroup2's, as on Debian 12:
	# born beside it, it read without a limit and stalled for none)
	in_memcg memcg
	"${WRAP[@]}" "$WORKLOAD" --in-cgroup "${CGROUPS[memcg]}" read "$FILE" >"$T/memcg" || fail "read in a memory cgroup"
	vmstat_snapshot inner_end
	scrape "$T/expo"
	perf_record_end all
	vmstat_snapshot outer_end
	local cg pid
	# Collapse results, by event and result.
	cg=${CGROUPS[collapse]#"$CGROUP_ROOT"}
	assert_same_results "$(expo_map "$T/expo" foliostat_thp_collapse_results_total result event=scan cgroup="$cg")" \
		"$(perf_results "$T/collapse.perf" huge_memory:mm_khugepaged_scan_pmd)" "scan results of $cg vs perf"
	assert_same_results "$(expo_map "$T/expo" foliostat_thp_collapse_results_total result event=collapse cgroup="$cg")" \
		"$(perf_results "$T/collapse.perf" huge_memory:mm_collapse_huge_page)" "collapse results of $cg vs perf"
	cg=${CGROUPS[fcollapse]#"$CGROUP_ROOT"}
	for event in scan_file collapse_file; do
		if [[ " ${file_events[*]} " != *" $event "* ]]; then
			assert_empty "$(grep "^foliostat_thp_collapse_results_total{.*event=\"$event\"" "$T/expo")" \
				"$event series where the kernel has not its tracepoint"
			continue
		fi
		assert_same_results "$(expo_map "$T/expo" foliostat_thp_collapse_results_total result event="$event" cgroup="$cg")" \
			"$(perf_results "$T/fcollapse.perf" "huge_memory:mm_khugepaged_$event")" "$event results of $cg vs perf"
	done
	assert_eq "$(expo_map "$T/expo" foliostat_thp_collapse_results_total result group=unattributed)" '{}' \
		"collapse results of memory without an owner (CONFIG_MEMCG keeps every owner)"
	# TLB flushes.
	local ours
	cg=${CGROUPS[tlb]#"$CGROUP_ROOT"}
	pid=$(json_field "$(cat "$T/tlb")" pid)
	if [ -z "$tlb_traced" ]; then
		assert_empty "$(grep '^foliostat_tlb_[a-z_]*{' "$T/expo")" "TLB series where the kernel has no tlb:tlb_flush"
	else
		assert_same_results "$(expo_map "$T/expo" foliostat_tlb_flushes_total reason cgroup="$cg")" \
			"$(perf_record_map all "$pid" tlb:tlb_flush paren "$T/tlb_reasons")" "TLB flushes of $cg by reason vs perf"
		expo_figure "$T/expo" "foliostat_tlb_flushed_pages_total{cgroup=\"$cg\"}" ours "flushed pages of $cg"
		assert_counts_eq "$ours" "$(perf_record_sum all "$pid" tlb:tlb_flush 'pages if pages != -1 else 0')" \
			"foliostat_tlb_flushed_pages_total of $cg vs perf"
		expo_figure "$T/expo" "foliostat_tlb_full_flushes_total{cgroup=\"$cg\"}" ours "full flushes of $cg"
		assert_counts_eq "$ours" "$(perf_record_sum all "$pid" tlb:tlb_flush 'pages == -1')" \
			"foliostat_tlb_full_flushes_total of $cg vs perf"
	fi
	# LRU insertions by list, and activations.
	cg=${CGROUPS[reread]#"$CGROUP_ROOT"}
	pid=$(json_field "$(cat "$T/reread")" pid)
	assert_same_results "$(expo_map "$T/expo" foliostat_lru_inserted_folios_total list cgroup="$cg")" \
		"$(perf_record_map all "$pid" pagemap:mm_lru_insertion lru "$T/lru_lists")" "LRU insertions of $cg by list vs perf"
	# The file's 16384 pages go on the file lists at the first read, but for those the drop left
	# in the cache (mincore) and a per-CPU batch (31 folios, of 32 pages at most as these reads
	# make them) that another thread may have drained; and perhaps a few pages of the
	# workload's start-up.
	expo_figure "$T/expo" "foliostat_lru_inserted_pages_total{cgroup=\"$cg\",list=\"inactive_file\"}" ours \
		"pages $cg put on the inactive file list"
	# A list's series appears at its first nonzero count: none is 0 here, the family being
	# there (the inactive file list's series above).
	local pages
	expo_series_or_zero "$T/expo" "foliostat_lru_inserted_pages_total{cgroup=\"$cg\",list=\"active_file\"}" \
		pages "pages $cg put on the active file list"
	assert_counts_between "$((ours + pages))" $((16384 - 31 * 32 - $(json_field "$(cat "$T/reread")" resident_before))) \
		$((16384 + 256)) \
		"foliostat_lru_inserted_pages_total of $cg's file lists (the file's pages)"
	expo_figure "$T/expo" "foliostat_lru_activated_folios_total{cgroup=\"$cg\"}" ours "activations of $cg"
	assert_counts_eq "$ours" "$(perf_record_sum all "$pid" pagemap:mm_lru_activate 1)" \
		"foliostat_lru_activated_folios_total of $cg vs perf"
	expo_figure "$T/expo" "foliostat_lru_activated_pages_total{cgroup=\"$cg\"}" pages "activated pages of $cg"
	# (and perhaps a few of the workload's start-up, as perf's folios count them too)
	assert_counts_between "$pages" "$ours" $((16384 + 256)) \
		"foliostat_lru_activated_pages_total of $cg (folios..the file's pages)"
	# Migration, and the stall histograms.
	cg=${CGROUPS[starve]#"$CGROUP_ROOT"}
	pid=$(json_field "$(cat "$T/starve")" pid)
	local pair split=large_folio_split:nr_split migrated
	# Where the starve workload's compaction migrated pages of its own (perf's record of
	# migrate:mm_migrate_pages in it), its succeeded series is there, and a counter still 0 has
	# no series yet; where it migrated none this run (compaction found what it needed free, or
	# reclaim sufficed: it depends on the host's memory), it has no series at all. A kernel that
	# does not report large folios split (6.1) has no series of that counter.
	migrated=$(perf_record_sum all "$pid" migrate:mm_migrate_pages nr_succeeded)
	if [ "$migrated" -gt 0 ]; then
		[ "$(expo "$T/expo" --count "foliostat_migrate_total{cgroup=\"$cg\",counter=\"succeeded\"}")" = 1 ] ||
			fail "no migration series for $cg, which migrated $migrated pages (perf)"
	else
		echo "case: the starve workload migrated none of its pages this run (perf): no series"
	fi
	if ! migrate_reports_large_split; then
		split=''
		assert_empty "$(grep 'foliostat_migrate_total{.*counter="large_folio_split"' "$T/expo")" \
			"large_folio_split series of groups, which this kernel does not report"
	fi
	for pair in succeeded:nr_succeeded failed:nr_failed thp_succeeded:nr_thp_succeeded \
		thp_failed:nr_thp_failed thp_split:nr_thp_split $split; do
		expo_series_or_zero "$T/expo" "foliostat_migrate_total{cgroup=\"$cg\",counter=\"${pair%%:*}\"}" ours \
			"migrations of $cg"
		assert_counts_eq "$ours" "$(perf_record_sum all "$pid" migrate:mm_migrate_pages "${pair#*:}")" \
			"foliostat_migrate_total{counter=${pair%%:*}} of $cg vs perf's sum of ${pair#*:}"
	done
	perf_record_durations all "$pid" compaction:mm_compaction_begin compaction:mm_compaction_end
	assert_stall_buckets "$T/expo" "foliostat_stall_seconds{cgroup=\"$cg\",kind=\"compaction\"}" \
		"$T/all.durations" "compaction stalls of $cg"
	perf_record_durations all "$pid" vmscan:mm_vmscan_direct_reclaim_begin vmscan:mm_vmscan_direct_reclaim_end
	assert_stall_buckets "$T/expo" "foliostat_stall_seconds{cgroup=\"$cg\",kind=\"direct_reclaim\"}" \
		"$T/all.durations" "direct reclaim stalls of $cg"
	cg=${CGROUPS[memcg]#"$CGROUP_ROOT"}
	pid=$(json_field "$(cat "$T/memcg")" pid)
	perf_record_durations all "$pid" vmscan:mm_vmscan_memcg_reclaim_begin vmscan:mm_vmscan_memcg_reclaim_end
	assert_stall_buckets "$T/expo" "foliostat_stall_seconds{cgroup=\"$cg\",kind=\"memcg_reclaim\"}" \
		"$T/all.durations" "memcg reclaim stalls of $cg"
	assert_stall_bounds_told
	# System-wide migration.
	for pair in succeeded:pgmigrate_success failed:pgmigrate_fail thp_succeeded:thp_migration_success \
		thp_failed:thp_migration_fail thp_split:thp_migration_split; do
		expo_figure "$T/expo" "foliostat_system_migrate_total{counter=\"${pair%%:*}\"}" ours "system migration"
		assert_sandwiched "$ours" "$(vmstat_delta inner "${pair#*:}")" "$(vmstat_delta outer "${pair#*:}")" \
			"foliostat_system_migrate_total{counter=${pair%%:*}} vs /proc/vmstat ${pair#*:}"
	done
	stop_foliostat "$T/endpoint"
}

# --self: each probe's foliostat_bpf_runs_total, _run_seconds_total and _missed_runs_total are
# the kernel's statistics of its program as bpftool reads them just before and just after the
# scrape (a busy probe runs in between). foliostat_start_time_seconds lies between the process's
# start (/proc/PID/stat's starttime after boot, with boot's wall-clock time taken as now less
# CLOCK_BOOTTIME: btime is whole seconds; a clock tick early) and the moment it was seen counting.
# foliostat_untracked_events_total is 0: the host's threads never filled the 32768 entries.
test_figures_exporter_self_statistics_and_start_time() {
	need_root
	local threads
	threads=$(find /proc/[0-9]*/task -maxdepth 1 -mindepth 1 2>/dev/null | wc -l)
	start_endpoint --self
	local counting
	counting=$(date +%s.%N)
	"$WORKLOAD" pages 4096 >/dev/null || fail "workload"
	bpf_prog_stats "$T/before"
	scrape "$T/expo"
	bpf_prog_stats "$T/after"
	assert_bpf_statistics "$T/expo" "$T/before" "$T/after"
	local started ours
	started=$(python3 - "$FS_PID" <<-'EOF'
		import os, sys, time
		stat = open(f"/proc/{sys.argv[1]}/stat").read()
		ticks = int(stat[stat.rindex(")") + 2:].split()[19])  # field 22, starttime
		boot = time.time() - time.clock_gettime(time.CLOCK_BOOTTIME)
		print(f"{boot + ticks / os.sysconf('SC_CLK_TCK'):.6f}")
	EOF
	) || fail "the process's start time"
	ours=$(python3 tests/exposition.py "$T/expo" --count foliostat_start_time_seconds) || fail "exposition.py"
	assert_eq "$ours" 1 "foliostat_start_time_seconds samples"
	ours=$(awk '$1 == "foliostat_start_time_seconds" { print $2 }' "$T/expo")
	python3 -c 'import sys; s, v, c, t = map(float, sys.argv[1:]); sys.exit(not s - t <= v <= c)' \
		"$started" "$ours" "$counting" "$(python3 -c 'import os; print(1 / os.sysconf("SC_CLK_TCK"))')" ||
		fail "foliostat_start_time_seconds $ours not between the process's start $started and $counting"
	echo "ok: foliostat_start_time_seconds $ours between the process's start $started and $counting"
	assert_counts_between "$threads" 1 16384 "threads on the host (the table holds 32768)"
	expo_figure "$T/expo" foliostat_untracked_events_total ours "untracked events"
	assert_counts_eq "$ours" 0 "foliostat_untracked_events_total with room in the table"
	stop_foliostat "$T/endpoint"
}

# With a selection (-c) and a table of 64 threads, a process of 200 threads, all alive (each
# having had an event) before any touches its 64 pages and until all have: 63 threads at most
# besides the leader have entries, so the work of 137 at least is untracked: each of its pages
# a user fault, a minor fault and an order-0 folio allocated (in alloc and alloc_movable), 4
# counts at least. The rest of the host is outside the selection, never untracked. (A lower
# bound only: the figure sums every counter of those threads, faults by kind, folios by order,
# LRU folios and pages, TLB flushes and pages..., which no kernel count adds up the same way.)
test_figures_exporter_untracked_events() {
	need_root
	make_cgroups threads
	start_endpoint -c "${CGROUPS[threads]}" --max-tasks 64
	"$WORKLOAD" --in-cgroup "${CGROUPS[threads]}" threads 200,64 >"$T/workload" || fail "threads workload"
	scrape "$T/expo"
	local ours
	expo_figure "$T/expo" foliostat_untracked_events_total ours "untracked events"
	assert_counts_between "$ours" $(((200 + 1 - 64) * 64 * 4)) 100000000 \
		"foliostat_untracked_events_total (the work of the threads the table had no room for)"
	stop_foliostat "$T/endpoint"
}
