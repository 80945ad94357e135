# shellcheck shell=bash
# What foliostat(8) promises in SIGNALS and EXIT EXIT_STATUS, and of -p, -n, -r, --by comm, sudo's
# user and cgroups made again, each against something foliostat does not compute: a signal's
# delivery in /proc, a command's own record of what it got, the kernel's flags on each
# tracepoint event, wait4's rusage, id(1).

# The bound on "at once" is measure_signal_bound's (lib_promises.sh): derived from what a run's
# end costs foliostat on this host now, far below a write blocked for good.

# A second SIGINT while the output's reader has stopped reading: the first waits for the write
# (the man page: only such a write finishes first), the second ends foliostat at once with
# status 130, printing nothing more. Standard output is a pipe nobody reads, filled by records.
test_promise_second_sigint_exits_130_during_a_blocked_write() {
	need_root
	measure_signal_bound
	hold_pipe_full "$T/pipe"
	"$FOLIOSTAT" -j 0.05 -r 0 >"$T/pipe" 2>"$T/err" &
	FS_PID=$!
	track_foliostat "$FS_PID"
	for _ in $(seq 600); do
		blocked_writing "$FS_PID" 1 && break
		proc_exited "$FS_PID" && fail "foliostat exited: $(cat "$T/err")"
		sleep 0.1
	done
	blocked_writing "$FS_PID" 1 || fail "foliostat is not blocked writing to the full pipe"
	kill -INT "$FS_PID"
	wait_signal_taken "$FS_PID" INT
	# The handler has run; the write goes on waiting for the reader.
	proc_exited "$FS_PID" && fail "foliostat exited after the first SIGINT, the write not done"
	blocked_writing "$FS_PID" 1 || fail "foliostat left its blocked write after one SIGINT"
	signal_and_time INT "$FS_PID"
	echo "second SIGINT: exit $EXIT_STATUS after $ELAPSED_MS ms"
	assert_eq "$EXIT_STATUS" 130 "exit status after a second SIGINT"
	assert_between "$ELAPSED_MS" 0 "$SIGNAL_BOUND_MS" "ms from the second SIGINT to exit"
	assert_eq "$(wc -c <"$T/err")" 0 "bytes on standard error"
	assert_nothing_attached
}

# Two SIGINTs that arrive together during start-up (a terminal's Ctrl-C twice, held up by a busy
# host): 130 at once, no record. A process-wide SIGINT merges with one still pending, so the two
# are made to wait together while foliostat is stopped: one sent to its main thread (tgkill), one
# to the process; on SIGCONT both are taken before foliostat runs on.
test_promise_second_sigint_exits_130_during_start_up() {
	need_root
	measure_signal_bound
	# A start-up of seconds (tables of a million threads), as in integration_signals.sh.
	"$FOLIOSTAT" -j --max-tasks 1000000 >"$T/out" 2>"$T/err" &
	FS_PID=$!
	track_foliostat "$FS_PID"
	wait_catching "$FS_PID" INT TERM
	kill -STOP "$FS_PID"
	at_exit "kill -CONT $FS_PID 2>/dev/null"
	for _ in $(seq 300); do
		[ "$(awk '{ print $3 }' "/proc/$FS_PID/stat")" = T ] && break
		sleep 0.01
	done
	grep -qx 'NoNewPrivs:[[:space:]]*1' "/proc/$FS_PID/status" &&
		fail "start-up was over before the signals: the test needs a longer one"
	python3 -c 'import ctypes, sys
pid = int(sys.argv[1])
if ctypes.CDLL(None, use_errno=True).tgkill(pid, pid, 2):
    sys.exit("tgkill: %d" % ctypes.get_errno())' "$FS_PID" || fail "tgkill"
	kill -INT "$FS_PID"
	has_signal "$FS_PID" SigPnd INT || fail "no SIGINT pending for the main thread"
	has_signal "$FS_PID" ShdPnd INT || fail "no SIGINT pending for the process"
	signal_and_time CONT "$FS_PID"
	echo "two SIGINTs during start-up: exit $EXIT_STATUS after $ELAPSED_MS ms"
	assert_eq "$EXIT_STATUS" 130 "exit status after two SIGINTs during start-up"
	assert_between "$ELAPSED_MS" 0 "$SIGNAL_BOUND_MS" "ms from the signals to exit"
	assert_eq "$(wc -c <"$T/out")" 0 "bytes of output"
	assert_nothing_attached
}

