# shellcheck shell=bash
# Threads that move to another cgroup: after a move (a whole process through cgroup.procs, or one
# thread through cgroup.threads in a threaded subtree), each thread's events land in the cgroup
# it is in, in every view (--by cgroup, the exporter, --cgroup, process rows' cgroup). The
# workload (tests/workload.c, `moved`) stops between its faults where it was born and its
# threads' faults after the move, so that both are known exactly: from its own getrusage() at
# the stop and its whole life's wait4() rusage.

# moved_workload FROM N,PAGES MOVE: the workload `moved N,PAGES` born in cgroup FROM, run through
# the commands of WRAP (they must exec it); once it has stopped, the function MOVE is called
# (MOVED_PID is the process, MOVED_TIDS its threads but the leader, as a list), then it goes on.
# Sets MOVED_BEFORE (its faults before the move), MOVED_AFTER (every fault after: all its life's
# less those), MOVED_THREAD[i] (thread i's own faults after the move, i from 0).
declare -a MOVED_THREAD
moved_workload() {
	local from=$1 arg=$2 move=$3 ready go job line total
	mkfifo "$T/ready" "$T/go" || fail "mkfifo"
	# Read-write opens of a FIFO never block, whether or not the workload has opened its end.
	exec {ready}<>"$T/ready" {go}<>"$T/go"
	"${WRAP[@]}" "$WORKLOAD" --rusage "$T/rusage" --in-cgroup "$from" moved "$arg" \
		<"$T/go" >"$T/ready" &
	job=$!
	read -r -t 60 -u "$ready" line || fail "the workload did not stop"
	MOVED_PID=$(json_field "$line" pid)
	MOVED_TIDS=$(python3 -c 'import json, sys; print(" ".join(map(str, json.loads(sys.argv[1])["tids"])))' "$line")
	MOVED_BEFORE=$(python3 -c 'import json, sys; r = json.loads(sys.argv[1]); print(r["minflt"] + r["majflt"])' "$line")
	"$move"
	echo go >&"$go"
	read -r -t 60 -u "$ready" line || fail "the workload did not finish"
	wait "$job" || fail "the workload failed"
	exec {ready}>&- {go}>&-
	rm -f "$T/ready" "$T/go"
	total=$(python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); print(r["minflt"] + r["majflt"])' "$T/rusage")
	MOVED_AFTER=$((total - MOVED_BEFORE))
	python3 -c 'import json, sys
for t in json.loads(sys.argv[1])["threads"]: print(t["minflt"] + t["majflt"])' "$line" \
		>"$T/threads" || fail "the workload's threads: $line"
	mapfile -t MOVED_THREAD <"$T/threads"
	echo "workload $MOVED_PID ($arg): $MOVED_BEFORE faults before the move, $MOVED_AFTER after" \
		"(its threads' own: ${MOVED_THREAD[*]})"
	[ "$MOVED_AFTER" -gt "${MOVED_THREAD[0]}" ] || fail "the workload's counts do not add up"
}

# cgroup_faults FILE PATH: completed faults (major and minor, as getrusage counts them) in the row
# of cgroup PATH of the last record of FILE (--by cgroup); fails if it has none (no row is not
# 0 faults) or its figures are null. Callers check the status: $((...)) reads "" as 0.
cgroup_faults() {
	query "$1" "(lambda g: measured(g['faults']['major'], 'major') + measured(g['faults']['minor'], 'minor'))(one([g for g in recs[-1]['cgroups'] if g['cgroup'] == '$2']))"
}

# process_faults FILE PID: the same for a process row.
process_faults() {
	query "$1" "(lambda p: measured(p['faults']['major'], 'major') + measured(p['faults']['minor'], 'minor'))(one([p for p in recs[-1]['processes'] if p['pid'] == $2]))"
}

# exported_faults FILE PATH: the same from a scraped exposition (the exporter's --by cgroup).
# A group's series appears once nonzero, the system's always where measured: fails without the
# group's minor faults (it has had some) or without the system's major faults (not measured).
exported_faults() {
	awk -v label="cgroup=\"$2\"" '($1 ~ /^foliostat_(major|minor)_faults_total\{/) && index($1, label) {
		sum += $2; minor += ($1 ~ /^foliostat_minor/) }
		$1 == "foliostat_system_major_faults_total" { major = 1 }
		END { if (!minor || !major) exit 1; printf "%d\n", sum }' "$1"
}

