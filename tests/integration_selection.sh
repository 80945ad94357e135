# shellcheck shell=bash
# Which rows a record has: --cgroup selects the tasks of a cgroup and below, --by cgroup and
# --by comm group the rows, and every process row names its cgroup. (-p and -n:
# integration_promises.sh; threads that move: integration_cgroup_moves.sh.)

# --cgroup: only tasks in the cgroup or below it (a child cgroup here) get rows; a workload run
# at the same time in another cgroup appears nowhere. The selected workload's faults are what
# perf counted for it, and every row is one of the two processes put in the cgroup (perf, and the
# workload it runs).
test_cgroup_selects_its_tasks_only() {
	need_root
	mount_tracefs
	make_cgroups a a/child b
	local a=${CGROUPS[a]} b=${CGROUPS[b]}
	# The cgroup as /proc/PID/cgroup names it, relative to the mount.
	start_foliostat "$T/out" -j --cgroup "/${a#"$CGROUP_ROOT"/}"
	# shellcheck disable=SC2016 # the wrapper shell's $$ and arguments
	sh -c 'echo $$ >"$0/cgroup.procs" && exec perf stat -x, -e "$3" -o "$1" -- "$2" pages 8192' \
		"$a/child" "$T/perf" "$WORKLOAD" "$(fault_event user)" >"$T/workload" &
	local inside=$!
	# shellcheck disable=SC2016
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$1" pages 4096' "$b" "$WORKLOAD" >"$T/other"
	wait "$inside" || fail "the workload in $a/child failed"
	stop_foliostat "$T/out"
	local pid other
	pid=$(json_field "$(cat "$T/workload")" pid)
	other=$(json_field "$(cat "$T/other")" pid)
	assert_eq "$(query "$T/out" "sorted(set(p['pid'] for p in recs[0]['processes']) - {$inside, $pid})")" "[]" \
		"rows of processes outside the cgroup"
	assert_eq "$(query "$T/out" "[p for p in recs[0]['processes'] if p['pid'] == $other]")" "[]" "the other cgroup's workload"
	local ours theirs
	ours=$(query "$T/out" "faults($pid, 'user')")
	theirs=$(perf_count "$T/perf" "$(fault_event user)")
	assert_between "$ours" 8192 9192 "user faults of the workload in the child cgroup"
	assert_matches_perf "$ours" "$theirs" 100 "user faults of the workload in the child cgroup"
	assert_eq "$(query "$T/out" "recs[0]['probes']['cgroup:cgroup_attach_task']")" '"attached"' "cgroup probe"
	assert_between "$(query "$T/out" "recs[0]['system']['unselected']['faults']['user']")" 4096 100000000 \
		"user faults outside the cgroup (the other workload's among them)"
	assert_records_add_up "$T/out" --threads-only
}

