# shellcheck shell=bash
# Integration tests: foliostat on the live kernel, around workloads whose folio activity is
# known, compared with that knowledge and with an independent count (perf, /proc/vmstat,
# mincore). Each test_* function runs in its own subshell from the repository root, in a
# scratch directory $T. Exit 0 passes, 77 skips (a failure under CI=true), anything else fails.

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

# Touching N fresh anonymous pages (THP off) takes N user-mode faults, each a write to a page
# that was not present, plus those of process start-up. Each of foliostat's splits (mode,
# access, cause) equals perf's count of the same faults (the error code's bits filtered), not
# a sum of foliostat's other figures. Where faults come from perf's software event (every
# architecture but x86), the modes are checked against that event's u and k counts, and access
# and cause, which it does not tell, must be null.
test_anonymous_pages_fault_once_each() {
	need_root
	mount_tracefs
	local mode kinds=(read write exec protection not_present) perf_args=()
	# The x86 error code: 1 protection (else not present), 2 write, 16 instruction fetch.
	local -A filter=([read]='!(error_code & 18)' [write]='error_code & 2 && !(error_code & 16)'
		[exec]='error_code & 16' [protection]='error_code & 1' [not_present]='!(error_code & 1)')
	for mode in user kernel; do
		perf_args+=(-e "$(fault_event "$mode")")
		faults_from_exceptions || continue
		for kind in "${kinds[@]}"; do
			perf_args+=(-e "exceptions:page_fault_$mode" --filter "${filter[$kind]}")
		done
	done
	run_workload_traced "${perf_args[@]}" -- pages 16384
	local pid user theirs kind n
	pid=$(json_field "$(cat "$T/workload")" pid)
	user=$(query "$T/out" "faults($pid, 'user')")
	assert_between "$user" 16384 17384 "user-mode faults of the workload"
	for mode in user kernel; do
		assert_matches_perf "$(query "$T/out" "faults($pid, '$mode')")" \
			"$(perf_count "$T/perf" "$(fault_event "$mode")" 1)" 100 "$mode-mode faults"
	done
	if ! faults_from_exceptions; then
		assert_eq "$(query "$T/out" "sorted({str(p['faults'][k]) for r in recs for p in r['processes'] for k in ('read', 'write', 'exec', 'protection', 'not_present')})")" \
			'["None"]' "access and cause, which perf's software event does not tell"
		return
	fi
	# perf lists each event under its filters in order: the mode's total first.
	for n in "${!kinds[@]}"; do
		kind=${kinds[n]}
		theirs=$(($(perf_count "$T/perf" exceptions:page_fault_user $((n + 2))) +
			$(perf_count "$T/perf" exceptions:page_fault_kernel $((n + 2)))))
		assert_matches_perf "$(query "$T/out" "faults($pid, '$kind')")" "$theirs" 100 "$kind faults"
	done
	assert_between "$(query "$T/out" "faults($pid, 'write')")" 16384 17384 "write faults"
	assert_between "$(query "$T/out" "faults($pid, 'not_present')")" 16384 17384 "not-present faults"
}

# Where the exceptions tracepoints are missing (every architecture but x86), perf's software
# page-fault event counts faults by mode: here the tracepoints are disabled, and the workload's
# faults in each mode must be what perf's own count of that event in that mode says
# (fault_event), with access and cause null.
test_faults_by_mode_from_the_perf_event() {
	need_root
	export FOLIOSTAT_DISABLE_PROBES=exceptions:page_fault_user,exceptions:page_fault_kernel
	faults_from_exceptions && fail "fault_event still names the disabled tracepoints"
	run_workload_traced -e "$(fault_event user)" -e "$(fault_event kernel)" -- pages 16384
	local pid mode
	pid=$(json_field "$(cat "$T/workload")" pid)
	assert_eq "$(query "$T/out" "recs[0]['probes']['software:page-faults']")" '"attached"' "software:page-faults state"
	assert_between "$(query "$T/out" "faults($pid, 'user')")" 16384 17384 "user-mode faults of the workload"
	# perf counts from the exec; foliostat from the fork.
	for mode in user kernel; do
		assert_matches_perf "$(query "$T/out" "faults($pid, '$mode')")" \
			"$(perf_count "$T/perf" "$(fault_event "$mode")")" 100 "$mode-mode faults"
	done
	assert_eq "$(query "$T/out" "[recs[-1]['system']['faults'][k] for k in ('read', 'write', 'exec', 'not_present', 'protection')]")" \
		"[null, null, null, null, null]" "access and cause, which the event does not tell"
}

# Two processes faulting on one CPU take turns on it: each gets exactly its own faults and
# folios, though the hot probes charge them to the thread each CPU records as running.
two_on_one_cpu_get_their_own_events() {
	local cpu
	cpu=$(allowed_cpus | head -1) # CPU 0 need not be in this test's cpuset
	start_foliostat "$T/out" -j 0.5
	taskset -c "$cpu" "$WORKLOAD" pages 65536 >"$T/a" &
	taskset -c "$cpu" "$WORKLOAD" pages 65536 >"$T/b" || fail "workload failed"
	wait $! || fail "workload failed"
	wait_next_record "$T/out"
	stop_foliostat "$T/out"
	local w pid
	for w in a b; do
		pid=$(json_field "$(cat "$T/$w")" pid)
		assert_between "$(query "$T/out" "faults($pid, 'user')")" 65536 66536 "user-mode faults of workload $w"
		assert_between "$(query "$T/out" "hist($pid, 'alloc_movable').get('0', 0)")" 65536 66536 \
			"order-0 movable folios of workload $w"
	done
}

test_processes_sharing_a_cpu_get_their_own_events() {
	need_root
	two_on_one_cpu_get_their_own_events
}

# Without sched:sched_switch, which drops each CPU's record of the running thread at every
# switch, the hot probes still find a change of thread from their stack and ask the kernel:
# attribution stays exact.
test_attribution_without_switch_records() {
	need_root
	export FOLIOSTAT_DISABLE_PROBES=sched:sched_switch
	two_on_one_cpu_get_their_own_events
	assert_eq "$(query "$T/out" "recs[0]['probes']['sched:sched_switch']")" '"disabled by FOLIOSTAT_DISABLE_PROBES"' "sched_switch state"
	# Without it no record is kept: every event looks its thread up, and says so.
	assert_eq "$("$FOLIOSTAT" --check -j | python3 -c 'import json,sys; print(json.load(sys.stdin)["check"]["attribution"]["method"])')" \
		lookups "attribution without sched_switch"
	assert_eq "$(query "$T/out" "recs[0]['probes']['irq:irq_handler_exit']")" '"not attached: needs sched:sched_switch"' \
		"interrupt depth without the switches that heal it"
}

# Every record adds up exactly, on a busy host: each event is counted in one group (a process,
# interrupt context, or untracked), and the system figures are their sum. This catches rows lost
# in user space only (the loader adds the same groups into the system figures); the same
# workload's figures against the kernel's own counts, which catch a double count or a loss in
# BPF, are test_system_totals_match_the_kernels_counts (integration_kernel_counts.sh).
test_records_add_up_exactly() {
	need_root
	make_uncached_file 16
	start_foliostat "$T/out" -j 0.2 --top 0
	mixed_workload
	wait_next_record "$T/out"
	stop_foliostat "$T/out"
	# At least one record after the workload and the last, partial one: how many more depends on
	# how long the workload took on this host (half a second on some).
	assert_between "$(wc -l <"$T/out")" 2 100000 "records"
	assert_records_add_up "$T/out"
}

# Where tracepoint programs can be preempted (PREEMPT_RT), foliostat uses no per-CPU record of
# the running thread and counts per CPU with atomic adds. Forced here, that path must be as
# exact: two processes on one CPU get their own events, and every record adds up (no row lost
# in user space; against the kernel's counts: ..._when_preemptible, integration_kernel_counts.sh).
test_records_add_up_on_a_preemptible_kernel() {
	need_root
	use_test_build
	export FOLIOSTAT_TEST_PREEMPTIBLE=1
	assert_eq "$("$FOLIOSTAT" --check -j | python3 -c 'import json,sys; a = json.load(sys.stdin)["check"]["attribution"]; print(a["method"], a["preemptible"], a["why"])')" \
		"lookups True tracepoint programs may be preempted: FOLIOSTAT_TEST_PREEMPTIBLE=1" \
		"attribution on a preemptible kernel"
	two_on_one_cpu_get_their_own_events
	make_uncached_file 16
	start_foliostat "$T/mixed" -j 0.2 --top 0 --self
	mixed_workload
	wait_next_record "$T/mixed"
	stop_foliostat "$T/mixed"
	assert_eq "$(query "$T/mixed" "sorted({r['self']['attribution'] for r in recs})")" '["lookups"]' "attribution in --self"
	assert_records_add_up "$T/mixed"
}

# A new thread whose first events come from several CPUs at once (it moves to the next CPU after
# every page) is one thread: its faults and folios are counted once, as perf counts them.
test_threads_that_move_between_cpus_count_once() {
	need_root
	[ "$(nproc)" -ge 2 ] || skip "needs two CPUs"
	mount_tracefs
	run_workload_traced -e "$(fault_event user)" -- hop 4000
	local pid ours theirs
	pid=$(json_field "$(cat "$T/workload")" pid)
	ours=$(query "$T/out" "faults($pid, 'user')")
	theirs=$(perf_count "$T/perf" "$(fault_event user)")
	assert_between "$ours" 4000 5000 "user faults of the hopping process"
	assert_matches_perf "$ours" "$theirs" 100 "user faults of the hopping process"
	assert_between "$(query "$T/out" "hist($pid, 'alloc_movable').get('0', 0)")" 4000 5000 \
		"order-0 movable folios of the hopping process"
}

