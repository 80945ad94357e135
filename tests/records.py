#!/usr/bin/env python3
"""Questions about foliostat's NDJSON output, for the integration tests.

    records.py FILE EXPR

parses every line of FILE as JSON (failing loudly on anything that is not valid JSON), then
prints the value of the Python expression EXPR, which can use:
  recs                 the parsed records
  hist(pid, name)      the process's histogram `name` (e.g. "alloc") summed over all records
  system(name)         system.folios[name] summed over all records
  group(g, name)       system[g].folios[name] summed over all records (g: interrupt, untracked)
  folios(h), pages(h)  folios and pages (folios * 2^order) in a histogram
  comms(pid)           the names the process was reported under
  faults(pid, name)    the process's fault counter `name` (e.g. "user") summed over all records
  thp(pid, event)      the process's collapse results for `event` (e.g. "collapse"), summed
  vmstat(name)         system.thp.vmstat[name] summed over all records
  thp_sum(pid, key, field)   the process's thp[key][field] (e.g. "migrate", "succeeded") summed
  sys_thp_sum(key, field)    the same for system.thp
  tlb(pid, reason)     the process's TLB flushes for `reason`, summed
  lru(pid, lst, amount)      the process's LRU insertions on list `lst` ("folios" or "pages")
  reclaim(pid, kind, field)  the process's reclaim[kind][field] ("memcg", "stalls"), summed
  vmscan(who, figure[, prefix])  system.reclaim.vmscan[who][figure] over all records and the
                       lists (or those whose name starts with prefix, e.g. "inactive_")
  total(key, ...)      system[key][...] summed over all records (numbers, or maps of them
                       summed key by key, e.g. total("folios", "alloc"))
  order(h, o)          folios of order o in histogram h (0 where the order is left out)
  procs(pid)           the process's rows over all records (fails if it has none)
  cgroup_rows(path)    the rows of cgroup path (--by cgroup) over all records (fails if none)
  one(rows)            the only row of rows (fails unless there is exactly one)
  measured(x, what)    x, failing if it is null (not measured)

A figure is never read as 0 when it is not there: a process with no row in any record, a null
figure (its probe is not attached: not measured) or a missing member fails the query (exit 1,
a message on stderr) instead of counting as 0, so no numeric check can pass on it. A test that
wants "not measured" asks for the value itself and compares it with null. Only histograms and
maps whose contract leaves their zero entries out (order histograms, scan results) read an
absent entry as 0.
"""
import json
import sys


def load(path):
    recs = []
    with open(path, "rb") as f:
        for n, raw in enumerate(f, 1):
            line = raw.decode("utf-8")  # strict: invalid UTF-8 is a failure
            try:
                recs.append(json.loads(line))
            except json.JSONDecodeError as e:
                sys.exit(f"records.py: {path}:{n}: invalid JSON: {e}: {line[:200]!r}")
    return recs


def fail(message):
    sys.exit(f"records.py: {message}")


def measured(value, what):
    """value, which must be a figure: null (not measured) or absent fails, never 0."""
    if value is None:
        fail(f"{what} is null (not measured): it cannot pass a numeric check")
    return value


def member(obj, key, what):
    if not isinstance(obj, dict) or key not in obj:
        fail(f"{what}: no member {key!r}")
    return measured(obj[key], f"{what}.{key}")


def summed(hists, what="histogram"):
    """Sparse histograms (zero entries left out by contract) added order by order."""
    total = {}
    for h in hists:
        for order, n in measured(h, what).items():
            total[order] = total[order] + n if order in total else n
    return total


def add(acc, value, what):
    """Numbers added, maps of them added key by key (the keys of either)."""
    if isinstance(value, dict):
        acc = dict(acc or {})
        for key, sub in value.items():
            acc[key] = add(acc.get(key), measured(sub, f"{what}.{key}"), f"{what}.{key}")
        return acc
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        fail(f"{what} is {value!r}, not a number")
    return value if acc is None else acc + value


def main():
    path, expr = sys.argv[1], sys.argv[2]
    recs = load(path)

    if not recs:
        fail(f"{path}: no records")

    def procs(pid):
        # A process without a row has no figures, which is not having figures of 0.
        rows = [p for r in recs for p in r["processes"] if p["pid"] == pid]
        if not rows:
            fail(f"process {pid} has no row in any record of {path}")
        return rows

    def cgroup_rows(path_):
        rows = [g for r in recs for g in r["cgroups"] if g["cgroup"] == path_]
        if not rows:
            fail(f"cgroup {path_} has no row in any record of {path}")
        return rows

    def one(rows):
        if len(rows) != 1:
            fail(f"{len(rows)} rows where one was expected")
        return rows[0]

    def figures(pid, what, get):
        return [measured(get(p), f"process {pid}: {what}") for p in procs(pid)]

    def total(*keys):
        acc = None
        for n, r in enumerate(recs, 1):
            value, what = r["system"], f"record {n}: system"
            for key in keys:
                value = member(value, key, what)
                what += f".{key}"
            acc = add(acc, value, what)
        return acc

    def order(h, o):
        # Histograms leave their empty orders out (docs/foliostat.schema.json): absent is 0.
        return measured(h, "histogram").get(str(o), 0)

    def tlb_flushes(p, reason):
        # Every reason the kernel names is listed, zero or not: an absent one is an error.
        return member(member(p, "tlb", f"process {p['pid']}")["flushes"], reason,
                      f"process {p['pid']}: tlb.flushes")

    env = {
        "recs": recs,
        "hist": lambda pid, name: summed(figures(pid, f"folios.{name}", lambda p: p["folios"][name]),
                                         f"process {pid}: folios.{name}"),
        "system": lambda name: total("folios", name),
        "group": lambda g, name: total(g, "folios", name),
        "folios": lambda h: sum(measured(h, "histogram").values()),
        "pages": lambda h: sum(n << int(o) for o, n in measured(h, "histogram").items()),
        "comms": lambda pid: sorted({p["comm"] for p in procs(pid)}),
        "faults": lambda pid, name: sum(figures(pid, f"faults.{name}", lambda p: p["faults"][name])),
        "thp": lambda pid, event: summed(figures(pid, f"thp.{event}", lambda p: p["thp"][event]),
                                         f"process {pid}: thp.{event}"),
        "vmstat": lambda name: total("thp", "vmstat", name),
        "thp_sum": lambda pid, key, field: sum(
            member(measured(p["thp"][key], f"process {pid}: thp.{key}"), field,
                   f"process {pid}: thp.{key}") for p in procs(pid)),
        "sys_thp_sum": lambda key, field: total("thp", key, field),
        "tlb": lambda pid, reason: sum(tlb_flushes(p, reason) for p in procs(pid)),
        "lru": lambda pid, lst, amount: sum(
            member(member(member(p["lru"], "insert", f"process {pid}: lru"), lst,
                          f"process {pid}: lru.insert"), amount, f"process {pid}: lru.insert.{lst}")
            for p in procs(pid)),
        "reclaim": lambda pid, kind, field: sum(
            member(measured(p["reclaim"][kind], f"process {pid}: reclaim.{kind}"), field,
                   f"process {pid}: reclaim.{kind}") for p in procs(pid)),
        "vmscan": lambda who, figure, prefix="": sum(
            n for lst, n in total("reclaim", "vmscan", who, figure).items()
            if lst.startswith(prefix)),
        "total": total,
        "order": order,
        "procs": procs,
        "cgroup_rows": cgroup_rows,
        "one": one,
        "measured": measured,
        "summed": summed,
    }
    print(json.dumps(eval(expr, env)))


if __name__ == "__main__":
    main()