# -- COMMAND: SIGINT, SIGTERM and SIGHUP sent to foliostat alone (kill, a service manager) are
# the command's. The command records each one it gets, goes on after SIGINT and SIGHUP and exits
# 7 after SIGTERM; foliostat lives on until the command ends, and exits with its status (7), with
# its record. Then a command that takes SIGHUP's default: 128 + 1.
test_promise_command_gets_int_term_hup() {
	need_root
	# The command: a shell that records each signal and waits in a read that none ends (a
	# read is interrupted by a trapped signal, the trap runs, and the loop waits again).
	# shellcheck disable=SC2016 # the command's own
	local script='trap "echo INT >>\"$0\"" INT; trap "echo HUP >>\"$0\"" HUP
		trap "echo TERM >>\"$0\"; exit 7" TERM
		echo ready >>"$0"
		while :; do read -r _ <"$1"; done'
	mkfifo "$T/never" || fail "mkfifo"
	exec {hold}<>"$T/never"
	start_foliostat "$T/out" -j -- bash -c "$script" "$T/got" "$T/never"
	kill_command_at_exit "$FS_PID" bash
	local sig n=1
	for _ in $(seq 600); do [ -s "$T/got" ] && break; sleep 0.05; done
	assert_eq "$(cat "$T/got")" ready "the command's start"
	for sig in INT HUP TERM; do
		kill "-$sig" "$FS_PID"
		n=$((n + 1))
		for _ in $(seq 600); do [ "$(wc -l <"$T/got")" -ge "$n" ] && break; sleep 0.05; done
		assert_eq "$(tail -1 "$T/got")" "$sig" "what the command got after SIG$sig to foliostat"
		if [ "$sig" != TERM ]; then
			proc_exited "$FS_PID" && fail "foliostat ended at SIG$sig; the command runs on"
		fi
	done
	time_exit "$FS_PID"
	assert_eq "$EXIT_STATUS" 7 "foliostat's exit status: the command's"
	assert_records_valid "$T/out"
	# A command killed by the SIGHUP foliostat passed on: 128 + 1.
	# shellcheck disable=SC2016 # the command's own
	start_foliostat "$T/out2" -j -- bash -c 'echo ready >>"$0"; while :; do read -r _ <"$1"; done' \
		"$T/got2" "$T/never"
	kill_command_at_exit "$FS_PID" bash
	for _ in $(seq 600); do [ -s "$T/got2" ] && break; sleep 0.05; done
	[ -s "$T/got2" ] || fail "the second command did not start"
	kill -HUP "$FS_PID"
	time_exit "$FS_PID"
	assert_eq "$EXIT_STATUS" 129 "exit status of a command killed by the SIGHUP passed on"
	assert_records_valid "$T/out2"
	exec {hold}>&-
	assert_nothing_attached
}

# 126: a command found but not executable, with a message and no record, as a shell would.
test_promise_command_not_executable_exits_126() {
	need_root
	printf '#!/bin/sh\nexit 0\n' >"$T/not-executable"
	chmod 644 "$T/not-executable"
	assert_command_never_ran 126 "foliostat: failed to run '$T/not-executable': Permission denied" \
		"$FOLIOSTAT" -j -- "$T/not-executable"
}

# 126: the change to sudo's user fails. Root without CAP_SETUID and CAP_SETGID (a container
# that withholds them) can load BPF but not become another user: the command never runs.
test_promise_sudo_user_change_failing_exits_126() {
	need_root
	assert_command_never_ran 126 \
		"foliostat: failed to run 'touch' as the invoking user (SUDO_UID): Operation not permitted" \
		env SUDO_UID=65534 SUDO_GID=65534 setpriv --bounding-set=-setuid,-setgid \
		--inh-caps=-setuid,-setgid "$FOLIOSTAT" -j -- touch "$T/ran"
	[ ! -e "$T/ran" ] || fail "the command ran"
}

