# shellcheck shell=bash
# Integration tests of why a process did not get large folios: THP faults that got a huge page,
# that the memory cgroup refused to charge, or that found none; and completed faults, major and
# minor, against the kernel's own accounting of the process. (THP faults that find no free huge
# page, and compaction charged to the order asking for it, need memory the test can exhaust:
# scripts/vmtest.sh checks them in a VM whose memory is fixed.)

# The figures of one process (or cgroup) row over all records, for the checks below.
outcomes_of() {
	local out=$1 select=$2
	python3 - "$out" "$select" <<'PY'
import json, sys
out, select = sys.argv[1], sys.argv[2]
recs = [json.loads(l) for l in open(out)]
rows = [p for r in recs for p in r[{"process": "processes", "cgroup": "cgroups"}[r["by"]]]
        if str(p.get("pid", p.get("cgroup"))) == select]
if not rows:  # no row is not 0 of everything
    sys.exit(f"{out}: no row of {select}")
def measured(value, what):
    if value is None:
        sys.exit(f"{out}: {select}: {what} is null (not measured)")
    return value
def order(name, o):
    # Histograms leave their empty orders out: an absent order is 0, a null histogram is not.
    return sum(measured(p["folios"][name], f"folios.{name}").get(o, 0) for p in rows)
got = [p["thp"]["fault_alloc"] for p in rows]
# null (the probe is not attached here) stays null, never 0: the caller's measured_or judges it.
print("null" if None in got else sum(got), order("alloc", "9"), order("discarded", "9"),
      order("alloc_failed", "9"), order("alloc_movable", "0"))
PY
}

# A memory cgroup of 16 MiB, a process touching 15 MiB of a 16 MiB MADV_HUGEPAGE region: 8 THP
# attempts (the last 2 MiB block is touched in part), of which the cgroup takes the charge of
# as many huge pages as fit (k, from smaps) and refuses the rest, which the kernel frees and
# serves in 4 KiB pages; 15 MiB fits the limit, so nothing is killed. Each attempt is one of:
# a huge page got (memcg THP_FAULT_ALLOC), an order-9 folio discarded, or none found.
test_memcg_refused_thp_is_a_discarded_folio() {
	need_root
	mount_tracefs
	need_pmd_thp
	make_memcg 16
	run_workload_traced -e kmem:mm_page_alloc --filter 'order == 9' -- thp 16,15360
	local line pid huge got alloc9 discarded failed order0 outcomes
	line=$(cat "$T/workload")
	pid=$(json_field "$line" pid)
	huge=$(json_field "$line" huge_pages)
	outcomes=$(outcomes_of "$T/out" "$pid") || fail "no figures of $pid"
	read -r got alloc9 discarded failed order0 <<<"$outcomes"
	echo "workload: $huge huge pages (smaps); foliostat: $got got, $alloc9 order-9 folios," \
		"$discarded discarded, $failed found none"
	assert_between "$huge" 1 7 "huge pages the cgroup took (smaps), of 8 attempts"
	got=$(measured_or "$got" "$huge" "$T/out" memcg:count_memcg_events) || exit 1
	assert_eq "$got" "$huge" "THP faults that got a huge page (memcg THP_FAULT_ALLOC, or smaps)"
	assert_between "$discarded" 1 8 "order-9 folios discarded (charge refused)"
	assert_eq "$((got + discarded + failed))" 8 "attempts: got + discarded + none found"
	assert_eq "$alloc9" "$((got + discarded))" "order-9 folios allocated"
	# perf also counts the allocations that found no block (the kernel traces them with no page).
	assert_eq "$(perf_count "$T/perf" kmem:mm_page_alloc)" "$((alloc9 + failed))" \
		"perf's count of order-9 allocations (got and found none)"
	assert_between "$discarded" 1 "$(vmstat_delta inner thp_fault_fallback_charge)" \
		"discarded, within /proc/vmstat thp_fault_fallback_charge over the run"
	# The refused blocks' memory came in 4 KiB pages: (15 MiB - k huge pages) / 4 KiB at least.
	assert_between "$order0" $(((15360 - huge * 2048) / 4)) 100000000 "order-0 movable folios"
	if host_has_tracepoint memcg:count_memcg_events; then
		assert_sandwiched "$(query "$T/out" "sum(r['system']['thp']['fault_alloc'] for r in recs)")" \
			"$(vmstat_delta inner thp_fault_alloc)" "$(vmstat_delta outer thp_fault_alloc)" \
			"system THP faults that got a huge page, vs /proc/vmstat thp_fault_alloc"
	else
		assert_eq "$(query "$T/out" "sorted({r['system']['thp']['fault_alloc'] for r in recs}, key=str)")" \
			"[null]" "system THP faults that got a huge page, not measured here"
	fi
}

