#!/bin/bash
# Runs every test: the unit tests (build/unit-tests), then each test_* function of
# tests/integration*.sh in its own subshell. One result line per test, then
# "N passed, N failed, N skipped". Under CI=true a skipped test counts as failed: CI runs as
# root on a kernel that can run them all. Usage: tests/run-tests.sh [NAME-FILTER]; with VERBOSE=1
# the log of every integration test is shown, not only of those that fail.
#
# No failure can be lost on the way to the summary line:
# - every shell file of the tests (and scripts/) passes `bash -n` and `shellcheck -x` before the
#   run; a file that does not is a failure, is not sourced, and each of its tests is a failure;
# - every test_*() the files define (found with grep) must be defined once they are sourced, and
#   a sourcing must return 0;
# - the unit tests' binary must exit 0 and report one result per test it lists (--list): a
#   crash part of the way is a failure, not a shorter run;
# - each test runs in its own process group, with `set -u -o pipefail`, and at most TEST_TIMEOUT
#   seconds (300 unless the test declared more with `set_test_timeout test_NAME SECONDS` in its
#   file; TEST_TIMEOUT in the environment overrides both): then its whole group is killed and
#   it fails. Whatever it left running in its group (foliostat, workloads, perf, servers) is
#   killed after it, and every foliostat it started (start_foliostat, track_foliostat); a
#   foliostat still running then fails the test.
# For the harness's own tests (tests/integration_harness.sh): TESTS_DIR (where the
# integration*.sh files are, tests/ by default) and UNIT_TESTS (the unit tests' binary).
set -u
shopt -s nullglob # (a TESTS_DIR without integration files has none, not one named "*")
cd "$(dirname "$0")/.." || exit 1
filter=${1:-}
TESTS_DIR=${TESTS_DIR:-tests}
UNIT_TESTS=${UNIT_TESTS:-build/unit-tests}
DEFAULT_TEST_TIMEOUT=300
case ${TEST_TIMEOUT:-1} in
'' | *[!0-9]* | 0) echo "tests/run-tests.sh: TEST_TIMEOUT: a whole number of seconds" >&2; exit 2 ;;
esac
n_passed=0 n_failed=0 n_skipped=0
run_tmp=$(mktemp -d)

# result STATUS NAME [LOG]: one result line, the log below it (indented) when it failed.
result() {
	case $1 in
	PASS) n_passed=$((n_passed + 1)) ;;
	SKIP) n_skipped=$((n_skipped + 1)) ;;
	*) n_failed=$((n_failed + 1)) ;;
	esac
	echo "$1 $2"
	if [ -n "${3:-}" ] && { [ "$1" = FAIL ] || [ "${VERBOSE:-}" = 1 ]; }; then
		sed 's/^/    /' "$3"
	fi
}

# A sourced file that exits, or an expansion error under set -u, must not end the run without
# its summary line nor with status 0.
summary_printed=
on_exit() {
	local status=$?
	# (Only this shell: a child that has not yet reset its traps must not report for it.)
	[ "$BASHPID" = "$$" ] || return
	# Interrupted: the running test's process group goes too.
	[ -n "${pid:-}" ] && kill -KILL -- "-$pid" 2>/dev/null
	rm -rf "$run_tmp" "${T:-}"
	[ -n "$summary_printed" ] && return
	echo "FAIL tests/run-tests.sh: the run ended early (exit status $status)"
	echo "$n_passed passed, $((n_failed + 1)) failed, $n_skipped skipped"
	exit 1
}
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Unit tests: as many results as the binary lists, and its exit status.
run_unit_tests() {
	local list=$run_tmp/unit.list log=$run_tmp/unit.log status=0 status_word reported=0 name
	if ! "$UNIT_TESTS" --list "$filter" >"$list" 2>&1; then
		echo "$UNIT_TESTS --list failed (is it built? make unit-tests)" >"$log"
		cat "$list" >>"$log"
		result FAIL unit-tests "$log"
		return
	fi
	"$UNIT_TESTS" "$filter" >"$log" 2>&1 || status=$?
	while read -r status_word name rest; do
		case $status_word in
		PASS | FAIL) reported=$((reported + 1)); result "$status_word" "$name" ;;
		unit:) ;;
		*) echo "  $status_word $name $rest" ;;
		esac
	done <"$log"
	: >"$log.why"
	local expected
	expected=$(grep -c . "$list")
	if [ "$reported" -ne "$expected" ]; then
		echo "$reported results for the $expected tests it lists; none from:" >>"$log.why"
		grep -vxFf <(awk '$1 == "PASS" || $1 == "FAIL" { print $2 }' "$log") "$list" |
			sed 's/^/  /' >>"$log.why"
	fi
	if [ "$status" -gt 128 ]; then
		echo "killed by signal $((status - 128)) ($(kill -l "$status" 2>/dev/null))" >>"$log.why"
	elif [ "$status" -ne 0 ] && ! grep -q '^FAIL ' "$log"; then
		echo "exited with status $status, and no test failed" >>"$log.why"
	fi
	[ -s "$log.why" ] && result FAIL "unit-tests ($UNIT_TESTS)" "$log.why"
}
run_unit_tests

