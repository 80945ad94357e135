# shellcheck shell=bash
# Signals and CPUs: a stop signal is answered at once wherever it lands (start-up included, with
# or without a command); SIGTERM's final record; SIGKILL and a closed pipe leave nothing
# attached; the perf-event probes count on a CPU brought online after start-up; --files stays
# exact where membarrier is refused.

# random_ms LOW HIGH
random_ms() {
	echo $(($1 + RANDOM % ($2 - $1 + 1)))
}

# sigterm_at_random_points ARGS...: foliostat ARGS... stopped by SIGTERM at random points of
# start-up and of the run (two tries each): each exits within SIGNAL_BOUND_MS, with status 0,
# with a record if the signal came after start-up and none before (nothing was counted).
sigterm_at_random_points() {
	local try delay phase in_startup=0 in_run=0
	measure_signal_bound
	for try in 1 2 3 4; do
		"$FOLIOSTAT" "${SLOW_STARTUP[@]}" "$@" >"$T/out.$try" 2>"$T/err.$try" &
		FS_PID=$!
		track_foliostat "$FS_PID"
		if [ "$try" -le 2 ]; then
			# During start-up: a random point of its first 300 ms.
			delay=$(random_ms 0 300)
			sleep "$(printf '0.%03d' "$delay")"
		else
			# During the run: a random point of its first 3 s (several one-shot ticks, a
			# third of an INTERVAL of 10).
			wait_started "$FS_PID" "$T/err.$try"
			delay=$(random_ms 0 3000)
			sleep "$((delay / 1000)).$(printf '%03d' $((delay % 1000)))"
		fi
		phase="start-up"
		started "$FS_PID" && phase=run
		signal_and_time TERM "$FS_PID"
		echo "try $try: SIGTERM ${delay} ms into the $phase: exit $EXIT_STATUS after $ELAPSED_MS ms"
		[ "$EXIT_STATUS" -eq 0 ] || { cat "$T/err.$try"; fail "exit status $EXIT_STATUS after SIGTERM"; }
		[ "$ELAPSED_MS" -lt "$SIGNAL_BOUND_MS" ] ||
			fail "SIGTERM in the $phase answered after $ELAPSED_MS ms (bound $SIGNAL_BOUND_MS ms)"
		if [ "$phase" = "run" ]; then
			in_run=$((in_run + 1))
			assert_records_valid "$T/out.$try"
		else
			in_startup=$((in_startup + 1))
			assert_eq "$(wc -c <"$T/out.$try")" 0 "bytes of output after a stop during start-up"
		fi
	done
	# The start-up tries must have landed in it: it lasts seconds with these tables.
	assert_between "$in_startup" 1 4 "tries that landed in start-up"
	assert_between "$in_run" 1 4 "tries that landed in the run"
	assert_nothing_attached
}

# Streaming with INTERVAL 10: SIGTERM anywhere ends the run within the bound, not at the next
# record 10 s later, and during start-up not once it is over.
test_signals_sigterm_ends_a_streaming_run_at_once() {
	need_root
	sigterm_at_random_points -j 10
}

# One-shot with --duration 60: the same.
test_signals_sigterm_ends_a_timed_run_at_once() {
	need_root
	sigterm_at_random_points -j -d 60
}

# --listen: the same, during start-up and while serving (the loop waits on the server's
# descriptor too).
test_signals_sigterm_ends_the_exporter_at_once() {
	need_root
	measure_signal_bound
	local port=$((20000 + RANDOM % 20000))
	"$FOLIOSTAT" "${SLOW_STARTUP[@]}" --listen "127.0.0.1:$port" >"$T/out" 2>"$T/out.err" &
	FS_PID=$!
	track_foliostat "$FS_PID"
	sleep 0.1
	started "$FS_PID" && fail "start-up was over before the signal: the test needs a longer one"
	signal_and_time TERM "$FS_PID"
	echo "exporter, start-up: exit $EXIT_STATUS after $ELAPSED_MS ms"
	assert_eq "$EXIT_STATUS" 0 "exit status after SIGTERM during start-up"
	assert_between "$ELAPSED_MS" 0 "$SIGNAL_BOUND_MS" "ms from SIGTERM during start-up to exit"
	start_foliostat "$T/out" --listen "127.0.0.1:$port"
	curl -sf "http://127.0.0.1:$port/metrics" >"$T/metrics" || fail "no scrape"
	grep -q '^foliostat_' "$T/metrics" || fail "no foliostat metrics in the scrape"
	signal_and_time TERM "$FS_PID"
	echo "exporter, serving: exit $EXIT_STATUS after $ELAPSED_MS ms"
	assert_eq "$EXIT_STATUS" 0 "exit status after SIGTERM"
	assert_between "$ELAPSED_MS" 0 "$SIGNAL_BOUND_MS" "ms from SIGTERM to exit"
	assert_nothing_attached
}

