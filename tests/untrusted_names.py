#!/usr/bin/env python3
"""Checks an output of foliostat's that holds processes and cgroups with untrusted names.

  untrusted_names.py KIND FILE BY EXPECT

KIND is json (NDJSON records), table (one-shot table) or exposition (Prometheus text); BY is
process or cgroup (the --by of the run), or file (the --files rows); for file, EXPECT has a line
"PAGES DEV INO PATH_HEX" per file read whole (pages, device as MAJOR:MINOR, inode, path's bytes);
otherwise EXPECT is a file with a line per workload:
"PID FAULTS CGROUP_ID CGROUP_HEX COMM_HEX": the process's pid, its minor and major faults as
wait4 counted them, its cgroup's id (the directory's inode), and the raw bytes of the cgroup's
path (below the cgroup2 mount) and of its name, in hex.

Each output must be well formed as its kind demands whatever the names (a table: no control byte
but newline, valid UTF-8, no bidirectional control; an exposition: every label value quoted and
escaped as the format allows, no control character; JSON: strict UTF-8), show each name by the
rule foliostat(8) documents ("Untrusted names"), and give each workload's faults as wait4 did.
Exit 1 with a message on the first problem, 2 on a usage error.
"""
import hashlib
import json
import re
import sys

LABEL_VALUE_MAX = 1024
LABEL_HASH_DIGITS = 16
BIDI = {0x061C, 0x200E, 0x200F, *range(0x2028, 0x202F), *range(0x2066, 0x206A)}


def is_control(cp):
    return cp < 0x20 or 0x7F <= cp <= 0x9F


def label_value(raw):
    """A label value as foliostat(8) says it is made from raw bytes (before escaping)."""
    text = raw.decode("utf-8", "replace")
    clean = "".join("\ufffd" if is_control(ord(c)) and c != "\n" else c for c in text)
    changed = clean != raw.decode("utf-8", "surrogateescape")
    if not changed and len(clean.encode()) <= LABEL_VALUE_MAX:
        return clean
    kept, size = "", 0
    for c in clean:
        size += len(c.encode())
        if size > LABEL_VALUE_MAX - 1 - LABEL_HASH_DIGITS:
            break
        kept += c
    return kept + "~" + hashlib.sha256(raw).hexdigest()[:LABEL_HASH_DIGITS]


def terminal_units(raw):
    """(shown text, columns) of each character or ill-formed byte, as the table shows it."""
    units = []
    for c in raw.decode("utf-8", "surrogateescape"):
        cp = ord(c)
        if 0xDC80 <= cp <= 0xDCFF:  # an ill-formed byte
            units.append((f"\\x{cp - 0xDC00:02x}", 4))
        elif is_control(cp) or cp in BIDI:
            units.append(("".join(f"\\x{b:02x}" for b in c.encode()), 4 * len(c.encode())))
        elif c == "\\":
            units.append(("\\\\", 2))
        else:
            units.append((c, 1))
    return units


def terminal_text(raw, width):
    units = terminal_units(raw)
    total = sum(w for _, w in units)
    if total <= width:
        return "".join(t for t, _ in units), total
    while total > width - 3:
        total -= units.pop(0)[1]
    return "..." + "".join(t for t, _ in units), total + 3


def fail(message):
    sys.exit(f"untrusted_names.py: {message}")


def read_expectations(path, by):
    out = []
    with open(path) as f:
        for line in f:
            if by == "file":
                pages, dev, ino, name = line.split()
                out.append({"pages": int(pages), "dev": dev, "ino": int(ino),
                            "path": bytes.fromhex(name)})
                continue
            pid, faults, cgroup_id, cgroup, comm = line.split()
            out.append({"pid": int(pid), "faults": int(faults), "cgroup_id": int(cgroup_id),
                        "cgroup": bytes.fromhex(cgroup), "comm": bytes.fromhex(comm)[:15]})
    return out


