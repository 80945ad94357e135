# shellcheck shell=bash
# Test hooks are the test build's alone (make TEST_HOOKS=1, tests/lib_test_build.sh): the
# release binary has neither their names nor their code, and their variables change nothing in
# what it does.

# The hooks' names (an option and environment variables) and functions.
HOOK_NAMES=(test-escape FOLIOSTAT_TEST_PREEMPTIBLE FOLIOSTAT_TEST_REFUSE_PROBE
	FOLIOSTAT_TEST_NO_PAGEMAP_SCAN FOLIOSTAT_TEST_NO_LANDLOCK)
HOOK_FUNCTIONS=(test_escape test_preemptible test_refuse_program test_no_pagemap_scan
	test_no_landlock)

# Neither a hook's name nor its function is in the release binary; each is in the test build,
# else the check could not tell a hook that was kept from one that was renamed.
test_release_binary_has_no_test_hooks() {
	need_test_build
	local name
	strings -a "$FOLIOSTAT" >"$T/release.strings" && strings -a "$TEST_BUILD" >"$T/test.strings" ||
		fail "strings"
	for name in "${HOOK_NAMES[@]}"; do
		! grep -qF -- "$name" "$T/release.strings" || fail "the release binary has '$name'"
		grep -qF -- "$name" "$T/test.strings" || fail "the test build has no '$name'"
		echo "ok: '$name' in the test build only"
	done
	nm "$FOLIOSTAT" >"$T/release.symbols" && nm "$TEST_BUILD" >"$T/test.symbols" || fail "nm"
	for name in "${HOOK_FUNCTIONS[@]}"; do
		! grep -q " $name\$" "$T/release.symbols" || fail "the release binary has $name()"
		grep -q " T $name\$" "$T/test.symbols" || fail "the test build has no $name()"
		echo "ok: $name() in the test build only"
	done
}

# With the variables set, the release binary attaches the probe they name, attributes events
# as this host calls for and finds Landlock; the test build, beside it, refuses that probe,
# takes the kernel as preemptible and as one without Landlock.
test_release_binary_ignores_test_variables() {
	need_root
	need_test_build
	local probe=kmem:mm_page_free release=$T/release test=$T/test
	FOLIOSTAT_TEST_PREEMPTIBLE=1 FOLIOSTAT_TEST_REFUSE_PROBE=$probe FOLIOSTAT_TEST_NO_LANDLOCK=1 \
		"$FOLIOSTAT" --check -j >"$release" || fail "release binary: exit status $?"
	FOLIOSTAT_TEST_PREEMPTIBLE=1 FOLIOSTAT_TEST_REFUSE_PROBE=$probe FOLIOSTAT_TEST_NO_LANDLOCK=1 \
		"$TEST_BUILD" --check -j >"$test" || fail "test build: exit status $?"
	# (This kernel has Landlock: the test build alone takes it as one without.)
	assert_eq "$(query "$release" "recs[0]['check']['privileges']['after_start']['landlock_abi'] is None")" \
		false "no Landlock in the release binary's check"
	assert_eq "$(query "$test" "recs[0]['check']['privileges']['after_start']['landlock_abi'] is None")" \
		true "no Landlock in the test build's check"
	assert_eq "$(query "$release" "recs[0]['check']['probes']['$probe']")" '"attached"' \
		"$probe in the release binary"
	assert_eq "$(query "$release" "recs[0]['check']['attribution']['method']")" "$(host_attribution)" \
		"attribution in the release binary"
	assert_eq "$(query "$release" "'FOLIOSTAT_TEST' in str(recs[0]['check']['attribution']['why'])")" \
		false "the reason for the attribution in the release binary"
	assert_eq "$(query "$test" "recs[0]['check']['probes']['$probe'].startswith('failed to load: the kernel refused')")" \
		true "$probe in the test build"
	assert_eq "$(query "$test" "recs[0]['check']['attribution']['why']")" \
		'"tracepoint programs may be preempted: FOLIOSTAT_TEST_PREEMPTIBLE=1"' \
		"the reason for the attribution in the test build"
	assert_nothing_attached
}
