# shellcheck shell=bash
# Attribution: each event charged to the thread that caused it, or to interrupt context, and
# each counted once, however threads share, switch or move between CPUs, with or without
# sched_switch records and on a preemptible kernel; every record adds up to its system figures.
# (Against the kernel's own totals: integration_kernel_counts.sh.)

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
