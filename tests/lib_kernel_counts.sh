# shellcheck shell=bash
# The kernel's own count of the events foliostat's BPF programs count, system-wide and
# independently of foliostat: perf counts each tracepoint (with a filter where foliostat splits
# by order, reason or list), and sums the fields foliostat adds up (pages migrated, scanned,
# reclaimed) from a perf record of the event. Each is taken over two spans of the same run, as
# for assert_sandwiched: "inner" from after foliostat's attach to before its last read, "outer"
# from before its start to after its exit. A BPF program that counts an event twice, or misses
# one, then fails a test, which the "adds up" checks (groups against their own sum) cannot see.
#
#	kcount_define LABEL EVENT [FILTER]...	what perf stat counts (before kernel_counts_start)
#	ktrace_define EVENT...			what perf record keeps, for ktrace_sum
#	kernel_counts_start, kernel_counts_enable, kernel_counts_end WINDOW (inner or outer)
#	kcount WINDOW LABEL, ktrace_sum WINDOW EVENT FIELD [KEY=VALUE]...
#	assert_system_matches_kernel OUT LABEL EXPR WHAT, assert_matches_kernel VALUE LABEL WHAT
#	assert_kernel_count_decisive LABEL WHAT
#	kcontrol_define LABEL REASON		what the test's own BPF program counts (TLB flushes)
#	run_foliostat_counted OUT COMMAND...	foliostat -j around COMMAND, the kernel's counts around

declare -ga KCOUNT_ARGS=() KTRACE_ARGS=()
declare -gA KCOUNT_EVENT KCOUNT_NTH KCOUNT_PER_EVENT KCOUNT_SUM
# (set, if empty: ${#KCONTROL[@]} of an unset one fails under set -u in a test without controls)
declare -gA KCONTROL=()

# kcount_define LABEL EVENT [FILTER]: count EVENT (with the tracepoint FILTER, as perf --filter
# takes it) as LABEL. perf writes one line per counter, in order: an event counted under several
# filters is told apart by its position among them.
kcount_define() {
	local label=$1 event=$2 filter=${3:-}
	local nth=$((${KCOUNT_PER_EVENT[$event]:-0} + 1))
	KCOUNT_PER_EVENT[$event]=$nth
	KCOUNT_EVENT[$label]=$event
	KCOUNT_NTH[$label]=$nth
	KCOUNT_ARGS+=(-e "$event")
	if [ -n "$filter" ]; then
		KCOUNT_ARGS+=(--filter "$filter")
	fi
}

# kcount_sum_define LABEL PART...: LABEL is the sum of the counts of the PART labels (e.g. write
# faults in user and kernel mode, which are two tracepoints).
kcount_sum_define() {
	KCOUNT_SUM[$1]="${*:2}"
}

# ktrace_define EVENT...: record these tracepoints (keep them to events of a few thousand a
# second at most: perf record writes each one).
ktrace_define() {
	local event
	for event in "$@"; do
		KTRACE_ARGS+=(-e "$event")
	done
}

# kcontrol_define LABEL REASON: build/tlbcontrol (tests/control/), a BPF program of the test's
# own on tlb:tlb_flush, counts the flushes of REASON (the kernel's enum value) as LABEL, over a
# span around the outer one. The kernel runs every BPF program of a tracepoint at each hit, or
# counts a miss for a run it skips (one found already running on the CPU); yet on one host
# (6.18, AMD, under a hypervisor) a few TLB shootdowns received by IPI (1 to 24 of 10,000, in
# one run of ten) ran no BPF program at all, foliostat's or another (bpftrace's) alike, with no
# miss counted, while perf and ftrace counted them. What foliostat's figure lacks of perf's may
# then be what the control lacks of perf's, counted in the same run, never assumed
# (assert_system_matches_kernel).
TLBCONTROL=build/tlbcontrol
kcontrol_define() {
	KCONTROL[$1]=$2
}

