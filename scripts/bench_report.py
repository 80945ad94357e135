#!/usr/bin/env python3
"""Turn scripts/bench.sh's raw measurements into the markdown of docs/benchmarks.md."""
import json
import os
import statistics
import sys
from collections import defaultdict

out, rounds, secs, procs = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
stats_rounds = int(sys.argv[5])

runs = defaultdict(list)
by_round = defaultdict(dict)  # (threads, round) -> config -> rate
# Each part of the benchmark (PARTS in scripts/bench.sh) leaves its files; a part not run has no
# section.
if os.path.exists(f"{out}/runs"):
    with open(f"{out}/runs") as f:
        next(f)
        for line in f:
            config, threads, rnd, rate = line.split()
            runs[(config, int(threads))].append(float(rate))
            by_round[(int(threads), int(rnd))][config] = float(rate)

def host_description():
    """The CPU and kernel the figures come from: they move with both."""
    model = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
                  if line.startswith("model name")), "unknown CPU")
    hypervisor = " (virtual machine)" if " hypervisor" in open("/proc/cpuinfo").read() else ""
    with open("/proc/sys/kernel/osrelease") as f:
        kernel = f.read().strip()
    return f"{model}{hypervisor}, {os.cpu_count()} CPUs, Linux {kernel}"


print("# Benchmarks\n")
print("Produced by `make bench` (scripts/bench.sh); the method is in the section below.\n")
print(f"Host: {host_description()}.\n")


def throughput_section():
    print("## Fault loop: throughput as a ratio to bare\n")
    thread_modes = sorted({t for _, t in runs})
    print("| configuration | " + " | ".join(f"{t} thread{'s' if t > 1 else ''}" for t in thread_modes) + " |")
    print("|---|" + "---|" * len(thread_modes))
    for config in ("bare", "foliostat", "bpftrace", "floor", "empty"):
        cells = []
        for t in thread_modes:
            # Each round's ratio to its own bare run cancels the host's slow drift; the median
            # of the rounds is reported, with the middle half of them in brackets.
            ratios = sorted(r[config] / r["bare"] for (rt, _), r in by_round.items()
                            if rt == t and config in r and "bare" in r)
            if not ratios:
                cells.append("-")
                continue
            quarter, _, three_quarters = (statistics.quantiles(ratios, n=4, method="inclusive")
                                          if len(ratios) > 1 else ratios * 3)
            spread = f" ({quarter:.2f}-{three_quarters:.2f})" if config != "bare" else ""
            cells.append(f"{statistics.median(ratios):.3f}{spread}")
        print(f"| {config} | " + " | ".join(cells) + " |")
    print()
    print("Medians over the rounds of each round's ratio to the bare run of the same round; in "
          "brackets, the middle half of the rounds (the host's noise).\n")
    # How far foliostat is from the floor, round by round: the host's noise mostly cancels in the
    # difference of two ratios to the same bare run.
    for base, name in (("floor", "the floor"), ("empty", "the empty programs")):
        for t in thread_modes:
            gaps = [r["foliostat"] / r["bare"] - r[base] / r["bare"] for (rt, _), r in by_round.items()
                    if rt == t and all(c in r for c in ("bare", "foliostat", base))]
            if len(gaps) > 1:
                print(f"foliostat minus {name}, {t} thread(s): {statistics.mean(gaps):+.3f} "
                      f"(standard error {statistics.stdev(gaps) / len(gaps) ** 0.5:.3f}, "
                      f"{len(gaps)} rounds).")
    print()
    for t in thread_modes:
        bare = statistics.median(runs[("bare", t)])
        print(f"Bare, {t} thread(s): median {bare:,.0f} faults/s over {rounds} rounds of {secs} s, "
              f"{t * 1e9 / bare:,.0f} ns of a thread's time per fault.")
    print()
    print("What a fault costs depends on the host (CPU, hypervisor, kernel build): where it costs "
          "more, the same BPF work is a smaller share of it and every tracer's ratio is closer to 1. "
          "Compare ratios only within one run; across hosts, compare the per-probe cost beside the "
          "floor's below.\n")


if runs:
    throughput_section()


def load_progs(path):
    try:
        return {p["id"]: p for p in json.load(open(path))}
    except FileNotFoundError:
        return {}


