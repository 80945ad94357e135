# shellcheck shell=bash
# Least privilege after start-up: once its probes are attached, foliostat runs as nobody (uid 0
# only with --replace and -- COMMAND), with no capability (CAP_BPF at most), no_new_privs, Landlock and
# a seccomp filter; a write to a root-owned file, an exec and a new socket fail, and every
# figure is still counted and named as before.

# The test build (tests/lib_test_build.sh): the release binary's code plus --test-escape.
HOOKED=$TEST_BUILD
NOBODY_UID=$(id -u nobody 2>/dev/null || echo 65534)
NOBODY_GID=$(id -g nobody 2>/dev/null || echo 65534)

# wait_sandboxed PID: until the seccomp filter is on, the very last step of start-up.
wait_sandboxed() {
	for _ in $(seq 600); do
		grep -qx 'Seccomp:[[:space:]]*2' "/proc/$1/status" 2>/dev/null && return 0
		kill -0 "$1" 2>/dev/null || fail "foliostat exited during start-up"
		sleep 0.1
	done
	fail "foliostat did not finish its start-up in a minute"
}

# assert_confined PID UID: /proc/PID/status of a started foliostat: its four uids and gids
# (real, effective, saved, file system), no capability but CAP_BPF (bit 39), no_new_privs, a
# seccomp filter.
assert_confined() {
	local status=/proc/$1/status gid=$NOBODY_GID
	[ "$2" -eq 0 ] && gid=0
	wait_sandboxed "$1"
	assert_eq "$(awk '/^Uid:/ { print $2, $3, $4, $5 }' "$status")" "$2 $2 $2 $2" "uids"
	assert_eq "$(awk '/^Gid:/ { print $2, $3, $4, $5 }' "$status")" "$gid $gid $gid $gid" "gids"
	local cap
	for cap in CapEff CapPrm; do
		case $(awk -v c="$cap:" '$1 == c { print $2 }' "$status") in
		0000000000000000 | 0000008000000000) echo "ok: $cap none or CAP_BPF" ;;
		*) fail "$cap: $(grep "^$cap" "$status")" ;;
		esac
	done
	assert_eq "$(awk '/^CapBnd:/ { print $2 }' "$status")" 0000000000000000 "bounding set"
	assert_eq "$(awk '/^NoNewPrivs:/ { print $2 }' "$status")" 1 "no_new_privs"
	assert_eq "$(awk '/^Seccomp:/ { print $2 }' "$status")" 2 "seccomp mode (filter)"
}

# A plain run becomes nobody and still counts and names everything: a workload's pages in its
# process row and, with --by cgroup, in its cgroup's row under the cgroup's path (the hierarchy
# read as nobody); --listen serves them as nobody; -o appends as nobody to the file it opened
# as root; --replace and -- COMMAND keep uid 0, and a stop signal still reaches the command.
test_unprivileged_after_start_up() {
	need_root
	make_cgroups w
	local cg=${CGROUPS[w]}
	start_foliostat "$T/out" -j -r 0 0.3
	assert_confined "$FS_PID" "$NOBODY_UID"
	local plain=$FS_PID
	start_foliostat "$T/cgroups" -j -r 0 --by cgroup 0.3
	assert_confined "$FS_PID" "$NOBODY_UID"
	local by_cgroup=$FS_PID
	"$WORKLOAD" --in-cgroup "$cg" pages 4096 >"$T/workload" || fail "workload failed"
	wait_next_record "$T/cgroups"
	FS_PID=$by_cgroup stop_foliostat "$T/cgroups"
	FS_PID=$plain wait_next_record "$T/out"
	FS_PID=$plain stop_foliostat "$T/out"
	local pid
	pid=$(json_field "$(cat "$T/workload")" pid)
	assert_between "$(query "$T/out" "faults($pid, 'user')")" \
		4096 5096 "user faults of a workload of 4,096 pages, counted as nobody"
	assert_eq "$(query "$T/out" "sorted(set(p['cgroup'] for r in recs for p in r['processes'] if p['pid'] == $pid))")" \
		"[\"/${cg##*/}\"]" "the workload's cgroup, named as nobody"
	assert_between "$(query "$T/cgroups" "sum(measured(g['faults']['user'], 'faults.user') for g in cgroup_rows('/${cg##*/}'))")" \
		4096 5096 "user faults of the workload's cgroup row"
	assert_records_add_up "$T/cgroups"

	local port
	port=$(free_port) # (integration_exporter.sh)
	start_foliostat "$T/listen" --listen "127.0.0.1:$port"
	assert_confined "$FS_PID" "$NOBODY_UID"
	curl -sf "http://127.0.0.1:$port/metrics" >"$T/metrics" || fail "scrape failed"
	grep -q '^foliostat_' "$T/metrics" || fail "no metrics: $(head -3 "$T/metrics")"
	curl -sf "http://127.0.0.1:$port/metrics" >/dev/null || fail "second scrape failed"
	stop_foliostat "$T/listen"

	mkdir "$T/records"
	start_foliostat "$T/o" -j --replace "$T/records/latest.json" 0.2
	assert_confined "$FS_PID" 0
	wait_sandboxed "$FS_PID"
	for _ in $(seq 100); do [ -s "$T/records/latest.json" ] && break; sleep 0.1; done
	stop_foliostat "$T/o"
	assert_records_valid "$T/records/latest.json"
	assert_eq "$(stat -c %u "$T/records/latest.json")" 0 "owner of --replace's file"

	# -o: the file is root's (opened at start-up), the writer nobody.
	mkdir -m 0700 "$T/logs"
	start_foliostat "$T/log" -j -o "$T/logs/records.ndjson" 0.2
	assert_confined "$FS_PID" "$NOBODY_UID"
	wait_next_record "$T/logs/records.ndjson"
	wait_next_record "$T/logs/records.ndjson"
	stop_foliostat "$T/log"
	assert_records_valid "$T/logs/records.ndjson"
	assert_between "$(wc -l <"$T/logs/records.ndjson")" 3 1000 "records appended to -o's file"
	assert_eq "$(stat -c %u "$T/logs/records.ndjson")" 0 "owner of -o's file"

	# -- COMMAND: uid 0, so that foliostat's SIGTERM is passed on to the command.
	start_foliostat "$T/cmd" -j -- sleep 60
	assert_confined "$FS_PID" 0
	local status=0
	kill -TERM "$FS_PID"
	wait "$FS_PID" || status=$?
	assert_eq "$status" 143 "exit status: the command's, ended by the SIGTERM passed on"
}