# Reading an uncached file through a mapping takes faults served through the page cache; the
# count matches perf's for the same tracepoint.
test_mapped_file_read_takes_file_faults() {
	need_root
	mount_tracefs
	make_uncached_file 64
	local line pid file_faults theirs
	if ! host_has_tracepoint filemap:mm_filemap_fault; then
		# Debian 12's 6.1 has no such tracepoint: the figure is null (not measured), never 0.
		run_workload_traced -e page-faults -- mapread "$FILE"
		pid=$(json_field "$(cat "$T/workload")" pid)
		assert_eq "$(json_field "$(cat "$T/workload")" resident_after)" 16384 "pages cached after the mapped read (mincore)"
		assert_eq "$(query "$T/out" "sorted({p['faults']['file'] for r in recs for p in r['processes'] if p['pid'] == $pid}, key=str)")" \
			"[null]" "file-backed faults of the reader, not measured on this kernel"
		assert_eq "$(query "$T/out" "pages(hist($pid, 'pagecache')) >= 16384")" true "the file's pages added by the reader"
		return
	fi
	run_workload_traced -e filemap:mm_filemap_fault -- mapread "$FILE"
	line=$(cat "$T/workload")
	pid=$(json_field "$line" pid)
	assert_eq "$(json_field "$line" resident_after)" 16384 "pages cached after the mapped read (mincore)"
	file_faults=$(query "$T/out" "faults($pid, 'file')")
	theirs=$(perf_count "$T/perf" filemap:mm_filemap_fault)
	assert_between "$file_faults" 1 16384 "file-backed faults of the reader"
	assert_between "$file_faults" "$theirs" $((theirs + 16)) "foliostat vs perf (perf=$theirs)"
	assert_between "$file_faults" 1 "$(query "$T/out" "faults($pid, 'user')")" "file faults within user faults"
	assert_eq "$(query "$T/out" "pages(hist($pid, 'pagecache')) >= 16384")" true "the file's pages added by the reader"
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

# foliostat's interrupt-context test, judged on events whose context is known: timer-wheel
# callbacks (softirq) and hrtimer callbacks (hard interrupt) must all be judged interrupt, and
# context switches all task. A CPU-bound loop in user mode makes many interrupts arrive from user
# mode, the case that runs on the task's own stack.
test_interrupt_context_is_recognised() {
	need_root
	local stack
	stack=$("$FOLIOSTAT" --check -j | python3 -c 'import json,sys; print(json.load(sys.stdin)["check"]["kernel_stack"]["bytes"])')
	timeout 4 sh -c 'while :; do :; done' &
	build/irqcheck 3 "$stack" >"$T/verdicts" || fail "irqcheck failed"
	cat "$T/verdicts"
	local v
	for v in "timer_softirq'][1]" "hrtimer'][1]" "sched_switch'][0]"; do
		assert_eq "$(python3 -c "import json; print(json.load(open('$T/verdicts'))['$v)")" 0 "misjudged ${v%%\'*}"
	done
	for v in "timer_softirq'][0]" "hrtimer'][0]" "sched_switch'][1]"; do
		assert_between "$(python3 -c "import json; print(json.load(open('$T/verdicts'))['$v)")" 1 100000000 "judged ${v%%\'*}"
	done
	# The thread recorded as running, which task-context events are charged to, is the kernel's
	# current one (sched_switch is judged between the tracepoint and the switch itself, where
	# foliostat's own sched_switch program may just have dropped the record).
	local running
	running=$(python3 -c "import json; print(json.load(open('$T/verdicts'))['running']['sched_switch'])")
	assert_eq "${running#*, }" "0]" "task-context events whose recorded thread was not current ($running)"
	assert_between "$(python3 -c "print(${running}[0])")" 1 100000000 "task-context events whose recorded thread was current"
}

# Flipping a page read-only and back N times while another thread of the process keeps reading
# it on another CPU sends a shootdown per flip and direction (2N), charged to the flipping
# process; the reader, interrupted by each, suffers them as remote shootdowns. perf counts the
# same sends, and the same shootdowns in the reader's context.
#
# How the remote TLB is flushed is the host's choice: a hypervisor may flush a vCPU's TLB itself,
# and a CPU may broadcast the invalidation (AMD INVLPGB), with no handler run on the remote CPU,
# or no IPI sent at all. The test tells which from the host (its TLB shootdown interrupts in
# /proc/interrupts, its CPU flags), requires what the workload then must cause, and foliostat's
# figures to equal perf's: never a pass on no shootdown at all.
test_tlb_shootdowns_are_charged_both_ways() {
	need_root
	[ "$(nproc)" -ge 2 ] || skip "needs two CPUs"
	mount_tracefs
	tlb_null_unless_traced tlbflip 1000 && return
	local interrupts
	interrupts=$(tlb_shootdown_interrupts) || fail "no TLB shootdown line in /proc/interrupts"
	run_workload_traced -e tlb:tlb_flush --filter 'reason == 4' \
		-e tlb:tlb_flush --filter 'reason == 1' -- tlbflip 1000
	interrupts=$(($(tlb_shootdown_interrupts) - interrupts))
	local pid sent theirs suffered theirs_suffered
	pid=$(json_field "$(cat "$T/workload")" pid)
	# (records.py fails on a process with no row: no row is not 0 shootdowns.)
	sent=$(query "$T/out" "tlb($pid, 'remote_send_ipi')")
	echo "TLB shootdown interrupts over the run (/proc/interrupts): $interrupts"
	theirs=$(perf_count "$T/perf" tlb:tlb_flush 1)
	assert_matches_perf "$sent" "$theirs" 10 "IPIs sent"
	if grep -qw invlpgb /proc/cpuinfo; then
		echo "case: this CPU can broadcast invalidations (invlpgb): it may send no IPI"
		assert_between "$theirs" 0 2100 "shootdown IPIs perf counted for 1000 flips"
	else
		# At least one per flip the readers were seen running through (two, unless a
		# reader's CPU was briefly doing something else): the workload's arithmetic, checked
		# on perf's figure and so on foliostat's. On a starved host a reader descheduled
		# holds no TLB to flush: the workload counts the flips it saw them run through.
		local watched
		watched=$(json_field "$(cat "$T/workload")" flips_with_readers_running)
		assert_between "$watched" 1 1000 "flips the readers were seen running through"
		assert_between "$theirs" "$watched" 2100 "shootdown IPIs perf counted for 1000 flips"
	fi
	suffered=$(query "$T/out" "tlb($pid, 'remote_shootdown')")
	theirs_suffered=$(perf_count "$T/perf" tlb:tlb_flush 2)
	assert_eq "$suffered" "$theirs_suffered" "shootdowns suffered by the reader thread, foliostat vs perf"
	if [ "$interrupts" -eq 0 ]; then
		# The kernel counts a TLB interrupt for every remote flush its handler runs: none ran.
		echo "case: no TLB shootdown interrupt on this host: the readers' TLBs were flushed" \
			"without the kernel's handler (a hypervisor's flush, or a broadcast)"
		assert_eq "$theirs_suffered" 0 "remote shootdowns perf counted on a host that took no TLB interrupt"
	else
		# Each reader (one per other CPU) suffers one per IPI while it runs; while its CPU
		# runs something else, it catches up at its next switch instead
		# (flush_on_task_switch).
		echo "case: the readers' CPUs ran the kernel's flush handler ($interrupts interrupts)"
		assert_between "$theirs_suffered" 1 $((theirs * $(json_field "$(cat "$T/workload")" readers))) \
			"remote shootdowns perf counted (at most one per IPI and reader)"
	fi
}

# Eight processes passing a token round a ring on one CPU switch address spaces at every pass,
# and the switches flush the TLB (flush_on_task_switch) in the context of the process switching
# away: half of them have had page faults in their turn, half not, which foliostat charges by
# two different paths. Each process's figure is the kernel's, as perf counts it.
test_task_switch_flushes_match_perf() {
	need_root
	mount_tracefs
	tlb_null_unless_traced ring 5000 && return
	# And the ring's switches to tasks outside it (the host's own work on that CPU).
	run_workload_traced -e tlb:tlb_flush --filter 'reason == 0' \
		-e sched:sched_switch --filter 'next_comm != "workload"' -- ring 5000
	local pids ours theirs foreign
	pids=$(json_field "$(cat "$T/workload")" pids)
	ours=$(query "$T/out" "sum(tlb(pid, 'flush_on_task_switch') for pid in $pids)")
	theirs=$(perf_count "$T/perf" tlb:tlb_flush)
	foreign=$(perf_count "$T/perf" sched:sched_switch)
	assert_number "$foreign" "the ring's switches to other tasks (perf)"
	# 40,000 passes between 8 address spaces: most of them flush.
	assert_between "$theirs" 20000 200000 "task-switch flushes perf counted"
	# perf counts from exec on, and stops at each process's exit before its last switch away;
	# foliostat also sees the fork side before exec, and those 8 last switches (30 at most).
	# Where another task ran on the CPU between two members, the flushes of the switch to it
	# and of the switch back may each be charged by perf to the task it counts in and by
	# foliostat to the one switching away: two per such switch, as many as this run had.
	assert_between "$ours" "$theirs" $((theirs + 30 + 2 * foreign)) "task-switch flushes, foliostat vs perf"
	local p
	for p in $(python3 -c "print(*$pids)"); do
		assert_between "$(query "$T/out" "tlb($p, 'flush_on_task_switch')")" 1000 100000 \
			"task-switch flushes of ring member $p"
	done
}

# Reading a file of N pages after dropping it from the cache puts N pages on the file LRU
# lists, charged to the reader; mincore says they are all cached. The reader stays on one CPU:
# folios wait in a per-CPU batch until it fills or is drained, and a batch left on a CPU the
# reader moved away from is drained by whoever runs there next (seen: 21 pages short in CI);
# on one CPU the reader drains its own, at the latest when its memory goes at exit.
test_file_read_fills_the_file_lru() {
	need_root
	make_uncached_file 64
	start_foliostat "$T/out" -j 0.5
	taskset -c 0 "$WORKLOAD" read "$FILE" >"$T/workload"
	wait_next_record "$T/out"
	stop_foliostat "$T/out"
	local line pid file_pages
	line=$(cat "$T/workload")
	pid=$(json_field "$line" pid)
	assert_eq "$(json_field "$line" resident_after)" 16384 "pages cached after the read (mincore)"
	file_pages=$(query "$T/out" "lru($pid, 'inactive_file', 'pages') + lru($pid, 'active_file', 'pages')")
	# The file's pages, and a few of the program's own start-up.
	assert_between "$file_pages" 16384 16640 "pages the reader put on the file LRU lists"
	assert_eq "$(query "$T/out" "all(r['system']['lru']['mglru'] in (True, False) for r in recs)")" true "mglru flag"
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

# --self reports foliostat's own cost from the kernel's BPF statistics, which it switches on
# only while it runs: a program ran at least once per allocation of a known workload.
test_self_reports_its_own_cost() {
	need_root
	local before
	before=$(cat /proc/sys/kernel/bpf_stats_enabled)
	start_foliostat "$T/out" -j 0.5 --self
	"$WORKLOAD" pages 4096 >"$T/workload"
	wait_next_record "$T/out"
	# The loader's peak resident memory so far, from the kernel: no record can say more.
	local peak
	peak=$(awk '$1 == "VmHWM:" { print $2 }' "/proc/$FS_PID/status")
	stop_foliostat "$T/out"
	assert_between "$(query "$T/out" "sum(r['self']['probes']['kmem:mm_page_alloc']['events'] for r in recs)")" \
		4096 100000000 "mm_page_alloc program runs"
	assert_eq "$(query "$T/out" "all(r['self']['probes']['kmem:mm_page_alloc']['ns_per_event'] > 0 for r in recs if r['self']['probes']['kmem:mm_page_alloc']['events'])")" \
		true "time per event"
	assert_between "$(query "$T/out" "max(r['self']['loader_rss_kib'] for r in recs)")" 1 "$peak" \
		"loader RSS in KiB (VmHWM $peak)"
	assert_eq "$(cat /proc/sys/kernel/bpf_stats_enabled)" "$before" "kernel.bpf_stats_enabled after the run"
	"$FOLIOSTAT" -j -d 0.3 >"$T/plain"
	assert_records_valid "$T/plain"
	assert_eq "$(query "$T/plain" "'self' in recs[0]")" false "no self without --self"
}

# The benchmark's floor and bpftrace configurations attach to exactly foliostat's tracepoints.
test_bench_tracepoints_match_foliostat() {
	need_root
	"$FOLIOSTAT" -j -d 0.2 >"$T/out"
	assert_records_valid "$T/out"
	assert_eq "$(query "$T/out" "sorted(k for k, v in recs[0]['probes'].items() if not k.startswith('software:') and not v.startswith('not needed'))")" \
		"$(sed -n 's/^FS_TRACEPOINT(\([a-z_]*\), \([a-z_0-9]*\))$/\1:\2/p' tests/bench/tracepoints.h |
			python3 -c 'import json,sys; print(json.dumps(sorted(sys.stdin.read().split())))')" \
		"tracepoints in tests/bench/tracepoints.h"
}

# Another kernel: Debian 12's Linux 6.1 (older folio layout, THP always, other tracepoint
# arguments) booted under QEMU, with foliostat's figures for the workload checked there.
test_vmtest_on_debian_linux_6_1() {
	run_vmtest x86
}

# arm64: a cross-built static foliostat on Debian 12's arm64 kernel (no fault tracepoints, and a
# tlb_flush tracepoint nothing calls) on QEMU's emulated arm64 board.
test_vmtest_on_debian_linux_6_1_arm64() {
	run_vmtest arm64
}

run_vmtest() {
	need_root
	# make vmtest-suite runs this suite in that very VM, with no QEMU or registry inside.
	grep -q 'vmsuite\.filter=' /proc/cmdline && skip "in make vmtest-suite's VM"
	command -v apt-get >/dev/null || skip "needs Debian's packages"
	local status=0
	scripts/vmtest.sh "$1" >"$T/vmtest" 2>&1 || status=$?
	grep '^vmtest:' "$T/vmtest"
	assert_eq "$status" 0 "make vmtest's exit status"
}

# A one-shot run prints one readable summary on SIGINT, within 100 columns.
test_one_shot_summary_is_readable() {
	need_root
	# -c: only the workload, so whatever else the host does cannot push it out of the top 3.
	start_foliostat "$T/out" -n workload
	"$WORKLOAD" thp 16 >"$T/workload"
	stop_foliostat "$T/out"
	local pid
	pid=$(json_field "$(cat "$T/workload")" pid)
	grep -q "^probes: [0-9]* of [0-9]* attached" "$T/out" || fail "no probes line"
	grep -q "^SYSTEM " "$T/out" || fail "no system block"
	grep -q "^pid $pid (workload): folios allocated, by order" "$T/out" || fail "no histogram for the workload"
	local huge
	huge=$(json_field "$(cat "$T/workload")" huge_pages)
	assert_between "$huge" 1 8 "huge pages the workload got (smaps)"
	grep -qE "^ +9 : +$huge +$((huge * 512)) +\|\*+ *\|$" "$T/out" || fail "no order-9 row of $huge folios"
	assert_eq "$(awk 'length > 100 { n++ } END { print n + 0 }' "$T/out")" 0 "lines over 100 columns"
	echo "ok: summary"
}

# --duration ends a one-shot run by itself with one JSON record.
test_one_shot_json_with_duration() {
	need_root
	local launched ended
	launched=$(now_ms)
	"$FOLIOSTAT" -j -d 1 >"$T/out" || fail "exit status $?"
	ended=$(now_ms)
	assert_records_valid "$T/out"
	assert_eq "$(wc -l <"$T/out")" 1 "records"
	assert_eq "$(query "$T/out" "recs[0]['schema']")" 1 "schema"
	# The duration at least (less a millisecond of rounding), and within foliostat's life.
	assert_between "$(query "$T/out" "int(recs[0]['interval_s'] * 1000)")" 999 $((ended - launched)) "interval_s in ms"
	# Every probe this kernel offers attached, the others said unavailable and their figures
	# null; on x86 the exceptions tracepoints count faults, perf's event where they are absent.
	assert_probes_as_host_offers "$T/out"
}

# Streaming prints COUNT records of INTERVAL each, and exits 0.
test_streaming_prints_count_records() {
	need_root
	local launched ended
	launched=$(now_ms)
	timeout 60 "$FOLIOSTAT" -j 0.3 4 >"$T/out" || fail "exit status $?"
	ended=$(now_ms)
	assert_records_valid "$T/out"
	assert_eq "$(wc -l <"$T/out")" 4 "records"
	# Records come on a schedule of 0.3 s from the start (one late record makes the next
	# shorter): after k records at least 0.3 k s have passed (less a millisecond of rounding),
	# and all four within foliostat's life as seen here.
	assert_eq "$(query "$T/out" "[int(sum(r['interval_s'] for r in recs[:k]) * 1000) >= 300 * k - 1 for k in range(1, 5)]")" \
		"[true, true, true, true]" "time covered after each record, at least 0.3 s each"
	assert_between "$(query "$T/out" "int(sum(r['interval_s'] for r in recs) * 1000)")" 1199 $((ended - launched)) \
		"the four intervals in ms"
	assert_eq "$(query "$T/out" "all(r['interval_s'] > 0 for r in recs)")" true "every interval > 0"
	assert_eq "$(query "$T/out" "len({r['time'] for r in recs})")" 4 "distinct times"
}

# A record of an interval over 10 s is made of several reads (BPF's 32-bit counts must not wrap
# between two): one record still covers the whole interval, every event in it once.
test_long_interval_record_sums_its_reads() {
	need_root
	local launched first_end second_start ended syscalls
	launched=$(now_ms)
	start_foliostat "$T/out" -j --self 10.5 1
	"$WORKLOAD" pages 4096 >"$T/workload"
	first_end=$(now_ms)
	# The second workload once foliostat has made the record's first read (after 5.25 s).
	syscalls=$(foliostat_syscalls) || fail "foliostat exited"
	wait_foliostat_read "$syscalls"
	second_start=$(now_ms)
	"$WORKLOAD" pages 2048 >>"$T/workload"
	wait "$FS_PID" || fail "exit status $?"
	ended=$(now_ms)
	assert_records_valid "$T/out"
	local first second
	first=$(json_field "$(sed -n 1p "$T/workload")" pid)
	second=$(json_field "$(sed -n 2p "$T/workload")" pid)
	assert_eq "$(wc -l <"$T/out")" 1 "records"
	# The interval asked for at least, and no more than foliostat's whole life as seen here.
	assert_between "$(query "$T/out" "int(recs[0]['interval_s'] * 1000)")" 10499 $((ended - launched)) "interval in ms"
	# From the record's own times: its first read (halfway) came between the two workloads.
	local first_read
	first_read=$(query "$T/out" "(lambda r: int(__import__('datetime').datetime.fromisoformat(r['time'].replace('Z', '+00:00')).timestamp() * 1000 - r['interval_s'] * 500))(recs[0])")
	echo "first workload ended at $first_end, first read at $first_read, second began at $second_start (ms)"
	assert_between "$first_read" "$first_end" "$second_start" "the record's first read, between the workloads"
	# Each touched its pages once: at least that many order-0 movable folios, and a little over
	# at most (page tables, the C library).
	assert_between "$(query "$T/out" "hist($first, 'alloc_movable').get('0', 0)")" 4096 4400 \
		"first workload's order-0 movable folios"
	assert_between "$(query "$T/out" "hist($second, 'alloc_movable').get('0', 0)")" 2048 2350 \
		"second workload's order-0 movable folios (in the record's second read)"
	assert_between "$(query "$T/out" "recs[0]['self']['probes']['kmem:mm_page_alloc']['events']")" \
		6144 100000000 "mm_page_alloc program runs over the record"
}

# Process names are untrusted bytes; the stream stays valid JSON and the name is the same text
# Python decodes from those bytes.
test_hostile_names_stay_valid_json() {
	need_root
	# "a\"b\\c<tab>\x01\xff\xc0\xaf\xed\xa0\x80\xe2\x82"
	local hex=22615c0962017bffc0afeda080e282
	start_foliostat "$T/out" -j 0.3
	"$WORKLOAD" --name "$hex" pages 64 >"$T/workload"
	wait_next_record "$T/out"
	stop_foliostat "$T/out"
	local pid expected
	pid=$(json_field "$(cat "$T/workload")" pid)
	expected=$(python3 -c 'import json,sys; print(json.dumps([bytes.fromhex(sys.argv[1])[:15].decode("utf-8", "replace")]))' "$hex")
	assert_eq "$(query "$T/out" "comms($pid)")" "$expected" "the workload's name"
}

# A process that lives and dies within one window is in that window's record; its threads
# then leave the in-kernel table.
test_exited_process_reported_then_evicted() {
	need_root
	start_foliostat "$T/out" -j 1
	"$WORKLOAD" pages 256 >"$T/workload"
	local pid
	pid=$(json_field "$(cat "$T/workload")" pid)
	# Reported at the next read, its entries freed by the one after at the latest.
	wait_next_record "$T/out"
	wait_next_record "$T/out"
	local left
	left=$(task_table_count "tgid == $pid")
	stop_foliostat "$T/out"
	assert_between "$(query "$T/out" "hist($pid, 'alloc_movable').get('0', 0)")" 256 2000 "folios of the exited process"
	assert_eq "$left" 0 "table entries left for the exited process"
}

# With a tiny table, threads beyond its capacity are counted as untracked, never also in a
# process row: every record adds up exactly. A stall of a thread the table has no room for is
# still timed and counted (its start is kept with the task, not in the table), as perf counts it.
test_full_table_counts_untracked() {
	need_root
	mount_tracefs
	make_uncached_file 64
	make_memcg 16
	start_foliostat "$T/out" -j 0.5 --max-tasks 64 --top 0
	for _ in $(seq 150); do start_workload "$WORKLOAD" --linger 2 pages 32 >/dev/null; done
	perf stat -a -x, -e vmscan:mm_vmscan_memcg_reclaim_end -o "$T/perf" -- \
		"${WRAP[@]}" "$WORKLOAD" read "$FILE" >"$T/workload" || fail "reader failed"
	wait_workloads
	wait_next_record "$T/out"
	stop_foliostat "$T/out"
	local untracked total
	untracked=$(query "$T/out" "folios(group('untracked', 'alloc'))")
	total=$(query "$T/out" "folios(system('alloc'))")
	assert_between "$untracked" 1 "$total" "untracked folios"
	assert_records_add_up "$T/out"
	# perf -a counted while the reader ran; foliostat's span holds it.
	assert_between "$(query "$T/out" "sum(r['system']['reclaim']['memcg']['stalls'] for r in recs)")" \
		"$(perf_count "$T/perf" vmscan:mm_vmscan_memcg_reclaim_end)" 100000000 \
		"memcg reclaim stalls counted with the table full (perf -a over the reader's run)"
}

# Tens of thousands of short-lived processes: each is reported in its window and its entry is
# freed, so the table and the loader stay small. The system's fault total lies between two
# system-wide perf counts of the same run: one within foliostat's span, one around it.
# 20,000 processes take a few seconds on a host, minutes under software emulation (make
# vmtest-suite): the timeout is the emulation's.
set_test_timeout test_process_churn_stays_bounded_and_exact 1500
test_process_churn_stays_bounded_and_exact() {
	need_root
	mount_tracefs
	perf_window_begin outer -e "$(fault_event user)"
	start_foliostat "$T/out" -j 1 --self --top 0
	perf_window_begin inner -e "$(fault_event user)"
	# A record before the churn: what the loader holds at rest.
	wait_next_record "$T/out"
	"$WORKLOAD" forks 20000 >"$T/workload"
	# The last children are reported at the next read, their entries freed by the one after.
	wait_next_record "$T/out"
	wait_next_record "$T/out"
	local left
	left=$(task_table_count "comm == 'workload'")
	perf_window_end inner
	stop_foliostat "$T/out"
	perf_window_end outer
	local ours inner outer untracked
	ours=$(query "$T/out" "sum(r['system']['faults']['user'] for r in recs)")
	inner=$(perf_count "$T/inner.perf" "$(fault_event user)")
	outer=$(perf_count "$T/outer.perf" "$(fault_event user)")
	echo "user faults: foliostat $ours, perf -a within its span $inner, around it $outer"
	assert_sandwiched "$ours" "$inner" "$outer" "system user faults vs perf -a"
	untracked=$(query "$T/out" "sum(r['system']['untracked']['faults']['user'] for r in recs)")
	# (a process that straddles two windows is in both records: count pids)
	if [ "$untracked" -eq 0 ]; then
		local reported
		reported=$(query "$T/out" "len({p['pid'] for r in recs for p in r['processes'] if p['comm'] == 'workload'})")
		# A rare run once reported 20000: say which child is missing and which rows look
		# charged twice (a child's user faults are all alike), for whoever meets it again.
		[ "$reported" = 20001 ] || python3 - "$T/out" <<-'EOF' || true
			import collections, json, sys
			faults = collections.Counter()
			for line in open(sys.argv[1]):
			    for p in json.loads(line)["processes"]:
			        if p["comm"] == "workload":
			            faults[p["pid"]] += p["faults"]["user"]
			pids = sorted(faults)
			usual = collections.Counter(faults.values()).most_common(1)[0][0]
			gaps = [p for p in range(pids[0], pids[-1]) if p not in faults]
			print("pids not reported between the first and last:", gaps[:20])
			print("usual user faults of a child:", usual)
			print("rows not usual:", sorted((p, f) for p, f in faults.items() if f != usual)[:20])
		EOF
		assert_eq "$reported" 20001 "workload processes reported (parent and children)"
	else
		# More threads came and went within one second than the table holds (32768).
		echo "case: $untracked user faults found the table full; not every child has a row"
	fi
	assert_eq "$left" 0 "thread-table entries of the workload's processes after the churn"
	echo "loader RSS (KiB) by record: $(query "$T/out" "[r['self']['loader_rss_kib'] for r in recs]")"
	# During the burst the loader holds a window's worth of it (a record of 20000 rows is 16 MiB
	# of JSON); afterwards it gives it back, all but what the heap keeps in fragments.
	local at_rest
	at_rest=$(query "$T/out" "recs[0]['self']['loader_rss_kib']")
	assert_between "$(query "$T/out" "recs[-1]['self']['loader_rss_kib']")" 1 $((at_rest + 4096)) \
		"loader RSS after the churn (KiB), at rest before it $at_rest"
}

# A one-shot run over a churn of processes keeps at most --max-tasks of them (the least active
# are dropped and still counted), so its memory stays bounded however long it runs.
test_one_shot_churn_keeps_at_most_max_tasks() {
	need_root
	local threads_before pid_before at_rest
	threads_before=$(find /proc/[0-9]*/task -maxdepth 1 -mindepth 1 2>/dev/null | wc -l)
	pid_before=$(cat /proc/sys/kernel/ns_last_pid)
	start_foliostat "$T/out" -j --self --top 0 --max-tasks 4096
	# What the loader holds once started (the kernel's count), to bound what the churn adds.
	at_rest=$(awk '$1 == "VmRSS:" { print $2 }' "/proc/$FS_PID/status")
	"$WORKLOAD" forks 10000 >"$T/workload"
	stop_foliostat "$T/out"
	local rows seen untracked created
	# Pids handed out meanwhile, to the workload's children and to anything else: an upper
	# bound on the processes that can have been new.
	created=$((($(cat /proc/sys/kernel/ns_last_pid) - pid_before + $(cat /proc/sys/kernel/pid_max)) %
		$(cat /proc/sys/kernel/pid_max)))
	rows=$(query "$T/out" "len(recs[0]['processes'])")
	seen=$(query "$T/out" "recs[0]['system']['processes']")
	untracked=$(query "$T/out" "folios(group('untracked', 'alloc')) + recs[0]['system']['untracked']['faults']['user']")
	echo "one-shot: $rows processes listed, $seen counted; $untracked untracked events"
	assert_between "$rows" 1 4096 "processes listed"
	# Each process is counted once, dropped or not.
	assert_between "$seen" "$rows" $((threads_before + created)) "processes counted"
	if [ "$untracked" -eq 0 ]; then
		# Every child had a table entry: all are counted, and the list was cut to the bound.
		assert_between "$seen" 10001 $((threads_before + created)) "processes counted (every child)"
		assert_between "$rows" $((4096 - 4096 / 4)) 4096 "processes listed after the least active were dropped"
	else
		# The host forked faster than the loader frees the table (one read a second): the
		# table was full at least once, with a thread per entry.
		echo "case: more than 4096 threads came and went between two reads"
		assert_between "$seen" $((4096 - threads_before)) $((threads_before + created)) "processes counted"
	fi
	# Bounded by the table, not by the processes seen. An entry of the table is held at most
	# about 6 KiB over: its last values and a retired copy (560 bytes each), up to two threads
	# per entry in the read (live and retired) with their rows (1080 bytes), and a row of the
	# record's sums. 8 KiB an entry leaves room for the arrays' doubling.
	assert_between "$(query "$T/out" "recs[0]['self']['loader_rss_kib']")" 1 \
		$((at_rest + 4096 * 8)) "loader RSS (KiB), at rest $at_rest"
}

# A closed pipe ends the run promptly and quietly; nothing stays attached.
test_closed_pipe_ends_quietly() {
	need_root
	local status
	timeout 10 bash -c "'$FOLIOSTAT' -j 0.2 2>'$T/err' | head -1 >'$T/out'; exit \${PIPESTATUS[0]}"
	status=$?
	assert_eq "$status" 0 "foliostat's exit status"
	assert_eq "$(wc -l <"$T/out")" 1 "lines read"
	assert_records_valid "$T/out"
	assert_eq "$(wc -c <"$T/err")" 0 "bytes on stderr"
	assert_nothing_attached
}

# SIGTERM in streaming mode prints the final partial record and exits 0.
test_sigterm_prints_final_record() {
	need_root
	local launched started signalled
	launched=$(now_ms)
	start_foliostat "$T/out" -j 10
	started=$(now_ms)
	sleep 0.5
	signalled=$(now_ms)
	kill -TERM "$FS_PID"
	wait "$FS_PID" || fail "exit status $?"
	assert_records_valid "$T/out"
	assert_eq "$(wc -l <"$T/out")" 1 "records"
	# The window began before the start-up ended and ended after SIGTERM, within the run.
	assert_between "$(query "$T/out" "int(recs[0]['interval_s'] * 1000)")" $((signalled - started)) \
		$(($(now_ms) - launched)) "final window in ms"
	assert_nothing_attached
}

# SIGKILL gives foliostat no chance to clean up: the kernel must, since its programs hang only
# on file descriptors (links), never on pins or tracefs.
test_sigkill_leaves_nothing_attached() {
	need_root
	local stats_before
	stats_before=$(cat /proc/sys/kernel/bpf_stats_enabled)
	start_foliostat "$T/out" -j 0.2 --self
	sleep 0.5
	kill -KILL "$FS_PID"
	wait "$FS_PID" 2>/dev/null || true
	assert_nothing_attached
	[ ! -e /sys/fs/bpf/foliostat ] || fail "something pinned under /sys/fs/bpf"
	assert_eq "$(cat /proc/sys/kernel/bpf_stats_enabled)" "$stats_before" "kernel.bpf_stats_enabled"
}

# A probe that cannot be had is reported and the rest runs; without a core probe, a clear error.
test_missing_probe_degrades() {
	need_root
	FOLIOSTAT_DISABLE_PROBES=kmem:mm_page_free,irq:softirq_exit,exceptions:page_fault_kernel \
		"$FOLIOSTAT" -j -d 0.5 >"$T/out" ||
		fail "exit status $?"
	assert_records_valid "$T/out"
	assert_eq "$(query "$T/out" "recs[0]['probes']['kmem:mm_page_free']")" '"disabled by FOLIOSTAT_DISABLE_PROBES"' "page_free state"
	assert_eq "$(query "$T/out" "recs[0]['probes']['irq:softirq_entry']")" '"not attached: needs irq:softirq_exit"' "softirq_entry state"
	assert_eq "$(query "$T/out" "recs[0]['probes']['kmem:mm_page_alloc']")" '"attached"' "page_alloc state"
	assert_eq "$(query "$T/out" "recs[0]['system']['folios']['free']")" null "frees, not measured"
	# Without exceptions tracepoints (not x86), perf's software event counts both modes (asked
	# with the run's own FOLIOSTAT_DISABLE_PROBES).
	local kernel_null=false
	FOLIOSTAT_DISABLE_PROBES=kmem:mm_page_free,irq:softirq_exit,exceptions:page_fault_kernel \
		faults_from_exceptions && kernel_null=true
	assert_eq "$(query "$T/out" "[recs[0]['system']['faults'][k] is None for k in ('user', 'kernel', 'read')]")" \
		"[false, $kernel_null, true]" "faults measured without the kernel-mode probe"
	local status=0
	FOLIOSTAT_DISABLE_PROBES=kmem:mm_page_alloc "$FOLIOSTAT" -d 0.5 >/dev/null 2>"$T/err" || status=$?
	assert_eq "$status" 1 "exit status without mm_page_alloc"
	grep -q '^foliostat: failed to attach kmem:mm_page_alloc: disabled by FOLIOSTAT_DISABLE_PROBES$' "$T/err" ||
		fail "unexpected message: $(cat "$T/err")"
	assert_nothing_attached
}

# A probe whose program the kernel's verifier refuses (as another kernel's might) is reported
# and the rest loads; a refused required probe is a clear error naming it (the test build's
# FOLIOSTAT_TEST_REFUSE_PROBE).
test_refused_program_degrades() {
	need_root
	use_test_build
	# (kmem:mm_page_free: an optional probe every kernel and architecture has)
	FOLIOSTAT_TEST_REFUSE_PROBE=kmem:mm_page_free "$FOLIOSTAT" -j -d 0.3 >"$T/out" || fail "exit status $?"
	assert_records_valid "$T/out"
	assert_eq "$(query "$T/out" "recs[0]['probes']['kmem:mm_page_free'].startswith('failed to load: the kernel refused')")" \
		true "state of the refused probe"
	assert_eq "$(query "$T/out" "recs[0]['system']['folios']['free']")" null "its figures"
	# Every other probe as this host offers it: the refusal took nothing else with it.
	assert_probes_as_host_offers "$T/out" --except=kmem:mm_page_free
	local status=0
	FOLIOSTAT_TEST_REFUSE_PROBE=kmem:mm_page_alloc "$FOLIOSTAT" -d 0.3 >/dev/null 2>"$T/err" || status=$?
	assert_eq "$status" 1 "exit status when a required probe is refused"
	grep -q '^foliostat: failed to load the program for kmem:mm_page_alloc: ' "$T/err" ||
		fail "message: $(cat "$T/err")"
	assert_nothing_attached
}

# Usage errors exit 2 with a message; --help and --version exit 0.
test_usage_errors_exit_2() {
	local args status
	for args in "--bogus" "0" "-1" "1 0" "1 2 3" "-d 0" "-d 1 1" "-p 0" "-r x" "--max-tasks 1" \
		"--check 1" "--check -d 1" "--check -o x" "-o" "--" "-j --" "--check -- true" \
		"-d 1 -- true" "1 2 -- true" "--by banana" "--by" "--dur 1" "-n a -n b" "-o a --replace b" \
		"--format prometheus -o x 1" "-j --format table"; do
		status=0
		# shellcheck disable=SC2086 # split on purpose
		"$FOLIOSTAT" $args >/dev/null 2>"$T/err" || status=$?
		assert_eq "$status" 2 "exit status for '$args'"
		grep -q '^foliostat: ' "$T/err" || fail "no message for '$args'"
	done
	# (Into files: under pipefail, grep -q leaving early could fail the writer with SIGPIPE.)
	"$FOLIOSTAT" --help >"$T/help" && grep -q '^Usage: foliostat' "$T/help" || fail "--help"
	"$FOLIOSTAT" --version >"$T/version" && grep -q '^foliostat [0-9]' "$T/version" ||
		fail "--version"
}

# --replace: each record replaces the file whole, so a reader polling it all along never sees
# part of one; nothing goes to standard output; the file holds the last record.
test_replace_file_is_replaced_whole() {
	need_root
	mkdir "$T/dir"
	# The reader polls the file until foliostat has ended (a minute at most), however long
	# foliostat takes to start on this host.
	python3 - "$T/dir/latest.json" "$T/done" >"$T/reads" <<'READER' &
import json, os, sys, time
path, done, reads, bad, end = sys.argv[1], sys.argv[2], 0, 0, time.time() + 60
while time.time() < end and not os.path.exists(done):
    try:
        with open(path) as f:
            text = f.read()
    except FileNotFoundError:
        continue
    reads += 1
    try:
        json.loads(text)
    except ValueError:
        bad += 1
print(reads, bad)
READER
	local reader=$!
	"$FOLIOSTAT" -j --replace "$T/dir/latest.json" 0.1 25 >"$T/stdout"
	touch "$T/done"
	wait "$reader"
	local reads bad
	read -r reads bad <"$T/reads"
	echo "reader: $reads reads, $bad not whole"
	assert_between "$reads" 100 100000000 "reads of the file while records were replaced"
	assert_eq "$bad" 0 "reads that saw part of a record"
	assert_eq "$(wc -c <"$T/stdout")" 0 "bytes on standard output"
	assert_eq "$(wc -l <"$T/dir/latest.json")" 1 "records in the file"
	assert_records_valid "$T/dir/latest.json"
	assert_eq "$(ls -A "$T/dir")" latest.json "files left in the directory"
}

# --replace never writes through a symlink at FILE: the link is replaced, its target untouched;
# a directory that does not exist, or that foliostat may not write to, is a runtime error at
# start-up.
test_replace_file_does_not_follow_symlinks() {
	need_root
	echo keep >"$T/target"
	ln -s "$T/target" "$T/link"
	"$FOLIOSTAT" -j -d 0.3 --replace "$T/link" >/dev/null
	assert_eq "$(cat "$T/target")" keep "the symlink's target"
	[ -f "$T/link" ] && [ ! -L "$T/link" ] || fail "the symlink was not replaced by a file"
	assert_eq "$(query "$T/link" "len(recs)")" 1 "records in the file"
	assert_records_valid "$T/link"
	local status=0
	"$FOLIOSTAT" -j -d 0.3 --replace "$T/missing/out.json" 2>"$T/err" || status=$?
	assert_eq "$status" 1 "exit status for a missing directory"
	assert_eq "$(cat "$T/err")" \
		"foliostat: failed to open the directory of '$T/missing/out.json': No such file or directory" \
		"message"
	# Records are written without privileges: another user's directory fails at start-up,
	# not after a 30-second run.
	mkdir "$T/theirs" && chown nobody "$T/theirs" && chmod 755 "$T/theirs" || fail "setup"
	status=0
	timeout 10 "$FOLIOSTAT" -j -d 30 --replace "$T/theirs/out.json" 2>"$T/err" || status=$?
	assert_eq "$status" 1 "exit status for a directory foliostat may not write to"
	assert_eq "$(cat "$T/err")" \
		"foliostat: failed to write a file beside '$T/theirs/out.json': Permission denied" "message"
	assert_empty "$(ls -A "$T/theirs")" "files left in that directory"
}

# --output appends: what FILE held stays, each record follows as one line (JSON) or one table;
# a symlink at FILE is refused (exit 1, nothing written through it).
test_output_file_is_a_log() {
	need_root
	echo '{"before": true}' >"$T/log.ndjson"
	"$FOLIOSTAT" -j -o "$T/log.ndjson" 0.1 3 >"$T/stdout" || fail "exit status $?"
	"$FOLIOSTAT" -j -o "$T/log.ndjson" 0.1 2 >>"$T/stdout" || fail "exit status $?"
	assert_eq "$(wc -c <"$T/stdout")" 0 "bytes on standard output"
	assert_eq "$(head -1 "$T/log.ndjson")" '{"before": true}' "what the file held before"
	tail -n +2 "$T/log.ndjson" >"$T/records"
	assert_eq "$(wc -l <"$T/records")" 5 "records appended by two runs (3 and 2)"
	assert_records_valid "$T/records"
	"$FOLIOSTAT" -d 0.2 -o "$T/tables" || fail "exit status $?"
	"$FOLIOSTAT" -d 0.2 -o "$T/tables" || fail "exit status $?"
	assert_eq "$(grep -c '^SYSTEM ' "$T/tables")" 2 "tables appended by two one-shot runs"
	echo keep >"$T/target"
	ln -s "$T/target" "$T/link"
	local status=0
	"$FOLIOSTAT" -j -d 0.2 -o "$T/link" 2>"$T/err" || status=$?
	assert_eq "$status" 1 "exit status for a symlink at FILE"
	assert_eq "$(cat "$T/err")" \
		"foliostat: failed to open '$T/link': a symbolic link (--output does not follow one)" "message"
	assert_eq "$(cat "$T/target")" keep "the symlink's target"
}

# A record that does not fit (a full file system) is cut off again: the log ends with a whole
# record, and foliostat exits 1 saying why.
test_output_file_keeps_whole_records_when_full() {
	need_root
	mkdir "$T/small"
	mount -t tmpfs -o size=64k tmpfs "$T/small" || skip "cannot mount a tmpfs"
	local status=0
	timeout 60 "$FOLIOSTAT" -j -r 0 -o "$T/small/log.ndjson" 0.05 2>"$T/err" || status=$?
	cp "$T/small/log.ndjson" "$T/log.ndjson"
	umount "$T/small"
	assert_eq "$status" 1 "exit status when the file system is full"
	assert_eq "$(cat "$T/err")" "foliostat: failed to write '$T/small/log.ndjson': No space left on device" \
		"message"
	assert_between "$(wc -l <"$T/log.ndjson")" 1 1000 "whole records before the one that did not fit"
	assert_eq "$(tail -c 1 "$T/log.ndjson" | od -An -c | tr -d ' ')" '\n' "the file's last byte"
	assert_records_valid "$T/log.ndjson"
}

# In a PID namespace foliostat's pids are not those the kernel's tracepoints see: -p says so
# rather than match nothing or the wrong process.
test_pid_filter_in_a_pid_namespace_is_explained() {
	need_root
	command -v unshare >/dev/null || skip "unshare not installed"
	local status=0
	unshare --pid --fork --mount-proc "$FOLIOSTAT" -p 1 -d 1 >/dev/null 2>"$T/err" || status=$?
	assert_eq "$status" 1 "exit status"
	grep -q "^foliostat: failed to select processes by pid: foliostat runs in a PID namespace" "$T/err" ||
		fail "message: $(cat "$T/err")"
	# A command is followed by its pid too: the same error, and the command never runs.
	status=0
	unshare --pid --fork --mount-proc "$FOLIOSTAT" -- touch "$T/ran" >/dev/null 2>"$T/err" || status=$?
	assert_eq "$status" 1 "exit status with -- COMMAND"
	grep -q "^foliostat: failed to follow the command: foliostat runs in a PID namespace" "$T/err" ||
		fail "message: $(cat "$T/err")"
	[ ! -e "$T/ran" ] || fail "the command ran"
	# Without -p it runs there, and reports the kernel's pids.
	unshare --pid --fork --mount-proc "$FOLIOSTAT" -j -d 0.3 >"$T/out" || fail "exit status $?"
	assert_records_valid "$T/out"
	assert_eq "$(query "$T/out" "all(p['pid'] != 1 or p['comm'] != 'foliostat' for p in recs[0]['processes'])")" true \
		"foliostat's own row under its kernel pid"
}

# A PID that does not exist is an error a person can act on, not an empty report.
test_missing_pid_is_an_error() {
	local pid=$(($(cat /proc/sys/kernel/pid_max) - 1)) status=0
	kill -0 "$pid" 2>/dev/null && skip "pid $pid exists"
	"$FOLIOSTAT" -p "$pid" -d 1 >/dev/null 2>"$T/err" || status=$?
	assert_eq "$status" 2 "exit status (a usage error, as a --cgroup that is no cgroup)"
	grep -q "^foliostat: invalid --pid '$pid': no such process$" "$T/err" ||
		fail "message: $(cat "$T/err")"
}

# Once attached, foliostat holds no capability (at most CAP_BPF, on kernels before 6.5 that
# refuse map reads without it) and cannot gain any; it still reports what it sees.
test_privileges_dropped_after_attach() {
	need_root
	start_foliostat "$T/out" -j 0.3
	local caps
	caps=$(awk '/^CapEff/ { print $2 }' "/proc/$FS_PID/status")
	assert_eq "$(awk '/^NoNewPrivs/ { print $2 }' "/proc/$FS_PID/status")" 1 "no_new_privs"
	# 0, or CAP_BPF (bit 39) alone
	case $caps in
	0000000000000000 | 0000008000000000) echo "ok: effective capabilities $caps" ;;
	*) fail "effective capabilities $caps" ;;
	esac
	"$WORKLOAD" pages 1024 >"$T/workload"
	wait_next_record "$T/out"
	stop_foliostat "$T/out"
	assert_between "$(query "$T/out" "hist($(json_field "$(cat "$T/workload")" pid), 'alloc_movable').get('0', 0)")" \
		1024 3000 "folios counted after the drop"
}

# --check names the record figures that will be null here, and what each needs: exactly the
# topmost nulls of a real run's system object with the same probes (the renderer's own walk of
# the registry, against the check's), with three probes refused and with none (where this
# host's kernel lacks a probe, the figures it measures).
test_check_names_the_figures_null_here() {
	need_root
	local probes
	for probes in kmem:mm_page_free,pagemap:mm_lru_activate,migrate:mm_migrate_pages ""; do
		FOLIOSTAT_DISABLE_PROBES=$probes "$FOLIOSTAT" --check -j >"$T/check" ||
			fail "check: exit $?"
		FOLIOSTAT_DISABLE_PROBES=$probes "$FOLIOSTAT" -j -d 0.3 >"$T/rec" || fail "run: exit $?"
		python3 - "$T/check" "$T/rec" "$probes" <<'PY' || fail "the check's null figures are not the record's"
import json, sys
check = json.load(open(sys.argv[1]))["check"]["null_figures"]
record = json.load(open(sys.argv[2]))["system"]
# (the system's groups are objects of their own, not its figures; thp.untracked is one)
GROUPS = ("interrupt", "untracked", "unselected")
def nulls(obj, path=""):
    for key, value in obj.items():
        where = path + key
        if value is None:
            yield where
        elif isinstance(value, dict) and (path or key not in GROUPS):
            yield from nulls(value, where + ".")
found = sorted(nulls(record))
print("refused: %r; null in the record: %s; in the check: %s" % (sys.argv[3], found, sorted(check)))
assert found == sorted(check), (found, sorted(check))
if sys.argv[3]:
    assert "folios.free" in check and "kmem:mm_page_free" in check["folios.free"], check
    assert "thp.migrate" not in check and "thp.migrate.succeeded" in check, check
    assert "pagemap:mm_lru_activate" in check["lru.activate"], check
PY
	done
}

# --check reports every probe and the host's modes, exit 0 when the required probes attach, 1
# when they do not (a required probe disabled, or no privileges); nothing stays attached.
test_check_reports_what_the_host_offers() {
	need_root
	"$FOLIOSTAT" --check -j >"$T/out" || fail "exit status $? on this host"
	assert_eq "$(query "$T/out" "recs[0]['check']['usable']")" true "usable"
	assert_probes_as_host_offers "$T/out" --check
	assert_eq "$(query "$T/out" "recs[0]['check']['attribution']['method']")" "$(host_attribution)" \
		"attribution"
	# THREAD_SIZE, measured at start-up: a power of two of at least 8 KiB.
	assert_eq "$(query "$T/out" "recs[0]['check']['kernel_stack']['measured']")" true "kernel stack size measured"
	assert_eq "$(query "$T/out" "(lambda b: b >= 8192 and b & (b - 1) == 0)(recs[0]['check']['kernel_stack']['bytes'])")" \
		true "kernel stack size a power of two of at least 8 KiB"
	assert_eq "$(query "$T/out" "recs[0]['check']['thp']['enabled']")" \
		"\"$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled)\"" "THP mode"
	"$FOLIOSTAT" --check >"$T/check" && grep -q '^usable: ' "$T/check" ||
		fail "no verdict in the table"
	local status=0
	FOLIOSTAT_DISABLE_PROBES=kmem:mm_page_alloc "$FOLIOSTAT" --check -j >"$T/out" || status=$?
	assert_eq "$status" 1 "exit status without a required probe"
	assert_eq "$(query "$T/out" "recs[0]['check']['usable']")" false "usable without a required probe"
	status=0
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$FOLIOSTAT" --check \
		>"$T/out" 2>&1 || status=$?
	assert_eq "$status" 1 "exit status without privileges"
	grep -q 'CAP_BPF no' "$T/out" || fail "privileges not reported: $(cat "$T/out")"
	assert_nothing_attached
}

# Without privileges: a message that says what is needed, exit 1.
test_unprivileged_run_explains() {
	need_root
	command -v setpriv >/dev/null || skip "setpriv not installed"
	local status=0
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$FOLIOSTAT" -d 1 \
		>/dev/null 2>"$T/err" || status=$?
	assert_eq "$status" 1 "exit status"
	grep -qE '^foliostat: failed to .*(root|CAP_BPF)' "$T/err" || fail "message: $(cat "$T/err")"
}

# Every option in --help is in the man page, and the man page names no other.
test_help_and_man_page_agree() {
	local help man
	help=$("$FOLIOSTAT" --help | grep -oE -- '--[a-z][a-z-]+' | sort -u)
	man=$(grep -oE -- '\\-\\-[a-z][a-z-]+|--[a-z][a-z-]+' man/foliostat.8 | sed 's/\\//g' | sort -u)
	assert_eq "$man" "$help" "long options in the man page vs --help"
}

# -- COMMAND: the command and the child it forks are followed from their first event, and the
# record holds exactly those two processes, with the faults the kernel's own accounting gave
# each (getrusage/wait4: minflt + majflt, counted from fork; the parent's first faults, before
# foliostat follows it, and its last, after it asked, are the slack).
test_command_is_followed_with_its_children() {
	need_root
	local status=0
	# shellcheck disable=SC2016 # $0 and $1 are the command's
	"$FOLIOSTAT" -j -- sh -c 'exec "$0" family 8192,4096 >"$1"' "$WORKLOAD" "$T/workload" \
		>"$T/out" 2>"$T/err" || status=$?
	assert_eq "$status" 0 "exit status (the command's)"
	local parent child
	parent=$(json_field "$(cat "$T/workload")" pid)
	child=$(json_field "$(cat "$T/workload")" child)
	assert_records_valid "$T/out"
	assert_eq "$(query "$T/out" "len(recs)")" 1 "records"
	assert_eq "$(query "$T/out" "sorted(p['pid'] for p in recs[0]['processes'])")" \
		"$(python3 -c "print(sorted([$parent, $child]))")" "the processes: the command and its child, nothing else"
	local ours theirs
	ours=$(query "$T/out" "faults($parent, 'user') + faults($parent, 'kernel')")
	theirs=$(json_field "$(cat "$T/workload")" faults)
	assert_between "$(query "$T/out" "faults($parent, 'user')")" 8192 9192 "the command's user faults"
	assert_between "$ours" $((theirs - 100)) $((theirs + 100)) "the command's faults vs getrusage ($theirs)"
	ours=$(query "$T/out" "faults($child, 'user') + faults($child, 'kernel')")
	theirs=$(json_field "$(cat "$T/workload")" child_faults)
	assert_between "$(query "$T/out" "faults($child, 'user')")" 4096 5096 "the child's user faults"
	assert_between "$ours" $((theirs - 10)) $((theirs + 10)) "the child's faults vs wait4's rusage ($theirs)"
	assert_eq "$(query "$T/out" "recs[0]['probes']['sched:sched_process_fork']")" '"attached"' "fork probe"
	# Everything else is in the unselected group, and the system figures still add up.
	assert_records_add_up "$T/out" --threads-only
}

# foliostat exits as its command did: its status, 128 + the signal that killed it, 127 for a
# command that does not exist (as a shell does), with a message.
test_command_exit_status_is_foliostat_s() {
	need_root
	local status=0
	"$FOLIOSTAT" -j -- sh -c 'exit 3' >"$T/out" || status=$?
	assert_eq "$status" 3 "exit status of a command that exits 3"
	assert_eq "$(query "$T/out" "len(recs)")" 1 "a record all the same"
	assert_records_valid "$T/out"
	status=0
	"$FOLIOSTAT" -j -- sh -c 'kill -KILL $$' >"$T/out" || status=$?
	assert_eq "$status" 137 "exit status of a command killed by SIGKILL"
	assert_records_valid "$T/out"
	assert_command_never_ran 127 "foliostat: failed to run '$T/no-such-command': No such file or directory" \
		"$FOLIOSTAT" -j -- "$T/no-such-command"
}

# Under sudo the command runs as the user who ran sudo, not as root.
test_command_runs_as_the_sudo_user() {
	need_root
	local status=0
	chmod 777 "$T" # (the command writes its ids as nobody)
	# shellcheck disable=SC2016 # $0 is the command's
	SUDO_UID=65534 SUDO_GID=65534 "$FOLIOSTAT" -j -- sh -c 'id -u >"$0"; id -g >>"$0"' "$T/ids" \
		>"$T/out" || status=$?
	assert_eq "$status" 0 "exit status"
	assert_eq "$(tr '\n' ' ' <"$T/ids")" "65534 65534 " "the command's uid and gid"
	assert_records_valid "$T/out"
}

# With an INTERVAL, records stream while the command runs; their sum is the command's activity.
test_command_streams_with_an_interval() {
	need_root
	local status=0
	"$FOLIOSTAT" -j 0.2 -- "$WORKLOAD" --linger 1 pages 4096 >"$T/out" || status=$?
	assert_eq "$status" 0 "exit status"
	grep -v '"schema"' "$T/out" >"$T/workload"
	grep '"schema"' "$T/out" >"$T/records"
	assert_records_valid "$T/records"
	local pid
	pid=$(json_field "$(cat "$T/workload")" pid)
	assert_between "$(query "$T/records" "len(recs)")" 2 100 "records while it lingered a second"
	assert_between "$(query "$T/records" "faults($pid, 'user')")" 4096 5096 "the command's user faults over all records"
	assert_eq "$(query "$T/records" "sorted(set(p['pid'] for r in recs for p in r['processes']))")" "[$pid]" "only the command"
}

# --cgroup: only tasks in the cgroup or below it (a child cgroup here) get rows; a workload run
# at the same time in another cgroup appears nowhere. The selected workload's faults are what
# perf counted for it, and every row is one of the two processes put in the cgroup (perf, and the
# workload it runs).
test_cgroup_selects_its_tasks_only() {
	need_root
	mount_tracefs
	make_cgroups a a/child b
	local a=${CGROUPS[a]} b=${CGROUPS[b]}
	# The cgroup as /proc/PID/cgroup names it, relative to the mount.
	start_foliostat "$T/out" -j --cgroup "/${a#"$CGROUP_ROOT"/}"
	# shellcheck disable=SC2016 # the wrapper shell's $$ and arguments
	sh -c 'echo $$ >"$0/cgroup.procs" && exec perf stat -x, -e "$3" -o "$1" -- "$2" pages 8192' \
		"$a/child" "$T/perf" "$WORKLOAD" "$(fault_event user)" >"$T/workload" &
	local inside=$!
	# shellcheck disable=SC2016
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$1" pages 4096' "$b" "$WORKLOAD" >"$T/other"
	wait "$inside" || fail "the workload in $a/child failed"
	stop_foliostat "$T/out"
	local pid other
	pid=$(json_field "$(cat "$T/workload")" pid)
	other=$(json_field "$(cat "$T/other")" pid)
	assert_eq "$(query "$T/out" "sorted(set(p['pid'] for p in recs[0]['processes']) - {$inside, $pid})")" "[]" \
		"rows of processes outside the cgroup"
	assert_eq "$(query "$T/out" "[p for p in recs[0]['processes'] if p['pid'] == $other]")" "[]" "the other cgroup's workload"
	local ours theirs
	ours=$(query "$T/out" "faults($pid, 'user')")
	theirs=$(perf_count "$T/perf" "$(fault_event user)")
	assert_between "$ours" 8192 9192 "user faults of the workload in the child cgroup"
	assert_matches_perf "$ours" "$theirs" 100 "user faults of the workload in the child cgroup"
	assert_eq "$(query "$T/out" "recs[0]['probes']['cgroup:cgroup_attach_task']")" '"attached"' "cgroup probe"
	assert_between "$(query "$T/out" "recs[0]['system']['unselected']['faults']['user']")" 4096 100000000 \
		"user faults outside the cgroup (the other workload's among them)"
	assert_records_add_up "$T/out" --threads-only
}

# --cgroup PATH that is no cgroup2 directory is a usage error; a host without cgroup2 (here: a
# mount namespace with every cgroup2 mount removed), a runtime error.
test_cgroup_errors() {
	need_root
	local status path root v1
	root=$(cgroup_mount cgroup2)
	v1=$(cgroup_mount cgroup)
	if [ -z "$v1" ]; then
		# A named v1 hierarchy of the test's own, where the kernel still allows one.
		mkdir "$T/v1" && mount -t cgroup -o none,name=foliostat-test cgroup "$T/v1" 2>/dev/null &&
			v1=$T/v1
	fi
	for path in /etc/passwd "$T/no-such-dir" /no-such-cgroup.$$ "$T" ${v1:+"$v1"} ""; do
		status=0
		"$FOLIOSTAT" --cgroup "$path" -d 1 >/dev/null 2>"$T/err" || status=$?
		assert_eq "$status" 2 "exit status for --cgroup '$path'"
		grep -q "^foliostat: invalid --cgroup '$path'" "$T/err" || fail "message: $(cat "$T/err")"
	done
	[ -n "$v1" ] && echo "ok: a cgroup v1 hierarchy ($v1) refused" || echo "note: no cgroup v1 hierarchy to try here"
	[ "$v1" = "$T/v1" ] && umount "$T/v1"
	[ -n "$root" ] || return 0
	status=0
	# shellcheck disable=SC2016
	unshare -m --propagation private sh -c '
		awk "{ for (i = 7; \$i != \"-\"; i++) ; if (\$(i + 1) == \"cgroup2\") print \$5 }" /proc/self/mountinfo |
			while read -r m; do umount "$m"; done
		exec "$0" --cgroup / -d 1' "$FOLIOSTAT" >/dev/null 2>"$T/err" || status=$?
	assert_eq "$status" 1 "exit status without cgroup2"
	grep -q '^foliostat: failed to find the cgroup v2 hierarchy' "$T/err" || fail "message: $(cat "$T/err")"
}

# Bash completion (contrib/bash-completion/foliostat, as make install installs it), in a
# non-interactive bash with Debian's bash-completion: every option of --help is offered, and
# option values complete as what they name.
test_bash_completion() {
	need_root
	[ -r /usr/share/bash-completion/bash_completion ] || skip "bash-completion is not installed"
	local root cg
	make -s install DESTDIR="$T/dest" PREFIX=/usr || fail "make install"
	[ -r "$T/dest/usr/share/bash-completion/completions/foliostat" ] || fail "completion not installed"
	root=$(cgroup_mount cgroup2)
	cg=$root/foliostat-complete.$$
	[ -n "$root" ] && { mkdir "$cg" || fail "cannot create $cg"; }
	touch "$T/a-file"
	# shellcheck disable=SC2016 # for the inner bash
	bash -c '
		. /usr/share/bash-completion/bash_completion
		. "$0"
		complete_line() {
			COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
			COMP_LINE=${LINE:-$*}; COMP_POINT=${#COMP_LINE}; COMPREPLY=()
			_foliostat 2>/dev/null
			printf "%s\n" "${COMPREPLY[@]}" | sort -u | tr "\n" " "; echo
		}
		echo "options: $(complete_line foliostat -)"
		echo "--cg: $(complete_line foliostat --cg)"
		echo "by: $(complete_line foliostat --by c)"
		echo "command: $(complete_line foliostat -j -- tru)"
		echo "output: $(complete_line foliostat -o "$1/a-fi")"
		echo "cgroup: $(complete_line foliostat -c "/${2##*/}")"
		# As readline splits it: the address at its colon (COMP_WORDBREAKS).
		echo "listen: $(LINE="foliostat --listen 127.0.0.1:" complete_line foliostat --listen 127.0.0.1 :)"
		echo "listen-start: $(complete_line foliostat --listen "[")"
	' "$T/dest/usr/share/bash-completion/completions/foliostat" "$T" "$cg" >"$T/completions"
	[ -n "$root" ] && rmdir "$cg"
	cat "$T/completions"
	local option
	for option in $("$FOLIOSTAT" --help | grep -oE '(^|[ ,(])--?[a-zA-Z]([a-z.-]*[a-z])?' | tr -d ' ,('); do
		grep -q "^options: .* $option " <(sed 's/^options: /options:  /' "$T/completions") ||
			fail "option $option of --help is not completed"
	done
	assert_eq "$(sed -n 's/^--cg: //p' "$T/completions")" "--cgroup " "completion of --cg"
	assert_eq "$(sed -n 's/^by: //p' "$T/completions")" "cgroup comm " "completion of --by c"
	grep -q '^command: .*\btrue\b' "$T/completions" || fail "no 'true' for a command after --"
	assert_eq "$(sed -n 's/^output: //p' "$T/completions")" "$T/a-file " "completion of an output file"
	assert_eq "$(sed -n 's/^listen: //p' "$T/completions")" "10140 " "completion of --listen 127.0.0.1:"
	assert_eq "$(sed -n 's/^listen-start: //p' "$T/completions")" "[::1]:10140 [::]:10140 " \
		"completion of --listen ["
	[ -z "$root" ] || assert_eq "$(sed -n 's/^cgroup: //p' "$T/completions")" "/${cg##*/}/ " \
		"completion of a cgroup, as /proc/PID/cgroup writes it"
}

# Every process row names its cgroup (v2), as /proc/PID/cgroup does, relative to wherever the
# hierarchy is mounted. A shell that runs a workload in one cgroup, moves itself to another and
# runs a second there: each workload's row has its cgroup, the shell's the one it ended in, and
# the records still add up (the shell's entry in its first cgroup was retired at the move).
test_process_rows_carry_their_cgroup() {
	need_root
	make_cgroups a b
	local a=${CGROUPS[a]} b=${CGROUPS[b]}
	start_foliostat "$T/out" -j -r 0
	local by_process=$FS_PID
	start_foliostat "$T/groups" -j -r 0 --by cgroup
	# shellcheck disable=SC2016 # the inner shell's
	sh -c 'echo $$ >"$0/cgroup.procs" && "$2" pages 4096 >"$3.first" &&
		echo $$ >"$1/cgroup.procs" && "$2" pages 2048 >"$3.second" && echo $$ >"$3.shell"' \
		"$a" "$b" "$WORKLOAD" "$T/w" || fail "workloads failed"
	stop_foliostat "$T/groups"
	FS_PID=$by_process stop_foliostat "$T/out"
	local first second shell
	first=$(json_field "$(cat "$T/w.first")" pid)
	second=$(json_field "$(cat "$T/w.second")" pid)
	shell=$(cat "$T/w.shell")
	assert_eq "$(query "$T/out" "[p['cgroup'] for p in recs[0]['processes'] if p['pid'] == $first]")" \
		"[\"/${a##*/}\"]" "the first workload's cgroup"
	assert_eq "$(query "$T/out" "[p['cgroup'] for p in recs[0]['processes'] if p['pid'] == $second]")" \
		"[\"/${b##*/}\"]" "the second workload's cgroup"
	assert_eq "$(query "$T/out" "[p['cgroup'] for p in recs[0]['processes'] if p['pid'] == $shell]")" \
		"[\"/${b##*/}\"]" "the shell's cgroup, after its move"
	assert_eq "$(query "$T/out" "[p['cgroup_id'] for p in recs[0]['processes'] if p['pid'] == $first]")" \
		"[$(stat -c %i "$a")]" "the first workload's cgroup id (its directory's inode)"
	assert_between "$(query "$T/out" "faults($first, 'user')")" 4096 5096 "the first workload's faults"
	assert_records_add_up "$T/out"
	# By cgroup, the shell's events are split at its move: each cgroup has its workload's
	# faults and the shell's while it was there, a few hundred at most.
	local cg path ours theirs
	for cg in "$a:$first" "$b:$second"; do
		path=/${cg%%:*} path=/${path##*/}
		ours=$(query "$T/groups" "[g['faults']['user'] for g in recs[-1]['cgroups'] if g['cgroup'] == '$path'][0]")
		theirs=$(query "$T/out" "faults(${cg##*:}, 'user')")
		assert_between "$ours" "$theirs" $((theirs + 1000)) "user faults in $path, its workload's ($theirs) and the shell's there"
	done
}

# --by cgroup: rows per cgroup. Each test cgroup's faults are what its memory cgroup counted
# (memory.stat's pgfault and pgmajfault: its processes were born in it, so all of their faults
# happened there); the workload of known activity shows its figures in its cgroup's row. Two
# foliostats watch the same run, one by process and one by cgroup: each cgroup's row equals the
# sum of its processes' rows, field by field (the loader's regrouping loses no row; a BPF count
# is checked against the kernel's above); --by comm has rows by name.
test_rows_by_cgroup_sum_their_processes() {
	need_root
	local root memory=""
	root=$(cgroup_mount cgroup2)
	if [ -n "$root" ] && grep -qw memory "$root/cgroup.controllers"; then
		grep -qw memory "$root/cgroup.subtree_control" ||
			echo +memory >"$root/cgroup.subtree_control" ||
			fail "cannot enable the memory controller under $root"
		memory=1
	fi
	make_cgroups a b
	local a=${CGROUPS[a]} b=${CGROUPS[b]}
	start_foliostat "$T/procs" -j -r 0
	local by_process=$FS_PID
	start_foliostat "$T/cgroups" -j -r 0 --by cgroup
	local by_cgroup=$FS_PID
	# Born in their cgroups (clone3), so that every event of theirs happened there.
	"$WORKLOAD" --rusage "$T/r.a1" --in-cgroup "$a" pages 8192 >"$T/w.a1" &&
		"$WORKLOAD" --rusage "$T/r.a2" --in-cgroup "$a" family 2048,1024 >"$T/w.a2" &&
		"$WORKLOAD" --rusage "$T/r.b" --in-cgroup "$b" pages 4096 >"$T/w.b" || fail "workloads failed"
	FS_PID=$by_cgroup stop_foliostat "$T/cgroups"
	FS_PID=$by_process stop_foliostat "$T/procs"
	python3 - "$T/procs" "$T/cgroups" "/${a##*/}" "/${b##*/}" <<'CHECK' || fail "cgroup rows differ from their processes' sums"
import json, sys
sys.path.insert(0, "tests")
from invariant import leaves
procs, groups = (json.loads(open(f).read().splitlines()[-1]) for f in sys.argv[1:3])
assert groups["by"] == "cgroup" and procs["by"] == "process", (groups["by"], procs["by"])
GROUPS = ("folios", "faults", "tlb", "lru")
for path in sys.argv[3:]:
    rows = [g for g in groups["cgroups"] if g["cgroup"] == path]
    assert len(rows) == 1, f"{path}: {len(rows)} rows"
    want = {}
    for p in procs["processes"]:
        if p["cgroup"] == path:
            for leaf, n in leaves({k: p[k] for k in GROUPS}):
                # (a figure not measured here is null in every row, the sum too)
                want[leaf] = None if n is None and want.get(leaf) is None else (want.get(leaf) or 0) + (n or 0)
    have = dict(leaves({k: rows[0][k] for k in GROUPS}))
    bad = {k: (have.get(k, 0), want.get(k, 0)) for k in set(have) | set(want) if have.get(k, 0) != want.get(k, 0)}
    assert not bad, f"{path}: cgroup row vs its processes: {bad}"
    print(f"ok: {path}: {have[('faults', 'user')]} user faults, equal to its processes' sum")
CHECK
	# Each cgroup's completed faults are what the kernel accounted to the processes born in it
	# (wait4's rusage, their reaped children included), and where the memory controller is on
	# cgroup v2, what the memory cgroup counted (memory.stat's pgfault and pgmajfault, every call
	# of the fault handler: equal for these workloads, whose faults are never retried).
	local cg rusages figure wait4 stat row
	for cg in "a:$T/r.a1 $T/r.a2" "b:$T/r.b"; do
		rusages=${cg#*:} cg=${CGROUPS[${cg%%:*}]}
		row="one([g for g in recs[-1]['cgroups'] if g['cgroup'] == '/${cg##*/}'])"
		for figure in majflt:major minflt:minor; do
			# shellcheck disable=SC2086 # the files, one word each
			wait4=$(python3 -c 'import json, sys; print(sum(json.load(open(f))[sys.argv[1]] for f in sys.argv[2:]))' \
				"${figure%%:*}" $rusages) || fail "no rusage in $rusages"
			assert_eq "$(query "$T/cgroups" "measured(${row}['faults']['${figure#*:}'], '${figure#*:}')")" \
				"$wait4" "${figure#*:} faults in /${cg##*/} (--by cgroup) vs wait4's ${figure%%:*}"
		done
		if [ -z "$memory" ]; then
			echo "note: the memory controller is not on cgroup v2 here: memory.stat not compared"
			continue
		fi
		for figure in "pgfault:major'] + ${row}['faults']['minor" "pgmajfault:major"; do
			stat=$(awk -v n="${figure%%:*}" '$1 == n { print $2 }' "$cg/memory.stat")
			assert_eq "$(query "$T/cgroups" "${row}['faults']['${figure#*:}']")" "$stat" \
				"faults in /${cg##*/} (--by cgroup) vs its memory.stat ${figure%%:*}"
		done
	done
	local faults
	faults=$(query "$T/cgroups" "[g['faults']['user'] for g in recs[-1]['cgroups'] if g['cgroup'] == '/${b##*/}'][0]")
	assert_between "$faults" 4096 5096 "user faults in cgroup b (a workload of 4,096 pages)"
	assert_eq "$faults" "$(query "$T/procs" "faults($(json_field "$(cat "$T/w.b")" pid), 'user')")" \
		"cgroup b's user faults = its one process's"
	"$FOLIOSTAT" -j -d 0.3 --by comm >"$T/comms" || fail "--by comm: exit status $?"
	assert_records_valid "$T/comms"
	assert_eq "$(query "$T/comms" "[recs[0]['by'], 'comms' in recs[0], 'processes' in recs[0]]")" \
		'["comm", true, false]' "rows of --by comm"
	assert_records_add_up "$T/cgroups"
}
