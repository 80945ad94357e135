# shellcheck shell=bash
# Checks whose failure a pipeline or a command substitution loses.

# A check in a pipeline: fail() runs in a subshell, the pipeline's status is sed's.
test_check_in_a_pipeline() {
	assert_eq 1 2 "one" | sed 's/^/  /'
}

# A query that fails inside $(...): its message is not data.
test_failed_query_is_not_data() {
	local series
	series=$(fail "query failed")
	[ -n "$series" ] || fail "no series"
	echo "has data: $series"
}

# A failure on the left of a pipe.
test_failure_left_of_a_pipe() {
	grep foliostat /nonexistent/foliostat-harness | cat || fail "nothing found"
}

# Two commands that failed compare equal.
test_empty_values_compare_equal() {
	assert_eq "$(false)" "$(false)" "two failed commands"
}
