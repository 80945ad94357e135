#!/usr/bin/env python3
"""The data behind the documentation's pictures: gathered from a real run, and checked.

  picture_data.py collect --prometheus URL --layout FILE --phases FILE --records FILE
                          --start T --end T [--rows TITLES] [--step S] [--foliostat BIN]
                          [--about NAME=VALUE ...] -o RUN.json
      Queries a live Prometheus (that scraped `foliostat --listen` during the run) for every
      panel of the dashboard's sections named in --rows (the layout is what
      `tests/dashboard_queries.py --layout` prints), over [start, end] as Grafana would (a range
      query per time series panel, an instant one at the end for a stat panel); keeps the run's
      phases (one JSON object per line: name, cgroup, command, start, end, and the workload's
      own output), the records of `foliostat -j INTERVAL` run beside it (reduced to the figures
      the pictures use), the raw counters the checks need, and where the run happened.

  picture_data.py check RUN.json
      Checks that the data tells of the run it says happened: what each phase's workload reports
      of itself (huge pages in its smaps, pages of the file it read) is what foliostat's
      counters in Prometheus and its records say of that phase's cgroup, and the dashboard's
      series rise in the phase's span and not before it. Prints one line per check; exit 1 on
      a failed one.

Exit status 2 on a usage error (options, or a file that cannot be read).
"""

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import urllib.parse
import urllib.request

PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")


class UsageError(Exception):
    pass


def read_json_lines(path):
    try:
        with open(path, encoding="utf-8") as f:
            return [json.loads(line) for line in f if line.strip()]
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e.strerror}") from e


def prometheus_api(url, endpoint, **params):
    query = urllib.parse.urlencode(params)
    with urllib.request.urlopen(f"{url}/api/v1/{endpoint}?{query}", timeout=30) as reply:
        answer = json.load(reply)
    if answer.get("status") != "success":
        raise RuntimeError(f"{endpoint} {params}: {answer}")
    return answer["data"]


def rounded(value):
    """A sample's value as a number, to 6 significant digits (the picture needs no more)."""
    number = float(value)
    if number != number or number in (float("inf"), float("-inf")):
        return None
    return float(f"{number:.6g}")


def panel_series(url, target, start, end, step):
    if target["instant"]:
        data = prometheus_api(url, "query", query=target["expr"], time=end)
        return [{"labels": s["metric"], "values": [[s["value"][0], s["value"][1]]]}
                for s in data["result"]] if data["resultType"] == "vector" else []
    data = prometheus_api(url, "query_range", query=target["expr"], start=start, end=end,
                          step=step)
    return [{"labels": s["metric"], "values": [[t, rounded(v)] for t, v in s["values"]]}
            for s in data["result"]]


def instant_value(url, expr, at):
    """The one value of EXPR at AT, or None where it has no series."""
    result = prometheus_api(url, "query", query=expr, time=at)["result"]
    if len(result) > 1:
        raise RuntimeError(f"{expr}: {len(result)} series, expected one")
    return float(result[0]["value"][1]) if result else None


def reduce_record(record, cgroups):
    """What the pictures and checks use of one record: its time, the system's allocations by
    order, and the allocations and page-cache folios by order of each of CGROUPS."""
    return {
        "time": record["time"],
        "interval_s": record["interval_s"],
        "alloc": record["system"]["folios"]["alloc"],
        "cgroups": {
            row["cgroup"]: {"alloc": row["folios"]["alloc"],
                            "pagecache": row["folios"]["pagecache"]}
            for row in record.get("cgroups") or [] if row["cgroup"] in cgroups
        },
    }


def first_line(command):
    try:
        out = subprocess.run(command, capture_output=True, text=True, check=False).stdout
    except OSError:
        return None
    return out.splitlines()[0].strip() if out.strip() else None


def cpu_model():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() in ("model name", "CPU part", "Hardware"):
                    return value.strip()
    except OSError:
        pass
    return None