# kcontrol_start: the control attached (it says so once it is); kcontrol_end: detached, its
# counts in $T/control ("REASON COUNT" lines).
kcontrol_start() {
	[ "${#KCONTROL[@]}" -gt 0 ] || return 0
	"$TLBCONTROL" >"$T/control" 2>"$T/control.err" &
	KCONTROL_PID=$!
	for _ in $(seq 600); do
		grep -q '^tlbcontrol: attached$' "$T/control.err" && return 0
		kill -0 "$KCONTROL_PID" 2>/dev/null || break
		sleep 0.1
	done
	fail "the control program did not attach: $(cat "$T/control.err")"
}

kcontrol_end() {
	[ "${#KCONTROL[@]}" -gt 0 ] || return 0
	kill -INT "$KCONTROL_PID"
	wait "$KCONTROL_PID" || fail "tlbcontrol exited with $?: $(cat "$T/control.err")"
}

# kcontrol LABEL: what the control counted as LABEL; kcontrol_missed: the runs of it the kernel
# skipped (of any reason).
kcontrol() {
	local value
	value=$(awk -v r="${KCONTROL[$1]}" '$1 == r { print $2 }' "$T/control")
	echo "${value:-0}"
}

kcontrol_missed() {
	local value
	value=$(awk '$1 == "missed" { print $2 }' "$T/control")
	[[ $value =~ ^[0-9]+$ ]] || fail "the control program's misses: '$value'"
	echo "$value"
}

# kernel_counts_start WINDOW: start perf (perf stat -a, and perf record -a if ktrace_define asked
# for it) with its events off, so that its own start-up is not where the counting starts;
# kernel_counts_enable WINDOW switches them on, and returns once they are.
kernel_counts_start() {
	[ "${#KCOUNT_ARGS[@]}" -gt 0 ] || fail "kernel_counts_start: no kcount_define"
	perf_window_start "$1" stat -x, "${KCOUNT_ARGS[@]}"
	if [ "${#KTRACE_ARGS[@]}" -gt 0 ]; then
		perf_window_start "$1.trace" record -q -m "$(perf_record_buffer)" "${KTRACE_ARGS[@]}"
	fi
}

kernel_counts_enable() {
	perf_window_command "$1" enable
	if [ "${#KTRACE_ARGS[@]}" -gt 0 ]; then
		perf_window_command "$1.trace" enable
	fi
}

# kernel_counts_end WINDOW: stop counting; the counts are then in $T/WINDOW.perf and, read out
# of perf record's file, in $T/WINDOW.trace.txt.
kernel_counts_end() {
	perf_window_end "$1"
	if [ "${#KTRACE_ARGS[@]}" -gt 0 ]; then
		perf_window_end "$1.trace"
		assert_perf_lost_nothing "$T/$1.trace.data"
		perf script -i "$T/$1.trace.data" -F comm,event,trace >"$T/$1.trace.txt" \
			2>"$T/$1.trace.err" || fail "perf script: $(cat "$T/$1.trace.err")"
	fi
}

# perf_window_start NAME stat|record PERF_ARGS...: as perf_window_begin (lib.sh), perf stat or
# perf record, system-wide, its events off until perf_window_command NAME enable; perf stat
# writes its counts to $T/NAME.perf, perf record its events to $T/NAME.data.
declare -gA PERF_WINDOW_PID PERF_WINDOW_CTL PERF_WINDOW_ACK
# shellcheck disable=SC2034 # the windows' state is lib.sh's, read by perf_window_end
perf_window_start() {
	local name=$1 tool=$2 ctl ack out
	shift 2
	out=$T/$name.perf
	[ "$tool" = record ] && out=$T/$name.data
	mkfifo "$T/$name.ctl" "$T/$name.ack" || fail "mkfifo"
	perf "$tool" -a -D -1 --control "fifo:$T/$name.ctl,$T/$name.ack" -o "$out" "$@" \
		2>"$T/$name.perf.err" &
	PERF_WINDOW_PID[$name]=$!
	# Read-write opens of a FIFO never block, whether or not perf has opened its end yet.
	exec {ctl}<>"$T/$name.ctl" {ack}<>"$T/$name.ack"
	PERF_WINDOW_CTL[$name]=$ctl
	PERF_WINDOW_ACK[$name]=$ack
}

