# shellcheck shell=bash
# The harness's helpers (sourced by tests/lib.sh): numbers that must be numbers, timeouts, and
# the processes a test starts, which run-tests.sh waits for or kills.

# set_test_timeout TEST SECONDS: TEST may take up to SECONDS (run-tests.sh allows 300 otherwise).
# Called at the top level of a test file, beside the test.
declare -gA TEST_TIMEOUTS
set_test_timeout() {
	# shellcheck disable=SC2034 # read by run-tests.sh
	TEST_TIMEOUTS[$1]=$2
}

# is_number VALUE: VALUE is a whole number (a sign allowed); "", null and text are not.
is_number() {
	[[ $1 =~ ^-?[0-9]+$ ]]
}

# assert_number VALUE WHAT: VALUE is a whole number; "null" (not measured) and "" never are.
assert_number() {
	is_number "$1" || fail "$2: got '$1', expected a number"
}

# assert_empty VALUE WHAT: VALUE is empty (output that must be none).
assert_empty() {
	[ -z "$1" ] || fail "$2: expected none, got: $1"
	echo "ok: $2: none"
}

# track_foliostat PID: a foliostat this test started in the background, which the runner kills
# if it is still running when the test ends (and fails the test then).
track_foliostat() {
	echo "$1" >>"$T/foliostat.pid"
}

# start_workload COMMAND...: COMMAND in the background, for wait_workloads (redirections of the
# call apply to it).
WORKLOAD_PIDS=()
start_workload() {
	"$@" &
	WORKLOAD_PIDS+=("$!")
}
