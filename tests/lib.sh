# shellcheck shell=bash
# Helpers for the integration tests: running foliostat around a workload, independent counts
# from perf, and assertions. Each test runs in its own subshell (see run-tests.sh), from the
# repository root, in a scratch directory $T: exit 0 passes, 77 (skip) skips, a failure under
# CI=true, anything else fails.

FOLIOSTAT=./foliostat
WORKLOAD=build/workload
SKIP_STATUS=77

# fail MESSAGE: the test fails, wherever this is called: in a subshell, a pipeline or a $(...)
# the message goes to stderr (stdout may be captured) and the test's own shell is stopped too,
# so that no failure is lost where a plain exit would only end the subshell.
fail() {
	if [ -n "${TEST_PID:-}" ] && [ "$BASHPID" != "$TEST_PID" ]; then
		echo "FAIL: $*" >&2
		kill -TERM "$TEST_PID" 2>/dev/null
	else
		echo "FAIL: $*"
	fi
	exit 1
}

skip() {
	echo "SKIP: $*"
	exit "$SKIP_STATUS"
}

# at_exit COMMAND: run COMMAND when the test ends, before what was registered earlier (cgroups,
# files and servers a test makes are undone in reverse order, whichever helpers made them).
AT_EXIT=""
at_exit() {
	AT_EXIT="$1"$'\n'"$AT_EXIT"
	# shellcheck disable=SC2064 # expand now
	trap "$AT_EXIT" EXIT
}

need_root() {
	[ "$(id -u)" -eq 0 ] || skip "needs root (BPF on the live kernel)"
}

# assert_eq ACTUAL EXPECTED WHAT: the same text; an empty ACTUAL or EXPECTED never passes (a
# failed $(...) is empty: see assert_empty), and where a number is expected ACTUAL must be one.
assert_eq() {
	[ -n "$1" ] && [ -n "$2" ] || fail "$3: got '$1', expected '$2' (empty)"
	is_number "$2" && assert_number "$1" "$3"
	[ "$1" = "$2" ] || fail "$3: got $1, expected $2"
	echo "ok: $3 = $1"
}

# assert_between VALUE LOW HIGH WHAT: whole numbers, LOW <= VALUE <= HIGH.
assert_between() {
	assert_number "$1" "$4"
	assert_number "$2" "$4 (low bound)"
	assert_number "$3" "$4 (high bound)"
	[ "$1" -ge "$2" ] && [ "$1" -le "$3" ] || fail "$4: got $1, expected $2..$3"
	echo "ok: $4 = $1 (within $2..$3)"
}

# assert_matches_perf OURS PERF SLACK WHAT: a workload's figure against perf's count of the same
# events of the same process. perf counts from exec on; foliostat also sees the fork side
# before exec, so it may be up to SLACK above perf, never below.
assert_matches_perf() {
	assert_between "$1" "$2" $(($2 + $3)) "$4, foliostat vs perf (perf=$2)"
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
	track_foliostat "$FS_PID"
	wait_attached "$FS_PID" "$out.err"
}

# wait_attached PID ERRORS: until foliostat PID has attached its probes (or fail, with the
# file of its stderr). foliostat sets no_new_privs as the last step of its start-up, after every
# probe is attached and, with --self, the statistics are on: from then on it counts everything.
# However long that takes on this host; the minute is only a guard against a hang.
wait_attached() {
	for _ in $(seq 600); do
		if grep -qx 'NoNewPrivs:[[:space:]]*1' "/proc/$1/status" 2>/dev/null; then
			return 0
		fi
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	cat "$2"
	fail "foliostat did not attach its probes"
}

# Stop foliostat with SIGINT and check it exited 0, and that its records, if it wrote JSON, match
# the schema: every test that reads records through here checks their shape for free.
stop_foliostat() {
	local status=0
	kill -INT "$FS_PID"
	wait "$FS_PID" || status=$?
	[ "$status" -eq 0 ] || { cat "$1.err"; fail "foliostat exited with $status after SIGINT"; }
	# JSON output begins with its first record, a table with its header line.
	if [ "$(head -c 1 "$1")" = "{" ]; then
		assert_records_valid "$1"
	fi
}

# wait_records FILE N: wait until foliostat has written N records (lines) to FILE. Tests wait for
# foliostat's own reads, never for a guess of how long work takes on this host.
wait_records() {
	for _ in $(seq 1200); do # a minute at most: a foliostat that stops writing fails the test
		[ "$(wc -l <"$1")" -ge "$2" ] && return 0
		kill -0 "$FS_PID" 2>/dev/null || fail "foliostat exited before writing $2 records"
		sleep 0.05
	done
	fail "foliostat wrote fewer than $2 records to $1 in a minute"
}