# Every process row names its cgroup (v2), as /proc/PID/cgroup does, relative to wherever the
# hierarchy is mounted. A shell that runs a workload in one cgroup, moves itself to another and
# runs a second there: each workload's row has its cgroup, the shell's the one it ended in, and
# the records still add up (the shell's entry in its first cgroup was retired at the move).
test_process_rows_carry_their_cgroup() {
	need_root
	make_cgroups a b
	local a=${CGROUPS[a]} b=${CGROUPS[b]}
	start_foliostat "$T/out" -j -r 0
	local by_process=$FS_PID
	start_foliostat "$T/groups" -j -r 0 --by cgroup
	# shellcheck disable=SC2016 # the inner shell's
	sh -c 'echo $$ >"$0/cgroup.procs" && "$2" pages 4096 >"$3.first" &&
		echo $$ >"$1/cgroup.procs" && "$2" pages 2048 >"$3.second" && echo $$ >"$3.shell"' \
		"$a" "$b" "$WORKLOAD" "$T/w" || fail "workloads failed"
	stop_foliostat "$T/groups"
	FS_PID=$by_process stop_foliostat "$T/out"
	local first second shell
	first=$(json_field "$(cat "$T/w.first")" pid)
	second=$(json_field "$(cat "$T/w.second")" pid)
	shell=$(cat "$T/w.shell")
	assert_eq "$(query "$T/out" "[p['cgroup'] for p in recs[0]['processes'] if p['pid'] == $first]")" \
		"[\"/${a##*/}\"]" "the first workload's cgroup"
	assert_eq "$(query "$T/out" "[p['cgroup'] for p in recs[0]['processes'] if p['pid'] == $second]")" \
		"[\"/${b##*/}\"]" "the second workload's cgroup"
	assert_eq "$(query "$T/out" "[p['cgroup'] for p in recs[0]['processes'] if p['pid'] == $shell]")" \
		"[\"/${b##*/}\"]" "the shell's cgroup, after its move"
	assert_eq "$(query "$T/out" "[p['cgroup_id'] for p in recs[0]['processes'] if p['pid'] == $first]")" \
		"[$(stat -c %i "$a")]" "the first workload's cgroup id (its directory's inode)"
	assert_between "$(query "$T/out" "faults($first, 'user')")" 4096 5096 "the first workload's faults"
	assert_records_add_up "$T/out"
	# By cgroup, the shell's events are split at its move: each cgroup has its workload's
	# faults and the shell's while it was there, a few hundred at most.
	local cg path ours theirs
	for cg in "$a:$first" "$b:$second"; do
		path=/${cg%%:*} path=/${path##*/}
		ours=$(query "$T/groups" "[g['faults']['user'] for g in recs[-1]['cgroups'] if g['cgroup'] == '$path'][0]")
		theirs=$(query "$T/out" "faults(${cg##*:}, 'user')")
		assert_between "$ours" "$theirs" $((theirs + 1000)) "user faults in $path, its workload's ($theirs) and the shell's there"
	done
}

# --by cgroup: rows per cgroup. Each test cgroup's faults are what its memory cgroup counted
# (memory.stat's pgfault and pgmajfault: its processes were born in it, so all of their faults
# happened there); the workload of known activity shows its figures in its cgroup's row. Two
# foliostats watch the same run, one by process and one by cgroup: each cgroup's row equals the
# sum of its processes' rows, field by field (the loader's regrouping loses no row; a BPF count
# is checked against the kernel's above); --by comm has rows by name.
test_rows_by_cgroup_sum_their_processes() {
	need_root
	local root memory=""
	root=$(cgroup_mount cgroup2)
	if [ -n "$root" ] && grep -qw memory "$root/cgroup.controllers"; then
		grep -qw memory "$root/cgroup.subtree_control" ||
			echo +memory >"$root/cgroup.subtree_control" ||
			fail "cannot enable the memory controller under $root"
		memory=1
	fi
	make_cgroups a b
	local a=${CGROUPS[a]} b=${CGROUPS[b]}
	start_foliostat "$T/procs" -j -r 0
	local by_process=$FS_PID
	start_foliostat "$T/cgroups" -j -r 0 --by cgroup
	local by_cgroup=$FS_PID
	# Born in their cgroups (clone3), so that every event of theirs happened there.
	"$WORKLOAD" --rusage "$T/r.a1" --in-cgroup "$a" pages 8192 >"$T/w.a1" &&
		"$WORKLOAD" --rusage "$T/r.a2" --in-cgroup "$a" family 2048,1024 >"$T/w.a2" &&
		"$WORKLOAD" --rusage "$T/r.b" --in-cgroup "$b" pages 4096 >"$T/w.b" || fail "workloads failed"
	FS_PID=$by_cgroup stop_foliostat "$T/cgroups"
	FS_PID=$by_process stop_foliostat "$T/procs"
	python3 - "$T/procs" "$T/cgroups" "/${a##*/}" "/${b##*/}" <<'CHECK' || fail "cgroup rows differ from their processes' sums"
import json, sys
sys.path.insert(0, "tests")
from invariant import leaves
procs, groups = (json.loads(open(f).read().splitlines()[-1]) for f in sys.argv[1:3])
assert groups["by"] == "cgroup" and procs["by"] == "process", (groups["by"], procs["by"])
GROUPS = ("folios", "faults", "tlb", "lru")
for path in sys.argv[3:]:
    rows = [g for g in groups["cgroups"] if g["cgroup"] == path]
    assert len(rows) == 1, f"{path}: {len(rows)} rows"
    want = {}
    for p in procs["processes"]:
        if p["cgroup"] == path:
            for leaf, n in leaves({k: p[k] for k in GROUPS}):
                # (a figure not measured here is null in every row, the sum too)
                want[leaf] = None if n is None and want.get(leaf) is None else (want.get(leaf) or 0) + (n or 0)
    have = dict(leaves({k: rows[0][k] for k in GROUPS}))
    bad = {k: (have.get(k, 0), want.get(k, 0)) for k in set(have) | set(want) if have.get(k, 0) != want.get(k, 0)}
    assert not bad, f"{path}: cgroup row vs its processes: {bad}"
    print(f"ok: {path}: {have[('faults', 'user')]} user faults, equal to its processes' sum")
CHECK
	# Each cgroup's completed faults are what the kernel accounted to the processes born in it
	# (wait4's rusage, their reaped children included), and where the memory controller is on
	# cgroup v2, what the memory cgroup counted (memory.stat's pgfault and pgmajfault, every call
	# of the fault handler: equal for these workloads, whose faults are never retried).
	local cg rusages figure wait4 stat row
	for cg in "a:$T/r.a1 $T/r.a2" "b:$T/r.b"; do
		rusages=${cg#*:} cg=${CGROUPS[${cg%%:*}]}
		row="one([g for g in recs[-1]['cgroups'] if g['cgroup'] == '/${cg##*/}'])"
		for figure in majflt:major minflt:minor; do
			# shellcheck disable=SC2086 # the files, one word each
			wait4=$(python3 -c 'import json, sys; print(sum(json.load(open(f))[sys.argv[1]] for f in sys.argv[2:]))' \
				"${figure%%:*}" $rusages) || fail "no rusage in $rusages"
			assert_eq "$(query "$T/cgroups" "measured(${row}['faults']['${figure#*:}'], '${figure#*:}')")" \
				"$wait4" "${figure#*:} faults in /${cg##*/} (--by cgroup) vs wait4's ${figure%%:*}"
		done
		if [ -z "$memory" ]; then
			echo "note: the memory controller is not on cgroup v2 here: memory.stat not compared"
			continue
		fi
		for figure in "pgfault:major'] + ${row}['faults']['minor" "pgmajfault:major"; do
			stat=$(awk -v n="${figure%%:*}" '$1 == n { print $2 }' "$cg/memory.stat")
			assert_eq "$(query "$T/cgroups" "${row}['faults']['${figure#*:}']")" "$stat" \
				"faults in /${cg##*/} (--by cgroup) vs its memory.stat ${figure%%:*}"
		done
	done
	local faults
	faults=$(query "$T/cgroups" "[g['faults']['user'] for g in recs[-1]['cgroups'] if g['cgroup'] == '/${b##*/}'][0]")
	assert_between "$faults" 4096 5096 "user faults in cgroup b (a workload of 4,096 pages)"
	assert_eq "$faults" "$(query "$T/procs" "faults($(json_field "$(cat "$T/w.b")" pid), 'user')")" \
		"cgroup b's user faults = its one process's"
	"$FOLIOSTAT" -j -d 0.3 --by comm >"$T/comms" || fail "--by comm: exit status $?"
	assert_records_valid "$T/comms"
	assert_eq "$(query "$T/comms" "[recs[0]['by'], 'comms' in recs[0], 'processes' in recs[0]]")" \
		'["comm", true, false]' "rows of --by comm"
	assert_records_add_up "$T/cgroups"
}
