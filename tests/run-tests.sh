#!/bin/bash
# Runs every test: the unit tests (build/unit-tests), then each test_* function of
# tests/integration*.sh in its own subshell. One result line per test, then
# "N passed, N failed, N skipped". Under CI=true a skipped test counts as failed: CI runs as
# root on a kernel that can run them all. Usage: tests/run-tests.sh [NAME-FILTER]; with VERBOSE=1
# the log of every integration test is shown, not only of those that fail.
set -u
cd "$(dirname "$0")/.." || exit 1
filter=${1:-}
passed=0 failed=0 skipped=0

unit_log=$(mktemp)
build/unit-tests "$filter" >"$unit_log" 2>&1
while read -r status name rest; do
	case $status in
	PASS) passed=$((passed + 1)); echo "PASS $name" ;;
	FAIL) failed=$((failed + 1)); echo "FAIL $name" ;;
	unit:) ;;
	*) echo "  $status $name $rest" ;;
	esac
done <"$unit_log"
rm -f "$unit_log"

# The integration tests count foliostat's programs, maps and table entries on the live kernel:
# another foliostat running beside them would be counted too, and fail them for no fault of theirs.
others=$(pgrep -d ' ' -x foliostat)
if [ -n "$others" ]; then
	echo "tests/run-tests.sh: another foliostat is running (pid $others); stop it first" >&2
	echo "$passed passed, $((failed + 1)) failed, $skipped skipped"
	exit 1
fi

# shellcheck source=tests/lib.sh
. tests/lib.sh
# Every tests/integration*.sh holds test_* functions: one file per concern.
for file in tests/integration*.sh; do
	# shellcheck disable=SC1090
	. "$file"
done

for test in $(declare -F | awk '{ print $3 }' | grep '^test_'); do
	case $test in *"$filter"*) ;; *) continue ;; esac
	T=$(mktemp -d)
	log="$T/log"
	(
		set -u
		"$test"
	) >"$log" 2>&1
	status=$?
	if [ "$status" -eq 0 ]; then
		passed=$((passed + 1))
		echo "PASS $test"
		[ "${VERBOSE:-}" = 1 ] && sed 's/^/    /' "$log"
	elif [ "$status" -eq "$SKIP_STATUS" ] && [ "${CI:-}" != true ]; then
		skipped=$((skipped + 1))
		echo "SKIP $test: $(tail -1 "$log")"
	else
		failed=$((failed + 1))
		[ "$status" -eq "$SKIP_STATUS" ] && echo "FAIL $test (skipped, and CI=true)" || echo "FAIL $test"
		sed 's/^/    /' "$log"
	fi
	# Never leave this test's foliostat behind for the next test.
	[ -f "$T/foliostat.pid" ] && kill -KILL "$(cat "$T/foliostat.pid")" 2>/dev/null
	rm -rf "$T"
done

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
