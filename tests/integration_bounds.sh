# shellcheck shell=bash
# Bounded tables: threads that exit leave the in-kernel table, threads beyond its capacity are
# counted as untracked, and a churn of short-lived processes leaves the table, the loader's
# memory and a one-shot run's rows (--max-tasks) bounded while every event is still counted.

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
