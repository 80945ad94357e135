#!/usr/bin/env python3
"""Reads a Prometheus text exposition of foliostat's and checks or extracts figures from it.

  exposition.py FILE --adds-up [--plus EARLIER LABEL=VALUE]...
                                       no group lost in user space: every per-group counter,
                                       summed over all its series (the groups and the
                                       group="..." ones), equals the system's foliostat_system_
                                       counter of the same labels, sample by sample; --plus adds
                                       a series that has ended since, as EARLIER (an exposition
                                       it was in) last showed it. The exporter makes the system
                                       figures by adding the same groups: an event the BPF side
                                       counts twice or misses passes here, and is checked
                                       against the kernel's counts elsewhere
                                       (tests/integration_kernel_counts.sh)
  exposition.py FILE --sum 'NAME{label="value",...}'
                                       the sum of the samples of NAME whose labels include those;
                                       fails if there is none (a group's series appears once
                                       nonzero, a family is absent where not measured: a test
                                       that expects 0 checks --count and the system's family)
  exposition.py FILE --count 'NAME{...}'
                                       how many samples match
  exposition.py FILE --labels NAME LABEL
                                       the values LABEL takes in NAME's samples, one per line

Exit 1 with a message when a check fails or the text does not parse; 2 on a usage error.
"""
import re
import sys

SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?')
# The system's figures that no group has (frees, the kernel's own counters, reclaim's scans).
SYSTEM_ONLY = {"folios_freed_total", "freed_bytes_total", "kernel_vmstat_total",
               "kernel_mthp_total", "vmscan_pages_total", "kswapd_wakes_total",
               "reclaim_written_pages_total", "processes"}
# What identifies a group: the labels the system's series do not have.
GROUP_LABELS = {"cgroup", "unit", "container_runtime", "container_id", "pod_uid", "qos_class",
                "pid", "start_time_s", "comm", "group"}


def parse_labels(text):
    labels, pos = {}, 0
    while text and pos < len(text):
        m = LABEL.match(text, pos)
        if not m:
            raise ValueError(f"bad labels: {text}")
        labels[m.group(1)] = m.group(2)
        pos = m.end()
    return labels


def parse(path):
    samples, seen = [], set()
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            m = SAMPLE.match(line)
            if not m:
                raise ValueError(f"{path}:{n}: not a sample: {line}")
            labels = parse_labels(m.group(2) or "")
            key = (m.group(1), tuple(sorted(labels.items())))
            if key in seen:
                raise ValueError(f"{path}:{n}: a second sample of the same series: {line}")
            seen.add(key)
            samples.append((m.group(1), labels, float(m.group(3))))
    return samples


def selector(text):
    m = re.match(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?$', text)
    if not m:
        raise SystemExit(f"exposition.py: bad selector {text}")
    return m.group(1), parse_labels(m.group(2) or "")


def matching(samples, text):
    name, want = selector(text)
    return [v for n, labels, v in samples
            if n == name and all(labels.get(k) == val for k, val in want.items())]


def adds_up(samples, ended=()):
    system = {}
    groups = {}
    parts = {}
    samples = list(samples) + list(ended)
    for name, labels, value in samples:
        if name.startswith("foliostat_system_"):
            system[(name[len("foliostat_system_"):], tuple(sorted(labels.items())))] = value
    for name, labels, value in samples:
        if name.startswith("foliostat_system_") or not name.startswith("foliostat_"):
            continue
        short = name[len("foliostat_"):]
        rest = tuple(sorted((k, v) for k, v in labels.items() if k not in GROUP_LABELS))
        if (short, rest) not in system:
            continue
        if (short, rest) not in groups:
            groups[(short, rest)] = parts[(short, rest)] = 0
        groups[(short, rest)] += value
        parts[(short, rest)] += 1
    problems = []
    checked = 0
    for key, total in system.items():
        if key[0] in SYSTEM_ONLY:
            continue
        checked += 1
        if key not in groups:
            # No group has a series of it: the system's must then have counted none.
            if total != 0:
                problems.append(f"foliostat_{key[0]}{dict(key[1])}: no group series, the "
                                f"system has {total:.9g}")
            continue
        # Counts are exact; seconds are written with 9 significant digits, half a unit of the
        # last one off in each group's and in the system's.
        slack = 0 if float(total).is_integer() else 5e-9 * abs(total) * (parts[key] + 1)
        if abs(groups[key] - total) > slack:
            problems.append(f"foliostat_{key[0]}{dict(key[1])}: groups sum to "
                            f"{groups[key]:.9g}, the system has {total:.9g}")
    # A group figure the system does not have would be counted nowhere.
    for key in groups:
        if key not in system:
            problems.append(f"foliostat_{key[0]}{dict(key[1])}: no system counterpart")
    return checked, problems


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        samples = parse(argv[1])
    except (OSError, ValueError) as e:
        print(f"exposition.py: {e}", file=sys.stderr)
        return 1
    if argv[2] == "--adds-up":
        ended, rest = [], argv[3:]
        while len(rest) >= 3 and rest[0] == "--plus":
            label, _, value = rest[2].partition("=")
            earlier = parse(rest[1])
            ended += [(n, l, v) for n, l, v in earlier if l.get(label) == value and
                      n.startswith("foliostat_") and not n.startswith("foliostat_system_")]
            rest = rest[3:]
        if rest:
            print(__doc__, file=sys.stderr)
            return 2
        checked, problems = adds_up(samples, ended)
        if problems:
            print("\n".join(problems[:20]), file=sys.stderr)
            return 1
        if not checked:
            print("exposition.py: no per-group counter with a system counterpart", file=sys.stderr)
            return 1
        print(checked)
    elif argv[2] == "--sum" and len(argv) == 4:
        values = matching(samples, argv[3])
        if not values:
            print(f"exposition.py: no sample of {argv[3]} in {argv[1]}", file=sys.stderr)
            return 1
        print(f"{sum(values):.0f}")
    elif argv[2] == "--count" and len(argv) == 4:
        print(len(matching(samples, argv[3])))
    elif argv[2] == "--labels" and len(argv) == 5:
        for value in sorted({labels[argv[4]] for n, labels, _ in samples
                             if n == argv[3] and argv[4] in labels}):
            print(value)
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