# memory_pgfault DIR: the pgfault count of a memory cgroup's memory.stat.
memory_pgfault() {
	awk '$1 == "pgfault" { print $2 }' "$1/memory.stat"
}

# The memory controller's cgroups for the test, MEM_A and MEM_B, in the hierarchy the host has it
# in: on cgroup v2, the test's own cgroups A and B, with the controller enabled for them; on a
# hybrid host, two v1 memory cgroups the workload is put into and moved between beside its v2
# moves (WRAP starts it in MEM_A). Empty where the host has no memory controller.
MEM_A='' MEM_B=''
memory_cgroups() {
	local a=$1 b=$2 root
	root=$(cgroup_mount cgroup2)
	if grep -qw memory "$root/cgroup.controllers" 2>/dev/null; then
		grep -qw memory "$root/cgroup.subtree_control" ||
			echo +memory >"$root/cgroup.subtree_control" ||
			fail "cannot enable the memory controller under $root"
		MEM_A=$a MEM_B=$b
		return
	fi
	root=$(cgroup_mount cgroup memory)
	[ -n "$root" ] || return 0
	MEM_A=$root/${a##*/} MEM_B=$root/${b##*/}
	mkdir "$MEM_A" "$MEM_B" || fail "cannot create v1 memory cgroups"
	at_exit "rmdir '$MEM_A' '$MEM_B' 2>/dev/null"
	# shellcheck disable=SC2016 # $$ and $0 are the wrapper shell's
	WRAP=(sh -c 'echo $$ >"$0" && exec "$@"' "$MEM_A/cgroup.procs")
}

# move_whole: the moved_workload MOVE that moves the process whole to MOVE_TO, and first to
# MEM_B where that is a v1 memory cgroup; MEM_PGFAULT is MEM_B's pgfault count before the move.
move_whole() {
	[ -z "$MEM_B" ] || [ "$MEM_B" = "$MOVE_TO" ] || echo "$MOVED_PID" >"$MEM_B/cgroup.procs" ||
		fail "cannot move $MOVED_PID to $MEM_B"
	MEM_PGFAULT=${MEM_B:+$(memory_pgfault "$MEM_B")}
	echo "$MOVED_PID" >"$MOVE_TO/cgroup.procs" || fail "cannot move $MOVED_PID to $MOVE_TO"
	# Every thread is there now, as the kernel sees it.
	assert_eq "$(sort -n "$MOVE_TO/cgroup.threads" | tr '\n' ' ')" \
		"$(echo "$MOVED_PID $MOVED_TIDS" | tr ' ' '\n' | sort -n | tr '\n' ' ')" \
		"threads in ${MOVE_TO##*/} after the move"
}

# A process of 2 threads, then one of 8, born in cgroup A, each moved whole to B (echo PID >
# B/cgroup.procs) before its threads but the leader fault: B has every fault after the move
# and A every fault before, exactly as the workload counted them, --by cgroup (JSON) and in the
# exporter; B's faults are its memory cgroup's pgfault delta (memory.stat) where the host has
# the controller; the process row names B.
test_moved_process_threads_land_in_the_new_cgroup() {
	need_root
	local n by_cgroup by_process
	declare -A before after pid pgfault
	start_foliostat "$T/groups" -j -r 0 --by cgroup
	by_cgroup=$FS_PID
	at_exit "kill $by_cgroup 2>/dev/null"
	start_foliostat "$T/procs" -j -r 0
	by_process=$FS_PID
	at_exit "kill $by_process 2>/dev/null"
	start_endpoint
	for n in 2 8; do
		make_cgroups "a$n" "b$n"
		WRAP=() MEM_A='' MEM_B='' MOVE_TO=${CGROUPS[b$n]}
		memory_cgroups "${CGROUPS[a$n]}" "$MOVE_TO"
		moved_workload "${CGROUPS[a$n]}" "$n,4096" move_whole
		[ "${#MOVED_THREAD[@]}" -eq $((n - 1)) ] || fail "${#MOVED_THREAD[@]} threads reported"
		[ -z "$MEM_B" ] || pgfault[$n]=$(($(memory_pgfault "$MEM_B") - MEM_PGFAULT))
		before[$n]=$MOVED_BEFORE after[$n]=$MOVED_AFTER pid[$n]=$MOVED_PID
		scrape "$T/metrics.$n"
	done
	stop_foliostat "$T/endpoint"
	FS_PID=$by_cgroup stop_foliostat "$T/groups"
	FS_PID=$by_process stop_foliostat "$T/procs"
	local path_a path_b
	for n in 2 8; do
		path_a=/${CGROUPS[a$n]##*/} path_b=/${CGROUPS[b$n]##*/}
		# The workload counts its faults before the move just before it stops: one it takes
		# after that count (writing the stop line) is A's, where it happened. A and B together
		# are wait4's total exactly; B is the count after the move, less at most those few.
		local groups_b groups_a expo_b expo_a total=$((before[$n] + after[$n]))
		groups_b=$(cgroup_faults "$T/groups" "$path_b") || fail "no row of $path_b: $groups_b"
		groups_a=$(cgroup_faults "$T/groups" "$path_a") || fail "no row of $path_a: $groups_a"
		expo_b=$(exported_faults "$T/metrics.$n" "$path_b") || fail "no fault series of $path_b"
		expo_a=$(exported_faults "$T/metrics.$n" "$path_a") || fail "no fault series of $path_a"
		assert_eq "$((groups_a + groups_b))" "$total" "$n threads: faults in A and B (--by cgroup), wait4's"
		assert_eq "$((expo_a + expo_b))" "$total" "$n threads: faults in A and B (exporter), wait4's"
		assert_between "$groups_b" $((after[$n] - 64)) "${after[$n]}" \
			"$n threads: faults in B (--by cgroup), the workload's after its move (${after[$n]})"
		assert_between "$expo_b" $((after[$n] - 64)) "${after[$n]}" \
			"$n threads: faults in B (exporter), the workload's after its move (${after[$n]})"
		if [ -n "${pgfault[$n]:-}" ]; then
			assert_eq "$groups_b" "${pgfault[$n]}" \
				"$n threads: faults in B (--by cgroup), its memory cgroup's pgfault (memory.stat)"
			assert_eq "$expo_b" "${pgfault[$n]}" \
				"$n threads: faults in B (exporter), its memory cgroup's pgfault (memory.stat)"
		else
			echo "note: no memory controller on this host: memory.stat not compared"
		fi
		assert_eq "$(process_faults "$T/procs" "${pid[$n]}")" $((before[$n] + after[$n])) \
			"$n threads: the process row's faults (its whole life)"
		assert_eq "$(query "$T/procs" "[p['cgroup'] for p in recs[-1]['processes'] if p['pid'] == ${pid[$n]}]")" \
			"[\"$path_b\"]" "$n threads: the process row's cgroup"
	done
	assert_records_add_up "$T/groups"
}

# move_then_split: the moved_workload MOVE that moves the process whole to MOVE_TO, then its
# last thread alone back to SPLIT_TO.
move_then_split() {
	local last=${MOVED_TIDS##* }
	echo "$MOVED_PID" >"$MOVE_TO/cgroup.procs" || fail "cannot move $MOVED_PID to $MOVE_TO"
	echo "$last" >"$SPLIT_TO/cgroup.threads" || fail "cannot move thread $last to $SPLIT_TO"
	assert_eq "$(cat "$SPLIT_TO/cgroup.threads")" "$last" "threads in ${SPLIT_TO##*/} after the moves"
}

# A threaded subtree D with threaded cgroups T1 and T2: a process of 3 threads born in T1 moves
# whole to T2 (cgroup.procs), then its second thread alone back to T1 (cgroup.threads): T2 has
# the leader's and the first thread's faults after the moves, T1 those before and the second
# thread's.
test_threads_moved_in_a_threaded_subtree() {
	need_root
	make_cgroups d d/t1 d/t2
	local t1=${CGROUPS[d/t1]} t2=${CGROUPS[d/t2]} d=/${CGROUPS[d]##*/}
	echo threaded >"$t1/cgroup.type" || fail "cannot make $t1 threaded"
	echo threaded >"$t2/cgroup.type" || fail "cannot make $t2 threaded"
	start_foliostat "$T/groups" -j -r 0 --by cgroup
	WRAP=() MOVE_TO=$t2 SPLIT_TO=$t1
	moved_workload "$t1" 3,4096 move_then_split
	stop_foliostat "$T/groups"
	# The second thread's own count is taken before it exits: the faults of its exit (a few,
	# as glibc's thread exit needs, here 0 to 4) are T1's too, and in wait4's total. So T2 has
	# at most the rest, and at most 64 fewer; T1 and T2 together have every fault exactly.
	local t2_faults t1_faults
	t2_faults=$(cgroup_faults "$T/groups" "$d/t2") || fail "no row of $d/t2: $t2_faults"
	t1_faults=$(cgroup_faults "$T/groups" "$d/t1") || fail "no row of $d/t1: $t1_faults"
	assert_eq "$((t1_faults + t2_faults))" $((MOVED_BEFORE + MOVED_AFTER)) \
		"faults in T1 and T2 together (wait4: $((MOVED_BEFORE + MOVED_AFTER)))"
	[ "$t2_faults" -le $((MOVED_AFTER - MOVED_THREAD[1])) ] &&
		[ "$t2_faults" -ge $((MOVED_AFTER - MOVED_THREAD[1] - 64)) ] ||
		fail "faults in T2: $t2_faults, not the leader's and the first thread's after the move ($((MOVED_AFTER - MOVED_THREAD[1])), less at most 64 of the second thread's exit)"
	echo "ok: faults in T2 = $t2_faults (the leader's and the first thread's after the move: $((MOVED_AFTER - MOVED_THREAD[1])))"
	[ "$t1_faults" -ge $((MOVED_BEFORE + MOVED_THREAD[1])) ] ||
		fail "faults in T1: $t1_faults, fewer than those before the move and the second thread's ($((MOVED_BEFORE + MOVED_THREAD[1])))"
	assert_records_add_up "$T/groups"
}

# --cgroup follows moves: with a process of 8 threads moved whole from A to B, a foliostat that
# selects A has only its faults before the move, one that selects B only those after.
test_cgroup_selection_follows_moved_threads() {
	need_root
	make_cgroups a b
	local a=${CGROUPS[a]} b=${CGROUPS[b]} select_a
	start_foliostat "$T/in_a" -j -r 0 --cgroup "/${a##*/}"
	select_a=$FS_PID
	at_exit "kill $select_a 2>/dev/null"
	start_foliostat "$T/in_b" -j -r 0 --cgroup "/${b##*/}"
	WRAP=() MEM_B='' MOVE_TO=$b
	moved_workload "$a" 8,4096 move_whole
	stop_foliostat "$T/in_b"
	FS_PID=$select_a stop_foliostat "$T/in_a"
	# As in test_moved_process_threads_land_in_the_new_cgroup: a fault the workload takes after
	# its count before the move (writing its stop line) is A's, where it happened (seen on
	# Debian 12's 6.1 under QEMU). A and B together are wait4's total exactly.
	local in_a in_b
	in_a=$(process_faults "$T/in_a" "$MOVED_PID")
	in_b=$(process_faults "$T/in_b" "$MOVED_PID")
	assert_eq "$((in_a + in_b))" "$((MOVED_BEFORE + MOVED_AFTER))" \
		"--cgroup A and B: the process's faults, wait4's"
	assert_between "$in_b" $((MOVED_AFTER - 64)) "$MOVED_AFTER" \
		"--cgroup B: the process's faults after its move ($MOVED_AFTER)"
	assert_eq "$(query "$T/in_b" "[p['cgroup'] for p in recs[-1]['processes'] if p['pid'] == $MOVED_PID]")" \
		"[\"/${b##*/}\"]" "--cgroup B: the process row's cgroup"
}
