# shellcheck shell=bash
# A test that never ends, with a timeout of its own (TEST_TIMEOUT, when set, replaces it).

set_test_timeout test_hangs 2
test_hangs() {
	sleep 600
}