# After start-up, the test build's --test-escape tries what a compromised foliostat would, on
# a root-owned file (mode 0640 in a 0700 directory, like /etc/shadow) and on a world-readable
# one in an /etc-like directory: reading, writing and creating beside either fails, and so do
# an exec and a socket. As nobody, file permissions and Landlock refuse; with --replace (uid 0),
# only Landlock can, and does. A file beside --replace's own is the control: that one may be
# created.
# The release binary has no such hook.
test_escapes_after_start_up_fail() {
	need_root
	need_test_build
	[ "$("$HOOKED" --check -j | python3 -c 'import json, sys; print(json.load(sys.stdin)["check"]["privileges"]["after_start"]["landlock_abi"] is not None)')" = True ] ||
		skip "no Landlock on this kernel"
	mkdir -m 0700 "$T/root" && mkdir -m 0755 "$T/etc" "$T/records" || fail "setup"
	echo secret >"$T/root/shadow" && chmod 0640 "$T/root/shadow"
	echo public >"$T/etc/passwd" && chmod 0644 "$T/etc/passwd"
	local target out mode expect_create
	for target in "$T/root/shadow" "$T/etc/passwd" "$T/records/control"; do
		for mode in nobody output; do
			out=$T/escape.$mode.${target##*/}
			if [ "$mode" = output ]; then
				"$HOOKED" --test-escape "$target" -j -d 0.2 --replace "$T/records/latest.json" 2>"$out" ||
					fail "exit status $? ($(cat "$out"))"
			else
				[ "$target" = "$T/records/control" ] && continue
				"$HOOKED" --test-escape "$target" -j -d 0.2 >/dev/null 2>"$out" ||
					fail "exit status $? ($(cat "$out"))"
			fi
			sed 's/^/    /' "$out"
			expect_create="Permission denied"
			if [ "$target" = "$T/records/control" ]; then
				# Nothing there to read or write; creating beside --replace's file is allowed.
				assert_eq "$(grep -c '^foliostat test: \(read\|write\): No such file or directory$' "$out")" 2 \
					"$mode: read and write of a missing file"
				expect_create=succeeded
				rm -f "$T/records/escaped"
			else
				assert_eq "$(grep -c '^foliostat test: \(read\|write\): Permission denied$' "$out")" 2 \
					"$mode: read and write of ${target#"$T"/} refused"
			fi
			grep -qx "foliostat test: create: $expect_create" "$out" ||
				fail "$mode: create beside ${target#"$T"/}: $(grep create "$out")"
			grep -qx 'foliostat test: exec: Operation not permitted' "$out" ||
				fail "$mode: exec: $(grep exec "$out")"
			grep -qx 'foliostat test: socket: Operation not permitted' "$out" ||
				fail "$mode: socket: $(grep socket "$out")"
			echo "ok: $mode: ${target#"$T"/}: every attempt ended as expected"
		done
	done
	assert_eq "$(cat "$T/root/shadow") $(cat "$T/etc/passwd")" "secret public" "the files' contents"
	assert_eq "$(ls -A "$T/root") $(ls -A "$T/etc")" "shadow passwd" "nothing created beside them"
	assert_records_valid "$T/records/latest.json"
	# The hook is the test build's alone.
	local status=0
	"$FOLIOSTAT" --test-escape "$T/etc/passwd" -d 0.1 >/dev/null 2>"$T/err" || status=$?
	assert_eq "$status" 2 "exit status of the release binary given --test-escape"
	assert_eq "$(strings "$FOLIOSTAT" >"$T/strings" && grep -c 'test-escape\|foliostat test' "$T/strings")" 0 \
		"the hook's strings in the release binary"
	assert_eq "$(nm "$FOLIOSTAT" 2>/dev/null | grep -c test_escape)" 0 "the hook's symbol in the release binary"
	nm "$HOOKED" >"$T/symbols" && grep -q ' T test_escape$' "$T/symbols" ||
		fail "the test build has no hook: this check checks nothing"
}

# uid_and_caps_with_bounding CAPS: a run whose bounding set is CAPS alone (setpriv's list),
# once its probes are attached: its uid and effective capabilities, as /proc says.
uid_and_caps_with_bounding() {
	local pid
	setpriv --bounding-set="-all,$1" --inh-caps=-all "$FOLIOSTAT" -d 30 >"$T/out" 2>"$T/err" &
	pid=$!
	wait_attached "$pid" "$T/err"
	awk '/^Uid:/ { print $2 } /^CapEff:/ { print $2 }' "/proc/$pid/status" | tr '\n' ' '
	kill -INT "$pid"
	wait "$pid" || fail "the run with bounding set $1 failed: $(cat "$T/err")"
}

# Root that may change its uid but not clear its bounding set (a container granting CAP_SETUID
# and CAP_SETGID without CAP_SETPCAP) stays root with no capability, and says so, rather than
# failing at the change; with CAP_SETPCAP too it becomes nobody.
test_root_without_cap_setpcap_stays_root_without_capabilities() {
	need_root
	command -v setpriv >/dev/null || skip "setpriv (util-linux) is not installed"
	setpriv --bounding-set=-all,+bpf,+perfmon,+setuid,+setgid --inh-caps=-all "$FOLIOSTAT" --check \
		>"$T/check" 2>&1 || { cat "$T/check"; fail "--check without CAP_SETPCAP"; }
	grep -q 'privileges after start-up .*uid 0 (not all of CAP_SETUID, CAP_SETGID and CAP_SETPCAP), capabilities none' "$T/check" ||
		fail "--check's privileges: $(grep 'privileges after' "$T/check")"
	assert_eq "$(uid_and_caps_with_bounding +bpf,+perfmon,+setuid,+setgid)" "0 0000000000000000 " \
		"uid and effective capabilities of a run without CAP_SETPCAP"
	assert_eq "$(uid_and_caps_with_bounding +bpf,+perfmon,+setuid,+setgid,+setpcap)" "65534 0000000000000000 " \
		"uid and effective capabilities of a run with CAP_SETPCAP"
}

# Once attached, foliostat holds no capability (at most CAP_BPF, on kernels before 6.5 that
# refuse map reads without it) and cannot gain any; it still reports what it sees.
test_privileges_dropped_after_attach() {
	need_root
	start_foliostat "$T/out" -j 0.3
	local caps
	caps=$(awk '/^CapEff/ { print $2 }' "/proc/$FS_PID/status")
	assert_eq "$(awk '/^NoNewPrivs/ { print $2 }' "/proc/$FS_PID/status")" 1 "no_new_privs"
	# 0, or CAP_BPF (bit 39) alone
	case $caps in
	0000000000000000 | 0000008000000000) echo "ok: effective capabilities $caps" ;;
	*) fail "effective capabilities $caps" ;;
	esac
	"$WORKLOAD" pages 1024 >"$T/workload"
	wait_next_record "$T/out"
	stop_foliostat "$T/out"
	assert_between "$(query "$T/out" "hist($(json_field "$(cat "$T/workload")" pid), 'alloc_movable').get('0', 0)")" \
		1024 3000 "folios counted after the drop"
}
