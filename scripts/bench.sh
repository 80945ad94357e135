#!/bin/bash
# The overhead benchmark (`make bench`, as root): a page-fault loop, bare and under each
# tracer, interleaved round by round, reported as ratios to bare; then the per-probe cost from
# the kernel's BPF run-time statistics beside the floor's and the empty programs' (the limit),
# with the programs' sizes, the loader's CPU and memory with a full table, the BPF maps' memory,
# and --files on file reads (scripts/bench_files.sh), and --resident's reading
# (scripts/bench_resident.sh). Writes the table to docs/benchmarks.md
# (RESULTS=path to write elsewhere).
#
# Environment: ROUNDS (default 11), SECS per run (default 3), STATS_ROUNDS for the per-probe cost
# (default 5), RING_ROUNDS for its context-switch workload (20000), PROCS for the loader test
# (10000; fewer where the host cannot wake that many on time: tests/bench/churn.c), SPANS and
# SPAN_SECS for the loader's CPU measure (5 spans of 10 s). PARTS, the
# parts to run (default all: "throughput probes loader files resident"; "probes" alone is the BPF time
# per fault against the floor and the limit, a few minutes); with only some, the results go to
# standard output unless RESULTS is given. FOLIOSTAT, the binary measured (default
# ./foliostat), to compare two builds.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-11}
SECS=${SECS:-3}
STATS_ROUNDS=${STATS_ROUNDS:-5}
PROCS=${PROCS:-10000}
SPANS=${SPANS:-5}
SPAN_SECS=${SPAN_SECS:-10}
ALL_PARTS="throughput probes loader files resident"
PARTS=${PARTS:-$ALL_PARTS}
FOLIOSTAT=${FOLIOSTAT:-./foliostat}
OUT=$(mktemp -d)
if [ "$PARTS" = "$ALL_PARTS" ]; then
	RESULTS=${RESULTS:-docs/benchmarks.md}
else
	RESULTS=${RESULTS:-$OUT/results.md}
fi
for part in $PARTS; do
	case " $ALL_PARTS " in
	*" $part "*) ;;
	*) echo "bench: PARTS: no part '$part' (parts: $ALL_PARTS)" >&2; exit 2 ;;
	esac
done
# part NAME: was it asked for?
part() {
	case " $PARTS " in *" $1 "*) return 0 ;; esac
	return 1
}
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$OUT"' EXIT

[ "$(id -u)" -eq 0 ] || { echo "bench: run as root" >&2; exit 1; }
[ -e /sys/kernel/tracing/events ] || mount -t tracefs tracefs /sys/kernel/tracing

# The bpftrace equivalent: count every tracepoint foliostat uses, by process, printed and
# cleared every second like foliostat's streaming mode (to /dev/null).
bpftrace_script() {
	sed -n 's/^FS_TRACEPOINT(\([a-z_]*\), \([a-z_0-9]*\))$/\1 \2/p' tests/bench/tracepoints.h |
		while read -r group event; do
			[ -d "/sys/kernel/tracing/events/$group/$event" ] &&
				echo "tracepoint:$group:$event { @[pid, comm, \"$event\"] = count(); }"
		done
	echo 'software:major-faults:1 { @[pid, comm, "major-faults"] = count(); }'
	echo 'software:minor-faults:1 { @[pid, comm, "minor-faults"] = count(); }'
	echo 'interval:s:1 { print(@); clear(@); }'
}
bpftrace_script >"$OUT/foliostat.bt"

# start_tracer CONFIG: start it and return once it is attached; sets TRACER.
start_tracer() {
	TRACER=
	case $1 in
	bare) return ;;
	foliostat) "$FOLIOSTAT" -j 1 >/dev/null 2>"$OUT/tracer.err" & ;;
	# The same programs counting each allocation's node, as on a host of several nodes
	# (the test build's FOLIOSTAT_TEST_COUNT_NODES; a host of one node counts none).
	nodes) FOLIOSTAT_TEST_COUNT_NODES=1 build/test-hooks/foliostat -j 1 >/dev/null 2>"$OUT/tracer.err" & ;;
	# The same programs charging every event to the CPU (no stack test, no entry found): what
	# finding the thread costs is foliostat's figure minus this one's (Makefile's
	# BENCH_UNATTRIBUTED).
	unattributed) build/bench-unattributed/foliostat -j 1 >/dev/null 2>"$OUT/tracer.err" & ;;
	bpftrace) bpftrace "$OUT/foliostat.bt" >"$OUT/tracer.out" 2>&1 & ;;
	floor) build/floor 2>"$OUT/tracer.err" & ;;
	empty) build/empty 2>"$OUT/tracer.err" & ;;
	esac
	TRACER=$!
	for _ in $(seq 300); do
		if ! kill -0 "$TRACER" 2>/dev/null; then
			echo "bench: $1 did not start: $(tail -3 "$OUT/tracer.err" "$OUT/tracer.out" 2>/dev/null)" >&2
			exit 1
		fi
		case $1 in
		foliostat | nodes | unattributed) grep -qx 'NoNewPrivs:[[:space:]]*1' "/proc/$TRACER/status" && break ;; # start-up done
		bpftrace) grep -q '^Attaching' "$OUT/tracer.out" 2>/dev/null && sleep 1 && break ;;
		floor | empty) grep -q 'attached' "$OUT/tracer.err" 2>/dev/null && break ;;
		esac
		sleep 0.1
	done
	sleep 0.5
}

