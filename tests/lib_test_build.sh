# shellcheck shell=bash
# The test build (make TEST_HOOKS=1, user/test_hooks.h): the release binary's code plus the hooks
# some tests need (--test-escape, FOLIOSTAT_TEST_PREEMPTIBLE, FOLIOSTAT_TEST_REFUSE_PROBE,
# FOLIOSTAT_TEST_NO_PAGEMAP_SCAN), which
# the release binary has neither the strings nor the code of (integration_test_build.sh).

TEST_BUILD=build/test-hooks/foliostat

# need_test_build: the test build, up to date with the tree. `make check` builds it before the
# run, and the VM suite copies the tree with its times, so this make has nothing to do there; a
# run of tests/run-tests.sh after a plain make builds it once, for the first test that needs it.
need_test_build() {
	make -s -j2 TEST_HOOKS=1 >"$T/make" 2>&1 || { cat "$T/make"; fail "make TEST_HOOKS=1"; }
	[ -x "$TEST_BUILD" ] || fail "make TEST_HOOKS=1 built no $TEST_BUILD"
}

# use_test_build: the rest of the test runs the test build as $FOLIOSTAT.
use_test_build() {
	need_test_build
	# shellcheck disable=SC2034 # lib.sh's helpers and the test read it
	FOLIOSTAT=$TEST_BUILD
}
