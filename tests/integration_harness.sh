# shellcheck shell=bash
# The harness's own tests: tests/run-tests.sh run on fixtures (tests/harness/) that each hold one
# way a failure used to be lost on the way to the summary line. Each must end in a FAIL line, the
# summary line, and a non-zero exit.

# run_harness FIXTURE UNIT [VAR=VALUE...]: tests/run-tests.sh on the test files of
# tests/harness/FIXTURE, with tests/harness/UNIT as the unit tests' binary; its output in $T/run,
# its exit status in HARNESS_STATUS.
run_harness() {
	local fixture=$1 unit=$2
	shift 2
	HARNESS_STATUS=0
	env -u TEST_TIMEOUT -u VERBOSE "$@" TESTS_DIR="tests/harness/$fixture" \
		UNIT_TESTS="tests/harness/$unit" tests/run-tests.sh >"$T/run" 2>&1 || HARNESS_STATUS=$?
	sed 's/^/  | /' "$T/run"
}

# assert_harness_failed LINE...: the run exited non-zero, its last line is the summary with at
# least one failure, and it printed each LINE (an extended regular expression of a whole line).
assert_harness_failed() {
	local last line
	[ "$HARNESS_STATUS" -ne 0 ] || fail "the run exited 0"
	last=$(tail -n 1 "$T/run")
	[[ $last =~ ^[0-9]+\ passed,\ [1-9][0-9]*\ failed,\ [0-9]+\ skipped$ ]] ||
		fail "the run did not end with a summary of failures: $last"
	for line in "$@"; do
		grep -qxE "$line" "$T/run" || fail "no line '$line'"
	done
	echo "ok: the run failed ($last), exit status $HARNESS_STATUS"
}

# The fixtures' checks can pass: a file without a defect passes, with status 0.
test_harness_passes_a_good_file() {
	run_harness empty unit-none
	assert_eq "$HARNESS_STATUS" 0 "exit status"
	assert_eq "$(tail -n 1 "$T/run")" "1 passed, 0 failed, 0 skipped" "summary"
}

# A unit test that crashes takes the later ones with it: fewer results than tests listed.
test_harness_fails_a_unit_test_crash() {
	run_harness empty unit-crash
	assert_harness_failed 'FAIL unit-tests \(tests/harness/unit-crash\)' \
		'    1 results for the 3 tests it lists; none from:' '      unit:third' \
		'    killed by signal 11 \(SEGV\)'
}

# A unit binary that exits non-zero with no FAIL line.
test_harness_fails_a_unit_binary_status() {
	run_harness empty unit-status
	assert_harness_failed 'FAIL unit-tests \(tests/harness/unit-status\)' \
		'    exited with status 1, and no test failed'
}

# A syntax error: the file is not sourced, and each of its tests fails.
test_harness_fails_a_syntax_error() {
	run_harness syntax unit-none
	assert_harness_failed 'FAIL tests/harness/syntax/integration_syntax.sh: bash -n' \
		'FAIL test_before_the_error' 'FAIL test_after_the_error'
}

# A sourcing that fails, leaving a test undefined.
test_harness_fails_a_failed_sourcing() {
	run_harness sourcing unit-none
	assert_harness_failed 'FAIL tests/harness/sourcing/integration_sourcing.sh: sourcing' \
		'FAIL test_defined_after'
}

# A background workload that failed before the others started (jobs -p had forgotten it).
test_harness_fails_an_early_workload_failure() {
	run_harness workload unit-none
	assert_harness_failed 'FAIL test_early_failure_of_a_workload' \
		'    FAIL: a workload \(pid [0-9]+\) failed with status 3'
}

# A test that left two foliostats (stand-ins) running: both killed, and the test fails.
test_harness_fails_leftover_foliostats() {
	run_harness leftover unit-none
	assert_harness_failed 'FAIL test_leaves_two_foliostats \(left foliostat running\)' \
		'    left running, killed: [0-9]+ foliostat [0-9]+ foliostat '
	assert_empty "$(pgrep -x foliostat)" "foliostats still running after the run"
}

# A test that hangs is stopped at its timeout: its own (set_test_timeout), or TEST_TIMEOUT.
test_harness_times_a_hang_out() {
	local start=$SECONDS
	run_harness hang unit-none
	assert_harness_failed 'FAIL test_hangs \(timed out after 2 s\)'
	run_harness hang unit-none TEST_TIMEOUT=1
	assert_harness_failed 'FAIL test_hangs \(timed out after 1 s\)'
	assert_between $((SECONDS - start)) 0 60 "seconds the two runs took"
}

# Checks in a pipeline, in $(...), and a comparison of two empty values.
test_harness_fails_lost_checks() {
	run_harness pipeline unit-none
	assert_harness_failed 'FAIL test_check_in_a_pipeline' 'FAIL test_failed_query_is_not_data' \
		'FAIL test_failure_left_of_a_pipe' 'FAIL test_empty_values_compare_equal'
	assert_eq "$(tail -n 1 "$T/run")" "0 passed, 4 failed, 0 skipped" "summary"
}

# Valid bash that shellcheck refuses.
test_harness_fails_a_shellcheck_finding() {
	command -v shellcheck >/dev/null || skip "shellcheck is not installed (scripts/install-deps.sh --tests)"
	run_harness shellcheck unit-none
	assert_harness_failed 'FAIL tests/harness/shellcheck/integration_shellcheck.sh: shellcheck -x' \
		'FAIL test_unquoted'
}

# Two files that define the same test: one definition would silently replace the other.
test_harness_fails_a_test_defined_twice() {
	run_harness duplicate unit-none
	assert_harness_failed 'FAIL test_same'
	grep -qx '    defined more than once .*integration_a.sh .*integration_b.sh' "$T/run" ||
		fail "the files are not named"
}

# Each test runs the runner itself, which checks its fixture's files with shellcheck first:
# seconds on a host, minutes under software emulation (make vmtest-suite) on a busy host.
for _test in $(declare -F | awk '$3 ~ /^test_harness_/ { print $3 }'); do
	set_test_timeout "$_test" 900
done
unset _test