def unit_of(path):
    """The systemd unit that owns a cgroup: the .service or .scope that follows slices from the
    root (the test's paths: slices as systemd nests them, never below user.slice)."""
    for part in path.strip(b"/").split(b"/"):
        if part.endswith(b".service") or part.endswith(b".scope"):
            return part
        if not part.endswith(b".slice"):
            return None
    return None


def check_json(path, by, expected):
    with open(path, "rb") as f:
        recs = [json.loads(line.decode("utf-8")) for line in f]
    if by == "file":
        for e in expected:
            rows = [f for r in recs for f in r["files"]
                    if f["dev"] == e["dev"] and f["ino"] == e["ino"]]
            if [f["path"] for f in rows] != [e["path"].decode("utf-8", "replace")]:
                fail(f"{path}: file {e['path']!r}: {[f['path'] for f in rows]!r}")
            if rows[0]["pages"] != e["pages"]:
                fail(f"{path}: file {e['path']!r}: {rows[0]['pages']} pages, not {e['pages']}")
            print(f"ok: {path}: file {rows[0]['path']!r} with its {e['pages']} pages")
        return
    for e in expected:
        # A cgroup made since the last walk of the hierarchy may be unnamed (null) in a
        # record; it is named in a later one.
        cgroup = e["cgroup"].decode("utf-8", "replace")
        if by == "cgroup":
            rows = [g for r in recs for g in r["cgroups"] if g["cgroup_id"] == e["cgroup_id"]]
            unit = unit_of(e["cgroup"])
            for g in rows:
                if g["cgroup"] is not None and g["unit"] != (
                        unit.decode("utf-8", "replace") if unit else None):
                    fail(f"{path}: cgroup {g['cgroup']!r}: unit {g['unit']!r}")
        else:
            rows = [p for r in recs for p in r["processes"] if p["pid"] == e["pid"]]
            for p in rows:
                if p["comm"] != e["comm"].decode("utf-8", "replace"):
                    fail(f"{path}: pid {e['pid']}: comm {p['comm']!r}, expected "
                         f"{e['comm'].decode('utf-8', 'replace')!r}")
        if not rows:
            fail(f"{path}: no row for {e['cgroup'] if by == 'cgroup' else e['pid']!r}")
        named = {g["cgroup"] for g in rows} - {None}
        if named != {cgroup}:
            fail(f"{path}: {e['pid']}: cgroup named {named!r}, expected {cgroup!r}")
        faults = sum(g["faults"]["minor"] + g["faults"]["major"] for g in rows)
        if faults != e["faults"]:
            fail(f"{path}: {e['pid']}: {faults} minor and major faults, wait4 counted {e['faults']}")
        print(f"ok: {path}: {e['pid']}: {faults} faults, as wait4 counted")


def check_table(path, by, expected):
    with open(path, "rb") as f:
        raw = f.read()
    for i, b in enumerate(raw):
        if (b < 0x20 and b != 0x0A) or b == 0x7F:
            fail(f"{path}: byte 0x{b:02x} at offset {i}: {raw[max(0, i - 40):i + 20]!r}")
    text = raw.decode("utf-8")  # strict
    for c in text:
        if 0x80 <= ord(c) <= 0x9F or ord(c) in BIDI:
            fail(f"{path}: U+{ord(c):04X} shown raw")
    print(f"ok: {path}: no control byte but newline, valid UTF-8, no C1 nor bidirectional control")
    for e in expected:
        if by == "file":
            cell, columns = terminal_text(e["path"], 60)
            rows = [line for line in text.split("\n")
                    if line.startswith("  " + cell + " " * (60 - columns) + " ")]
            if len(rows) != 1 or int(rows[0][63:].split()[0]) != e["pages"]:
                fail(f"{path}: file {cell!r}: rows {rows!r}, expected {e['pages']} pages")
            print(f"ok: {path}: file {cell!r} with its {e['pages']} pages")
            continue
        if by == "cgroup":
            cell, columns = terminal_text(e["cgroup"], 23)
            start = cell + " " * (23 - columns)
        else:
            cell, columns = terminal_text(e["comm"], 15)
            start = f"{e['pid']:7d} " + cell + " " * (15 - columns)
        rows = [line[len(start):] for line in text.split("\n") if line.startswith(start + " ")]
        if len(rows) != 1:
            fail(f"{path}: {len(rows)} rows begin {start!r}")
        # FAULTS, found by its heading: user and kernel faults, retried ones included, so at
        # least wait4's completed ones and at most a few more.
        header = next(line.split() for line in text.split("\n")
                      if line.split()[:2] in (["PID", "COMM"], ["CGROUP", "ALLOC_MiB"]))
        faults = int(rows[0].split()[header.index("FAULTS") - (1 if by == "cgroup" else 2)])
        if not e["faults"] <= faults <= e["faults"] + 100:
            fail(f"{path}: {start!r}: {faults} faults, wait4 counted {e['faults']} completed")
        print(f"ok: {path}: {start!r} with {faults} faults (wait4: {e['faults']} completed)")