# The summary says it in one line per process: "thp faults  K got 2 MiB, D fell back (memcg
# limit, race), F fell back (none free)".
test_summary_says_why_thp_fell_back() {
	need_root
	need_pmd_thp
	make_memcg 16
	# -n: the name the process ends with. The wrapper shell moves itself into the memory cgroup
	# (its entry from before the move keeps the shell's name) and execs the workload.
	start_foliostat "$T/out" -n workload
	"${WRAP[@]}" "$WORKLOAD" thp 16,15360 >"$T/workload" || fail "workload failed"
	stop_foliostat "$T/out"
	local pid huge
	pid=$(json_field "$(cat "$T/workload")" pid)
	huge=$(json_field "$(cat "$T/workload")" huge_pages)
	cat "$T/out"
	# "n/a" where the kernel lacks the probe that counts the huge pages got (6.1).
	local got=$huge
	host_has_tracepoint memcg:count_memcg_events || got=n/a
	grep -A3 "^  pid $pid (workload)" "$T/out" |
		grep -qE "^    thp faults +$got got 2 MiB, [1-8] fell back \\(memcg limit, race\\), [0-7] fell back \\(none free\\)$" ||
		fail "no line saying why pid $pid's THP faults fell back"
}

# A process that has hugetlb take pages into its pool and give them back (no large allocation
# in between): the pool's pages are order-9 folios it allocated, as many as perf counts, and
# none of them is discarded, though the same thread frees them before any reaches an LRU list
# (pool pages never do): they are asked for with __GFP_RETRY_MAYFAIL, no fault's fallback.
test_hugetlb_pool_pages_are_not_discarded() {
	need_root
	mount_tracefs
	[ -w /proc/sys/vm/nr_hugepages ] || skip "no hugetlb pool to fill"
	run_workload_traced -e kmem:mm_page_alloc --filter 'order == 9' -- hugetlb 4
	local line pid taken got alloc9 discarded failed order0 outcomes
	line=$(cat "$T/workload")
	pid=$(json_field "$line" pid)
	taken=$(json_field "$line" taken)
	outcomes=$(outcomes_of "$T/out" "$pid") || fail "no figures of $pid"
	read -r got alloc9 discarded failed order0 <<<"$outcomes"
	echo "workload: hugetlb took $taken pages; foliostat: $alloc9 order-9 folios," \
		"$discarded discarded, $failed found none"
	assert_between "$taken" 1 4 "pages hugetlb's pool took"
	assert_eq "$((alloc9 + failed))" "$(perf_count "$T/perf" kmem:mm_page_alloc)" \
		"order-9 allocations (got and found none) vs perf"
	assert_between "$alloc9" "$taken" "$((taken + failed))" "order-9 folios allocated (the pool's)"
	assert_eq "$discarded" 0 "order-9 folios discarded"
}

# The same workload, born in a cgroup2 directory of its own, seen by cgroup: the cgroup's row
# shows its process's outcomes.
test_thp_outcomes_by_cgroup() {
	need_root
	need_pmd_thp
	make_memcg 16
	make_cgroups thp
	in_memcg thp
	local dir=${CGROUPS[thp]}
	start_foliostat "$T/out" -j -r 0 --by cgroup
	"${WRAP[@]}" "$WORKLOAD" --in-cgroup "$dir" thp 16,15360 >"$T/workload" || fail "workload failed"
	stop_foliostat "$T/out"
	local huge got alloc9 discarded failed order0 outcomes
	huge=$(json_field "$(cat "$T/workload")" huge_pages)
	outcomes=$(outcomes_of "$T/out" "${dir#"$CGROUP_ROOT"}") || fail "no figures of ${dir#"$CGROUP_ROOT"}"
	read -r got alloc9 discarded failed order0 <<<"$outcomes"
	echo "cgroup ${dir#"$CGROUP_ROOT"}: $got got, $discarded discarded, $failed found none; smaps: $huge"
	got=$(measured_or "$got" "$huge" "$T/out" memcg:count_memcg_events) || exit 1
	assert_eq "$got" "$huge" "the cgroup's THP faults that got a huge page"
	assert_eq "$((got + discarded + failed))" 8 "the cgroup's THP attempts"
	assert_between "$discarded" 1 8 "the cgroup's discarded order-9 folios"
}

# A file mapped after its pages were dropped from the page cache, read through the mapping by a
# forked child: its major and minor faults are what the kernel accounted to it (wait4's rusage
# over the child's whole life), exactly.
test_major_and_minor_faults_match_getrusage() {
	need_root
	make_uncached_file 16
	start_foliostat "$T/out" -j 0.5 -r 0
	"$WORKLOAD" faultcount "$FILE" >"$T/workload" || fail "workload failed"
	wait_next_record "$T/out"
	stop_foliostat "$T/out"
	assert_faults_match_wait4 "$T/out" "$T/workload"
	assert_records_add_up "$T/out"
}
