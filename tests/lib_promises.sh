# shellcheck shell=bash
# Helpers for the tests of foliostat(8)'s promises that had none (tests/integration_promises.sh,
# tests/integration_listen.sh): signals seen through /proc, workloads stopped at a known count,
# a process's exit seen by its status.

# proc_exited PID: whether PID is gone or a zombie (this shell's child, exited, not yet waited for).
proc_exited() {
	local state
	state=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)
	[ -z "$state" ] || [ "$state" = Z ]
}

# signal_bit SIGNAL: the mask of SIGNAL (a name: INT, TERM...) in /proc/PID/status's sets.
signal_bit() {
	printf '%x' $((1 << ($(kill -l "$1") - 1)))
}

# has_signal PID FIELD SIGNAL: whether SIGNAL is in PID's FIELD (SigCgt, ShdPnd, SigPnd) of
# /proc/PID/status (the thread group's leader's; ShdPnd is the process's).
has_signal() {
	local mask
	mask=$(awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status" 2>/dev/null)
	[ -n "$mask" ] || return 1
	[ $((0x$mask & 0x$(signal_bit "$3"))) -ne 0 ]
}

# wait_catching PID SIGNAL...: until PID has a handler for each SIGNAL (a minute at most): from
# then on a signal is foliostat's to answer, not its default action's.
wait_catching() {
	local pid=$1 sig
	shift
	for sig in "$@"; do
		for _ in $(seq 6000); do
			has_signal "$pid" SigCgt "$sig" && break
			proc_exited "$pid" && fail "pid $pid exited before catching SIG$sig"
			sleep 0.01
		done
		has_signal "$pid" SigCgt "$sig" || fail "pid $pid catches no SIG$sig after a minute"
	done
}

# wait_signal_taken PID SIGNAL: until no thread of PID has SIGNAL pending (its handler has been
# run), 30 s at most.
wait_signal_taken() {
	local task pending
	for _ in $(seq 3000); do
		pending=0
		has_signal "$1" ShdPnd "$2" && pending=1
		for task in /proc/"$1"/task/*; do
			has_signal "$1/task/${task##*/}" SigPnd "$2" && pending=1
		done
		[ "$pending" -eq 0 ] && return 0
		sleep 0.01
	done
	fail "SIG$2 still pending for pid $1 after 30 s"
}

# blocked_writing PID FD: whether PID's main thread is in a write(2) to FD (from
# /proc/PID/syscall: the system call's number and first argument).
blocked_writing() {
	local nr call fd
	nr=$(syscall_nr write)
	read -r call fd _ <"/proc/$1/syscall" 2>/dev/null || return 1
	[ "$call" = "$nr" ] && [ "$((fd))" -eq "$2" ]
}

# time_exit PID [SECS]: wait for PID (this shell's child) to exit, SECS (30) at most; sets
# ELAPSED_MS (from the call) and EXIT_STATUS. A PID still running after that is killed, and fails.
# shellcheck disable=SC2034 # ELAPSED_MS and EXIT_STATUS are the caller's
time_exit() {
	local start=${EPOCHREALTIME/./} limit=$((${2:-30} * 1000000))
	while ! proc_exited "$1" && [ $((${EPOCHREALTIME/./} - start)) -lt "$limit" ]; do
		sleep 0.001
	done
	ELAPSED_MS=$(((${EPOCHREALTIME/./} - start) / 1000))
	if ! proc_exited "$1"; then
		kill -KILL "$1"
		wait "$1"
		fail "pid $1 did not exit within ${2:-30} s"
	fi
	EXIT_STATUS=0
	wait "$1" || EXIT_STATUS=$?
}

# signal_and_time SIGNAL PID: send SIGNAL, wait (30 s at most) for PID to exit; sets
# ELAPSED_MS and EXIT_STATUS as time_exit does.
signal_and_time() {
	kill "-$1" "$2"
	time_exit "$2" 30
}

# assert_command_never_ran STATUS MESSAGE COMMAND...: COMMAND (foliostat -j -- something, or a
# wrapper of it) exits STATUS with the line MESSAGE on stderr, writes no record (the command
# never ran: nothing was counted), and leaves nothing attached.
assert_command_never_ran() {
	local want=$1 message=$2 status=0
	shift 2
	"$@" >"$T/never-ran.out" 2>"$T/never-ran.err" || status=$?
	assert_eq "$status" "$want" "exit status of $*"
	grep -qxF "$message" "$T/never-ran.err" || fail "message: $(cat "$T/never-ran.err")"
	assert_eq "$(wc -c <"$T/never-ran.out")" 0 "bytes of output"
	assert_nothing_attached
}

