# shellcheck shell=bash
# foliostat's own cost (--self, from the kernel's BPF statistics), and the benchmark's
# tracepoint list (tests/bench/) against the tracepoints foliostat attaches to.

# --self reports foliostat's own cost from the kernel's BPF statistics, which it switches on
# only while it runs: a program ran at least once per allocation of a known workload.
test_self_reports_its_own_cost() {
	need_root
	local before
	before=$(cat /proc/sys/kernel/bpf_stats_enabled)
	start_foliostat "$T/out" -j 0.5 --self
	"$WORKLOAD" pages 4096 >"$T/workload"
	wait_next_record "$T/out"
	# The loader's peak resident memory so far, from the kernel: no record can say more.
	local peak
	peak=$(awk '$1 == "VmHWM:" { print $2 }' "/proc/$FS_PID/status")
	stop_foliostat "$T/out"
	assert_between "$(query "$T/out" "sum(r['self']['probes']['kmem:mm_page_alloc']['events'] for r in recs)")" \
		4096 100000000 "mm_page_alloc program runs"
	assert_eq "$(query "$T/out" "all(r['self']['probes']['kmem:mm_page_alloc']['ns_per_event'] > 0 for r in recs if r['self']['probes']['kmem:mm_page_alloc']['events'])")" \
		true "time per event"
	assert_between "$(query "$T/out" "max(r['self']['loader_rss_kib'] for r in recs)")" 1 "$peak" \
		"loader RSS in KiB (VmHWM $peak)"
	assert_eq "$(cat /proc/sys/kernel/bpf_stats_enabled)" "$before" "kernel.bpf_stats_enabled after the run"
	"$FOLIOSTAT" -j -d 0.3 >"$T/plain"
	assert_records_valid "$T/plain"
	assert_eq "$(query "$T/plain" "'self' in recs[0]")" false "no self without --self"
}

# The benchmark's floor and bpftrace configurations attach to exactly foliostat's tracepoints.
test_bench_tracepoints_match_foliostat() {
	need_root
	"$FOLIOSTAT" -j -d 0.2 >"$T/out"
	assert_records_valid "$T/out"
	assert_eq "$(query "$T/out" "sorted(k for k, v in recs[0]['probes'].items() if not k.startswith('software:') and not v.startswith('not needed'))")" \
		"$(sed -n 's/^FS_TRACEPOINT(\([a-z_]*\), \([a-z_0-9]*\))$/\1:\2/p' tests/bench/tracepoints.h |
			python3 -c 'import json,sys; print(json.dumps(sorted(sys.stdin.read().split())))')" \
		"tracepoints in tests/bench/tracepoints.h"
}

# `make bench` completes on a small host in a short form (its parts that start tracers and
# processes: the per-probe cost and the loader among PROCS live processes) and its report says
# what each program costs: the allocation program ran once per fault of the fault loop (its
# own count of pages touched), beside the same programs without attribution, the floor and the
# empty programs, and the goals' verdict; the loader counted the processes the churn says it
# kept alive.
test_bench_completes_and_reports_each_program() {
	need_root
	make -s -j2 build/faultbench build/floor build/empty build/churn build/workload >/dev/null ||
		fail "building the bench's programs"
	PARTS="probes loader" STATS_ROUNDS=1 SECS=1 RING_ROUNDS=2000 PROCS=300 SPANS=1 SPAN_SECS=2 \
		RESULTS="$T/bench.md" FOLIOSTAT="$FOLIOSTAT" scripts/bench.sh >/dev/null 2>"$T/bench.err" ||
		fail "scripts/bench.sh: $(tail -3 "$T/bench.err")"
	local row kept counted
	row=$(grep '^| mm_page_alloc | fs_page_alloc |' "$T/bench.md" | head -1)
	[ -n "$row" ] || fail "no row for fs_page_alloc in the report"
	# Cells: tracepoint, program, runs per fault, instructions, JIT bytes, ns per run, empty's,
	# floor's, without attribution, finding the thread, own counting, above the floor.
	assert_between "$(echo "$row" | awk -F' \\| ' '{ printf "%d", $3 * 1000 }')" 950 1200 \
		"fs_page_alloc runs per 1000 faults of the loop"
	for cell in 6 7 8 9; do
		assert_between "$(echo "$row" | awk -F' \\| ' -v c="$cell" '{ print $c }')" 1 100000 \
			"fs_page_alloc's ns per run, column $cell"
	done
	grep -q '^Round by round, foliostat.s time per fault over the limit.s and the floor.s: [0-9.]* and [0-9.]* (medians [0-9.]* and [0-9.]*)\. Goals: at most 1.4 times the limit and 1.1 times the floor; met in [01] of 1 rounds, \(and\|not\) by the medians\.$' \
		"$T/bench.md" || fail "no verdict against the goals in the report"
	grep -q "^\`bpftool prog profile\`" "$T/bench.md" || fail "the report says nothing of bpftool prog profile"
	kept=$(sed -n 's/^bench: churn keeps \([0-9]*\) of 300 processes$/\1/p' "$T/bench.err")
	assert_between "$kept" 1 300 "processes the churn kept alive"
	counted=$(sed -n 's/^Streaming, .*the last record counted \([0-9,]*\) active processes\.$/\1/p' "$T/bench.md" | tr -d ,)
	# Each of them faults once a second, at its own moment of the second: one woken late has
	# its fault in the next record, so a record may miss a few.
	assert_between "$counted" $((kept * 95 / 100)) 100000 \
		"active processes in the streaming loader's last record (the churn kept $kept)"
	grep -qF "Serving \`/metrics\` (\`--listen\`, \`--by process\`" "$T/bench.md" || fail "no exporter figures"
}
