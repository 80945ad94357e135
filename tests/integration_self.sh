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
