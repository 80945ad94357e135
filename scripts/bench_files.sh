#!/bin/bash
# The --files benchmark (run by scripts/bench.sh, or alone, as root): FILE_COUNT files of FILE_MIB
# MiB on /var/tmp, each dropped from the page cache and read whole (build/workload read), bare,
# under foliostat and under foliostat --files, interleaved round by round; then what each of the
# two programs on mm_filemap_add_to_page_cache costs per addition (--self) and the --files maps'
# memory. Prints its section of docs/benchmarks.md (markdown) on standard output.
#
# Environment: ROUNDS (default 11), FILE_COUNT (16), FILE_MIB (16), FOLIOSTAT (./foliostat).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-11}
FILE_COUNT=${FILE_COUNT:-16}
FILE_MIB=${FILE_MIB:-16}
OUT=$(mktemp -d)
DIR=/var/tmp/foliostat-bench-files.$$
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$OUT" "$DIR"' EXIT

[ "$(id -u)" -eq 0 ] || { echo "bench_files: run as root" >&2; exit 1; }
# The binary under test, copied: a rebuild during the run does not change what is measured.
cp "${FOLIOSTAT:-./foliostat}" "$OUT/foliostat"
mkdir -p "$DIR"
for i in $(seq "$FILE_COUNT"); do
	head -c $((FILE_MIB << 20)) /dev/zero >"$DIR/file.$i"
done
sync

# read_files: read every file once, each dropped from the page cache first; prints the pages
# read per second.
read_files() {
	local t0 t1 file
	t0=$(date +%s%N)
	for file in "$DIR"/file.*; do
		build/workload read "$file" >/dev/null
	done
	t1=$(date +%s%N)
	echo $((FILE_COUNT * (FILE_MIB << 8) * 1000000000 / (t1 - t0)))
}

# start_tracer CONFIG [ARGS...]: start it, return once it has attached; sets TRACER.
start_tracer() {
	local config=$1
	shift
	TRACER=
	case $config in
	bare) return ;;
	foliostat) "$OUT/foliostat" "$@" >"$OUT/tracer.out" 2>"$OUT/tracer.err" & ;;
	files) "$OUT/foliostat" --files "$@" >"$OUT/tracer.out" 2>"$OUT/tracer.err" & ;;
	esac
	TRACER=$!
	for _ in $(seq 300); do
		grep -qx 'NoNewPrivs:[[:space:]]*1' "/proc/$TRACER/status" 2>/dev/null && break # start-up done
		kill -0 "$TRACER" 2>/dev/null || { echo "bench_files: $config failed to start:" \
			"$(cat "$OUT/tracer.err")" >&2; exit 1; }
		sleep 0.1
	done
	sleep 0.5
}

stop_tracer() {
	[ -n "$TRACER" ] || return 0
	kill -INT "$TRACER"
	wait "$TRACER" || true
}

read_files >/dev/null # a first read warms what the rounds share (the workload, the files' metadata)
CONFIGS=(bare foliostat files)
echo "config round pages_per_s" >"$OUT/runs"
for round in $(seq "$ROUNDS"); do
	start=$((round % ${#CONFIGS[@]}))
	for config in "${CONFIGS[@]:start}" "${CONFIGS[@]:0:start}"; do
		start_tracer "$config" -j 1
		rate=$(read_files)
		stop_tracer
		echo "$config $round $rate" >>"$OUT/runs"
		echo "bench_files: $config, round $round: $rate pages/s" >&2
	done
done

# The cost per addition, from the kernel's BPF run-time statistics (--self), and the maps.
start_tracer files -j --self
read_files >/dev/null
bpftool map show -j >"$OUT/maps.json"
stop_tracer
cp "$OUT/tracer.out" "$OUT/self.json"

python3 - "$OUT" "$ROUNDS" "$FILE_COUNT" "$FILE_MIB" <<'EOF'
import json
import statistics
import sys

out, rounds, count, mib = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
by_round = {}
with open(f"{out}/runs") as f:
    next(f)
    for line in f:
        config, rnd, rate = line.split()
        by_round.setdefault(int(rnd), {})[config] = int(rate)
print("## --files: file reads\n")
print(f"{count} files of {mib} MiB, each dropped from the page cache and read whole "
      "(`build/workload read`), bare, under foliostat with its default probes and under "
      f"`foliostat --files`, {rounds} rounds.\n")
print("| configuration | pages read per second, ratio to bare |")
print("|---|---|")
for config, label in (("bare", "bare"), ("foliostat", "foliostat"), ("files", "foliostat --files")):
    ratios = sorted(r[config] / r["bare"] for r in by_round.values())
    q1, _, q3 = statistics.quantiles(ratios, n=4, method="inclusive") if len(ratios) > 1 else ratios * 3
    spread = f" ({q1:.2f}-{q3:.2f})" if config != "bare" else ""
    print(f"| {label} | {statistics.median(ratios):.3f}{spread} |")
gaps = [r["files"] / r["bare"] - r["foliostat"] / r["bare"] for r in by_round.values()]
bare = statistics.median(r["bare"] for r in by_round.values())
print()
print(f"Bare: median {bare:,.0f} pages/s, {1e9 / bare:,.0f} ns per page. --files minus foliostat "
      f"without it, round by round: {statistics.mean(gaps):+.3f}" +
      (f" (standard error {statistics.stdev(gaps) / len(gaps) ** 0.5:.3f})" if len(gaps) > 1 else "") +
      ".\n")
rec = json.loads(open(f"{out}/self.json").readline())
probes = rec["self"]["probes"]
fs = {s["dev"]: s for s in rec.get("filesystems", [])}
print("Per addition (`--self`, one run of the same reads):\n")
print("| probe | additions | ns per run |")
print("|---|---|---|")
for name in ("filemap:mm_filemap_add_to_page_cache", "filemap:mm_filemap_add_to_page_cache/files"):
    p = probes.get(name)
    if p:
        print(f"| {name} | {p['events']:,} | {p['ns_per_event']:.0f} |")
print()
per_file = probes.get("filemap:mm_filemap_add_to_page_cache/files")
if per_file:
    per_page = per_file["events"] / (count * mib * 256)
    print(f"{per_page:.3f} additions per page read (large folios hold several pages): the per-file "
          f"program costs {per_page * per_file['ns_per_event']:.0f} ns per page read, "
          f"{per_page * per_file['ns_per_event'] * bare / 1e7:.2f}% of a page's time bare "
          "(the statistics' own clock reads included).\n")
files = sum(1 for f in rec.get("files", []))
print(f"The record listed {files} files (`--top` 20) on {len(fs)} file systems.\n")
maps = [m for m in json.load(open(f"{out}/maps.json"))
        if m.get("name", "").startswith(("fs_files_", "fs_file_devs_"))]
print("| map (--files, default --max-files) | type | max entries | memlock bytes |")
print("|---|---|---|---|")
for m in maps:
    print(f"| {m['name']} | {m['type']} | {m['max_entries']:,} | {m.get('bytes_memlock', 0):,} |")
print()
EOF
