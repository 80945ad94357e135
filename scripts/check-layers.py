#!/usr/bin/env python3
"""check-layers.py [ROOT] [--objects BUILD]: the loader's folders depend one way, and no header
includes itself.

The layers of user/ (ROOT, user/ by default), highest first:

    main.c, runs.c, start_up.c,  the wiring and the collector that drives the layers below,
    collector.c                  at the top of user/
    serve/  cli/                 the endpoint and the command line, side by side
    output/                      what is written
    group/                       rows, regrouping, the exporter's series
    collect/                     reading the kernel
    resident/                    resident memory per process
    base                         user/'s small helpers that anything may use (BASE below)
    bpf/                         what the kernel side and user space share, and the skeleton

A file may include a header of its own layer or of one below, never one above, nor one of a
layer beside its own (serve/ and cli/ know nothing of each other). A top-level file of user/ is
at the top unless BASE names it: a new helper is in the base only when it is said to be, so
that nothing below comes to depend on the wiring by accident.

`#include "x.h"` is resolved as the compiler resolves it: the including file's own folder
first, then the -I folders of the Makefile (every folder of user/, and bpf/); a generated
skeleton (*.skel.h, in the build folder) is bpf/'s. A header name used in two folders is an
error, since which one is meant would depend on the order of the -I flags. Header cycles (a.h
includes b.h, which includes a.h, directly or not) are errors too.

With --objects BUILD (the build's folder of objects, build/ by default), the same order holds
between the objects: none uses a function or variable that a higher layer's object (or one
beside) defines, whatever header declared it (nm, on the object of each source of ROOT).

Each finding is a line on standard output; the last line counts them. Exit status 1 when there
is one, 0 when there is none. tests/integration_layers.sh runs it.
"""
import os
import re
import subprocess
import sys

# The helpers at the top of user/ that every layer may include; they include none of the
# folders. A name here is a file stem: array.h and array.c.
BASE = {"array", "bounds", "cgroups", "event_loop", "mountinfo", "opener", "pmd_order", "proc_text",
        "process_start", "rows", "sandbox", "test_hooks", "words"}

# Rank of each layer: a file may include headers of a rank below its own, or of its own layer.
RANKS = {
    "top": 7,
    "serve": 6,
    "cli": 6,
    "output": 5,
    "group": 4,
    "collect": 3,
    "resident": 2,
    "base": 1,
    "bpf": 0,
}

# Symbols declared in a lower layer but defined above it, each with the reason (none today:
# a name here must say why it cannot move down).
DEFINED_ABOVE = {}

# `#include "x.h"` and `#include <x.h>`: with every folder on -I, an angle include of one of
# user/'s headers finds it too, and is held to the same order.
INCLUDE = re.compile(r'^\s*#\s*include\s*(?:"([^"]+)"|<([^>]+)>)', re.MULTILINE)


def layer_of(path, root, bpf):
    rel = os.path.relpath(path, root)
    if path.endswith(".skel.h") or os.path.commonpath([path, bpf]) == bpf:
        return "bpf"
    parts = rel.split(os.sep)
    if len(parts) == 1:
        stem = os.path.splitext(parts[0])[0]
        return "base" if stem in BASE else "top"
    if parts[0] not in RANKS:
        sys.exit(f"check-layers: {os.path.join(root, parts[0])}/ is in no layer: add it to RANKS")
    return parts[0]


def sources(root):
    for folder, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(files):
            if name.endswith((".c", ".h")):
                yield os.path.join(folder, name)


