# shellcheck shell=bash
# What the confinement after start-up refuses that integration_privileges.sh does not try:
# typing into the terminal foliostat was started from; and what a run that keeps uid 0 says
# where the kernel has no Landlock to confine it.

HOOKED=$TEST_BUILD

# A compromised foliostat started from root's terminal could push characters into that
# terminal's input (TIOCSTI), which root's shell reads once foliostat exits as if typed, or
# paste a console selection (TIOCLINUX). The test build's --test-escape tries both on its
# standard input, a pseudo-terminal that script(1) makes its controlling terminal: the filter
# refuses both with EPERM, in the run that keeps uid 0 (--replace) and as nobody. (Without the
# filter, TIOCSTI is taken where dev.tty.legacy_tiocsti is 1: the unit test
# seccomp_refuses_typing_into_a_terminal shows it.)
test_terminal_injection_refused_after_start_up() {
	need_root
	need_test_build
	command -v script >/dev/null || fail "script (util-linux) is not installed"
	grep -qE '^  seccomp filter +on' <("$HOOKED" --check 2>&1) || fail "no seccomp filter here"
	mkdir "$T/records" || fail "setup"
	local run out
	for run in "--replace $T/records/latest.json" "-o $T/records/log.ndjson"; do
		out=$T/escape.${run%% *}
		script -qec "$HOOKED --test-escape $T/records/x -j -d 0.2 $run </dev/tty" /dev/null \
			>"$out" 2>&1 || fail "$run: exit status $? ($(cat "$out"))"
		tr -d '\r' <"$out" | grep '^foliostat test: tio' | sed 's/^/    /'
		tr -d '\r' <"$out" | grep -qx 'foliostat test: tiocsti: Operation not permitted' ||
			fail "$run: TIOCSTI: $(grep tiocsti "$out")"
		tr -d '\r' <"$out" | grep -qx 'foliostat test: tioclinux: Operation not permitted' ||
			fail "$run: TIOCLINUX: $(grep tioclinux "$out")"
		echo "ok: $run: TIOCSTI and TIOCLINUX refused"
	done
	assert_records_valid "$T/records/latest.json"
}