def collect(args):
    layout = json.load(open(args.layout, encoding="utf-8"))
    rows = set(args.rows.split(",")) if args.rows else None
    panels = []
    for panel in layout:
        # A section's row itself (its title), and the panels in it; those above every section
        # (the stat panels at the top) too.
        section = panel["title"] if panel["type"] == "row" else panel["row"]
        if panel["collapsed"] or (rows and section is not None and section not in rows):
            continue
        for target in panel["targets"]:
            target["series"] = panel_series(args.prometheus, target, args.start, args.end,
                                            args.step)
        panels.append(panel)
    phases = read_json_lines(args.phases)
    # The counters the checks compare with each phase's workload, read once at the end.
    counters = {}
    for phase in phases:
        selector = f'cgroup="{phase["cgroup"]}"'
        counters[phase["name"]] = {
            "order9_folios": instant_value(
                args.prometheus,
                f'sum(foliostat_folios_allocated_total{{{selector},order="9"}})', args.end),
            "pagecache_bytes": instant_value(
                args.prometheus, f"sum(foliostat_pagecache_added_bytes_total{{{selector}}})",
                args.end),
            "zero_filled_pages": instant_value(
                args.prometheus,
                f"sum(foliostat_thp_collapse_zero_filled_pages_total{{{selector}}})", args.end),
        }
    about = {
        "foliostat": first_line([args.foliostat, "--version"]),
        "kernel": platform.release(),
        "machine": platform.machine(),
        "cpu": cpu_model(),
        "nr_cpus": os.cpu_count(),
        "page_size": PAGE_SIZE,
        "prometheus": first_line(["prometheus", "--version"]),
        "gathered": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "step_s": args.step,
    }
    for item in args.about:
        name, _, value = item.partition("=")
        about[name] = value
    run = {
        "about": about,
        "span": {"start": args.start, "end": args.end},
        "phases": phases,
        "counters": counters,
        "panels": panels,
        "records": [reduce_record(r, {p["cgroup"] for p in phases})
                    for r in read_json_lines(args.records)],
    }
    with open(args.output, "w", encoding="utf-8") as f:
        json.dump(run, f, indent=None, separators=(",", ":"), sort_keys=True)
        f.write("\n")
    return 0


# Checking.

class Checks:
    def __init__(self):
        self.failed = 0

    def expect(self, condition, what):
        print(("ok: " if condition else "FAIL: ") + what)
        if not condition:
            self.failed += 1


def record_epoch(record):
    return datetime.datetime.fromisoformat(record["time"].replace("Z", "+00:00")).timestamp()


def records_sum(run, cgroup, kind, order):
    return sum(int(r["cgroups"].get(cgroup, {}).get(kind, {}).get(order, 0))
               for r in run["records"])


def panel(run, title):
    found = [p for p in run["panels"] if p["title"] == title]
    return found[0] if found else None


def series_rise(run, title, labels):
    """The times at which the series of panel TITLE matching LABELS is above zero."""
    times = []
    for target in (panel(run, title) or {"targets": []})["targets"]:
        for series in target.get("series", []):
            if all(series["labels"].get(k) == v for k, v in labels.items()):
                times += [float(t) for t, v in series["values"] if v]
    return times


