# shellcheck shell=bash
# Folios allocated, by order and migrate type: a workload's anonymous pages and a file read into
# the page cache, against what the workload did and perf's count of the same allocations.
# (Large folios: integration_thp.sh; why a fault got none: integration_fault_outcomes.sh.)

# N fresh anonymous pages with THP off are N order-0 movable folios (plus start-up). Which orders
# the kernel picks for the rest (its own allocations for the process, readahead's page-cache
# folios, mTHP for start-up memory where the host enables it) is its own choice: those are
# compared with perf's count of the same allocations, not with a fixed expectation.
test_anonymous_pages_give_order0_folios() {
	need_root
	mount_tracefs
	run_workload_traced -e kmem:mm_page_alloc --filter 'order == 0 && migratetype == 1' \
		-e kmem:mm_page_alloc --filter 'order > 0 && migratetype == 1' -- pages 16384
	local pid ours theirs
	pid=$(json_field "$(cat "$T/workload")" pid)
	ours=$(query "$T/out" "hist($pid, 'alloc_movable').get('0', 0)")
	theirs=$(perf_count "$T/perf" kmem:mm_page_alloc 1)
	# Start-up (exec, libc, stack) adds a few hundred pages at most.
	assert_between "$ours" 16384 17384 "order-0 movable folios charged to the workload"
	assert_matches_perf "$ours" "$theirs" 200 "order-0 movable folios"
	theirs=$(perf_count "$T/perf" kmem:mm_page_alloc 2)
	assert_between "$(query "$T/out" "folios(hist($pid, 'alloc_movable')) - hist($pid, 'alloc_movable').get('0', 0)")" \
		"$theirs" $((theirs + 10)) "movable folios above order 0, foliostat vs perf (perf=$theirs)"
}

# Reading a 64 MiB file after dropping it from the cache adds folios whose pages sum to 16384.
test_file_read_fills_the_page_cache() {
	need_root
	mount_tracefs
	make_uncached_file 64
	run_workload_traced -e filemap:mm_filemap_add_to_page_cache -- read "$FILE"
	local line pid
	line=$(cat "$T/workload")
	pid=$(json_field "$line" pid)
	assert_eq "$(json_field "$line" resident_before)" 0 "pages cached before the read (mincore)"
	assert_eq "$(json_field "$line" resident_after)" 16384 "pages cached after the read (mincore)"
	# The file's 16384 pages, and perhaps a few of the workload's own start-up.
	assert_between "$(query "$T/out" "pages(hist($pid, 'pagecache'))")" 16384 16448 "page-cache pages charged to the reader"
	local theirs
	theirs=$(perf_count "$T/perf" filemap:mm_filemap_add_to_page_cache)
	assert_matches_perf "$(query "$T/out" "folios(hist($pid, 'pagecache'))")" "$theirs" 16 \
		"page-cache folios"
}