# The programs foliostat, the floor and the empty programs attach to perf's software events, by
# the event.
PERF_EVENT_PROGRAMS = {
    "fs_fault_event": "software:page-faults",
    "fs_fault_major": "software:major-faults",
    "fs_fault_minor": "software:minor-faults",
    "floor_perf_major_faults": "software:major-faults",
    "floor_perf_minor_faults": "software:minor-faults",
}


def stats_run(workload, config, rnd):
    """One statistics run: {tracepoint: (program, runs, ns, instructions, JIT bytes)} and the
    workload's units of work (faults of the loop, passes of the ring's token). A run's figures
    are what its programs counted since the reading before it, if any; a program's size is as
    the kernel holds it (after the verifier's rewrites, every subprogram included)."""
    stem = f"{out}/{workload}.{config}.{rnd}"
    progs, before = load_progs(f"{stem}.progs"), load_progs(f"{stem}.before")
    if workload == "stats":
        units = json.load(open(f"{stem}.fault"))["faults"]
    else:
        ring = json.load(open(f"{stem}.ring"))
        units = ring["rounds"] * len(ring["pids"])
    by_tp = {}
    for link in json.load(open(f"{stem}.links")):
        prog = progs.get(link.get("prog_id"))
        if prog and "tp_name" not in link:
            # perf's software events (one link per CPU, one program): bpftool does not say
            # which event a link is, the program's name does.
            link = dict(link, tp_name=PERF_EVENT_PROGRAMS.get(prog.get("name")))
        if not prog or not link["tp_name"]:
            continue
        earlier = before.get(prog["id"], {})
        runs = prog.get("run_cnt", 0) - earlier.get("run_cnt", 0)
        if runs > 0:
            by_tp[link["tp_name"]] = (prog["name"], runs,
                                      prog["run_time_ns"] - earlier.get("run_time_ns", 0),
                                      prog.get("bytes_xlated", 0) // 8, prog.get("bytes_jited", 0))
    return by_tp, units


def ns_per_run(samples, tp):
    return statistics.median(s[tp][2] / s[tp][1] for s, _ in samples if tp in s)


def per_unit(samples):
    """The median over the runs of BPF time per unit, and the runs' least and most."""
    times = sorted(sum(v[2] for v in s.values()) / u for s, u in samples)
    return statistics.median(times), times[0], times[-1]


# The goals the per-fault figure is judged by: foliostat's BPF time at most this many times the
# empty programs' (the limit) and the floor's, on the same hooks, in every round.
GOAL_LIMIT, GOAL_FLOOR = 1.4, 1.1


def configs_run(workload, configs):
    """Each configuration's statistics runs, one per round; None for one not measured."""
    return [[stats_run(workload, c, r) for r in range(1, stats_rounds + 1)]
            if os.path.exists(f"{out}/{workload}.{c}.1.progs") else None for c in configs]


def probe_table(workload, title, unit, min_share):
    """The per-probe table of one workload: programs that ran at least min_share per unit,
    beside the same programs without attribution (finding the thread apart from counting), the
    floor's and the empty programs' (the limit) on the same tracepoint; then the time per unit,
    round by round, against the goals."""
    ours, unattributed, floor, empty = configs_run(
        workload, ("foliostat", "unattributed", "floor", "empty"))
    first, units = ours[0]
    print(f"## Per-probe cost, {title} (BPF run-time statistics, median of {stats_rounds} runs each)\n")
    print(f"| tracepoint | program | runs per {unit} | instructions | JIT bytes | ns per run "
          "| empty's | floor's | without attribution | finding the thread | own counting "
          "| above the floor |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")

    def base(runs, tp):
        return ns_per_run(runs, tp) if runs and any(tp in s for s, _ in runs) else None

    def diff(a, b):
        return f"{a - b:+.0f}" if a is not None and b is not None else "-"

    for tp, (name, cnt, _, insns, jited) in sorted(first.items(), key=lambda kv: -kv[1][1]):
        if cnt / units < min_share:
            continue
        mine = ns_per_run(ours, tp)
        limit, lowest, bare = base(empty, tp), base(floor, tp), base(unattributed, tp)
        cells = [tp, name, f"{cnt / units:.3f}", str(insns), str(jited), f"{mine:.0f}"]
        cells += [f"{b:.0f}" if b is not None else "-" for b in (limit, lowest, bare)]
        cells += [diff(mine, bare), diff(bare, limit), diff(mine, lowest)]
        print("| " + " | ".join(cells) + " |")
    print()
    print("Finding the thread is foliostat's figure minus the same programs' built to charge "
          "every event to the CPU (no stack test, no entry found: attribution.bpf.h, "
          "`make BENCH_UNATTRIBUTED=1`); own counting is that build's figure minus the empty "
          "programs' (the program's entry, the CPU's state and its counters).\n")
    (mine, low, high), (lowest, base_low, base_high), (limit, limit_low, limit_high) = (
        per_unit(ours), per_unit(floor), per_unit(empty))
    print(f"BPF time per {unit}: foliostat {mine:.0f} ns ({low:.0f}-{high:.0f}), the floor "
          f"{lowest:.0f} ns ({base_low:.0f}-{base_high:.0f}), the empty programs (the limit) "
          f"{limit:.0f} ns ({limit_low:.0f}-{limit_high:.0f})", end="")
    if unattributed:
        bare, bare_low, bare_high = per_unit(unattributed)
        print(f", foliostat without attribution {bare:.0f} ns ({bare_low:.0f}-{bare_high:.0f})",
              end="")
    print("; in brackets, the least and most of the runs. Statistics switched on, which adds its "
          "own clock reads to every run, the same for all.\n")
    print(f"foliostat per {unit}: {mine / limit:.2f} times the limit, {mine / lowest:.2f} times the "
          "floor.\n")
    # Round by round: the configurations of a round ran one after another, so each round's
    # ratios compare runs minutes apart, not hours.
    ratios = [(sum(v[2] for v in o[0].values()) / o[1],
               sum(v[2] for v in f[0].values()) / f[1],
               sum(v[2] for v in e[0].values()) / e[1]) for o, f, e in zip(ours, floor, empty)]
    met = sum(1 for o, f, e in ratios if o <= GOAL_LIMIT * e and o <= GOAL_FLOOR * f)
    over_limit = statistics.median(o / e for o, f, e in ratios)
    over_floor = statistics.median(o / f for o, f, e in ratios)
    print("Round by round, foliostat's time per " + unit + " over the limit's and the floor's: " +
          "; ".join(f"{o / e:.2f} and {o / f:.2f}" for o, f, e in ratios) +
          f" (medians {over_limit:.2f} and {over_floor:.2f}). Goals: at most {GOAL_LIMIT} times "
          f"the limit and {GOAL_FLOOR} times the floor; met in {met} of {len(ratios)} rounds, "
          f"{'and' if over_limit <= GOAL_LIMIT and over_floor <= GOAL_FLOOR else 'not'} by the "
          "medians.\n")
    # What runs on (nearly) every unit of work: the programs whose size is the hot path's.
    hot = [(name, insns, jited) for name, cnt, _, insns, jited in first.values()
           if cnt / units >= 0.5]
    if hot:
        print(f"The {len(hot)} programs that run at least every other {unit}: "
              f"{sum(h[1] for h in hot)} instructions in all as the kernel holds them "
              f"({sum(h[2] for h in hot)} bytes of JIT code); every path and subprogram is "
              "counted, not the instructions one run executes.\n")


def profile_note():
    """What the CPU's own counters say per program (`bpftool prog profile`), or why not."""
    if not os.path.exists(f"{out}/profile"):
        return
    text = open(f"{out}/profile").read().strip()
    if "cycles" in text and "Error" not in text:
        print("`bpftool prog profile` of fs_page_alloc over a second of the fault loop:\n")
        print("```\n" + text + "\n```\n")
    else:
        reason = text.splitlines()[0] if text else "no output"
        print(f"`bpftool prog profile` (the CPU's cycles and instructions per program) is not "
              f"available on this host: \"{reason}\". The statistics above are the per-program "
              "measure.\n")


def node_cost():
    """What counting each allocation's node costs the allocation probe: the release build on
    this host (no instruction of it where the host has one node) beside the test build made to
    count per node (FOLIOSTAT_TEST_COUNT_NODES=1), on the fault loop."""
    tp = "mm_page_alloc"
    runs = {config: [stats_run("stats", config, r) for r in range(1, stats_rounds + 1)]
            for config in ("foliostat", "nodes")}
    if not all(any(tp in s for s, _ in rs) for rs in runs.values()):
        return
    nodes = open("/sys/devices/system/node/has_memory").read().strip() \
        if os.path.exists("/sys/devices/system/node/has_memory") else "0"
    size = {c: next(s[tp][3] for s, _ in rs if tp in s) for c, rs in runs.items()}
    ns = {c: ns_per_run(rs, tp) for c, rs in runs.items()}
    print("## The node of each allocation\n")
    print(f"kmem:mm_page_alloc's program on this host (nodes with memory: {nodes}): "
          f"{size['foliostat']} instructions, {ns['foliostat']:.0f} ns per run; counting each "
          f"allocation's node as on a host of several nodes: {size['nodes']} instructions, "
          f"{ns['nodes']:.0f} ns per run ({ns['nodes'] - ns['foliostat']:+.0f} ns). On a host of "
          "one node the release build loads the program without the node code (fs_page_alloc); "
          "fs_page_alloc_by_node takes its place only where nodes are counted.\n")


if os.path.exists(f"{out}/maps.json"):
    probe_table("stats", "fault loop", "fault", 0)
    profile_note()
    node_cost()
    # On the ring, what runs at least once per 20 passes: at the switches, and the faults that
    # half of its members take in each turn (the first event of a thread after a switch).
    probe_table("switch", "context switches between address spaces (the ring)", "pass", 0.05)

    maps = [m for m in json.load(open(f"{out}/maps.json")) if m.get("name", "").startswith("fs_")]
    print("## BPF maps\n")
    print("| map | type | max entries | memlock bytes |")
    print("|---|---|---|---|")
    for m in maps:
        print(f"| {m['name']} | {m['type']} | {m['max_entries']:,} | {m.get('bytes_memlock', 0):,} |")
    print()


def loader_figures(name):
    figures = {"cpu_ns": []}
    for line in open(f"{out}/loader.{name}"):
        key, *values = line.split()
        if key == "cpu_ns":
            figures["cpu_ns"].append(int(values[0]) / (int(values[1]) * 1e9) * 100)
            figures["span_secs"] = int(values[1])
        else:
            figures[key] = int(values[0])
    shares = sorted(figures["cpu_ns"])
    cpu = (f"CPU: {statistics.median(shares):.2f}% of one CPU (median of {len(shares)} spans of "
           f"{figures['span_secs']} s: " + ", ".join(f"{x:.2f}%" for x in shares) + "); "
           f"RSS {figures['rss_kib'] / 1024:.1f} MiB, peak {figures['peak_kib'] / 1024:.1f} MiB")
    return figures, cpu


if os.path.exists(f"{out}/loader.streaming"):
    streaming, cpu = loader_figures("streaming")
    print(f"## Loader with {procs:,} live processes\n")
    print(f"Streaming, a JSON record every second: {cpu}; "
          f"the last record counted {streaming['procs']:,} active processes.\n")
    if os.path.exists(f"{out}/loader.streaming-resident"):
        swept, cpu = loader_figures("streaming-resident")
        passes = (f"its last whole pass (of {swept['passes']:,} so far) read {swept['read']:,} "
                  f"processes in {swept['pass_ms'] / 1000:.1f} s with {swept['pass_cpu_ms']} ms of "
                  "CPU" if swept["passes"] else "no pass ended within the measurement (it had read "
                  f"{swept['read']:,} processes by its end)")
        print(f"The same with `--resident` (its sweep reads every process on the host again and "
              f"again, within `--resident-budget` 2% of one CPU): {cpu}; {passes}.\n")
    for name, how in (("endpoint-cgroup", "per cgroup, the default"),
                      ("endpoint-process", "`--by process`: the top 20 of each read get a series, "
                                           "up to `--max-series` 1,000")):
        endpoint, cpu = loader_figures(name)
        print(f"Serving `/metrics` (`--listen`, {how}) to a scrape every second: {cpu}; the last "
              f"scrape counted {endpoint['procs']:,} active rows, exported {endpoint['series']:,} "
              f"groups in {endpoint['bytes'] / 1024:.0f} KiB, and took {endpoint['scrape_us'] / 1000:.1f} "
              "ms, its read of the maps included.\n")

# --files on file reads: scripts/bench_files.sh writes its own section.
if os.path.exists(f"{out}/files.md"):
    print(open(f"{out}/files.md").read(), end="")

# --resident's reading: scripts/bench_resident.sh writes its own section.
if os.path.exists(f"{out}/resident.md"):
    print(open(f"{out}/resident.md").read(), end="")

print(open("docs/benchmarks-method.md").read())