# hold_pipe_full FIFO: a process that holds FIFO open for reading (so a writer's open does not
# block), shrinks its buffer to one page and never reads. Its pid in PIPE_HOLDER.
hold_pipe_full() {
	mkfifo "$1" || fail "mkfifo $1"
	python3 - "$1" >"$1.holder" 2>&1 <<-'EOF' &
		import fcntl, os, sys, time
		fd = os.open(sys.argv[1], os.O_RDWR)
		fcntl.fcntl(fd, 1031, 4096)  # F_SETPIPE_SZ: the smallest buffer, full sooner
		print("holding", flush=True)
		time.sleep(120)
	EOF
	PIPE_HOLDER=$!
	at_exit "kill $PIPE_HOLDER 2>/dev/null"
	for _ in $(seq 300); do grep -q holding "$1.holder" && return 0; sleep 0.1; done
	fail "could not hold $1: $(cat "$1.holder")"
}

# Workloads stopped at a known count: `workload moved 2,PAGES` born in a cgroup, which faults,
# then waits, each thread for a byte, in read(2); then its second thread touches PAGES pages, and
# it exits. Its parent writes wait4's rusage of it. Its faults while it waits are the kernel's
# (/proc/PID/stat, once every thread is in read: the line the workload prints may be a fault
# short), so a foliostat started meanwhile sees exactly wait4's faults less those.
declare -gA STOPPED_PID STOPPED_PARENT STOPPED_GATE

# syscall_nr NAME: NAME's number (read, write) on this architecture.
syscall_nr() {
	case $(uname -m)/$1 in
	x86_64/read) echo 0 ;;
	x86_64/write) echo 1 ;;
	aarch64/read) echo 63 ;;
	aarch64/write) echo 64 ;;
	*) skip "the number of $1(2) on $(uname -m) is not known here" ;;
	esac
}

