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

# after_start_field CHECK_JSON NAME: a field of --check -j's privileges.after_start, as Python prints it.
after_start_field() {
	python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["check"]["privileges"]["after_start"][sys.argv[2]])' "$1" "$2"
}

# A run that keeps uid 0 (--replace, -- COMMAND, root without CAP_SETUID...) is confined by
# Landlock to its own files; where the kernel has none (the test build's
# FOLIOSTAT_TEST_NO_LANDLOCK=1 takes this kernel as one without it), it could read and write
# every file root owns, and says so: --check, in text and JSON, names the runs that would, and
# such a run warns on stderr at start-up. A run that becomes nobody, and any run where Landlock
# is there, says nothing.
test_root_without_landlock_is_told() {
	need_root
	need_test_build
	local status
	# This kernel: Landlock, so no warning anywhere (the control).
	"$HOOKED" --check -j >"$T/check.json" || fail "--check -j: exit status $?"
	[ "$(after_start_field "$T/check.json" landlock_abi)" != None ] ||
		fail "this kernel has no Landlock: the control would not be one"
	assert_eq "$(after_start_field "$T/check.json" uid_0_without_landlock)" None \
		"--check -j's uid_0_without_landlock with Landlock"
	"$HOOKED" -j -d 0.2 --replace "$T/latest.json" 2>"$T/err.landlock" || fail "exit status $?"
	assert_eq "$(grep -c 'warning' "$T/err.landlock")" 0 "warnings of --replace with Landlock"

	export FOLIOSTAT_TEST_NO_LANDLOCK=1
	"$HOOKED" --check -j >"$T/check.json" || fail "--check -j: exit status $?"
	assert_eq "$(after_start_field "$T/check.json" landlock_abi)" None "landlock_abi without Landlock"
	assert_eq "$(after_start_field "$T/check.json" uid_0_without_landlock)" \
		"runs with --replace or -- COMMAND" "--check -j's uid_0_without_landlock"
	"$HOOKED" --check >"$T/check" || fail "--check: exit status $?"
	grep -E '^  warning: uid 0 without Landlock +runs with --replace or -- COMMAND: ' "$T/check" ||
		fail "--check says nothing: $(grep -i landlock "$T/check")"
	"$HOOKED" -j -d 0.2 --replace "$T/latest.json" 2>"$T/err.replace" || fail "exit status $?"
	cat "$T/err.replace"
	assert_eq "$(grep -c '^foliostat: warning: this run keeps uid 0 (--replace) and the kernel has no Landlock' "$T/err.replace")" \
		1 "the warning of --replace without Landlock"
	status=0
	"$HOOKED" -j -- true >/dev/null 2>"$T/err.command" || status=$?
	assert_eq "$status" 0 "exit status of -- true"
	assert_eq "$(grep -c '^foliostat: warning: this run keeps uid 0 (-- COMMAND)' "$T/err.command")" \
		1 "the warning of -- COMMAND without Landlock"
	# A plain run becomes nobody: nothing to say.
	"$HOOKED" -j -d 0.2 >/dev/null 2>"$T/err.plain" || fail "exit status $?"
	assert_eq "$(grep -c 'warning' "$T/err.plain")" 0 "warnings of a plain run without Landlock"
	# Root that cannot change its uid: every run keeps uid 0, and --check says so.
	command -v setpriv >/dev/null || fail "setpriv (util-linux) is not installed"
	setpriv --bounding-set=-all,+bpf,+perfmon,+setuid,+setgid --inh-caps=-all "$HOOKED" --check -j \
		>"$T/check.json" || fail "--check -j without CAP_SETPCAP: exit status $?"
	assert_eq "$(after_start_field "$T/check.json" uid_0_without_landlock)" \
		"every run (not all of CAP_SETUID, CAP_SETGID and CAP_SETPCAP)" \
		"--check -j's uid_0_without_landlock without CAP_SETPCAP"
	setpriv --bounding-set=-all,+bpf,+perfmon,+setuid,+setgid --inh-caps=-all "$HOOKED" -j -d 0.2 \
		>/dev/null 2>"$T/err.container" || fail "exit status $? ($(cat "$T/err.container"))"
	grep -q '^foliostat: warning: this run keeps uid 0 (not all of CAP_SETUID, CAP_SETGID and CAP_SETPCAP) and the kernel has no Landlock' \
		"$T/err.container" || fail "no warning without CAP_SETPCAP: $(cat "$T/err.container")"
}