# Output that fails at run time (a full device, a full file system under -o): exit 1 and
# "foliostat: failed to ...: reason", for the table, JSON, the exposition and -o.
test_promise_output_failure_exits_1() {
	need_root
	local status args
	for args in "-d 0.3" "-j -d 0.3" "-j 0.2 3" "--format prometheus -d 0.3"; do
		status=0
		# shellcheck disable=SC2086 # the options, split
		"$FOLIOSTAT" $args >/dev/full 2>"$T/err" || status=$?
		assert_eq "$status" 1 "exit status of foliostat $args >/dev/full"
		grep -qx 'foliostat: failed to write output: No space left on device' "$T/err" ||
			fail "message of foliostat $args: $(cat "$T/err")"
	done
	# -o and --replace: their file system fills up after start-up.
	mkdir "$T/small" || fail "mkdir"
	mount -t tmpfs -o size=1m tmpfs "$T/small" || skip "cannot mount a tmpfs"
	at_exit "umount '$T/small'"
	local mode
	for mode in -o --replace; do
		rm -f "$T/small/"*
		start_foliostat "$T/out" -j 0.1 "$mode" "$T/small/records.json"
		wait_records "$T/small/records.json" 1
		head -c 2m /dev/zero >"$T/small/filler" 2>/dev/null
		time_exit "$FS_PID" 30
		assert_eq "$EXIT_STATUS" 1 "exit status of $mode on a full file system"
		grep -qE '^foliostat: failed to [a-z ]+ .*: No space left on device$' "$T/out.err" ||
			fail "message: $(cat "$T/out.err")"
		assert_nothing_attached
	done
}

# The interrupt group against the kernel's own verdict: each tracepoint event carries flags the
# kernel sets from its preempt count (common_flags: TRACE_FLAG_HARDIRQ 0x08, TRACE_FLAG_SOFTIRQ
# 0x10, TRACE_FLAG_NMI 0x40), which perf can filter on. Folios allocated in interrupt context, by
# foliostat, lie between perf's counts over a span inside its own and one around it. The
# workload: IP reassembly of fragmented datagrams on the loopback device of a network namespace
# of its own (MTU 1500), which runs in softirq and allocates slab pages there.
test_promise_interrupt_group_matches_the_kernels_flags() {
	need_root
	mount_tracefs
	command -v unshare >/dev/null || skip "unshare not installed"
	local filter='common_flags & 0x58'
	perf_window_begin outer -e kmem:mm_page_alloc --filter "$filter"
	start_foliostat "$T/out" -j 0.5 -r 0
	perf_window_begin inner -e kmem:mm_page_alloc --filter "$filter"
	# shellcheck disable=SC2016 # the namespace's shell's
	unshare -n sh -c 'ip link set lo mtu 1500 up && exec python3 -c "$0" 3000' '
import socket, sys
r = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); r.bind(("127.0.0.1", 0))
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for _ in range(int(sys.argv[1])):
    s.sendto(b"y" * 60000, r.getsockname())
    assert len(r.recv(65536)) == 60000' || fail "the fragmented datagrams' workload failed"
	perf_window_end inner
	wait_next_record "$T/out"
	stop_foliostat "$T/out"
	perf_window_end outer
	local inner outer ours
	inner=$(perf_count "$T/inner.perf" kmem:mm_page_alloc)
	outer=$(perf_count "$T/outer.perf" kmem:mm_page_alloc)
	ours=$(query "$T/out" "folios(group('interrupt', 'alloc'))")
	echo "folios allocated in interrupt context: perf $inner (inside) .. $outer (around), foliostat $ours"
	assert_between "$inner" 1 1000000000 "allocations in interrupt context during the workload (perf)"
	assert_sandwiched "$ours" "$inner" "$outer" "folios allocated in interrupt context"
}

# -p selects the processes whose pids it names, and their figures are the kernel's: three
# workloads stopped before foliostat starts, two selected; each selected one's major and minor
# faults are exactly what wait4 says it took after its stop, and nothing else has a row.
test_promise_pid_selection_end_to_end() {
	need_root
	make_cgroups sel
	stopped_workload a 3000 "${CGROUPS[sel]}"
	stopped_workload b 2000 "${CGROUPS[sel]}"
	stopped_workload c 1000 "${CGROUPS[sel]}"
	local a=${STOPPED_PID[a]} b=${STOPPED_PID[b]} c=${STOPPED_PID[c]}
	start_foliostat "$T/out" -j -r 0 -p "$a" -p "$b"
	release_workloads a b c
	stop_foliostat "$T/out"
	assert_eq "$(query "$T/out" "sorted({p['pid'] for r in recs for p in r['processes']})")" \
		"$(printf '[%s, %s]\n' "$(printf '%s\n' "$a" "$b" | sort -n | head -1)" \
			"$(printf '%s\n' "$a" "$b" | sort -n | tail -1)")" "the pids with rows (not $c's)"
	local key pid
	for key in a b; do
		pid=${STOPPED_PID[$key]}
		assert_eq "$(query "$T/out" "faults($pid, 'minor')")" "$(stopped_faults "$key" minflt)" \
			"minor faults of $pid, foliostat vs wait4"
		assert_eq "$(query "$T/out" "faults($pid, 'major')")" "$(stopped_faults "$key" majflt)" \
			"major faults of $pid, foliostat vs wait4"
	done
}

