# shellcheck shell=bash
# Start-up's checks measure the kernel with the loader's own events (its rename, its page on each
# node): what another user's task does meanwhile must not change what they conclude.

# start_renamers SECONDS: two processes of nobody's (one per CPU of a small host) that name
# themselves foliostat-probe, the name the loader takes for its own rename, as fast as they can
# for SECONDS (they stop by themselves; the test's end kills them sooner).
start_renamers() {
	local name pid
	name=$(printf foliostat-probe | od -An -tx1 | tr -d ' \n')
	for _ in 1 2; do
		setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
			"$WORKLOAD" --name "$name" renames "$1" &
		pid=$!
		at_exit "kill -KILL $pid 2>/dev/null"
	done
	# Until both have taken the name: from then on they rename without a pause.
	for _ in $(seq 200); do
		[ "$(pgrep -u 65534 -x foliostat-probe | wc -l)" -ge 2 ] && return 0
		sleep 0.05
	done
	fail "the renamers did not start"
}

# check_start_up: --check's method for the figures per node, and the kernel stack's size
# with whether it was measured.
check_start_up() {
	"$FOLIOSTAT" --check -j | python3 -c 'import json,sys; c = json.load(sys.stdin)["check"]
print(c["memory_nodes"]["method"], c["kernel_stack"]["bytes"], c["kernel_stack"]["measured"])'
}

# Another user's tasks renaming themselves foliostat-probe all through foliostat's start-up do
# not pass for it: -p and -- COMMAND run in the host's PID namespace and count their process (as
# many user faults as the pages it touched, ground truth from the workload's own work), and the
# node check's outcome and the measured stack are what they are without them. Each run is one
# start-up racing the renamers (the window of the old check was a few microseconds, hit in about
# a third of runs on two CPUs): six of each.
set_test_timeout test_start_up_ignores_tasks_named_like_its_probe 600
test_start_up_ignores_tasks_named_like_its_probe() {
	need_root
	command -v setpriv >/dev/null || skip "setpriv not installed"
	local runs=6 pages=2048 baseline pid status gate
	use_test_build
	export FOLIOSTAT_TEST_COUNT_NODES=1 # the node check runs on a host of one node too
	baseline=$(check_start_up)
	assert_eq "$(echo "$baseline" | cut -d' ' -f1,2,4)" "page flags True" \
		"the node check and the stack measure, alone ($baseline)"
	start_renamers 240
	for run in $(seq "$runs"); do
		assert_eq "$(check_start_up)" "$baseline" "--check's node method and stack, run $run"
	done
	for run in $(seq "$runs"); do
		# -p: a process that touches its pages once foliostat counts (it waits at a gate).
		rm -f "$T/gate"
		mkfifo "$T/gate"
		exec {gate}<>"$T/gate"
		# shellcheck disable=SC2016 # the inner shell's arguments
		sh -c 'read -r _ && exec "$0" pages "$1"' "$WORKLOAD" "$pages" <"$T/gate" >/dev/null &
		pid=$!
		at_exit "kill -KILL $pid 2>/dev/null"
		start_foliostat "$T/p$run" -j -r 0 -p "$pid"
		echo go >&"$gate"
		exec {gate}>&-
		wait "$pid" || fail "the workload failed"
		stop_foliostat "$T/p$run"
		assert_between "$(query "$T/p$run" "faults($pid, 'user')")" "$pages" $((pages + 1000)) \
			"-p $pid: its user faults, run $run"
		# -- COMMAND: followed from its start.
		status=0
		"$FOLIOSTAT" -j -- "$WORKLOAD" pages "$pages" >"$T/c$run" 2>"$T/c$run.err" || status=$?
		[ "$status" -eq 0 ] || { cat "$T/c$run.err"; fail "-- COMMAND: exit status $status, run $run"; }
		grep '"schema"' "$T/c$run" >"$T/c$run.records"
		pid=$(json_field "$(grep -v '"schema"' "$T/c$run" | head -1)" pid)
		assert_between "$(query "$T/c$run.records" "faults($pid, 'user')")" "$pages" \
			$((pages + 1000)) "-- COMMAND: its user faults, run $run"
	done
}

# The program that hears the loader's rename runs only during start-up: once foliostat counts,
# it is loaded but attached nowhere (no BPF link names it), so no rename of the run pays for it.
test_start_up_rename_program_is_detached_once_running() {
	need_root
	local id links
	start_foliostat "$T/out" -j 0.2
	id=$(bpftool prog show -j | python3 -c '
import json, sys
ids = [p["id"] for p in json.load(sys.stdin) if p.get("name") == "fs_start_up_rename"]
if len(ids) != 1:
    sys.exit(f"{len(ids)} programs named fs_start_up_rename")
print(ids[0])') || fail "no single program fs_start_up_rename loaded"
	links=$(bpftool link show -j | python3 -c '
import json, sys
print(sum(1 for l in json.load(sys.stdin) if l.get("prog_id") == int(sys.argv[1])))' "$id") ||
		fail "bpftool link show"
	assert_eq "$links" 0 "links of fs_start_up_rename (program $id) while foliostat runs"
	stop_foliostat "$T/out"
}