# -- sleep 100, SIGTERM during start-up (the command forked, waiting to exec): foliostat passes
# it on, the waiting command dies of it, and foliostat exits at once with the command's status
# (128 + 15) and no record; nothing of either is left. Once the command runs, SIGTERM to
# foliostat alone is still the command's, and the run ends with it, at once.
test_signals_sigterm_during_startup_ends_the_command() {
	need_root
	measure_signal_bound
	local child
	"$FOLIOSTAT" -j "${SLOW_STARTUP[@]}" -- sleep 100 >"$T/out" 2>"$T/out.err" &
	FS_PID=$!
	track_foliostat "$FS_PID"
	# The command is forked first, before anything loads.
	for _ in $(seq 500); do
		child=$(pgrep -P "$FS_PID" | head -1)
		[ -n "$child" ] && break
		sleep 0.01
	done
	[ -n "$child" ] || fail "no command forked"
	at_exit "kill -KILL $child 2>/dev/null"
	started "$FS_PID" && fail "start-up was over before the signal: the test needs a longer one"
	signal_and_time TERM "$FS_PID"
	echo "exit $EXIT_STATUS after $ELAPSED_MS ms: $(cat "$T/out.err")"
	assert_eq "$EXIT_STATUS" 143 "exit status (the command's: killed by SIGTERM)"
	assert_between "$ELAPSED_MS" 0 "$SIGNAL_BOUND_MS" "ms from SIGTERM to exit"
	kill -0 "$child" 2>/dev/null && fail "the command (pid $child) still runs"
	assert_eq "$(wc -c <"$T/out")" 0 "bytes of output"
	grep -q "failed to start 'sleep': Terminated before it ran" "$T/out.err" ||
		fail "no message of the command's end: $(cat "$T/out.err")"
	assert_nothing_attached
	# The command running:
	start_foliostat "$T/run" -j -- sleep 100
	for _ in $(seq 500); do
		child=$(pgrep -P "$FS_PID" -x sleep)
		[ -n "$child" ] && break
		sleep 0.01
	done
	[ -n "$child" ] || fail "no sleep running under foliostat"
	at_exit "kill -KILL $child 2>/dev/null"
	signal_and_time TERM "$FS_PID"
	echo "command running: exit $EXIT_STATUS after $ELAPSED_MS ms"
	assert_eq "$EXIT_STATUS" 143 "exit status (the command's: killed by SIGTERM)"
	assert_between "$ELAPSED_MS" 0 "$SIGNAL_BOUND_MS" "ms from SIGTERM to exit"
	kill -0 "$child" 2>/dev/null && fail "the command (pid $child) still runs"
	assert_records_valid "$T/run"
}

# faultcount_on_cpu1 OUT N: the workload's faultcount, pinned to CPU 1, once foliostat (streaming
# to OUT) has read twice since CPU 1 came online (the second read at least began after it); its
# child's major and minor faults in $T/workload.N.
faultcount_on_cpu1() {
	wait_records "$1" $(($(wc -l <"$1") + 2))
	taskset -c 1 "$WORKLOAD" faultcount "$FILE" >"$T/workload.$2" || fail "workload failed"
}