SAMPLE = re.compile(r'([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"(,|$)')


def parse_exposition(path):
    samples = []
    with open(path, "rb") as f:
        text = f.read().decode("utf-8")  # strict
    if not text.endswith("\n"):
        fail(f"{path}: does not end with a newline")
    for n, line in enumerate(text.split("\n")[:-1], 1):
        if line.startswith("#"):
            continue
        m = SAMPLE.fullmatch(line)
        if not m:
            fail(f"{path}:{n}: not a sample: {line[:200]!r}")
        labels, pos, body = {}, 0, m.group(2) or ""
        while pos < len(body):
            lm = LABEL.match(body, pos)
            if not lm:
                fail(f"{path}:{n}: labels that do not parse: {body[pos:pos + 200]!r}")
            value = re.sub(r'\\(.)', lambda x: "\n" if x.group(1) == "n" else x.group(1),
                           lm.group(2))
            if any(is_control(ord(c)) and c != "\n" for c in value):
                fail(f"{path}:{n}: a control character in {value!r}")
            labels[lm.group(1)] = value
            pos = lm.end()
        samples.append((m.group(1), labels, float(m.group(3))))
    return samples


def check_exposition(path, by, expected):
    samples = parse_exposition(path)
    print(f"ok: {path}: {len(samples)} samples, every label value well quoted")
    for e in expected:
        want = {"cgroup": label_value(e["cgroup"])}
        if by == "process":
            want.update(pid=str(e["pid"]), comm=label_value(e["comm"]))
        elif unit_of(e["cgroup"]):
            want["unit"] = label_value(unit_of(e["cgroup"]))

        def value(metric):
            found = [v for name, labels, v in samples
                     if name == metric and all(labels.get(k) == w for k, w in want.items())]
            if len(found) > 1:
                fail(f"{path}: {len(found)} series of {metric} with {want}")
            return found[0] if found else None

        minor = value("foliostat_minor_faults_total")
        if minor is None:
            fail(f"{path}: no foliostat_minor_faults_total series with {want}")
        major = value("foliostat_major_faults_total")
        if major is None:
            # A group's series appears once nonzero; the system's always, where measured. So
            # no group series is 0 only if the family is measured at all.
            if not any(name == "foliostat_system_major_faults_total" for name, _, _ in samples):
                fail(f"{path}: major faults not measured (no foliostat_system_major_faults_total)")
            major = 0
        faults = int(minor + major)
        if faults != e["faults"]:
            fail(f"{path}: {want}: {faults} minor and major faults, wait4 counted {e['faults']}")
        shown = {k: v if len(v) < 80 else v[:30] + "..." + v[-40:] for k, v in want.items()}
        print(f"ok: {path}: {shown} has {faults} faults, as wait4 counted")


def main():
    if len(sys.argv) != 5 or sys.argv[1] not in ("json", "table", "exposition") or \
            sys.argv[3] not in ("process", "cgroup", "file"):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    kind, path, by, expect = sys.argv[1:]
    {"json": check_json, "table": check_table, "exposition": check_exposition}[kind](
        path, by, read_expectations(expect, by))


if __name__ == "__main__":
    main()