# kcount WINDOW LABEL: what perf counted as LABEL over WINDOW; fails unless it is a count (perf
# writes "<not counted>" or "<not supported>" for an event it could not count).
kcount() {
	local event=${KCOUNT_EVENT[$2]:-} value part sum=0
	if [ -n "${KCOUNT_SUM[$2]:-}" ]; then
		for part in ${KCOUNT_SUM[$2]}; do
			value=$(kcount "$1" "$part") || fail "$value"
			sum=$((sum + value))
		done
		echo "$sum"
		return
	fi
	[ -n "$event" ] || fail "kcount: no kcount_define $2"
	value=$(perf_count "$T/$1.perf" "$event" "${KCOUNT_NTH[$2]}")
	[[ $value =~ ^[0-9]+$ ]] || fail "perf did not count $2 ($event) over $1: '$value'"
	echo "$value"
}

# ktrace_sum WINDOW EVENT FIELD [KEY=VALUE]...: the sum of FIELD (as perf script writes it,
# e.g. nr_scanned) over the recorded EVENTs whose fields have these values; the key "by" is
# kswapd for events in a kswapd thread, direct for the others (as foliostat tells its
# reclaimers apart), and flags~WORD matches a flags field that has WORD among its |-parts.
ktrace_sum() {
	local value
	value=$(python3 - "$T/$1.trace.txt" "${@:2}" <<'SUM'
import re, sys
path, event, field, *conds = sys.argv[1:]
line_re = re.compile(r"^\s*(.*?)\s+(\S+:\S+):\s(.*)$")
total = seen = 0
with open(path) as f:
    for line in f:
        m = line_re.match(line)
        if not m or m.group(2) != event:
            continue
        comm, fields = m.group(1), dict(re.findall(r"(\w+)=(\S+)", m.group(3)))
        fields["by"] = "kswapd" if re.fullmatch(r"kswapd\d+", comm) else "direct"
        ok = True
        for cond in conds:
            if "~" in cond:
                key, word = cond.split("~", 1)
                ok = ok and word in fields.get(key, "").split("|")
            else:
                key, want = cond.split("=", 1)
                ok = ok and fields.get(key) == want
        if not ok:
            continue
        if field not in fields:
            sys.exit(f"ktrace_sum: {event} has no field {field}: {line.strip()}")
        total += int(fields[field], 0)
        seen += 1
print(total)
SUM
) || fail "ktrace_sum $*"
	[[ $value =~ ^[0-9]+$ ]] || fail "ktrace_sum $*: '$value'"
	echo "$value"
}

# run_foliostat_counted OUT COMMAND...: foliostat -j (records in OUT) around COMMAND, with the
# kernel's counts (kcount_define, ktrace_define) over the outer span (from before foliostat's
# start to after its exit) and the inner one (from its attach to before it is stopped, and so
# before its last read: it reads its maps once more as it stops).
run_foliostat_counted() {
	local out=$1
	shift
	kcontrol_start
	kernel_counts_start outer
	kernel_counts_start inner
	kernel_counts_enable outer
	# --self: each record says the runs of each program the kernel skipped (see
	# assert_system_matches_kernel).
	start_foliostat "$out" -j 0.5 -r 0 --self
	kernel_counts_enable inner
	# In a subshell of its own, so that the workloads the command starts (start_workload) are
	# waited for there, apart from this shell's perf counters.
	("$@") || fail "$* failed"
	# One read of foliostat's after the work, so that a record holds its end whatever the
	# interval.
	wait_next_record "$out"
	kernel_counts_end inner
	stop_foliostat "$out"
	kernel_counts_end outer
	kcontrol_end
}