# CPU 1 offline when foliostat starts, online after: a workload pinned to it has its major and
# minor faults counted exactly (the perf-event probes), as wait4 reports them; and again after
# CPU 1 went offline and came back during the run.
test_signals_perf_probes_follow_a_cpu_brought_online() {
	need_root
	local online=/sys/devices/system/cpu/cpu1/online
	[ -w "$online" ] || skip "no CPU 1 that can be taken offline ($online)"
	# Back online whatever happens to the test.
	at_exit "echo 1 >$online"
	echo 0 >"$online" || skip "the kernel refused to take CPU 1 offline"
	assert_eq "$(cat "$online")" 0 "CPU 1 online"
	make_uncached_file 16
	start_foliostat "$T/out" -j 0.5 -r 0
	echo 1 >"$online" || fail "cannot bring CPU 1 back online"
	faultcount_on_cpu1 "$T/out" 1
	# Offline and back between two reads.
	echo 0 >"$online" || fail "cannot take CPU 1 offline again"
	echo 1 >"$online" || fail "cannot bring CPU 1 back online again"
	faultcount_on_cpu1 "$T/out" 2
	wait_next_record "$T/out"
	stop_foliostat "$T/out"
	assert_faults_match_wait4 "$T/out" "$T/workload.1" " on CPU 1"
	assert_faults_match_wait4 "$T/out" "$T/workload.2" " on CPU 1"
}

# Where the perf events of a CPU brought online cannot be opened (here: the opener child is
# gone, as when it could not be started), foliostat goes on and says so on stderr, once however
# often the CPU comes and goes, and its records stay whole.
test_signals_a_cpu_that_cannot_be_followed_is_said_once() {
	need_root
	local online=/sys/devices/system/cpu/cpu1/online opener
	[ -w "$online" ] || skip "no CPU 1 that can be taken offline ($online)"
	at_exit "echo 1 >$online"
	echo 0 >"$online" || skip "the kernel refused to take CPU 1 offline"
	start_foliostat "$T/out" -j 0.3 -r 0
	opener=$(pgrep -P "$FS_PID" -x foliostat-perf) || fail "foliostat has no perf opener child"
	assert_number "$opener" "the opener's pid"
	kill -KILL "$opener"
	for _ in 1 2; do
		echo 1 >"$online" || fail "cannot bring CPU 1 online"
		wait_records "$T/out" $(($(wc -l <"$T/out") + 2))
		echo 0 >"$online" || fail "cannot take CPU 1 offline"
	done
	echo 1 >"$online" || fail "cannot bring CPU 1 back online"
	stop_foliostat "$T/out"
	cat "$T/out.err"
	assert_eq "$(grep -c '^foliostat: failed to open perf events on a CPU brought online: ' "$T/out.err")" 1 \
		"warnings that CPU 1's perf events could not be opened"
}

# A build whose waits for running BPF programs never use membarrier (as on a nohz_full host, or
# under a seccomp filter that refuses it) says so in --check, and --files still counts every
# page added to the page cache exactly once: files of known sizes read whole while the sides are
# flipped every tenth of a second.
test_signals_files_exact_without_membarrier() {
	need_root
	make -s -j2 TEST_WITHOUT_MEMBARRIER=1 build/no-membarrier/foliostat >/dev/null ||
		fail "cannot build the test build without membarrier"
	FOLIOSTAT=build/no-membarrier/foliostat
	"$FOLIOSTAT" --check >"$T/check" || fail "--check failed: $(cat "$T/check")"
	grep -E '^  wait for running BPF programs +map-in-map update' "$T/check" ||
		fail "the test build does not wait with the map-in-map update: $(cat "$T/check")"
	make_files_of 3 5 7 11
	start_foliostat "$T/out" -j 0.1 --files --top 0
	local i pages dev ino
	for i in 0 1 2 3; do
		"$WORKLOAD" read "${FILES[i]}" >"$T/read$i" || fail "reading ${FILES[i]} failed"
	done
	wait_next_record "$T/out"
	stop_foliostat "$T/out"
	echo "$(wc -l <"$T/out") records"
	for i in 0 1 2 3; do
		pages=$(($(stat -c %s "${FILES[i]}") / 4096))
		dev=$(stat -c '%Hd:%Ld' "${FILES[i]}")
		ino=$(stat -c %i "${FILES[i]}")
		assert_eq "$(json_field "$(cat "$T/read$i")" resident_before)" 0 "pages of ${FILES[i]} cached before the read"
		assert_eq "$(query "$T/out" "sum(f['pages'] for r in recs for f in r['files'] if f['dev'] == '$dev' and f['ino'] == $ino)")" \
			"$pages" "pages added to ${FILES[i]}, over every record"
	done
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
