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


def summed(hists):
    total = {}
    for h in hists:
        for order, n in h.items():
            total[order] = total.get(order, 0) + n
    return total


def main():
    path, expr = sys.argv[1], sys.argv[2]
    recs = load(path)

    def procs(pid):
        return [p for r in recs for p in r["processes"] if p["pid"] == pid]

    env = {
        "recs": recs,
        "hist": lambda pid, name: summed(p["folios"][name] for p in procs(pid)),
        "system": lambda name: summed(r["system"]["folios"][name] for r in recs),
        "group": lambda g, name: summed(r["system"][g]["folios"][name] for r in recs),
        "folios": lambda h: sum(h.values()),
        "pages": lambda h: sum(n << int(o) for o, n in h.items()),
        "comms": lambda pid: sorted({p["comm"] for p in procs(pid)}),
        "faults": lambda pid, name: sum(p["faults"][name] for p in procs(pid)),
        "thp": lambda pid, event: summed(p["thp"][event] for p in procs(pid)),
        "vmstat": lambda name: sum(r["system"]["thp"]["vmstat"].get(name, 0) for r in recs),
        "thp_sum": lambda pid, key, field: sum(p["thp"][key][field] for p in procs(pid)),
        "sys_thp_sum": lambda key, field: sum(r["system"]["thp"][key][field] for r in recs),
        "tlb": lambda pid, reason: sum(p["tlb"]["flushes"].get(reason, 0) for p in procs(pid)),
        "lru": lambda pid, lst, amount: sum(p["lru"]["insert"][lst][amount] for p in procs(pid)),
        "reclaim": lambda pid, kind, field: sum(p["reclaim"][kind][field] for p in procs(pid)),
        "vmscan": lambda who, figure, prefix="": sum(
            n for r in recs for lst, n in r["system"]["reclaim"]["vmscan"][who][figure].items()
            if lst.startswith(prefix)),
    }
    print(json.dumps(eval(expr, env)))


if __name__ == "__main__":
    main()
