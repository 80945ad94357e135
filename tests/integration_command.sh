# shellcheck shell=bash
# -- COMMAND: the command and its children followed from their first event, run as sudo's user,
# streamed with an INTERVAL, and foliostat's exit status the command's. (What foliostat(8)
# promises of its signals and status: integration_promises.sh.)

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