stop_tracer() {
	[ -n "$TRACER" ] || return 0
	kill -INT "$TRACER"
	wait "$TRACER" || true
}

CONFIGS=(bare foliostat bpftrace floor empty)
THREAD_MODES=(1 "$(nproc)")
if part throughput; then
	echo "config threads round faults_per_s" >"$OUT/runs"
	for threads in "${THREAD_MODES[@]}"; do
		for round in $(seq "$ROUNDS"); do
			# Each round starts one configuration later than the last, so that no configuration
			# always runs right after another (a tracer's exit, a warm cache).
			start=$((round % ${#CONFIGS[@]}))
			for config in "${CONFIGS[@]:start}" "${CONFIGS[@]:0:start}"; do
				start_tracer "$config"
				rate=$(build/faultbench "$SECS" "$threads" |
					python3 -c 'import json,sys; print(json.load(sys.stdin)["faults_per_s"])')
				stop_tracer
				echo "$config $threads $round $rate" >>"$OUT/runs"
				echo "bench: $config, $threads thread(s), round $round: $rate faults/s" >&2
			done
		done
	done
fi

# Per-probe cost: the kernel's own accounting, switched on only for these runs (it adds two
# clock reads to every program run), for foliostat, its build without attribution, the floor
# and the empty programs in turn,
# STATS_ROUNDS times, on the fault loop and on context switches between address spaces (the
# ring of tests/workload.c: 8 processes on one CPU passing a token RING_ROUNDS times round a
# ring of pipes); links name each program's tracepoint, and `bpftool prog show` gives each
# program's size (translated instructions and JIT bytes) beside its statistics.
RING_ROUNDS=${RING_ROUNDS:-20000}
if part probes; then
	make -s -j2 TEST_HOOKS=1 >/dev/null
	make -s -j2 BENCH_UNATTRIBUTED=1 >/dev/null
	sysctl -q kernel.bpf_stats_enabled=1
	for round in $(seq "$STATS_ROUNDS"); do
		for config in foliostat nodes unattributed floor empty; do
			start_tracer "$config"
			build/faultbench "$SECS" 1 >"$OUT/stats.$config.$round.fault"
			bpftool prog show -j >"$OUT/stats.$config.$round.progs"
			bpftool link show -j >"$OUT/stats.$config.$round.links"
			[ "$config" = foliostat ] && bpftool map show -j >"$OUT/maps.json"
			# The ring's runs are what its reading adds to the loop's.
			cp "$OUT/stats.$config.$round.progs" "$OUT/switch.$config.$round.before"
			build/workload ring "$RING_ROUNDS" >"$OUT/switch.$config.$round.ring"
			bpftool prog show -j >"$OUT/switch.$config.$round.progs"
			bpftool link show -j >"$OUT/switch.$config.$round.links"
			if [ "$config" = foliostat ] && [ "$round" = 1 ]; then
				# The CPU's own counters per instruction, where the host has them (a PMU,
				# fentry): what `bpftool prog profile` says, or why it cannot.
				timeout 30 bpftool prog profile name fs_page_alloc duration 1 cycles instructions \
					>"$OUT/profile" 2>&1 &
				build/faultbench 2 1 >/dev/null
				wait $! || true
			fi
			stop_tracer
		done
	done
	sysctl -q kernel.bpf_stats_enabled=0
fi

# tracer_cpu_ns: the CPU time of every thread of the running tracer (--resident's sweep is a
# thread of its own), from the scheduler's own account.
tracer_cpu_ns() {
	cat /proc/"$TRACER"/task/*/schedstat 2>/dev/null | awk '{ sum += $1 } END { printf "%.0f\n", sum }'
}

# measure_loader NAME: the running tracer's CPU time from the scheduler's own account
# (nanoseconds, not clock ticks; all its threads), over SPANS spans of SPAN_SECS (the figure is
# their median), and its
# memory without the BPF maps the loader maps to read them in place (kernel memory, resident in
# full from start-up and listed with the maps below, as foliostat's own loader_rss_kib); into
# $OUT/loader.NAME.
measure_loader() {
	local file=$OUT/loader.$1 t0 t1 maps_kib
	: >"$file"
	for _ in $(seq "$SPANS"); do
		t0=$(tracer_cpu_ns)
		sleep "$SPAN_SECS"
		t1=$(tracer_cpu_ns)
		echo "cpu_ns $((t1 - t0)) $SPAN_SECS" >>"$file"
	done
	maps_kib=$(awk '/^[0-9a-f]+-[0-9a-f]+ / { in_map = /anon_inode:bpf-map/ }
		in_map && $1 == "Rss:" { sum += $2 } END { print sum + 0 }' "/proc/$TRACER/smaps")
	{
		echo "rss_kib $(($(awk '/^VmRSS/ { print $2 }' "/proc/$TRACER/status") - maps_kib))"
		echo "peak_kib $(($(awk '/^VmHWM/ { print $2 }' "/proc/$TRACER/status") - maps_kib))"
	} >>"$file"
}

# The loader with PROCS live processes in its table: streaming at a 1 s interval, then serving
# /metrics to a scraper that comes every second (the exporter reads the maps at each scrape,
# and at its own tick between them).
if part loader; then
	# Up to PROCS: as many as the host keeps waking on time (churn.c), started in batches;
	# the loader is measured once they all are.
	CHURN_STARTED=$OUT/churn.started build/churn "$PROCS" 2>/dev/null &
	CHURN=$!
	for _ in $(seq 600); do
		[ -s "$OUT/churn.started" ] && break
		kill -0 "$CHURN" 2>/dev/null || break
		sleep 1
	done
	[ -s "$OUT/churn.started" ] || { echo "bench: churn did not start its processes" >&2; exit 1; }
	KEPT=$(cat "$OUT/churn.started")
	echo "bench: churn keeps $KEPT of $PROCS processes" >&2
	sleep 3
	"$FOLIOSTAT" -j 1 >"$OUT/churn.ndjson" 2>/dev/null &
	TRACER=$!
	sleep 3
	measure_loader streaming
	echo "procs $(tail -1 "$OUT/churn.ndjson" | python3 -c 'import json, sys; print(json.load(sys.stdin)["system"]["processes"])')" >>"$OUT/loader.streaming"
	stop_tracer
	# The same with --resident: its sweep reads every process on the host again and again,
	# within its default budget; and what the last record says of its last whole pass.
	if part resident; then
		"$FOLIOSTAT" -j 1 --resident >"$OUT/churn-resident.ndjson" 2>/dev/null &
		TRACER=$!
		sleep 3
		measure_loader streaming-resident
		tail -1 "$OUT/churn-resident.ndjson" | python3 -c '
import json, sys
r = json.load(sys.stdin)["resident"]
print("passes", r["passes"])
print("pass_ms", round(r["seconds"] * 1000))
print("pass_cpu_ms", round(r["cpu_seconds"] * 1000))
print("read", r["processes_read"])' >>"$OUT/loader.streaming-resident"
		stop_tracer
	fi
fi

# serve_and_measure NAME ARGS...: foliostat --listen ARGS, scraped every second; its cost as
# measure_loader NAME, and what the last scrape said of itself.
serve_and_measure() {
	local name=$1 port scraper
	shift
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	"$FOLIOSTAT" --listen "127.0.0.1:$port" "$@" >/dev/null 2>&1 &
	TRACER=$!
	sleep 3
	while :; do curl -s -o "$OUT/scrape" "http://127.0.0.1:$port/metrics"; sleep 1; done &
	scraper=$!
	sleep 3
	measure_loader "$name"
	kill "$scraper"
	{
		echo "procs $(awk '$1 == "foliostat_system_processes" { print $2 }' "$OUT/scrape")"
		echo "series $(awk '$1 == "foliostat_series" { print $2 }' "$OUT/scrape")"
		echo "bytes $(wc -c <"$OUT/scrape")"
		echo "scrape_us $(awk '$1 == "foliostat_scrape_duration_seconds" { printf "%d", $2 * 1e6 }' "$OUT/scrape")"
	} >>"$OUT/loader.$name"
	stop_tracer
}
if part loader; then
	serve_and_measure endpoint-cgroup
	serve_and_measure endpoint-process --by process
	# --resident over every process on the host, while these live (the resident part's row).
	if part resident; then
		ROUNDS=$ROUNDS FOLIOSTAT=$FOLIOSTAT scripts/bench_resident.sh --host "$OUT/resident.host"
	fi
	kill -TERM "$CHURN"
	wait "$CHURN" || true
fi

# --resident's reading of what memory holds (scripts/bench_resident.sh): per GiB and per
# process, on a host the loader part no longer loads; and the host's runs made above.
if part resident; then
	HOST_RUNS=""
	[ -s "$OUT/resident.host" ] && HOST_RUNS=$OUT/resident.host
	ROUNDS=$ROUNDS FOLIOSTAT=$FOLIOSTAT HOST_RUNS=$HOST_RUNS HOST_PROCS=${KEPT:-} \
		scripts/bench_resident.sh >"$OUT/resident.md"
fi

# --files on a file-read workload (scripts/bench_files.sh): its section of the results.
if part files; then
	ROUNDS=$ROUNDS FOLIOSTAT=$FOLIOSTAT scripts/bench_files.sh >"$OUT/files.md"
fi

python3 scripts/bench_report.py "$OUT" "$ROUNDS" "$SECS" "${KEPT:-$PROCS}" "$STATS_ROUNDS" >"$RESULTS"
cat "$RESULTS"