def check(args):
    try:
        with open(args.run, encoding="utf-8") as f:
            run = json.load(f)
    except OSError as e:
        raise UsageError(f"cannot read {args.run}: {e.strerror}") from e
    checks = Checks()
    about = run.get("about", {})
    for key in ("foliostat", "kernel", "prometheus", "gathered"):
        checks.expect(bool(about.get(key)), f"the data says where it came from: {key} = "
                      f"{about.get(key)!r}")
    phases = {p["name"]: p for p in run.get("phases", [])}
    checks.expect({"thp", "reader"} <= set(phases), f"the run's phases: {sorted(phases)}")
    checks.expect(len(run.get("records", [])) >= 2, f"{len(run.get('records', []))} records")
    start, end = run["span"]["start"], run["span"]["end"]
    step = float(about.get("step_s", 1))

    thp = phases.get("thp")
    if thp:
        huge = int(thp["output"]["huge_pages"])
        counted = run["counters"]["thp"]["order9_folios"]
        checks.expect(huge > 0, f"the THP workload got {huge} huge pages (its smaps)")
        checks.expect(counted == huge, f"order-9 folios of its cgroup in Prometheus: {counted}, "
                      f"its smaps: {huge}")
        streamed = records_sum(run, thp["cgroup"], "alloc", "9")
        checks.expect(streamed == huge, f"order-9 folios of its cgroup in the records: "
                      f"{streamed}, its smaps: {huge}")
        rise = series_rise(run, "Folio orders by cgroup", {"cgroup": thp["cgroup"], "order": "9"})
        seen = [s["labels"] for t in (panel(run, "Folio orders by cgroup") or {"targets": []})
                ["targets"] for s in t.get("series", [])]
        checks.expect(bool(rise) and min(rise) >= thp["start"] - step,
                      f"its order-9 series on the dashboard rises at "
                      f"{min(rise) - start if rise else None} s, the workload started at "
                      f"{thp['start'] - start:.1f} s" +
                      ("" if rise else f" (the panel's series: {seen})"))
    reader = phases.get("reader")
    if reader:
        pages = int(reader["output"]["bytes"]) // PAGE_SIZE
        counted = (run["counters"]["reader"]["pagecache_bytes"] or 0) // PAGE_SIZE
        # (Its own start-up may add a few pages of its binary's and libraries' files.)
        checks.expect(pages <= counted <= pages + 64,
                      f"page-cache pages of the reader's cgroup in Prometheus: {counted:.0f}, "
                      f"the file's: {pages}")
        streamed = sum(int(n) << int(order) for r in run["records"] for order, n in
                       r["cgroups"].get(reader["cgroup"], {}).get("pagecache", {}).items())
        checks.expect(pages <= streamed <= pages + 64,
                      f"page-cache pages of the reader's cgroup in the records: {streamed}, "
                      f"the file's: {pages}")
    collapse = phases.get("collapse")
    if collapse and "anon_before" in collapse["output"]:
        output = collapse["output"]
        grown = int(output["anon_after"]) - int(output["anon_before"])
        counted = run["counters"]["collapse"].get("zero_filled_pages") or 0
        checks.expect(grown > 0 and counted == grown,
                      f"pages the collapses filled with zeroes, in Prometheus: {counted:.0f}, "
                      f"the workload's anonymous resident pages grew by {grown}")
    for phase in phases.values():
        checks.expect(start <= phase["start"] <= phase["end"] <= end,
                      f"phase {phase['name']} lies in the span queried")
    for p in run["panels"]:
        checks.expect(all("series" in t for t in p["targets"]), f"panel {p['title']!r} was queried")
    print(f"{'FAILED' if checks.failed else 'ok'}: {args.run}, {checks.failed} checks failed")
    return 1 if checks.failed else 0


def parse_arguments(argv):
    parser = argparse.ArgumentParser(description="The data of the documentation's pictures.")
    verbs = parser.add_subparsers(dest="verb", required=True)
    gather = verbs.add_parser("collect", help="query Prometheus after a run")
    gather.add_argument("--prometheus", required=True, metavar="URL")
    gather.add_argument("--layout", required=True, metavar="FILE")
    gather.add_argument("--phases", required=True, metavar="FILE")
    gather.add_argument("--records", required=True, metavar="FILE")
    gather.add_argument("--start", required=True, type=float, metavar="UNIX_TIME")
    gather.add_argument("--end", required=True, type=float, metavar="UNIX_TIME")
    gather.add_argument("--step", type=float, default=1.0, metavar="SECONDS")
    gather.add_argument("--rows", default="", metavar="TITLES",
                        help="the dashboard's sections to keep, by title, comma-separated "
                        "(default: every section not collapsed)")
    gather.add_argument("--foliostat", default="./foliostat", metavar="BIN")
    gather.add_argument("--about", action="append", default=[], metavar="NAME=VALUE")
    gather.add_argument("-o", dest="output", required=True, metavar="RUN.json")
    verify = verbs.add_parser("check", help="check a run's data")
    verify.add_argument("run", metavar="RUN.json")
    return parser.parse_args(argv)


def main(argv):
    args = parse_arguments(argv)
    try:
        return collect(args) if args.verb == "collect" else check(args)
    except UsageError as e:
        print(f"picture_data.py: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
