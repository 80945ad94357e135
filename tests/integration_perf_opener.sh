# shellcheck shell=bash
# The perf opener (user/collect/perf_events.c): the child that opens the page-fault perf events of CPUs
# brought online after start-up keeps what this kernel's perf_event_open wants and nothing more,
# and makes no system call but those its work needs (a seccomp allow-list).

# CAP_PERFMON (bit 38), and CAP_SYS_ADMIN (bit 21) too where kernel.perf_event_paranoid is above 2
# (Debian's and Ubuntu's kernels, whose perf_event_open then refuses any caller without it: a
# CPU brought online would go uncounted), as /proc/PID/status prints a capability set.
test_perf_opener_keeps_what_perf_event_open_wants() {
	need_root
	local paranoid expected opener
	paranoid=$(cat /proc/sys/kernel/perf_event_paranoid) || fail "cannot read perf_event_paranoid"
	assert_number "$paranoid" "kernel.perf_event_paranoid"
	expected=0000004000000000
	[ "$paranoid" -gt 2 ] && expected=0000004000200000
	"$FOLIOSTAT" --check >"$T/check" || fail "--check failed: $(cat "$T/check")"
	grep -qE '^  software:(major|minor)-faults +attached' "$T/check" ||
		fail "no perf-event probe is attached here, so no opener: $(cat "$T/check")"
	start_foliostat "$T/out" -j 0.5 -r 0
	opener=$(pgrep -P "$FS_PID" -x foliostat-perf) || fail "foliostat has no perf opener child"
	assert_number "$opener" "the opener's pid"
	echo "kernel.perf_event_paranoid $paranoid, opener $opener"
	# Where foliostat gets a seccomp filter, the opener gets its allow-list. It still opens
	# events: the CPU brought online in integration_signals.sh is counted through it.
	assert_opener_confined "$opener" "$expected" "$T/check"
	stop_foliostat "$T/out"
}
