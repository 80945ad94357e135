#!/usr/bin/env python3
"""Turn scripts/bench.sh's raw measurements into the markdown of docs/benchmarks.md."""
import json
import statistics
import sys
from collections import defaultdict

out, rounds, secs, procs = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])

runs = defaultdict(list)
with open(f"{out}/runs") as f:
    next(f)
    for line in f:
        config, threads, _, rate = line.split()
        runs[(config, int(threads))].append(float(rate))

print("# Benchmarks\n")
print("Produced by `make bench` (scripts/bench.sh); the method is in the section below.\n")
print("## Fault loop: throughput as a ratio to bare\n")
thread_modes = sorted({t for _, t in runs})
print("| configuration | " + " | ".join(f"{t} thread{'s' if t > 1 else ''}" for t in thread_modes) + " |")
print("|---|" + "---|" * len(thread_modes))
for config in ("bare", "foliostat", "bpftrace", "floor"):
    cells = []
    for t in thread_modes:
        bare = statistics.median(runs[("bare", t)])
        mine = statistics.median(runs[(config, t)])
        cells.append(f"{mine / bare:.3f}")
    print(f"| {config} | " + " | ".join(cells) + " |")
print()
for t in thread_modes:
    bare = statistics.median(runs[("bare", t)])
    print(f"Bare, {t} thread(s): median {bare:,.0f} faults/s over {rounds} rounds of {secs} s "
          "(absolute rates on a shared VM are noise; compare ratios).")
print()

progs = [p for p in json.load(open(f"{out}/progs.json")) if p.get("name", "").startswith("fs_")]
fault = json.load(open(f"{out}/stats.fault"))
print("## Per-probe cost (BPF run-time statistics, one fault-loop run)\n")
print("| program | runs | average ns per run | runs per fault |")
print("|---|---|---|---|")
for p in sorted(progs, key=lambda p: -p.get("run_cnt", 0)):
    cnt = p.get("run_cnt", 0)
    if not cnt:
        continue
    print(f"| {p['name']} | {cnt:,} | {p['run_time_ns'] / cnt:.0f} | {cnt / fault['faults']:.3f} |")
print()
per_fault = sum(p.get("run_time_ns", 0) for p in progs) / fault["faults"]
print(f"All foliostat programs: {per_fault:.0f} ns of BPF time per fault of the loop "
      "(statistics switched on, which adds its own clock reads to every run).\n")

maps = [m for m in json.load(open(f"{out}/maps.json")) if m.get("name", "").startswith("fs_")]
print("## BPF maps\n")
print("| map | type | max entries | memlock bytes |")
print("|---|---|---|---|")
for m in maps:
    print(f"| {m['name']} | {m['type']} | {m['max_entries']:,} | {m.get('bytes_memlock', 0):,} |")
print()

loader = {"cpu_ns": []}
for line in open(f"{out}/loader"):
    key, *values = line.split()
    if key == "cpu_ns":
        loader["cpu_ns"].append(int(values[0]) / (int(values[1]) * 1e9) * 100)
    else:
        loader[key] = int(values[0])
shares = sorted(loader["cpu_ns"])
print(f"## Loader with {procs:,} live processes, 1 s interval\n")
print(f"CPU: {statistics.median(shares):.2f}% of one CPU (median of {len(shares)} spans of 10 s: "
      + ", ".join(f"{x:.2f}%" for x in shares) + "); "
      f"RSS {loader['rss_kib'] / 1024:.1f} MiB, peak {loader['peak_kib'] / 1024:.1f} MiB; "
      f"the last record counted {loader['procs']:,} active processes.\n")

print(open("docs/benchmarks-method.md").read())
