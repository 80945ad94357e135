# shellcheck shell=bash
# The fuzz targets (tests/fuzz/fuzz_NAME.c: one per parser of input foliostat does not write
# itself), each for FUZZ_TEST_SECONDS (5) from its seeds and what earlier runs found: a crash,
# a leak, undefined behaviour or a broken promise of the parser fails its test, with the input
# libFuzzer saved in build/fuzz/crashes/. `make fuzz` runs them for longer (FUZZ_SECONDS).
# The first test builds them all (clang, the sanitizers' objects in build/fuzz/).

FUZZ_TEST_SECONDS=${FUZZ_TEST_SECONDS:-5}

# fuzz_briefly NAME: build build/fuzz/fuzz_NAME and run it for FUZZ_TEST_SECONDS.
fuzz_briefly() {
	local name=$1
	if ! make -s --no-print-directory -j2 FUZZ=1 fuzz-targets >"$T/build.log" 2>&1; then
		cat "$T/build.log"
		fail "cannot build the fuzz targets (make FUZZ=1 fuzz-targets; libFuzzer is in libclang-rt-dev: scripts/install-deps.sh --tests)"
	fi
	[ -x "build/fuzz/fuzz_$name" ] || fail "no fuzz target build/fuzz/fuzz_$name"
	tests/fuzz/run.sh "$FUZZ_TEST_SECONDS" "$name" ||
		fail "fuzz_$name found an input that breaks it (build/fuzz/$name.log)"
	# A run that never got going (a target that exits at once) is no test.
	grep -aq '^#[0-9]*[[:space:]]*DONE' "build/fuzz/$name.log" ||
		fail "fuzz_$name did not run to its time: $(tail -3 "build/fuzz/$name.log")"
}

test_fuzz_web_config() { fuzz_briefly web_config; }
test_fuzz_http_request() { fuzz_briefly http_request; }
test_fuzz_accept() { fuzz_briefly accept; }
test_fuzz_mountinfo() { fuzz_briefly mountinfo; }
test_fuzz_proc_cgroup() { fuzz_briefly proc_cgroup; }
test_fuzz_buddyinfo() { fuzz_briefly buddyinfo; }
test_fuzz_pagetypeinfo() { fuzz_briefly pagetypeinfo; }
test_fuzz_cgroup_labels() { fuzz_briefly cgroup_labels; }
test_fuzz_sanitize() { fuzz_briefly sanitize; }
test_fuzz_options() { fuzz_briefly options; }