# The integration tests count foliostat's programs, maps and table entries on the live kernel:
# another foliostat running beside them would be counted too, and fail them for no fault of theirs.
others=$(pgrep -d ' ' -x foliostat)
if [ -n "$others" ]; then
	echo "tests/run-tests.sh: another foliostat is running (pid $others); stop it first" >&2
	summary_printed=1
	echo "$n_passed passed, $((n_failed + 1)) failed, $n_skipped skipped"
	exit 1
fi

# Every tests/integration*.sh holds test_* functions: one file per concern.
files=(tests/lib.sh "$TESTS_DIR"/integration*.sh)
checked=("$TESTS_DIR"/*.sh)
if [ "$TESTS_DIR" = tests ]; then
	checked+=(scripts/*.sh)
else
	checked+=(tests/lib.sh)
fi

# The test_*() definitions in FILE, as grep finds them: what sourcing it must define.
tests_in() {
	sed -nE 's/^[[:space:]]*(function[[:space:]]+)?(test_[A-Za-z0-9_]+)[[:space:]]*\(\).*/\2/p' "$1"
}

# Files that fail a check: not sourced, and each of their tests fails.
declare -A broken
check_log=$run_tmp/check
for file in "${checked[@]}"; do
	if ! bash -n "$file" >"$check_log" 2>&1; then
		result FAIL "$file: bash -n" "$check_log"
		broken[$file]="bash -n"
	fi
done
# Checking them takes seconds: files that passed exactly as they are now (with the same checker
# version, settings, and lib*.sh they source) are not checked again.
shellcheck_key() {
	{
		shellcheck --version
		cat .shellcheckrc
		for file in "${checked[@]}" tests/lib*.sh; do
			echo "== $file"
			cat "$file"
		done
	} 2>&1 | sha256sum
}
shellcheck_passed=build/shellcheck.passed
if command -v shellcheck >/dev/null && [ -s "$shellcheck_passed" ] &&
	[ "$(shellcheck_key)" = "$(cat "$shellcheck_passed")" ]; then
	: # passed as they are
elif command -v shellcheck >/dev/null; then
	shellcheck -x -f gcc "${checked[@]}" >"$check_log" 2>&1
	status=$?
	found=
	for file in "${checked[@]}"; do
		awk -v f="$file:" 'index($0, f) == 1' "$check_log" >"$check_log.file"
		if [ -s "$check_log.file" ]; then
			result FAIL "$file: shellcheck -x" "$check_log.file"
			broken[$file]=${broken[$file]:-shellcheck}
			found=1
		fi
	done
	# Findings name a file; a status without one (a crash, a bad option) is a failure too.
	if [ "$status" -ne 0 ] && [ -z "$found" ]; then
		result FAIL "shellcheck (exit status $status)" "$check_log"
	elif [ "$status" -eq 0 ] && [ -d build ]; then
		shellcheck_key >"$shellcheck_passed"
	fi
else
	echo "not installed (scripts/install-deps.sh --tests)" >"$check_log"
	if [ "${CI:-}" = true ]; then
		result FAIL "shellcheck (skipped, and CI=true)" "$check_log"
	else
		result SKIP "shellcheck: $(cat "$check_log")"
	fi
fi

# lib.sh holds what every test needs: if it is broken, no test can run.
declare -A expected_in
all_expected=()
for file in "${files[@]:1}"; do # (lib.sh has helpers, never a test_*)
	while read -r name; do
		[ -n "${expected_in[$name]:-}" ] || all_expected+=("$name")
		expected_in[$name]="${expected_in[$name]:-}${expected_in[$name]:+ }$file"
	done < <(tests_in "$file")
done

unrunnable() { # unrunnable REASON NAME...
	local reason=$1 name
	shift
	for name in "$@"; do
		case $name in *"$filter"*) ;; *) continue ;; esac
		echo "$reason" >"$check_log"
		result FAIL "$name" "$check_log"
	done
}

if [ -n "${broken[tests/lib.sh]:-}" ]; then
	unrunnable "not run: tests/lib.sh failed ${broken[tests/lib.sh]}" "${all_expected[@]}"
	summary_printed=1
	echo "$n_passed passed, $n_failed failed, $n_skipped skipped"
	exit 1
fi

# Sourcing runs in this shell: its output goes to a log shown when it fails.
for file in "${files[@]}"; do
	if [ -n "${broken[$file]:-}" ]; then
		mapfile -t names < <(tests_in "$file")
		unrunnable "not run: $file failed ${broken[$file]}" "${names[@]}"
		continue
	fi
	# shellcheck disable=SC1090
	. "$file" >"$check_log" 2>&1
	status=$?
	if [ "$status" -ne 0 ]; then
		echo "sourcing it returned $status" >>"$check_log"
		result FAIL "$file: sourcing" "$check_log"
	fi
done

