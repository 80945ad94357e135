# shellcheck shell=bash
# Helpers for the integration tests: running foliostat around a workload, independent counts
# from perf, and assertions. Each test runs in its own subshell (see run-tests.sh).

FOLIOSTAT=./foliostat
WORKLOAD=build/workload
SKIP_STATUS=77

fail() {
	echo "FAIL: $*"
	exit 1
}

skip() {
	echo "SKIP: $*"
	exit "$SKIP_STATUS"
}

need_root() {
	[ "$(id -u)" -eq 0 ] || skip "needs root (BPF on the live kernel)"
}

# assert_eq ACTUAL EXPECTED WHAT
assert_eq() {
	[ "$1" = "$2" ] || fail "$3: got $1, expected $2"
	echo "ok: $3 = $1"
}

# assert_between VALUE LOW HIGH WHAT
assert_between() {
	[ "$1" -ge "$2" ] && [ "$1" -le "$3" ] || fail "$4: got $1, expected $2..$3"
	echo "ok: $4 = $1 (within $2..$3)"
}

# perf needs tracefs to resolve tracepoint names; foliostat itself does not.
mount_tracefs() {
	[ -e /sys/kernel/tracing/events ] ||
		mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null ||
		skip "cannot mount tracefs for perf"
}

# Start foliostat in the background with OUT as stdout; returns once it has finished starting
# up and counts every event. Sets FS_PID.
start_foliostat() {
	local out=$1
	shift
	"$FOLIOSTAT" "$@" >"$out" 2>"$out.err" &
	FS_PID=$!
	echo "$FS_PID" >"$T/foliostat.pid" # for the runner to clean up after a failed test
	# foliostat sets no_new_privs as the last step of its start-up, after every probe is attached
	# and, with --self, the statistics are on: from then on it counts everything.
	for _ in $(seq 100); do
		if grep -qx 'NoNewPrivs:[[:space:]]*1' "/proc/$FS_PID/status" 2>/dev/null; then
			return 0
		fi
		kill -0 "$FS_PID" 2>/dev/null || break
		sleep 0.1
	done
	cat "$out.err"
	fail "foliostat did not attach its probes"
}

# Stop foliostat with SIGINT and check it exited 0.
stop_foliostat() {
	local status=0
	kill -INT "$FS_PID"
	wait "$FS_PID" || status=$?
	[ "$status" -eq 0 ] || { cat "$1.err"; fail "foliostat exited with $status after SIGINT"; }
}

# run_workload_traced PERF_ARGS... -- WORKLOAD_ARGS...: the workload under `perf stat -x,` with
# PERF_ARGS (output in $T/perf), inside a streaming foliostat (records in $T/out, half a second
# each, the last after the workload ended). The workload's JSON line is in $T/workload.
run_workload_traced() {
	local perf_args=()
	while [ "$1" != -- ]; do
		perf_args+=("$1")
		shift
	done
	shift
	start_foliostat "$T/out" -j 0.5
	perf stat -x, "${perf_args[@]}" -o "$T/perf" -- "${WRAP[@]}" "$WORKLOAD" "$@" \
		>"$T/workload" || fail "workload $* failed"
	sleep 0.6
	stop_foliostat "$T/out"
}

# Commands run_workload_traced puts before the workload (they must exec it): see make_memcg.
WRAP=()

# make_memcg MIB: a memory cgroup limited to MIB MiB (cgroup v2, or v1's memory controller),
# removed when the test ends; WRAP then starts the workload inside it.
make_memcg() {
	local dir limit_file
	if grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
		dir=/sys/fs/cgroup/foliostat-test.$$
		limit_file=memory.max
	elif [ -d /sys/fs/cgroup/memory ]; then
		dir=/sys/fs/cgroup/memory/foliostat-test.$$
		limit_file=memory.limit_in_bytes
	else
		skip "no memory cgroup controller"
	fi
	mkdir "$dir" || fail "cannot create $dir"
	echo $(($1 << 20)) >"$dir/$limit_file" || fail "cannot limit $dir"
	# shellcheck disable=SC2064 # expand now
	trap "rm -f '${FILE:-}'; rmdir '$dir' 2>/dev/null" EXIT
	# shellcheck disable=SC2016 # $$ and $0 are the wrapper shell's
	WRAP=(sh -c 'echo $$ >"$0" && exec "$@"' "$dir/cgroup.procs")
}

# vmstat NAME...: the sum of these /proc/vmstat counters now.
vmstat_sum() {
	awk -v names=" $* " 'index(names, " " $1 " ") { sum += $2 } END { print sum + 0 }' /proc/vmstat
}

# make_uncached_file MIB: a file of MIB MiB on a disk file system (tmpfs cannot drop its pages),
# removed when the test ends; its path in FILE.
make_uncached_file() {
	FILE=/var/tmp/foliostat-test.$$
	head -c $(($1 << 20)) /dev/zero >"$FILE"
	sync "$FILE"
	# shellcheck disable=SC2064 # expand now
	trap "rm -f '$FILE'" EXIT
}

# query FILE EXPR: evaluate EXPR over foliostat's NDJSON (see records.py).
query() {
	python3 tests/records.py "$@"
}

# perf_count PERF_OUTPUT EVENT [N]: the count perf stat -x, wrote for EVENT (its Nth line for
# that event, when it was given N times with different filters; the first by default).
perf_count() {
	awk -F, -v ev="$2" -v n="${3:-1}" '$3 == ev && ++seen == n { print $1; exit }' "$1"
}

# json_field JSON_LINE FIELD
json_field() {
	python3 -c 'import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$1" "$2"
}

# No BPF program or map of foliostat's may remain in the kernel once it has exited.
# The kernel frees them shortly after their last reference goes, so allow it a moment.
assert_nothing_attached() {
	local progs maps
	for _ in $(seq 30); do
		progs=$(bpftool prog show 2>/dev/null | grep -cE 'name fs_[a-z_]+ ' || true)
		maps=$(bpftool map show 2>/dev/null | grep -cE 'name fs_(tasks|procs|cpus) ' || true)
		[ "$progs" -eq 0 ] && [ "$maps" -eq 0 ] && break
		sleep 0.1
	done
	assert_eq "$progs" 0 "foliostat BPF programs still loaded"
	assert_eq "$maps" 0 "foliostat maps still in the kernel"
}
