#!/usr/bin/env python3
"""Checks that every record of foliostat's NDJSON adds up, exactly:

    invariant.py FILE [--threads-only]

For every counter a process row has, the system figure is the sum of the processes', the
interrupt group's, the untracked group's and the unselected group's (threads outside a -c or
-- COMMAND selection); for the process-level figures (collapse outcomes, stall counts), the
system figure is the processes' plus the unattributed and untracked ones, checked only without a
selection (--threads-only skips them). The records must list every process (--top 0, no -p or
-n). Prints each record's totals for a few counters, and every mismatch; exits 1 if there is
one.
"""
import json
import sys


def leaves(value, path=()):
    """(path, number) for every number under value; histograms are dicts of numbers too."""
    if isinstance(value, dict):
        for key, sub in value.items():
            yield from leaves(sub, path + (key,))
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        yield path, value


def add_into(total, value):
    for path, number in leaves(value):
        total[path] = total.get(path, 0) + number


# The counter groups of a process row, and where the interrupt and untracked groups keep them.
THREAD_GROUPS = [("folios",), ("faults",), ("tlb",), ("lru",), ("thp", "migrate"), ("thp", "fault_alloc")]


def get(obj, path):
    for key in path:
        if obj is None:
            return None
        obj = obj.get(key)
    return obj


def rows(rec):
    """The record's rows, whatever --by made them (processes, cgroups, comms)."""
    return rec[{"process": "processes", "cgroup": "cgroups", "comm": "comms"}[rec.get("by", "process")]]


def check_record(n, rec, problems, threads_only):
    system = rec["system"]
    for group in THREAD_GROUPS:
        expected = {}
        for p in rows(rec):
            add_into(expected, get(p, group))
        add_into(expected, get(system["interrupt"], group))
        add_into(expected, get(system["untracked"], group))
        add_into(expected, get(system["unselected"], group))
        actual = {}
        # System histograms also hold frees, which no process row has.
        sys_group = get(system, group)
        if group == ("folios",):
            sys_group = {k: v for k, v in sys_group.items() if k != "free"}
        add_into(actual, sys_group)
        for path in set(actual) | set(expected):
            if actual.get(path, 0) != expected.get(path, 0):
                problems.append(f"record {n}: {'.'.join(group + path)}: system "
                                f"{actual.get(path, 0)}, processes + interrupt + untracked + unselected "
                                f"{expected.get(path, 0)}")
    if threads_only:
        return
    thp = system["thp"]
    for event in ("collapse", "collapse_file", "scan", "scan_file"):
        if thp[event] is None:
            continue
        expected = {}
        for p in rows(rec):
            add_into(expected, p["thp"][event])
        add_into(expected, thp["unattributed"][event])
        add_into(expected, thp["untracked"][event])
        actual = {}
        add_into(actual, thp[event])
        if actual != expected:
            problems.append(f"record {n}: thp.{event}: system {actual}, "
                            f"processes + unattributed + untracked {expected}")
    stalls = [("thp", "compaction"), ("reclaim", "direct"), ("reclaim", "memcg")]
    for path in stalls:
        sys_stalls = get(system, path)
        if sys_stalls["stalls"] is None:
            continue
        procs = sum(get(p, path)["stalls"] for p in rows(rec))
        if sys_stalls["stalls"] != procs + sys_stalls["untracked"]:
            problems.append(f"record {n}: {'.'.join(path)}.stalls: system {sys_stalls['stalls']},"
                            f" processes {procs} + untracked {sys_stalls['untracked']}")


def main():
    problems = []
    threads_only = "--threads-only" in sys.argv[2:]
    with open(sys.argv[1]) as f:
        recs = [json.loads(line) for line in f]
    if not recs:
        sys.exit("invariant.py: no records")
    for n, rec in enumerate(recs, 1):
        if len(rows(rec)) != rec["system"]["processes"]:
            sys.exit(f"invariant.py: record {n} lists {len(rows(rec))} of "
                     f"{rec['system']['processes']} processes: run with --top 0")
        check_record(n, rec, problems, threads_only)
    s = [r["system"] for r in recs]
    print(f"{len(recs)} records: {sum(x['faults']['user'] or 0 for x in s)} user faults, "
          f"{sum(sum(x['folios']['alloc'].values()) for x in s)} folios allocated, "
          f"{sum(sum(x['untracked']['folios']['alloc'].values()) for x in s)} of them untracked, "
          f"{sum(sum(x['interrupt']['folios']['alloc'].values()) for x in s)} in interrupt "
          f"context, {sum(sum(x['tlb']['flushes'].values()) for x in s)} TLB flushes")
    for p in problems[:20]:
        print(p)
    if problems:
        sys.exit(f"invariant.py: {len(problems)} mismatches")


if __name__ == "__main__":
    main()