# stopped_workload KEY PAGES CGROUP_DIR: start one, wait for its stop; its pid in
# STOPPED_PID[KEY], its lines in $T/KEY.out, its rusage (once it ended) in $T/KEY.rusage.
stopped_workload() {
	local key=$1 gate
	mkfifo "$T/$key.gate" || fail "mkfifo"
	# Read-write: the open never blocks, and the workload's open for reading neither.
	exec {gate}<>"$T/$key.gate"
	STOPPED_GATE[$key]=$gate
	"$WORKLOAD" --rusage "$T/$key.rusage" --in-cgroup "$3" moved "2,$2" <"$T/$key.gate" \
		>"$T/$key.out" &
	STOPPED_PARENT[$key]=$!
	at_exit "kill -KILL ${STOPPED_PARENT[$key]} 2>/dev/null"
	for _ in $(seq 600); do
		[ -s "$T/$key.out" ] && break
		proc_exited "${STOPPED_PARENT[$key]}" && fail "workload $key exited: $(cat "$T/$key.out")"
		sleep 0.05
	done
	[ -s "$T/$key.out" ] || fail "workload $key did not stop in 30 s"
	STOPPED_PID[$key]=$(json_field "$(head -1 "$T/$key.out")" pid)
	at_exit "kill -KILL ${STOPPED_PID[$key]} 2>/dev/null"
	# Its faults so far, once both threads wait.
	local pid=${STOPPED_PID[$key]} nr task waiting
	nr=$(syscall_nr read)
	for _ in $(seq 600); do
		waiting=0
		for task in /proc/"$pid"/task/*; do
			[ "$(cut -d' ' -f1 "$task/syscall" 2>/dev/null)" = "$nr" ] && waiting=$((waiting + 1))
		done
		[ "$waiting" -eq 2 ] && break
		sleep 0.05
	done
	[ "$waiting" -eq 2 ] || fail "workload $key's threads do not wait in read(2)"
	# /proc/PID/stat: minflt is field 10, majflt 12 (after the name in parentheses, 8 and 10).
	sed 's/.*) //' "/proc/$pid/stat" | awk '{ printf "{\"minflt\": %d, \"majflt\": %d}\n", $8, $10 }' \
		>"$T/$key.before" || fail "cannot read /proc/$pid/stat"
}

# release_workloads KEY...: let them go on, and wait (by pid) for each to end, failing if one
# failed.
release_workloads() {
	local key
	for key in "$@"; do
		echo go >&"${STOPPED_GATE[$key]}"
	done
	for key in "$@"; do
		wait "${STOPPED_PARENT[$key]}" || fail "workload $key failed"
	done
}

# stopped_faults KEY minflt|majflt: the faults workload KEY took after its stop (wait4's less
# those /proc/PID/stat had while it waited).
stopped_faults() {
	echo $(($(json_field "$(cat "$T/$1.rusage")" "$2") - $(json_field "$(cat "$T/$1.before")" "$2")))
}

# named_workload KEY NAME PAGES CGROUP_DIR: `workload pages PAGES` in a child born in the cgroup
# that names itself NAME first (its parent keeps the name workload); its pid in NAMED_PID[KEY],
# wait4's rusage of it in $T/KEY.rusage.
declare -gA NAMED_PID
# shellcheck disable=SC2034 # NAMED_PID is the tests'
named_workload() {
	"$WORKLOAD" --rusage "$T/$1.rusage" --in-cgroup "$4" \
		--name "$(printf %s "$2" | od -An -tx1 | tr -d ' \n')" pages "$3" >"$T/$1.out" ||
		fail "workload $1 failed"
	NAMED_PID[$1]=$(json_field "$(cat "$T/$1.rusage")" pid)
}

# kill_command_at_exit FS_PID NAME: the command NAME that foliostat FS_PID runs is killed when the
# test ends (a foliostat that failed would leave it running, with the descriptors the test's
# shell gave it: the runner's lock among them).
kill_command_at_exit() {
	local child
	child=$(pgrep -P "$1" -x "$2")
	[ -n "$child" ] || fail "foliostat $1 runs no $2"
	at_exit "kill -KILL $child 2>/dev/null"
}

# The bound on "at once": the loop answers a signal within milliseconds (a signalfd in every
# wait, start-up run aside), and the requirement is 100 ms. Measured from the shell's kill to
# the process's end, it also holds foliostat's exit (detaching, freeing its tables) and the
# host's scheduling, which a starved VM makes seconds. So measure_signal_bound derives it in
# each test from this host now: 1000 ms of scheduling on top of 4 times what an end costs
# foliostat here (a run that ends by itself, from its end to its exit). A missed signal would
# wait far longer: the rest of a start-up of seconds, the next tick (1 s one-shot, 10 s with
# INTERVAL 10), or the whole command (100 s).
SIGNAL_BOUND_MS=

# measure_signal_bound: SIGNAL_BOUND_MS as above, from a run of 0.1 s with the tests' tables.
measure_signal_bound() {
	"$FOLIOSTAT" "${SLOW_STARTUP[@]}" -j -d 0.1 >"$T/baseline" 2>"$T/baseline.err" &
	FS_PID=$!
	track_foliostat "$FS_PID"
	wait_started "$FS_PID" "$T/baseline.err"
	time_exit "$FS_PID" 300
	[ "$EXIT_STATUS" -eq 0 ] || fail "a run of 0.1 s exited with $EXIT_STATUS: $(cat "$T/baseline.err")"
	local end_ms=$((ELAPSED_MS > 100 ? ELAPSED_MS - 100 : 0))
	SIGNAL_BOUND_MS=$((1000 + 4 * end_ms))
	echo "a run's end costs foliostat ${end_ms} ms here: the bound on answering a signal is ${SIGNAL_BOUND_MS} ms"
}

# wait_started PID ERRFILE: wait (60 s at most) until foliostat PID has started up; fails if it
# ends or does not.
wait_started() {
	for _ in $(seq 6000); do
		started "$1" && return 0
		proc_exited "$1" && break
		sleep 0.01
	done
	cat "$2"
	fail "foliostat did not start"
}

# A start-up of seconds, as on a large host: tables of a million threads take that long to set
# up, so a signal sent early lands in it.
SLOW_STARTUP=(--max-tasks 1000000)

# started PID: whether foliostat PID has finished starting up (no_new_privs is its last step).
started() {
	grep -qx 'NoNewPrivs:[[:space:]]*1' "/proc/$1/status" 2>/dev/null
}