# wait_next_record FILE: wait until foliostat has written one more record than FILE holds now, so
# that a read of the maps has happened since whatever the test did last.
wait_next_record() {
	wait_records "$1" $(($(wc -l <"$1") + 1))
}

# run_workload_traced PERF_ARGS... -- WORKLOAD_ARGS...: the workload under `perf stat -x,` with
# PERF_ARGS (output in $T/perf), inside a streaming foliostat (records in $T/out, half a second
# each, every process in them, the last after the workload ended: a workload with few events
# has its row however busy the host is). The workload's JSON line is in $T/workload.
# /proc/vmstat is kept at four points (vmstat_delta): "outer" spans foliostat's whole run,
# "inner" only the part where it surely counted, from its attach to the workload's end.
run_workload_traced() {
	local perf_args=()
	while [ "$1" != -- ]; do
		perf_args+=("$1")
		shift
	done
	shift
	vmstat_snapshot outer_begin
	start_foliostat "$T/out" -j 0.5 -r 0
	vmstat_snapshot inner_begin
	perf stat -x, "${perf_args[@]}" -o "$T/perf" -- "${WRAP[@]}" "$WORKLOAD" "$@" \
		>"$T/workload" || fail "workload $* failed"
	wait_next_record "$T/out"
	vmstat_snapshot inner_end
	stop_foliostat "$T/out"
	vmstat_snapshot outer_end
}

# Commands run_workload_traced puts before the workload (they must exec it): see make_memcg.
WRAP=()

# cgroup_mount FSTYPE [OPTION]: where the first file system of FSTYPE (cgroup2, or cgroup with
# OPTION among its options, e.g. memory) is mounted, from the mount table: hybrid hosts mount
# cgroup2 elsewhere than /sys/fs/cgroup.
cgroup_mount() {
	# mountinfo: ... mount-point(5) ... optional fields, "-", fstype, source, super options
	awk -v type="$1" -v opt="${2:-}" '{
		for (i = 7; $i != "-"; i++) ;
		if ($(i + 1) != type) next
		if (opt != "" && index("," $(i + 3) ",", "," opt ",") == 0) next
		print $5; exit
	}' /proc/self/mountinfo
}

