# shellcheck shell=bash
# A reused pid: a process that exits and a new one that gets its pid (the workload makes the
# kernel give the second child the first one's pid, through /proc/sys/kernel/ns_last_pid, within
# microseconds of the first one's end, long before foliostat has read and freed what the first
# one left in its tables). Each is a row, or a series, of its own with its own counts, in every
# output; never one with the counts of both.

# reuse_workload A B [hold]: the workload's pid reuse (a child touches A pages and exits, a
# second one takes its pid and touches B), its JSON line in $T/workload; REUSED is the pid both
# had, FIRST_MINFLT and SECOND_MINFLT the minor faults the kernel accounted to each (wait4).
reuse_workload() {
	"$WORKLOAD" reuse "$1,$2" >"$T/workload" || fail "the pid reuse workload failed"
	reuse_read "$1" "$2"
}

# child_minflt JSON_LINE first|second: that child's minor faults in the workload's line.
child_minflt() {
	python3 -c 'import json, sys; print(json.loads(sys.argv[1])[sys.argv[2]]["minflt"])' "$1" "$2"
}

# reuse_read A B: the same, from a workload that has ended.
reuse_read() {
	local line
	line=$(tail -1 "$T/workload")
	REUSED=$(json_field "$line" child)
	FIRST_MINFLT=$(child_minflt "$line" first)
	SECOND_MINFLT=$(child_minflt "$line" second)
	echo "pid $REUSED reused (attempts: $(json_field "$line" attempts)): the first had" \
		"$FIRST_MINFLT minor faults, the second $SECOND_MINFLT (wait4)"
	# Each did at least its pages' worth: no guess is made below, the counts are wait4's.
	assert_between "$FIRST_MINFLT" "$1" $(($1 + 1000)) "the first child's minor faults (wait4)"
	assert_between "$SECOND_MINFLT" "$2" $(($2 + 1000)) "the second child's minor faults (wait4)"
}

# processes_of_pid FILE PID: the processes that had PID in FILE's records, oldest first, one line
# each: "START_TIME_S MINOR_FAULTS NAMES", their rows summed over the records by start time (the
# schema, which every record is checked against, requires it; a null count fails).
processes_of_pid() {
	python3 - "$1" "$2" <<-'EOF'
		import json, sys
		procs = {}
		for line in open(sys.argv[1]):
		    for row in json.loads(line).get("processes", []):
		        if row["pid"] != int(sys.argv[2]):
		            continue
		        minor = row["faults"]["minor"]
		        if not isinstance(minor, int):
		            sys.exit(f"a row of pid {row['pid']} without its minor faults: {row}")
		        p = procs.setdefault(row.get("start_time_s", -1), [0, set()])
		        p[0] += minor
		        p[1].add(row["comm"])
		for start in sorted(procs):
		    print(start, procs[start][0], ",".join(sorted(procs[start][1])))
	EOF
}

# assert_two_processes FILE: FILE's records have two processes of pid $REUSED, the first with
# the first child's minor faults, the second with the second's, exactly.
assert_two_processes() {
	processes_of_pid "$1" "$REUSED" >"$T/reused" || fail "records without a process's identity"
	sed 's/^/  /' "$T/reused"
	assert_eq "$(wc -l <"$T/reused")" 2 "processes reported with pid $REUSED"
	assert_eq "$(awk 'NR == 1 { print $2 }' "$T/reused")" "$FIRST_MINFLT" \
		"the exited process's minor faults, foliostat vs wait4"
	assert_eq "$(awk 'NR == 2 { print $2 }' "$T/reused")" "$SECOND_MINFLT" \
		"the new process's minor faults, foliostat vs wait4"
	assert_eq "$(awk '{ print $3 }' "$T/reused" | sort -u)" workload "their names"
}

# One-shot mode (one record at the end, its rows accumulated over the run's reads): the exited
# process and the one that took its pid are two rows.
test_pid_reuse_two_rows_in_one_shot() {
	need_root
	start_foliostat "$T/out" -j -r 0
	reuse_workload 3000 5000
	stop_foliostat "$T/out"
	assert_eq "$(wc -l <"$T/out")" 1 "records"
	assert_two_processes "$T/out"
	assert_records_add_up "$T/out"
}

