# shellcheck shell=bash
# Errors a person can act on: usage errors exit 2, runtime errors exit 1, each with a message
# that says what failed (bad options, a pid that does not exist or that a PID namespace hides, a
# --cgroup that is no cgroup2 directory, no privileges).

# Usage errors exit 2 with a message; --help and --version exit 0.
test_usage_errors_exit_2() {
	local args status
	for args in "--bogus" "0" "-1" "1 0" "1 2 3" "-d 0" "-d 1 1" "-p 0" "-r x" "--max-tasks 1" \
		"--check 1" "--check -d 1" "--check -o x" "-o" "--" "-j --" "--check -- true" \
		"-d 1 -- true" "1 2 -- true" "--by banana" "--by" "--dur 1" "-n a -n b" "-o a --replace b" \
		"--format prometheus -o x 1" "-j --format table"; do
		status=0
		# shellcheck disable=SC2086 # split on purpose
		"$FOLIOSTAT" $args >/dev/null 2>"$T/err" || status=$?
		assert_eq "$status" 2 "exit status for '$args'"
		grep -q '^foliostat: ' "$T/err" || fail "no message for '$args'"
	done
	# (Into files: under pipefail, grep -q leaving early could fail the writer with SIGPIPE.)
	"$FOLIOSTAT" --help >"$T/help" && grep -q '^Usage: foliostat' "$T/help" || fail "--help"
	"$FOLIOSTAT" --version >"$T/version" && grep -q '^foliostat [0-9]' "$T/version" ||
		fail "--version"
}

# Without privileges: a message that says what is needed, exit 1.
test_unprivileged_run_explains() {
	need_root
	command -v setpriv >/dev/null || skip "setpriv not installed"
	local status=0
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$FOLIOSTAT" -d 1 \
		>/dev/null 2>"$T/err" || status=$?
	assert_eq "$status" 1 "exit status"
	grep -qE '^foliostat: failed to .*(root|CAP_BPF)' "$T/err" || fail "message: $(cat "$T/err")"
}

# A PID that does not exist is an error a person can act on, not an empty report.
test_missing_pid_is_an_error() {
	local pid=$(($(cat /proc/sys/kernel/pid_max) - 1)) status=0
	kill -0 "$pid" 2>/dev/null && skip "pid $pid exists"
	"$FOLIOSTAT" -p "$pid" -d 1 >/dev/null 2>"$T/err" || status=$?
	assert_eq "$status" 2 "exit status (a usage error, as a --cgroup that is no cgroup)"
	grep -q "^foliostat: invalid --pid '$pid': no such process$" "$T/err" ||
		fail "message: $(cat "$T/err")"
}

# In a PID namespace foliostat's pids are not those the kernel's tracepoints see: -p says so
# rather than match nothing or the wrong process.
test_pid_filter_in_a_pid_namespace_is_explained() {
	need_root
	command -v unshare >/dev/null || skip "unshare not installed"
	local status=0
	unshare --pid --fork --mount-proc "$FOLIOSTAT" -p 1 -d 1 >/dev/null 2>"$T/err" || status=$?
	assert_eq "$status" 1 "exit status"
	grep -q "^foliostat: failed to select processes by pid: foliostat runs in a PID namespace" "$T/err" ||
		fail "message: $(cat "$T/err")"
	# A command is followed by its pid too: the same error, and the command never runs.
	status=0
	unshare --pid --fork --mount-proc "$FOLIOSTAT" -- touch "$T/ran" >/dev/null 2>"$T/err" || status=$?
	assert_eq "$status" 1 "exit status with -- COMMAND"
	grep -q "^foliostat: failed to follow the command: foliostat runs in a PID namespace" "$T/err" ||
		fail "message: $(cat "$T/err")"
	[ ! -e "$T/ran" ] || fail "the command ran"
	# Without -p it runs there, and reports the kernel's pids.
	unshare --pid --fork --mount-proc "$FOLIOSTAT" -j -d 0.3 >"$T/out" || fail "exit status $?"
	assert_records_valid "$T/out"
	assert_eq "$(query "$T/out" "all(p['pid'] != 1 or p['comm'] != 'foliostat' for p in recs[0]['processes'])")" true \
		"foliostat's own row under its kernel pid"
}

# --cgroup PATH that is no cgroup2 directory is a usage error; a host without cgroup2 (here: a
# mount namespace with every cgroup2 mount removed), a runtime error.
test_cgroup_errors() {
	need_root
	local status path root v1
	root=$(cgroup_mount cgroup2)
	v1=$(cgroup_mount cgroup)
	if [ -z "$v1" ]; then
		# A named v1 hierarchy of the test's own, where the kernel still allows one.
		mkdir "$T/v1" && mount -t cgroup -o none,name=foliostat-test cgroup "$T/v1" 2>/dev/null &&
			v1=$T/v1
	fi
	for path in /etc/passwd "$T/no-such-dir" /no-such-cgroup.$$ "$T" ${v1:+"$v1"} ""; do
		status=0
		"$FOLIOSTAT" --cgroup "$path" -d 1 >/dev/null 2>"$T/err" || status=$?
		assert_eq "$status" 2 "exit status for --cgroup '$path'"
		grep -q "^foliostat: invalid --cgroup '$path'" "$T/err" || fail "message: $(cat "$T/err")"
	done
	[ -n "$v1" ] && echo "ok: a cgroup v1 hierarchy ($v1) refused" || echo "note: no cgroup v1 hierarchy to try here"
	[ "$v1" = "$T/v1" ] && umount "$T/v1"
	[ -n "$root" ] || return 0
	status=0
	# shellcheck disable=SC2016
	unshare -m --propagation private sh -c '
		awk "{ for (i = 7; \$i != \"-\"; i++) ; if (\$(i + 1) == \"cgroup2\") print \$5 }" /proc/self/mountinfo |
			while read -r m; do umount "$m"; done
		exec "$0" --cgroup / -d 1' "$FOLIOSTAT" >/dev/null 2>"$T/err" || status=$?
	assert_eq "$status" 1 "exit status without cgroup2"
	grep -q '^foliostat: failed to find the cgroup v2 hierarchy' "$T/err" || fail "message: $(cat "$T/err")"
}