# make_cgroups NAME...: cgroup v2 directories foliostat-test-NAME.PID under the hierarchy's
# mount (a NAME may be nested: a/child), created in order and removed when the test ends; their
# paths go to CGROUPS (an associative array by NAME), the mount to CGROUP_ROOT.
declare -A CGROUPS
make_cgroups() {
	local name dir remove=""
	CGROUP_ROOT=$(cgroup_mount cgroup2)
	[ -n "$CGROUP_ROOT" ] || skip "no cgroup2 hierarchy mounted"
	for name in "$@"; do
		dir=$CGROUP_ROOT/foliostat-test-${name%%/*}.$$${name#"${name%%/*}"}
		mkdir "$dir" || fail "cannot create $dir"
		# shellcheck disable=SC2034 # read by the tests
		CGROUPS[$name]=$dir
		remove="rmdir '$dir' 2>/dev/null; $remove"
	done
	at_exit "$remove"
}

# make_root_cgroups PATH...: cgroup v2 directories at exactly these paths below the hierarchy's
# mount, as systemd or the kubelet make them from the root (kubepods.slice/...), the mount to
# CGROUP_ROOT. Those that do not exist yet are created in order and removed when the test ends
# (one that another test made too stays while that test has cgroups in it: rmdir fails).
make_root_cgroups() {
	local path dir remove=""
	CGROUP_ROOT=$(cgroup_mount cgroup2)
	[ -n "$CGROUP_ROOT" ] || skip "no cgroup2 hierarchy mounted"
	for path in "$@"; do
		dir=$CGROUP_ROOT/${path#/}
		[ -d "$dir" ] && continue
		mkdir "$dir" || [ -d "$dir" ] || fail "cannot create $dir"
		remove="rmdir '$dir' 2>/dev/null; $remove"
	done
	at_exit "$remove"
}

# make_memcg MIB: a memory cgroup limited to MIB MiB (cgroup v2, or v1's memory controller), with
# no swap, removed when the test ends; WRAP then starts the workload inside it, and MEMCG_LIMIT
# is the file of its limit (to change it between workloads).
make_memcg() {
	local root dir limit_file
	root=$(cgroup_mount cgroup2)
	if [ -n "$root" ] && grep -qw memory "$root/cgroup.controllers"; then
		# Children have a memory.max only if the root hands the controller down.
		grep -qw memory "$root/cgroup.subtree_control" ||
			echo +memory >"$root/cgroup.subtree_control" ||
			fail "cannot enable the memory controller under $root"
		limit_file=memory.max
	else
		root=$(cgroup_mount cgroup memory)
		[ -n "$root" ] || skip "no memory cgroup controller (neither cgroup2 nor v1)"
		limit_file=memory.limit_in_bytes
	fi
	dir=$root/foliostat-test.$$
	mkdir "$dir" || fail "cannot create $dir"
	echo $(($1 << 20)) >"$dir/$limit_file" || fail "cannot limit $dir"
	at_exit "rmdir '$dir' 2>/dev/null"
	# No swap for it, on hosts that have some: reaching the limit then refuses what does not
	# fit (a THP's charge) instead of swapping the cgroup's anonymous memory out to make room.
	if [ -e "$dir/memory.swap.max" ]; then
		echo 0 >"$dir/memory.swap.max" || fail "cannot turn swap off for $dir"
	elif [ -e "$dir/memory.swappiness" ]; then
		echo 0 >"$dir/memory.swappiness" || fail "cannot turn swap off for $dir"
	fi
	# shellcheck disable=SC2034 # read by the tests
	MEMCG_LIMIT=$dir/$limit_file
	# shellcheck disable=SC2016 # $$ and $0 are the wrapper shell's
	WRAP=(sh -c 'echo $$ >"$0" && exec "$@"' "$dir/cgroup.procs")
}

# vmstat_snapshot POINT: keep /proc/vmstat as it is now, as $T/vmstat.POINT.
vmstat_snapshot() {
	cp /proc/vmstat "$T/vmstat.$1" || fail "cannot keep /proc/vmstat"
}

# vmstat_delta WINDOW NAME...: how much these counters grew over WINDOW (inner or outer: the
# snapshots WINDOW_begin and WINDOW_end). A counter this kernel does not have prints nothing
# (and fails), never 0.
vmstat_delta() {
	local window=$1
	shift
	[ -s "$T/vmstat.${window}_begin" ] && [ -s "$T/vmstat.${window}_end" ] ||
		fail "vmstat_delta $window: no snapshots ${window}_begin and ${window}_end"
	awk -v names=" $* " 'index(names, " " $1 " ") { sum += (FILENAME ~ /_end$/ ? $2 : -$2); seen[$1]++ }
		END { n = split(names, want, " ")
			for (i = 1; i <= n; i++) if (seen[want[i]] != 2) {
				print "vmstat_delta: no " want[i] " in /proc/vmstat" > "/dev/stderr"; exit 1 }
			print sum }' "$T/vmstat.${window}_begin" "$T/vmstat.${window}_end"
}

# assert_sandwiched VALUE INNER OUTER WHAT: foliostat's VALUE against an independent count of the
# same events taken twice in the same run: INNER over a span within foliostat's (after its
# attach, before its last read), OUTER over a span that contains it. Whatever else the host did
# around foliostat's start and end falls between the two; no tolerance is guessed.
assert_sandwiched() {
	assert_between "$1" "$2" "$3" "$4 (independent count within foliostat's span, around it)"
}

# perf_window_begin NAME PERF_ARGS...: a system-wide `perf stat -a -x, PERF_ARGS`, counting from
# when this returns: it starts with its events off and switches them on through a control FIFO,
# which perf acknowledges once they are on. perf_window_end NAME switches them off the same way,
# then has perf write its counts to $T/NAME.perf (read them with perf_count).
declare -gA PERF_WINDOW_PID PERF_WINDOW_CTL PERF_WINDOW_ACK
perf_window_begin() {
	local name=$1 ctl ack
	shift
	mkfifo "$T/$name.ctl" "$T/$name.ack" || fail "mkfifo"
	perf stat -a -x, -D -1 --control "fifo:$T/$name.ctl,$T/$name.ack" -o "$T/$name.perf" "$@" \
		2>"$T/$name.perf.err" &
	PERF_WINDOW_PID[$name]=$!
	# Read-write opens of a FIFO never block, whether or not perf has opened its end yet.
	exec {ctl}<>"$T/$name.ctl" {ack}<>"$T/$name.ack"
	PERF_WINDOW_CTL[$name]=$ctl
	PERF_WINDOW_ACK[$name]=$ack
	perf_window_command "$name" enable
}

perf_window_end() {
	local name=$1 status=0
	perf_window_command "$name" disable
	kill -INT "${PERF_WINDOW_PID[$name]}"
	wait "${PERF_WINDOW_PID[$name]}" || status=$?
	# perf stat -a without a command exits with 128 + SIGINT once it has written its counts.
	[ "$status" -eq 0 ] || [ "$status" -eq 130 ] ||
		fail "perf stat -a exited with $status: $(cat "$T/$name.perf.err")"
	local ctl=${PERF_WINDOW_CTL[$name]} ack=${PERF_WINDOW_ACK[$name]}
	exec {ctl}>&- {ack}>&-
}

# perf_window_command NAME COMMAND: send COMMAND and wait (30 s at most) for perf's ack.
perf_window_command() {
	local reply=
	echo "$2" >&"${PERF_WINDOW_CTL[$1]}"
	read -r -t 30 -u "${PERF_WINDOW_ACK[$1]}" reply || true
	[ "$reply" = ack ] || fail "perf stat -a did not acknowledge '$2': $(cat "$T/$1.perf.err")"
}

# perf_record_buffer: perf record's ring size per CPU (-m) for a system-wide recording: 8 MiB
# (its default, 512 KiB, overflows on a burst of LRU events under a busy run) on up to 32 CPUs,
# less on more, 256 MiB at most in all.
perf_record_buffer() {
	local mib=8 cpus
	cpus=$(nproc)
	while [ "$mib" -gt 1 ] && [ $((mib * cpus)) -gt 256 ]; do mib=$((mib / 2)); done
	echo "${mib}M"
}

# assert_perf_lost_nothing DATA: perf record kept every event into the file DATA: samples it
# lost (a ring overrun) would make its counts no ground truth, so the test fails, saying so.
assert_perf_lost_nothing() {
	local lost
	lost=$(perf report -i "$1" --stats 2>/dev/null | awk '/LOST(_SAMPLES)? events:/ {n += $3} END {print n + 0}')
	[ "$lost" = 0 ] || fail "perf record lost $lost records of events: its counts are no ground truth"
}

# make_uncached_file MIB: a file of MIB MiB on a disk file system (tmpfs cannot drop its pages),
# removed when the test ends; its path in FILE.
make_uncached_file() {
	FILE=/var/tmp/foliostat-test.$$
	at_exit "rm -f '$FILE'"
	head -c $(($1 << 20)) /dev/zero >"$FILE" && sync "$FILE" || fail "cannot write $FILE"
}

# query FILE EXPR: evaluate EXPR over foliostat's NDJSON (see records.py).
query() {
	python3 tests/records.py "$@"
}

# perf_count PERF_OUTPUT EVENT [N]: the count perf stat -x, wrote for EVENT (its Nth line for
# that event, when it was given N times with different filters; the first by default). Nothing,
# and a failure, if perf wrote no such line: never 0.
perf_count() {
	awk -F, -v ev="$2" -v n="${3:-1}" '$3 == ev && ++seen == n { print $1; found = 1; exit }
		END { exit !found }' "$1"
}

# json_field JSON_LINE FIELD
json_field() {
	python3 -c 'import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$1" "$2"
}

# task_table_count CONDITION: how many entries of foliostat's in-kernel thread table (fs_tasks)
# satisfy the Python CONDITION over tgid, tid and comm (the thread group leader's name).
task_table_count() {
	bpftool map dump name fs_tasks -j | python3 -c '
import json, sys
count = 0
for entry in json.load(sys.stdin):
    key = int.from_bytes(bytes(int(b, 16) for b in entry["key"]), "little")
    comm = bytes(int(b, 16) for b in entry["value"][:16]).split(b"\0")[0].decode("utf-8", "replace")
    count += bool(eval(sys.argv[1], {"tgid": key >> 32, "tid": key & 0xFFFFFFFF, "comm": comm}))
print(count)' "$1"
}

# tlb_shootdown_interrupts: TLB shootdown interrupts received so far, over all CPUs
# (/proc/interrupts); nothing (and a failure) where the kernel lists no TLB line, never 0.
tlb_shootdown_interrupts() {
	awk '$1 == "TLB:" { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) sum += $i; found = 1 }
		END { if (!found) exit 1; print sum }' /proc/interrupts
}

# wait_workloads: wait for every workload start_workload started, by pid (the shell keeps the
# status of one that ended long ago; `jobs -p` forgets it), failing if one failed.
wait_workloads() {
	local pid status
	[ "${#WORKLOAD_PIDS[@]}" -gt 0 ] || fail "wait_workloads: no workload was started (start_workload)"
	for pid in "${WORKLOAD_PIDS[@]}"; do
		status=0
		wait "$pid" || status=$?
		[ "$status" -eq 0 ] || fail "a workload (pid $pid) failed with status $status"
	done
	WORKLOAD_PIDS=()
}

# mixed_workload: several workloads at once, each of a different kind of event (anonymous and
# huge pages, a page-cache read, shootdowns, context switches, short-lived processes, a thread
# hopping CPUs, collapses), for the invariant tests. Needs a FILE (make_uncached_file).
mixed_workload() {
	start_workload "$WORKLOAD" pages 20000 >/dev/null
	start_workload "$WORKLOAD" thp 16 >/dev/null
	start_workload "$WORKLOAD" read "$FILE" >/dev/null
	start_workload "$WORKLOAD" tlbflip 500 >/dev/null
	start_workload "$WORKLOAD" ring 2000 >/dev/null
	start_workload "$WORKLOAD" forks 300 >/dev/null
	start_workload "$WORKLOAD" hop 2000 >/dev/null
	start_workload "$WORKLOAD" collapse 4 >/dev/null
	wait_workloads
}

# assert_records_add_up FILE [--threads-only]: no row lost in user space: in every record, each
# system figure is exactly the sum of the groups its events land in (tests/invariant.py). The
# loader makes the system figures by adding those groups, so this cannot see an event the BPF
# side counts twice or misses: assert_system_matches_kernel (lib_kernel_counts.sh) does.
assert_records_add_up() {
	python3 tests/invariant.py "$@" || fail "records do not add up (rows lost in user space)"
	echo "ok: every record adds up (no row lost in user space)"
}

# assert_records_valid FILE...: every line of each FILE is one whole record that matches
# docs/foliostat.schema.json (tests/validate_records.py). A file without a record fails: it
# would pass having checked nothing.
assert_records_valid() {
	local file problem
	for file in "$@"; do
		[ -s "$file" ] || fail "$file: no records to validate"
		problem=$(python3 tests/validate_records.py "$file" 2>&1) ||
			fail "records that do not match docs/foliostat.schema.json: $problem"
		echo "ok: the $(wc -l <"$file") records of $file match the schema"
	done
}

# No BPF program or map of foliostat's may remain in the kernel once it has exited.
# The kernel frees them shortly after their last reference goes, so allow it a moment.
assert_nothing_attached() {
	local progs maps
	for _ in $(seq 30); do
		# (bpftool's output in files: grep -c || true would hide a failure of bpftool.)
		bpftool prog show >"$T/progs" && bpftool map show >"$T/maps" || fail "bpftool failed"
		progs=$(grep -cE 'name fs_[a-z_]+ ' "$T/progs")
		maps=$(grep -cE 'name fs_(tasks|procs|cpus) ' "$T/maps")
		[ "$progs" -eq 0 ] && [ "$maps" -eq 0 ] && break
		sleep 0.1
	done
	assert_eq "$progs" 0 "foliostat BPF programs still loaded"
	assert_eq "$maps" 0 "foliostat maps still in the kernel"
}

# assert_faults_match_wait4 OUT WORKLOAD [WHERE]: foliostat's major and minor faults (records in
# OUT) of the child that `workload faultcount` reported in file WORKLOAD are what wait4 said.
assert_faults_match_wait4() {
	local line child majflt minflt
	line=$(cat "$2")
	child=$(json_field "$line" child)
	majflt=$(json_field "$line" majflt)
	minflt=$(json_field "$line" minflt)
	echo "child $child${3:-}: majflt $majflt, minflt $minflt (wait4)"
	assert_between "$majflt" 1 4096 "major faults of a read of an uncached file"
	assert_eq "$(query "$1" "faults($child, 'major')")" "$majflt" "major faults${3:-}, foliostat vs getrusage"
	assert_eq "$(query "$1" "faults($child, 'minor')")" "$minflt" "minor faults${3:-}, foliostat vs getrusage"
}

# shellcheck source=tests/lib_harness.sh
. tests/lib_harness.sh
# shellcheck source=tests/lib_promises.sh
. tests/lib_promises.sh
# shellcheck source=tests/lib_figures.sh
. tests/lib_figures.sh
# shellcheck source=tests/lib_host.sh
. tests/lib_host.sh
# Independent counts of the kernel's own, for the system figures (tests/lib_kernel_counts.sh).
# shellcheck source=tests/lib_kernel_counts.sh
. tests/lib_kernel_counts.sh
# shellcheck source=tests/lib_test_build.sh
. tests/lib_test_build.sh
