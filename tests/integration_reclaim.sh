# shellcheck shell=bash
# Reclaim and compaction charged to the process that stalled for them: a reader in a small memory
# cgroup, a process compacting memory; stalls against perf, pages against /proc/vmstat.
# (kswapd, direct reclaim and migration: integration_figures.sh.)

# A process that compacts memory stalls once per zone it compacts (perf counts the same
# tracepoint), and the pages migrated for it are charged to it; system-wide, the migrated pages
# match /proc/vmstat's pgmigrate_success.
test_compaction_is_charged_to_the_compacting_process() {
	need_root
	mount_tracefs
	run_workload_traced -e compaction:mm_compaction_end -- compact 0
	local pid stalls
	pid=$(json_field "$(cat "$T/workload")" pid)
	stalls=$(query "$T/out" "thp_sum($pid, 'compaction', 'stalls')")
	assert_between "$stalls" 1 100 "compaction stalls of the compacting process"
	assert_eq "$stalls" "$(perf_count "$T/perf" compaction:mm_compaction_end)" "stalls, foliostat vs perf"
	assert_eq "$(query "$T/out" "sum(sum(measured(p['thp']['compaction'], 'thp.compaction')['hist_us'].values()) for p in procs($pid))")" \
		"$(perf_count "$T/perf" compaction:mm_compaction_end)" "stalls in the histogram, foliostat vs perf"
	local ours
	ours=$(query "$T/out" "sys_thp_sum('migrate', 'succeeded')")
	assert_sandwiched "$ours" "$(vmstat_delta inner pgmigrate_success)" "$(vmstat_delta outer pgmigrate_success)" \
		"pages migrated, foliostat vs /proc/vmstat pgmigrate_success"
	# At most what the kernel migrated over foliostat's run, all processes together.
	assert_between "$(query "$T/out" "thp_sum($pid, 'migrate', 'succeeded')")" 1 \
		"$(vmstat_delta outer pgmigrate_success)" "pages migrated by the compacting process"
}

# Reading a 64 MiB file in a memory cgroup limited to 16 MiB makes the reader reclaim: at least
# the 48 MiB over the limit, in stalls charged to it (perf counts the same stalls). Over the
# system, pages scanned and reclaimed match /proc/vmstat's pgscan_* and pgsteal_*.
test_memcg_reclaim_is_charged_to_the_process() {
	need_root
	mount_tracefs
	make_uncached_file 64
	make_memcg 16
	run_workload_traced -e vmscan:mm_vmscan_memcg_reclaim_end -- read "$FILE"
	local pid stalls reclaimed
	pid=$(json_field "$(cat "$T/workload")" pid)
	stalls=$(query "$T/out" "reclaim($pid, 'memcg', 'stalls')")
	reclaimed=$(query "$T/out" "reclaim($pid, 'memcg', 'reclaimed')")
	assert_between "$stalls" 1 1000000 "memcg reclaim stalls of the reader"
	assert_between "$stalls" "$(perf_count "$T/perf" vmscan:mm_vmscan_memcg_reclaim_end)" \
		"$(perf_count "$T/perf" vmscan:mm_vmscan_memcg_reclaim_end)" "stalls, foliostat vs perf"
	assert_between "$reclaimed" $(((64 - 16) * 256)) 1000000 "pages the reader reclaimed"
	assert_sandwiched "$(query "$T/out" "vmscan('direct', 'reclaimed') + vmscan('kswapd', 'reclaimed')")" \
		"$(vmstat_delta inner pgsteal_anon pgsteal_file)" "$(vmstat_delta outer pgsteal_anon pgsteal_file)" \
		"pages reclaimed, foliostat vs /proc/vmstat pgsteal_*"
	# The kernel counts what it scans of the inactive lists as pgscan, of the active ones as
	# pgrefill; foliostat by list.
	assert_sandwiched "$(query "$T/out" "vmscan('direct', 'scanned', 'inactive_') + vmscan('kswapd', 'scanned', 'inactive_')")" \
		"$(vmstat_delta inner pgscan_anon pgscan_file)" "$(vmstat_delta outer pgscan_anon pgscan_file)" \
		"inactive pages scanned, foliostat vs /proc/vmstat pgscan_*"
	assert_sandwiched "$(query "$T/out" "vmscan('direct', 'scanned', 'active_') + vmscan('kswapd', 'scanned', 'active_')")" \
		"$(vmstat_delta inner pgrefill)" "$(vmstat_delta outer pgrefill)" \
		"active pages scanned, foliostat vs /proc/vmstat pgrefill"
}