# Streaming records of half a second: however the reads fall, every record's rows of the pid
# are each one process's, and summed by process they are each one's counts.
test_pid_reuse_two_rows_when_streaming() {
	need_root
	start_foliostat "$T/out" -j 0.5 -r 0
	reuse_workload 4000 2000
	wait_next_record "$T/out"
	stop_foliostat "$T/out"
	assert_two_processes "$T/out"
	assert_records_add_up "$T/out"
}

# The exporter by process: two series for the pid, told apart by their start_time_s label
# (each the start /proc/PID/stat showed, to the clock tick), each with one process's counts; the
# exposition stays valid (no label set twice) and adds up.
test_pid_reuse_two_series() {
	need_root
	start_endpoint --by process -r 0
	reuse_workload 2500 6000
	scrape "$T/text"
	promtool check metrics <"$T/text" || fail "promtool check metrics rejected the exposition"
	expo "$T/text" --adds-up >/dev/null || fail "the groups do not add up to the system"
	local starts first second
	grep "^foliostat_minor_faults_total{pid=\"$REUSED\"," "$T/text" | sed 's/^/  /'
	assert_eq "$(expo "$T/text" --count "foliostat_minor_faults_total{pid=\"$REUSED\"}")" 2 \
		"series of pid $REUSED"
	starts=$(expo "$T/text" --labels foliostat_minor_faults_total start_time_s | sort -n)
	starts=$(for start in $starts; do
		[ "$(expo "$T/text" --count "foliostat_minor_faults_total{pid=\"$REUSED\",start_time_s=\"$start\"}")" = 1 ] &&
			echo "$start"
	done)
	assert_eq "$(echo "$starts" | wc -w)" 2 "start times of pid $REUSED's series"
	first=$(echo "$starts" | head -1)
	second=$(echo "$starts" | tail -1)
	assert_eq "$(expo "$T/text" --sum "foliostat_minor_faults_total{pid=\"$REUSED\",start_time_s=\"$first\"}")" \
		"$FIRST_MINFLT" "the exited process's series, foliostat vs wait4"
	assert_eq "$(expo "$T/text" --sum "foliostat_minor_faults_total{pid=\"$REUSED\",start_time_s=\"$second\"}")" \
		"$SECOND_MINFLT" "the new process's series, foliostat vs wait4"
	stop_foliostat "$T/endpoint"
}

# -p PID selects the process that had PID when foliostat started: the one that takes the pid
# after it is not reported (its counts are in the system figures only).
test_pid_reuse_p_selects_the_process_alive_at_start() {
	need_root
	mkfifo "$T/go" || fail "mkfifo"
	local go
	exec {go}<>"$T/go"
	"$WORKLOAD" reuse 3000,5000,hold <"$T/go" >"$T/workload" &
	local runner=$! held=""
	for _ in $(seq 600); do
		held=$(grep -o '"held":[0-9]*' "$T/workload" 2>/dev/null | cut -d: -f2)
		[ -n "$held" ] && break
		kill -0 "$runner" 2>/dev/null || fail "the workload ended before its first child ran"
		sleep 0.05
	done
	[ -n "$held" ] || fail "the workload's first child was not ready in 30 s"
	start_foliostat "$T/out" -j -r 0 -p "$held"
	echo go >&"$go"
	wait "$runner" || fail "the pid reuse workload failed"
	reuse_read 3000 5000
	stop_foliostat "$T/out"
	assert_eq "$REUSED" "$held" "the pid given to -p"
	processes_of_pid "$T/out" "$REUSED" >"$T/reused" || fail "records without a process's identity"
	sed 's/^/  /' "$T/reused"
	assert_eq "$(wc -l <"$T/reused")" 1 "processes reported for -p $REUSED"
	# Its faults from its fork to foliostat's attach (before it waited) are wait4's only.
	assert_between "$(awk '{ print $2 }' "$T/reused")" 3000 "$FIRST_MINFLT" \
		"the selected process's minor faults (its 3000 pages .. wait4's count)"
	assert_eq "$(query "$T/out" "len(recs[0]['processes'])")" 1 "rows"
}