# -n NAME: only processes of that name, each with wait4's figures; -r N: the N with the most
# pages (--sort's default) of them. Three workloads of that name, of 4000, 2000 and 1000 pages,
# and one of another name, each born after foliostat started (so wait4 counts exactly what
# foliostat may) and named before its work (its parent, which writes wait4's rusage, keeps the
# name workload).
test_promise_name_selection_and_rows_end_to_end() {
	need_root
	make_cgroups sel
	start_foliostat "$T/all" -j -r 0 -n fs-promise
	local by_name=$FS_PID
	start_foliostat "$T/top" -j -r 2 -n fs-promise
	named_workload big fs-promise 4000 "${CGROUPS[sel]}"
	named_workload mid fs-promise 2000 "${CGROUPS[sel]}"
	named_workload small fs-promise 1000 "${CGROUPS[sel]}"
	named_workload other fs-other 1000 "${CGROUPS[sel]}"
	stop_foliostat "$T/top"
	FS_PID=$by_name stop_foliostat "$T/all"
	local key want
	want=$(printf '%s\n' "${NAMED_PID[big]}" "${NAMED_PID[mid]}" "${NAMED_PID[small]}" | sort -n | paste -sd,)
	assert_eq "$(query "$T/all" "','.join(map(str, sorted({p['pid'] for p in recs[0]['processes']})))")" \
		"\"$want\"" "the processes named fs-promise"
	assert_eq "$(query "$T/all" "sorted({p['comm'] for p in recs[0]['processes']})")" '["fs-promise"]' "names"
	for key in big mid small; do
		assert_eq "$(query "$T/all" "faults(${NAMED_PID[$key]}, 'minor')")" \
			"$(json_field "$(cat "$T/$key.rusage")" minflt)" "minor faults of $key, foliostat -n vs wait4"
		assert_eq "$(query "$T/all" "faults(${NAMED_PID[$key]}, 'major')")" \
			"$(json_field "$(cat "$T/$key.rusage")" majflt)" "major faults of $key, foliostat -n vs wait4"
	done
	want=$(printf '%s\n' "${NAMED_PID[big]}" "${NAMED_PID[mid]}" | paste -sd,)
	assert_eq "$(query "$T/top" "','.join(str(p['pid']) for p in recs[0]['processes'])")" "\"$want\"" \
		"-r 2: the two with the most pages, the most first"
	assert_eq "$(query "$T/top" "recs[0]['system']['processes']")" 3 \
		"processes with activity of the name (-r cuts rows, not this count)"
}

# --by comm: a name's row is the sum of its processes: three workloads of one name, born and
# named after foliostat started; the row's minor and major faults are the sum of wait4's.
test_promise_by_comm_sums_its_processes() {
	need_root
	make_cgroups sel
	local key minflt=0 majflt=0
	start_foliostat "$T/out" -j -r 0 --by comm
	for key in one two three; do
		named_workload "$key" fs-sum 1500 "${CGROUPS[sel]}"
		minflt=$((minflt + $(json_field "$(cat "$T/$key.rusage")" minflt)))
		majflt=$((majflt + $(json_field "$(cat "$T/$key.rusage")" majflt)))
	done
	stop_foliostat "$T/out"
	assert_eq "$(query "$T/out" "[c['faults']['minor'] for c in recs[0]['comms'] if c['comm'] == 'fs-sum']")" \
		"[$minflt]" "minor faults of the row fs-sum, vs the sum of wait4's"
	assert_eq "$(query "$T/out" "[c['faults']['major'] for c in recs[0]['comms'] if c['comm'] == 'fs-sum']")" \
		"[$majflt]" "major faults of the row fs-sum, vs the sum of wait4's"
}

