#!/usr/bin/env python3
"""What foliostat should report of its probes on this host, read from the host itself.

    host_probes.py FILE [--check] [--files] [--following] [--except=PROBE]

For each probe of the first record of FILE (under `check.probes` with --check), the state this
host calls for, derived without foliostat: a tracepoint is offered when tracefs lists it
(/sys/kernel/tracing/events/GROUP/EVENT) and kernel BTF has its btf_trace_EVENT typedef
(bpftool btf dump); both must agree. Then:
  - offered, and needed by the options given: "attached";
  - not offered: "unavailable: ..."; a probe that needs one not attached: "not attached: needs";
  - exceptions:* and tlb:tlb_flush on a machine other than x86-64: "unavailable" (x86 code alone
    emits them), and software:page-faults is foliostat's source of faults where neither
    exceptions tracepoint is offered, "not needed" where one is;
  - memcg:count_memcg_events "unavailable" where the memory controller is disabled
    (/proc/cgroups);
  - the --files (.../files, and FILES_ONLY) and -- COMMAND probes "not needed" without those
    options.
Without --check, each system figure a probe feeds is null exactly when its probe is not
attached, a number (or object) when it is: null never stands for 0. --except=PROBE sets aside
a probe whose state the test checks itself (one it made the kernel refuse), with the figures it
feeds. Prints what it checked; exits 1 on the first difference.
"""
import json
import os
import re
import subprocess
import sys

EVENTS = "/sys/kernel/tracing/events"
X86_ONLY = {"exceptions:page_fault_user", "exceptions:page_fault_kernel", "tlb:tlb_flush"}
# Probes of their own loaded only with --files (besides the .../files second programs).
FILES_ONLY = {"readahead:page_cache_ra_order"}
# The figures of system that each probe alone feeds (README.md, Requirements).
FEEDS = {
    "filemap:mm_filemap_fault": [("faults", "file")],
    "memcg:count_memcg_events": [("thp", "fault_alloc")],
    "huge_memory:mm_khugepaged_collapse_file": [("thp", "collapse_file")],
    "tlb:tlb_flush": [("tlb",)],
}


def die(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def btf_tracepoints():
    out = subprocess.run(["bpftool", "btf", "dump", "file", "/sys/kernel/btf/vmlinux"],
                         check=True, capture_output=True, text=True).stdout
    return set(re.findall(r"^\[\d+\] TYPEDEF 'btf_trace_(\w+)'", out, re.M))


def memcg_enabled():
    with open("/proc/cgroups") as f:
        for line in f:
            fields = line.split()
            if fields and fields[0] == "memory":
                return fields[3] != "0"
    return False


def main():
    args = sys.argv[2:]
    with open(sys.argv[1]) as f:
        rec = json.loads(f.readline())
    probes = dict(rec["check"]["probes"] if "--check" in args else rec["probes"])
    for arg in args:
        if arg.startswith("--except="):
            probes.pop(arg[len("--except="):])
    if not os.path.isdir(EVENTS):
        die(f"no {EVENTS}: mount tracefs first")
    btf = btf_tracepoints()
    x86 = os.uname().machine == "x86_64"

    def offered(name):
        group, event = name.split("/")[0].split(":")
        in_tracefs = os.path.isdir(f"{EVENTS}/{group}/{event}")
        if in_tracefs != (event in btf):
            die(f"{name}: tracefs {'lists' if in_tracefs else 'lacks'} it, kernel BTF "
                f"{'has' if event in btf else 'lacks'} btf_trace_{event}")
        return in_tracefs

    # A run may disable probes (FOLIOSTAT_DISABLE_PROBES, exported) to stand for a host without
    # them: foliostat then does as it would there.
    disabled = set(os.environ.get("FOLIOSTAT_DISABLE_PROBES", "").split(",")) - {""}

    def usable(name):
        return offered(name) and name not in disabled

    faults_from_exceptions = x86 and (usable("exceptions:page_fault_user") or
                                      usable("exceptions:page_fault_kernel"))
    expected = {}
    for name in probes:
        if name in disabled:
            expected[name] = "disabled by FOLIOSTAT_DISABLE_PROBES"
        elif name == "software:page-faults":
            expected[name] = ("not needed: the exceptions tracepoints count faults here"
                              if faults_from_exceptions else "attached")
        elif name.startswith("software:"):
            expected[name] = "attached"  # perf's software events: in every kernel with perf
        elif name in X86_ONLY and not x86:
            expected[name] = "unavailable"
        elif not offered(name):
            expected[name] = "unavailable"
        elif name == "memcg:count_memcg_events" and not memcg_enabled():
            expected[name] = "unavailable"
        elif (name.endswith("/files") or name in FILES_ONLY) and "--files" not in args:
            expected[name] = "not needed: --files is off"
        elif name == "sched:sched_process_fork" and "--following" not in args:
            expected[name] = "not needed: it follows the processes of -- COMMAND"
        else:
            expected[name] = "attached"
    for name, want in expected.items():
        got = probes[name]
        needs = re.fullmatch(r"not attached: needs (\S+)", got)
        if needs and expected.get(needs.group(1)) != "attached" and want == "attached":
            want = got  # it needs a probe this host does not offer
        if want == "unavailable" and got.startswith("unavailable"):
            want = got
        if got != want:
            die(f"probe {name}: {got!r}, this host calls for {want!r}")
    print(f"ok: {len(probes)} probes as this host offers them; not attached: "
          f"{', '.join(f'{k} ({v})' for k, v in sorted(probes.items()) if v != 'attached')}")
    if "--check" in args:
        return
    for name, paths in FEEDS.items():
        if name not in probes:
            continue
        for path in paths:
            value = rec["system"]
            for key in path:
                value = value[key]
            attached = probes.get(name) == "attached"
            if (value is None) == attached:
                die(f"system.{'.'.join(path)} is {json.dumps(value)[:40]} with {name} "
                    f"{probes.get(name)!r}")
            print(f"ok: system.{'.'.join(path)} {'measured' if attached else 'null'}: {name} "
                  f"{'attached' if attached else 'not'}")
    # Faults by access and cause come from the exceptions tracepoints alone.
    value = rec["system"]["faults"]["read"]
    if (value is None) == faults_from_exceptions:
        die(f"system.faults.read is {value} with faults from exceptions: {faults_from_exceptions}")
    # 6.1's mm_migrate_pages has no large_folio_split argument: its format says which.
    with open(f"{EVENTS}/migrate/mm_migrate_pages/format") as f:
        has_split = re.search(r"\blarge_folio_split;", f.read()) is not None
    value = rec["system"]["thp"]["migrate"]["large_folio_split"]
    if (value is None) == has_split:
        die(f"system.thp.migrate.large_folio_split is {value}; the tracepoint "
            f"{'has' if has_split else 'lacks'} the field")
    print(f"ok: faults.read and migrate.large_folio_split null exactly where the host lacks them")


main()