def object_findings(root, bpf, files, objects):
    """Uses of a symbol defined by a higher layer's object, or by one beside."""
    defined, used, findings = {}, {}, []
    examined = 0
    for source in files:
        if not source.endswith(".c"):
            continue
        obj = os.path.join(objects, os.path.relpath(source, root)[:-2] + ".o")
        if not os.path.exists(obj):
            continue  # not built in this configuration (http_server_absent.c, ...)
        examined += 1
        lines = subprocess.run(["nm", "-P", obj], check=True, capture_output=True,
                               text=True).stdout.splitlines()
        for line in lines:
            name, kind = line.split()[:2]
            if kind in "Uvw":
                used.setdefault(source, set()).add(name)
            elif kind.isupper():
                defined[name] = source
    if not examined:
        return [f"{objects}: no object of {root}'s sources: build first (make)"]
    for source, names in sorted(used.items()):
        mine = layer_of(source, root, bpf)
        for name in sorted(names):
            where = defined.get(name)
            if where is None or name in DEFINED_ABOVE:
                continue
            theirs = layer_of(where, root, bpf)
            if theirs == mine or RANKS[theirs] < RANKS[mine]:
                continue
            relation = "above" if RANKS[theirs] > RANKS[mine] else "beside"
            findings.append(f"{source}: uses {name}, defined in {where} ({theirs}/ is "
                            f"{relation} {mine}/)")
    return findings


def main():
    args = sys.argv[1:]
    objects = None
    if "--objects" in args:
        at = args.index("--objects")
        objects = args[at + 1] if at + 1 < len(args) else "build"
        del args[at:at + 2]
    root = os.path.normpath(args[0] if args else "user")
    bpf = os.path.normpath(os.path.join(root, "..", "bpf"))
    files = list(sources(root))
    folders = sorted({os.path.dirname(f) for f in files})
    findings = []

    # Where each header name lives, as the -I list finds it.
    homes = {}
    for f in files + list(sources(bpf)) if os.path.isdir(bpf) else files:
        if f.endswith(".h"):
            homes.setdefault(os.path.basename(f), []).append(f)
    for name, where in sorted(homes.items()):
        if len(where) > 1:
            findings.append(f"{name}: in {' and '.join(where)}: which one an include means "
                            "depends on the order of -I")

    def resolve(including, name, angle=False):
        local = os.path.normpath(os.path.join(os.path.dirname(including), name))
        if not angle and os.path.exists(local):
            return local
        for folder in folders + [bpf]:
            candidate = os.path.normpath(os.path.join(folder, name))
            if os.path.exists(candidate):
                return candidate
        if name.endswith(".skel.h"):
            return name
        return None

    graph = {}
    for f in files:
        with open(f, encoding="utf-8") as source:
            names = INCLUDE.findall(source.read())
        graph[f] = []
        mine = layer_of(f, root, bpf)
        for quoted, angled in names:
            name = quoted or angled
            target = resolve(f, name, angle=bool(angled))
            if target is None and angled:
                continue  # a system header
            if target is None:
                findings.append(f"{f}: includes \"{name}\", found in no folder of -I")
                continue
            if angled and name.endswith(".skel.h"):
                continue
            graph[f].append(target)
            theirs = layer_of(target, root, bpf)
            if theirs == mine:
                continue
            if RANKS[theirs] > RANKS[mine]:
                findings.append(f"{f}: includes {target} ({theirs}/ is above {mine}/)")
            elif RANKS[theirs] == RANKS[mine]:
                findings.append(f"{f}: includes {target} ({theirs}/ is beside {mine}/)")

    # Header cycles: a depth-first walk of the headers, each cycle reported once.
    state = {}
    stack = []
    cycles = set()

    def walk(header):
        state[header] = "open"
        stack.append(header)
        for target in graph.get(header, []):
            if not target.endswith(".h") or target not in graph:
                continue
            if state.get(target) == "open":
                cycle = stack[stack.index(target):]
                turn = cycle.index(min(cycle))
                cycles.add(tuple(cycle[turn:] + cycle[:turn]))
            elif target not in state:
                walk(target)
        stack.pop()
        state[header] = "done"

    for f in files:
        if f.endswith(".h") and f not in state:
            walk(f)
    for cycle in sorted(cycles):
        findings.append("header cycle: " + " -> ".join(cycle + (cycle[0],)))

    if objects is not None:
        findings += object_findings(root, bpf, files, objects)

    for finding in findings:
        print(finding)
    print(f"check-layers: {len(findings)} finding{'' if len(findings) == 1 else 's'} in {root}/")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