# Under sudo the command gets the invoking user's supplementary groups (initgroups), not root's
# and not none: a throw-away user in a throw-away group, removed when the test ends.
test_promise_sudo_user_gets_its_groups() {
	need_root
	command -v useradd >/dev/null || skip "useradd not installed"
	local user=fsp$$ group=fspg$$ uid gid status=0
	groupadd "$group" || fail "groupadd"
	at_exit "groupdel '$group' 2>/dev/null"
	useradd -M -N -g nogroup -G "$group" -s /usr/sbin/nologin "$user" || fail "useradd"
	at_exit "userdel '$user' 2>/dev/null"
	uid=$(id -u "$user") gid=$(id -g "$user")
	chmod 777 "$T"
	# shellcheck disable=SC2016 # the command's own
	SUDO_UID=$uid SUDO_GID=$gid "$FOLIOSTAT" -j -- sh -c 'id -u >"$0"; id -g >>"$0"; id -G >>"$0"' \
		"$T/ids" >"$T/out" || status=$?
	assert_eq "$status" 0 "exit status"
	assert_eq "$(sed -n 1p "$T/ids")" "$uid" "the command's uid"
	assert_eq "$(sed -n 2p "$T/ids")" "$gid" "the command's gid"
	assert_eq "$(sed -n 3p "$T/ids" | tr ' ' '\n' | sort -n | paste -sd' ')" \
		"$(printf '%s\n' "$gid" "$(getent group "$group" | cut -d: -f3)" | sort -n | paste -sd' ')" \
		"the command's groups (its primary and $group)"
	assert_records_valid "$T/out"
}

# A cgroup removed and made again at the same path is another cgroup (another id): by cgroup, the
# records have rows for each id, with its own workload's faults (wait4's), never the sum;
# the exposition keeps one series for the path (the man page: a restarted service's), whose count
# goes on from the first's. Each is named from its first read: a cgroup made within a second of
# the last walk of the hierarchy used to be unnamed then (its counts in group="other" for good).
test_promise_cgroup_made_again_is_a_new_row() {
	need_root
	make_cgroups again
	local dir=${CGROUPS[again]} path first second
	path=/${dir##*/}
	start_foliostat "$T/out" -j 0.2 -r 0 --by cgroup
	local by_cgroup=$FS_PID
	start_endpoint
	first=$(stat -c %i "$dir")
	"$WORKLOAD" --rusage "$T/first" --in-cgroup "$dir" pages 3000 >/dev/null || fail "first workload"
	scrape "$T/metrics.first"
	# (named while it exists: a cgroup removed before foliostat saw it has no path)
	FS_PID=$by_cgroup wait_next_record "$T/out"
	rmdir "$dir" || fail "cannot remove $dir"
	mkdir "$dir" || fail "cannot make $dir again"
	second=$(stat -c %i "$dir")
	[ "$first" != "$second" ] || fail "the cgroup made again has the first's id $first"
	"$WORKLOAD" --rusage "$T/second" --in-cgroup "$dir" pages 1000 >/dev/null || fail "second workload"
	scrape "$T/metrics.second"
	stop_foliostat "$T/endpoint"
	FS_PID=$by_cgroup stop_foliostat "$T/out"
	local f1 f2
	f1=$(json_field "$(cat "$T/first")" minflt)
	f2=$(json_field "$(cat "$T/second")" minflt)
	assert_eq "$(query "$T/out" "sorted([i, sum(g['faults']['minor'] for r in recs for g in r['cgroups'] if g['cgroup_id'] == i)] for i in {g['cgroup_id'] for r in recs for g in r['cgroups'] if g['cgroup'] == '$path'})")" \
		"$(python3 -c 'import sys; print(sorted([[int(sys.argv[1]), int(sys.argv[2])], [int(sys.argv[3]), int(sys.argv[4])]]))' \
			"$first" "$f1" "$second" "$f2")" "rows of $path: [id, minor faults] of each cgroup (wait4: $f1, $f2)"
	assert_eq "$(query "$T/out" "[g['cgroup'] for r in recs for g in r['cgroups'] if g['cgroup_id'] in ($first, $second) and g['cgroup'] != '$path']")" \
		"[]" "rows of either cgroup without its path (each named from its first record)"
	assert_eq "$(expo "$T/metrics.first" --sum "foliostat_minor_faults_total{cgroup=\"$path\"}")" "$f1" \
		"the series of $path after the first cgroup"
	assert_eq "$(expo "$T/metrics.second" --sum "foliostat_minor_faults_total{cgroup=\"$path\"}")" \
		"$((f1 + f2))" "the series of $path after the second: it goes on"
}