# assert_system_matches_kernel OUT LABEL EXPR WHAT [PROBE]: foliostat's system figure EXPR (a
# records.py expression over OUT, e.g. "order(total('folios', 'free'), 0)"; a null figure fails
# it) between the kernel's counts LABEL over the inner and the outer span (assert_matches_kernel).
# With PROBE, the inner count less the runs of PROBE's program the kernel skipped, as
# foliostat's records say (--self): a program interrupted by an event of its own tracepoint (a
# TLB shootdown's IPI while it counts a flush) is not run again, and the kernel counts that.
# Where the control program counted LABEL too (kcontrol_define), the figure is at most the
# control's (a BPF program over a longer span, with the runs the kernel skipped of it), and the
# inner count is less by what the control lacks of perf's outer count: hits that ran no BPF
# program at all.
assert_system_matches_kernel() {
	local ours missed=0 control unrun
	ours=$(query "$1" "$3" 2>&1) || fail "$4: foliostat's figure $3: $ours"
	if [ -n "${5:-}" ]; then
		missed=$(query "$1" "sum(r['self']['probes']['$5']['missed'] for r in recs)" 2>&1) ||
			fail "$4: the missed runs of $5: $missed"
	fi
	if [ -n "${KCONTROL[$2]:-}" ]; then
		control=$(($(kcontrol "$2") + $(kcontrol_missed)))
		assert_between "$ours" 0 "$control" \
			"$4: foliostat vs the control program's count (and misses) around it"
		unrun=$(($(kernel_count outer "$2") - control))
		if [ "$unrun" -gt 0 ]; then
			echo "($4: $unrun hits ran no BPF program, the control's neither: perf counted them)"
			missed=$((missed + unrun))
		fi
	fi
	assert_matches_kernel "$ours" "$2" "$4" "$missed"
}

# assert_matches_kernel VALUE LABEL WHAT [MISSED]: VALUE, a system figure of foliostat's, between
# the kernel's counts LABEL over the inner (less MISSED) and the outer span. LABEL is a
# kcount_define label, or "trace:EVENT:FIELD[:KEY=VALUE...]" for a ktrace_sum.
assert_matches_kernel() {
	local inner outer missed=${4:-0}
	[[ $1 =~ ^[0-9]+$ ]] || fail "$3: foliostat's figure is not a count: '$1'"
	inner=$(kernel_count inner "$2") || fail "$inner"
	outer=$(kernel_count outer "$2") || fail "$outer"
	[ "$missed" -eq 0 ] || echo "($3: the kernel skipped $missed runs of the program)"
	assert_sandwiched "$1" "$((inner > missed ? inner - missed : 0))" "$outer" \
		"$3, system: foliostat vs the kernel's count"
}

# kernel_count WINDOW LABEL: kcount or ktrace_sum, as LABEL says (see assert_matches_kernel).
kernel_count() {
	local spec
	if [[ $2 == trace:* ]]; then
		IFS=: read -r -a spec <<<"${2#trace:}"
		# EVENT is group:name: its two parts were split apart above.
		ktrace_sum "$1" "${spec[0]}:${spec[1]}" "${spec[@]:2}"
	else
		kcount "$1" "$2"
	fi
}

# assert_kernel_count_decisive LABEL WHAT: the run's events of LABEL (as for
# assert_system_matches_kernel) were mostly the workload's: counted at least once inside
# foliostat's span, and fewer than that again outside it. Only then does a figure counted twice
# (at least twice the inner count) land above the outer count, and one that misses every
# other event below the inner count; a host too busy to tell fails here rather than passing
# a check that could not fail.
assert_kernel_count_decisive() {
	local inner outer
	inner=$(kernel_count inner "$1") || fail "$inner"
	outer=$(kernel_count outer "$1") || fail "$outer"
	if [ "$inner" -lt 1 ] || [ "$outer" -ge $((2 * inner)) ]; then
		fail "$2: the kernel counted $inner within foliostat's span and $outer around it:" \
			"the workload's events do not dominate, and a double count or a loss would pass"
	fi
	echo "ok: $2: $inner of the $outer events around foliostat's span were within it"
}

# tracepoint_enum VALUE_NAME: a kernel enum value by name, from the kernel's BTF (as foliostat
# reads them), for the filter of a split foliostat reports by name.
tracepoint_enum() {
	local value
	value=$(bpftool btf dump file /sys/kernel/btf/vmlinux format c |
		awk -v name="$1" '$1 == name && $2 == "=" { sub(/,$/, "", $3); print $3; exit }')
	[[ $value =~ ^[0-9]+$ ]] || fail "no enum value $1 in the kernel's BTF"
	echo "$value"
}
