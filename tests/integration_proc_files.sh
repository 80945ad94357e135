# shellcheck shell=bash
# /proc files read whole (user/proc_text.c): /proc/PID/cgroup has a line per hierarchy, each
# with a path as long as the users who make cgroups make it (the kernel cuts one at 4095
# bytes); foliostat reads the whole file, never its first 4 KiB.

# remove_cgroup_chain DIR: DIR and the cgroups below it, deepest first, one level at a time
# (their whole paths may be longer than PATH_MAX).
remove_cgroup_chain() {
	local dir=$1 sub
	(
		cd "$dir" 2>/dev/null || exit 0
		for sub in */; do
			[ -d "$sub" ] && remove_cgroup_chain "${sub%/}"
		done
	)
	rmdir "$dir" 2>/dev/null
}

# --resident --by cgroup names a process's cgroup from the "0::" line of /proc/PID/cgroup,
# which comes after a line per v1 hierarchy. A process in a cgroup v1 hierarchy of its own
# (named, no controller) at a path of 4 KiB, whose first directory's name ends in "0::" (as
# another user could name one), and in a v2 cgroup: its file is over 4 KiB, the v2 line past
# the first 4 KiB, and its row names the v2 cgroup, as the kernel's own line says.
test_resident_names_the_cgroup_after_long_v1_lines() {
	need_root
	make_cgroups v2
	local v1=$T/v1 names=("x0::") i pid
	for i in $(seq 20); do names+=("$(printf "%0250d" "$i")"); done
	mkdir "$v1" && mount -t cgroup -o "none,name=foliostat-test.$$" cgroup "$v1" ||
		fail "cannot mount a cgroup v1 hierarchy of its own"
	at_exit "umount '$v1'"
	at_exit "remove_cgroup_chain '$v1/${names[0]}'"
	# One level at a time: the whole path is longer than PATH_MAX. The process execs in the
	# end, so $! is its pid.
	# shellcheck disable=SC2016 # the inner shell's
	(
		cd "$v1" || exit 1
		for name in "${names[@]}"; do mkdir "$name" && cd "$name" || exit 1; done
		exec sh -c 'echo $$ >cgroup.procs && echo $$ >"$0/cgroup.procs" && exec sleep 600' \
			"${CGROUPS[v2]}"
	) &
	pid=$!
	at_exit "kill $pid 2>/dev/null; for _ in \$(seq 50); do [ -e /proc/$pid ] || break; sleep 0.1; done"
	for _ in $(seq 100); do
		[ "$(cat "/proc/$pid/comm" 2>/dev/null)" = sleep ] && break
		sleep 0.1
	done
	local expected=${CGROUPS[v2]#"$CGROUP_ROOT"}
	grep -qx "0::$expected" "/proc/$pid/cgroup" || fail "the process is not in the v2 cgroup"
	assert_between "$(grep -bx "0::$expected" "/proc/$pid/cgroup" | cut -d: -f1)" 4096 1000000 \
		"offset of the v2 line in /proc/$pid/cgroup"
	"$FOLIOSTAT" --resident -d 0.2 -j --by cgroup -p "$pid" >"$T/out" 2>"$T/err" ||
		fail "exit status $? ($(cat "$T/err"))"
	assert_records_valid "$T/out"
	assert_eq "$(query "$T/out" "[g['cgroup'] for g in recs[0]['resident']['cgroups']]")" \
		"[\"$expected\"]" "the resident cgroup rows"
}
