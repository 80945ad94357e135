# shellcheck shell=bash
# TLB and LRU figures: shootdowns sent and suffered, flushes at task switch, and the pages a
# file read puts on the file LRU, each charged to its process and compared with perf and mincore.
# (TLB pages and full flushes, LRU activations: integration_figures.sh.)

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
