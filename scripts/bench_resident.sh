#!/bin/bash
# The --resident benchmark (run by scripts/bench.sh, or alone, as root): what reading what
# memory holds costs, per GiB mapped and per process. Holders keep memory mapped
# (build/workload --linger): 1 GiB of THPs, 1 GiB of small pages, a 1 GiB file mapped and read
# (page cache in the orders readahead chose), and PROCS_HELD small processes; each is read
# ROUNDS times by a one-shot `foliostat --resident -p PID` (or -n for the small processes),
# and the scan's own time (the record's resident.seconds: the opener's opens, pagemap,
# kpageflags and smaps_rollup reads) is reported, median and range. With HOST_RUNS=FILE, the runs
# of every process on the host that `bench_resident.sh --host FILE` measured meanwhile get a
# row too (scripts/bench.sh measures them while its 10,000 processes live, and the rest after,
# on a host they no longer load). Prints its section of docs/benchmarks.md (markdown) on
# standard output.
#
# Environment: ROUNDS (default 11), PROCS_HELD (1000), FOLIOSTAT (./foliostat), HOST_RUNS,
# HOST_PROCS (the processes the host's runs were of, for the row's title).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-11}
PROCS_HELD=${PROCS_HELD:-1000}
OUT=$(mktemp -d)
FILE=/var/tmp/foliostat-bench-resident.$$
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$OUT" "$FILE"' EXIT

[ "$(id -u)" -eq 0 ] || { echo "bench_resident: run as root" >&2; exit 1; }
cp "${FOLIOSTAT:-./foliostat}" "$OUT/foliostat"

# hold NAME ARGS...: a workload doing ARGS, then holding its memory; its pid in $OUT/NAME.pid
# once it has reported (stdin from $OUT/NAME.go, for mapheld).
hold() {
	local name=$1
	shift
	mkfifo "$OUT/$name.go"
	build/workload --linger 3600 "$@" <"$OUT/$name.go" >"$OUT/$name.report" &
	exec {go}<>"$OUT/$name.go"
	for _ in $(seq 1200); do
		[ -s "$OUT/$name.report" ] && break
		sleep 0.05
	done
	head -1 "$OUT/$name.report" | python3 -c 'import json,sys; print(json.load(sys.stdin)["pid"])' \
		>"$OUT/$name.pid"
	if grep -q '"ready":true' "$OUT/$name.report"; then
		echo go >&"$go"
		for _ in $(seq 1200); do
			[ "$(wc -l <"$OUT/$name.report")" -ge 2 ] && break
			sleep 0.05
		done
	fi
}

# measure NAME ARGS...: ROUNDS one-shot runs of foliostat --resident ARGS; each run's
# "seconds processes_read pages" into $OUT/NAME.runs.
measure() {
	local name=$1
	shift
	for _ in $(seq "$ROUNDS"); do
		"$OUT/foliostat" --resident -r 0 -d 0.1 -j "$@" 2>/dev/null | python3 -c '
import json, sys
r = json.loads(sys.stdin.readline())["resident"]
pages = sum(sum(t["pages"].values()) for t in r["total"].values())
print(r["seconds"], r["processes_read"], pages)'
	done >"$OUT/$name.runs"
}

# --host FILE: only the runs over every process on the host, into FILE.
if [ "${1:-}" = --host ]; then
	measure host
	cp "$OUT/host.runs" "$2"
	exit 0
fi

head -c $((1 << 30)) /dev/zero >"$FILE"
sync "$FILE"
hold thp thp 1024
hold small pages 262144
hold file mapheld "$FILE"
for _ in $(seq "$PROCS_HELD"); do sleep 3600 & done
measure thp -p "$(cat "$OUT/thp.pid")"
measure small -p "$(cat "$OUT/small.pid")"
measure file -p "$(cat "$OUT/file.pid")"
measure procs -n sleep
if [ -n "${HOST_RUNS:-}" ]; then
	cp "$HOST_RUNS" "$OUT/host.runs"
fi

python3 - "$OUT" "$ROUNDS" "$PROCS_HELD" "$(getconf PAGESIZE)" "${HOST_PROCS:-}" <<'EOF'
import os, statistics, sys
out, rounds, held, page_size, churn = sys.argv[1:6]
page_size = int(page_size)

def runs(name):
    rows = [line.split() for line in open(f"{out}/{name}.runs") if line.strip()]
    return [(float(s), int(p), int(n)) for s, p, n in rows]

def span(values, fmt):
    values = sorted(values)
    return f"{fmt(statistics.median(values))} ({fmt(values[0])}-{fmt(values[-1])})"

print("## --resident: reading what memory holds\n")
print(f"One-shot `foliostat --resident` read of processes that hold their memory "
      f"(`build/workload --linger`), {rounds} runs each; the scan's own time (the record's "
      "`resident.seconds`: opening each process's files through the opener, reading pagemap, "
      "kpageflags and smaps_rollup), median and range.\n")
print("| what is read | processes | resident | scan time | per GiB | per process |")
print("|---|---|---|---|---|---|")
cases = [("thp", "1 GiB of THPs (`thp 1024`)"),
         ("small", "1 GiB of small pages (`pages 262144`)"),
         ("file", "a 1 GiB file mapped and read (`mapheld`)"),
         ("procs", f"{int(held):,} `sleep` processes (`-n sleep`)")]
if churn and os.path.exists(f"{out}/host.runs"):
    cases.append(("host", f"every process on the host, {int(churn):,} of them the loader part's "
                          "(measured while they lived, which load the CPUs)"))
for name, what in cases:
    r = runs(name)
    seconds = [s for s, _, _ in r]
    procs = statistics.median(p for _, p, _ in r)
    gib = statistics.median(n for _, _, n in r) * page_size / 2**30
    print(f"| {what} | {procs:,.0f} | {gib * 1024:,.0f} MiB | "
          f"{span(seconds, lambda s: f'{s * 1000:.1f} ms')} | "
          f"{statistics.median(seconds) * 1000 / gib:.1f} ms | "
          f"{statistics.median(seconds) * 1e6 / procs:.0f} us |")
print()
EOF
