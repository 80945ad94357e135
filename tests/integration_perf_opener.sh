# shellcheck shell=bash
# The perf opener (user/collect/perf_events.c): the child that opens the page-fault perf events of CPUs
# brought online after start-up keeps what this kernel's perf_event_open wants and nothing more,
# and makes no system call but those its work needs (a seccomp allow-list).

# CAP_PERFMON (bit 38), and CAP_SYS_ADMIN (bit 21) too where kernel.perf_event_paranoid is above 2
# (Debian's and Ubuntu's kernels, whose perf_event_open then refuses any caller without it: a
# CPU brought online would go uncounted), as /proc/PID/status prints a capability set.
test_perf_opener_keeps_what_perf_event_open_wants() {
	need_root
	local paranoid expected opener cap
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
	# Its last step of start-up (forked before foliostat's drop, it may lag behind it).
	for _ in $(seq 100); do
		grep -qx 'NoNewPrivs:[[:space:]]*1' "/proc/$opener/status" && break
		sleep 0.1
	done
	echo "kernel.perf_event_paranoid $paranoid, opener $opener"
	for cap in CapEff CapPrm; do
		assert_eq "$(awk -v c="$cap:" '$1 == c { print $2 }' "/proc/$opener/status")" \
			"$expected" "the opener's $cap"
	done
	assert_eq "$(awk '/^CapBnd:/ { print $2 }' "/proc/$opener/status")" 0000000000000000 \
		"the opener's bounding set"
	assert_eq "$(awk '/^NoNewPrivs:/ { print $2 }' "/proc/$opener/status")" 1 \
		"the opener's no_new_privs"
	# Where foliostat gets a seccomp filter, the opener gets its allow-list (mode 2: a filter;
	# one of its own, foliostat's being installed after the fork). It still opens events: the
	# CPU brought online in integration_signals.sh is counted through it.
	if grep -qE '^  seccomp filter +on' "$T/check"; then
		# (its very last step, just after no_new_privs)
		for _ in $(seq 100); do
			grep -qx 'Seccomp:[[:space:]]*2' "/proc/$opener/status" && break
			sleep 0.1
		done
		assert_eq "$(awk '/^Seccomp:/ { print $2 }' "/proc/$opener/status")" 2 "the opener's seccomp mode"
		assert_eq "$(awk '/^Seccomp_filters:/ { print $2 }' "/proc/$opener/status")" 1 "the opener's seccomp filters"
	fi
	stop_foliostat "$T/out"
}
