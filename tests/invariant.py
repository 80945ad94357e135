#!/usr/bin/env python3
"""Checks that no row is lost in user space: every record of foliostat's NDJSON adds up, exactly:

    invariant.py FILE [--threads-only]

What this can and cannot catch: the loader computes each system figure by adding the same
groups (processes, interrupt, untracked, unselected) it writes, so a group dropped or counted
twice between the maps and the output fails here; an event the BPF side counts twice or misses
does not (both sides have it). That is checked against the kernel's own counts of the same
events (tests/integration_kernel_counts.sh).

A figure that is null (not measured) must be null in the system and in every group; a null
beside a count, or a count missing from a map that lists every key, is a mismatch, never 0.

For every counter a process row has, the system figure is the sum of the processes', the
interrupt group's, the untracked group's and the unselected group's (threads outside a -c or
-- COMMAND selection); for the process-level figures (collapse outcomes, stall counts), the
system figure is the processes' plus the unattributed and untracked ones, checked only without a
selection (--threads-only skips them). The records must list every process (--top 0, no -p or
-n). Prints each record's totals for a few counters, and every mismatch; exits 1 if there is
one.
"""
import json
import os
import sys


def leaves(value, path=()):
    """(path, number) for every number under value, (path, None) for every null (a figure not
    measured); histograms are dicts of numbers too."""
    if isinstance(value, dict):
        for key, sub in value.items():
            yield from leaves(sub, path + (key,))
    elif value is None or (isinstance(value, (int, float)) and not isinstance(value, bool)):
        yield path, value


def sparse(path):
    """Is path an order of a folio histogram (folios.NAME.ORDER)? Histograms leave their
    empty orders out (docs/foliostat.schema.json): an absent order is 0. A key absent from
    any other map (faults, TLB reasons, LRU lists: every one listed) is an error."""
    return len(path) == 3 and path[0] == "folios"


def add_into(total, value, prefix=()):
    """Adds value's leaves into total; a null leaf makes its sum null only where every part
    is null (where parts disagree, the sum is "mixed", which matches no figure)."""
    for path, number in leaves(value):
        if path not in total:
            total[path] = number
        elif total[path] is None or number is None:
            total[path] = None if total[path] is None and number is None else "mixed"
        elif total[path] != "mixed":
            total[path] += number


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


SYSTEM_ONLY_FOLIOS = {"free", "alloc_by_node_and_order"}


def check_nodes(n, rec, problems):
    """Allocations by node and order: the rows have them, the groups that are no row only by
    node, so on each node the system's are the rows' plus the groups' folios; over the nodes,
    each order's are the system's allocations of that order."""
    system = rec["system"]
    by_order = system["folios"].get("alloc_by_node_and_order")
    if by_order is None:
        if any(p["folios"].get("alloc_by_node_and_order") is not None for p in rows(rec)):
            problems.append(f"record {n}: alloc_by_node_and_order: null in the system, not in every row")
        return
    for node, hist in by_order.items():
        want = sum(sum((p["folios"]["alloc_by_node_and_order"] or {}).get(node, {}).values())
                   for p in rows(rec))
        want += sum(system[g]["folios"]["alloc_by_node"][node]["folios"]
                    for g in ("interrupt", "untracked", "unselected"))
        if sum(hist.values()) != want:
            problems.append(f"record {n}: alloc_by_node_and_order[{node}]: system "
                            f"{sum(hist.values())} folios, rows + groups {want}")
    # Over the nodes, the allocations by order: a thread's by node and order are read just
    # after its counters, so an allocation under way at a read can be in one and not yet in the
    # other (one per CPU at most), and the next read evens it out: within a record, at most two
    # reads' worth apart.
    over_nodes = {}
    for hist in by_order.values():
        for order, folios in hist.items():
            over_nodes[order] = over_nodes.get(order, 0) + folios
    alloc = system["folios"]["alloc"] or {}
    for order in set(over_nodes) | set(alloc):
        if abs(over_nodes.get(order, 0) - alloc.get(order, 0)) > 2 * os.cpu_count():
            problems.append(f"record {n}: order {order}: alloc_by_node_and_order over the nodes "
                            f"{over_nodes.get(order, 0)}, the system's allocations {alloc.get(order, 0)}")


def check_record(n, rec, problems, threads_only):
    system = rec["system"]
    for group in THREAD_GROUPS:
        expected = {}
        for p in rows(rec):
            part = get(p, group)
            if group == ("folios",):  # by node and order: check_nodes()
                part = {k: v for k, v in part.items() if k not in SYSTEM_ONLY_FOLIOS}
            add_into(expected, part)
        add_into(expected, get(system["interrupt"], group))
        add_into(expected, get(system["untracked"], group))
        add_into(expected, get(system["unselected"], group))
        actual = {}
        # The system's folios also hold what no row has: frees, and allocations by node and
        # order, which the groups have only by node (check_nodes()).
        sys_group = get(system, group)
        if group == ("folios",):
            sys_group = {k: v for k, v in sys_group.items() if k not in SYSTEM_ONLY_FOLIOS}
        add_into(actual, sys_group)
        for path in set(actual) | set(expected):
            have = actual.get(path, 0 if sparse(group + path) else "absent")
            want = expected.get(path, 0 if sparse(group + path) else "absent")
            if have != want or have in ("absent", "mixed"):
                problems.append(f"record {n}: {'.'.join(group + path)}: system "
                                f"{have}, processes + interrupt + untracked + unselected {want}")
    check_nodes(n, rec, problems)
    if threads_only:
        return
    thp = system["thp"]
    for event in ("collapse", "collapse_file", "scan", "scan_file"):
        if thp[event] is None:
            # Not measured: then in no row either.
            if any(p["thp"][event] is not None for p in rows(rec)):
                problems.append(f"record {n}: thp.{event}: null in the system, not in every row")
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
        if sys_stalls is None:
            # Not measured: then in no row either.
            if any(get(p, path) is not None for p in rows(rec)):
                problems.append(f"record {n}: {'.'.join(path)}: null in the system, not in every row")
            continue
        if any(get(p, path) is None for p in rows(rec)):
            problems.append(f"record {n}: {'.'.join(path)}: null in a row, not in the system")
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

    def summary(get):
        """The records' sum of a figure for the summary line; null if one is not measured."""
        values = [get(x) for x in s]
        if any(v is None for v in values):
            return "null"
        return sum(sum(v.values()) if isinstance(v, dict) else v for v in values)

    print(f"{len(recs)} records: {summary(lambda x: x['faults']['user'])} user faults, "
          f"{summary(lambda x: x['folios']['alloc'])} folios allocated, "
          f"{summary(lambda x: x['untracked']['folios']['alloc'])} of them untracked, "
          f"{summary(lambda x: x['interrupt']['folios']['alloc'])} in interrupt "
          f"context, {summary(lambda x: x['tlb'] and x['tlb']['flushes'])} TLB flushes")
    for p in problems[:20]:
        print(p)
    if problems:
        sys.exit(f"invariant.py: {len(problems)} mismatches")


if __name__ == "__main__":
    main()