# Each test found in a sourced file must be defined, once; nothing else may be.
mapfile -t defined < <(declare -F | awk '$3 ~ /^test_/ { print $3 }')
declare -A is_defined
for name in "${defined[@]}"; do
	is_defined[$name]=1
done
declare -A seen
for name in "${all_expected[@]}"; do
	seen[$name]=${expected_in[$name]}
	[ -n "${broken[${expected_in[$name]%% *}]:-}" ] && continue
	case $name in *"$filter"*) ;; *) continue ;; esac
	if [ "${expected_in[$name]}" != "${expected_in[$name]%% *}" ]; then
		echo "defined more than once (the last definition replaces the others): ${expected_in[$name]}" \
			>"$check_log"
		result FAIL "$name" "$check_log"
		is_defined[$name]="" # not run: which of its definitions would be a guess
	elif [ -z "${is_defined[$name]:-}" ]; then
		echo "found in ${expected_in[$name]} but not defined once it was sourced" >"$check_log"
		result FAIL "$name" "$check_log"
	fi
done
for name in "${defined[@]}"; do
	if [ -z "${seen[$name]:-}" ]; then
		echo "defined, but no file has a line 'test_NAME() {' for it: the count would miss it" \
			>"$check_log"
		result FAIL "$name" "$check_log"
	fi
done

# leftovers T PGID [Z]: what a test left running, as "pid comm" lines: its process group, and the
# foliostats it registered in T/foliostat.pid (start_foliostat, track_foliostat). With Z, also
# the processes that ended but are not reaped yet (which pgrep still finds).
leftovers() {
	local registered=" "
	[ -f "$1/foliostat.pid" ] && registered=" $(tr '\n' ' ' <"$1/foliostat.pid")"
	ps -e -o pid=,pgid=,stat=,comm= |
		awk -v group="$2" -v z="${3:-}" -v registered="$registered" '
			($2 == group || (index(registered, " " $1 " ") && $4 == "foliostat")) &&
			(z || $3 !~ /^Z/) { print $1, $4 }'
}

# Tests that declare a longer timeout (set_test_timeout in lib.sh) have it in TEST_TIMEOUTS.
for test in "${defined[@]}"; do
	case $test in *"$filter"*) ;; *) continue ;; esac
	[ -n "${seen[$test]:-}" ] && [ -n "${is_defined[$test]}" ] || continue
	T=$(mktemp -d)
	log="$T/log"
	timeout=${TEST_TIMEOUT:-${TEST_TIMEOUTS[$test]:-$DEFAULT_TEST_TIMEOUT}}
	# Its own process group (job control), so that it and all it started can be killed at once.
	set -m
	(
		set +m
		set -u -o pipefail
		# shellcheck disable=SC2034 # fail() in lib.sh stops this shell by it
		TEST_PID=$BASHPID
		"$test"
	) >"$log" 2>&1 </dev/null &
	pid=$!
	set +m
	sleep "$timeout" &
	timer=$!
	finished=
	wait -n -p finished "$pid" "$timer"
	status=$?
	if [ "$finished" = "$pid" ]; then
		kill -KILL "$timer" 2>/dev/null
		wait "$timer" 2>/dev/null
		why=
	else
		# SIGTERM first, so that its at_exit clean-ups run; then whatever remains is killed.
		kill -TERM -- "-$pid" 2>/dev/null
		for _ in $(seq 50); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL -- "-$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		status=1
		why="timed out after $timeout s"
	fi
	# A foliostat told to stop as the test ended may take a moment to detach its programs.
	for _ in $(seq 50); do
		leftovers "$T" "$pid" | grep -q ' foliostat$' || break
		sleep 0.1
	done
	left=$(leftovers "$T" "$pid")
	if [ -n "$left" ]; then
		echo "left running, killed: $(echo "$left" | tr '\n' ' ')" >>"$log"
		echo "$left" | while read -r lpid _; do kill -KILL "$lpid" 2>/dev/null; done
		kill -KILL -- "-$pid" 2>/dev/null
		# Gone (and reaped) before the next test, which may count foliostats.
		for _ in $(seq 100); do
			[ -z "$(leftovers "$T" "$pid" Z)" ] && break
			sleep 0.1
		done
		if echo "$left" | grep -q ' foliostat$' && [ -z "$why" ]; then
			why="left foliostat running"
		fi
	fi
	if [ -n "$why" ]; then
		echo "$why" >>"$log"
		result FAIL "$test ($why)" "$log"
	elif [ "$status" -eq 0 ]; then
		result PASS "$test" "$log"
	elif [ "$status" -eq "$SKIP_STATUS" ] && [ "${CI:-}" != true ]; then
		result SKIP "$test: $(tail -1 "$log")"
	elif [ "$status" -eq "$SKIP_STATUS" ]; then
		result FAIL "$test (skipped, and CI=true)" "$log"
	else
		result FAIL "$test" "$log"
	fi
	rm -rf "$T"
	pid=
done

summary_printed=1
echo "$n_passed passed, $n_failed failed, $n_skipped skipped"
[ "$n_failed" -eq 0 ]
