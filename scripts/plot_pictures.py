#!/usr/bin/python3
"""The documentation's pictures, drawn from the data of a real run (tests/picture_data.py).

  plot_pictures.py dashboard RUN.json OUT.png
      The Grafana dashboard's first sections as Grafana lays them out (its 24-column grid, each
      panel's title, unit, stacking and legend format), each panel showing what its queries
      returned from Prometheus over the run. Grafana is not in Debian 12: this draws with
      matplotlib instead, and the picture says so.
  plot_pictures.py orders RUN.json OUT.png
      The host's memory allocated per second by folio order, from the records of
      `foliostat -j 1` run beside it, with the run's phases marked.
  plot_pictures.py verify RUN.json PNG...
      Each PNG names in its metadata the SHA-256 of the data it was drawn from: that must be
      RUN.json's, and drawing it again from RUN.json must give the same pixels.

Debian's python3-matplotlib (hence /usr/bin/python3). Exit status 1 when verify finds a
difference, 2 on a usage error.
"""

import argparse
import datetime
import hashlib
import io
import json
import os
import struct
import sys
import zlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)
from matplotlib import dates as mdates  # noqa: E402
from matplotlib import ticker  # noqa: E402

# Grafana's dark theme, roughly: the look a reader knows from a screenshot.
BACKGROUND, PANEL, BORDER, TEXT, FAINT = "#111217", "#181b1f", "#2c3235", "#ccccdc", "#8e8e8e"
PALETTE = ["#73bf69", "#f2cc0c", "#8ab8ff", "#ff780a", "#f2495c", "#5794f2", "#b877d9",
           "#705da0", "#37872d", "#fade2a", "#c4162a", "#1f60c4", "#8f3bb8", "#fa6400"]
PHASE_COLOUR = "#5794f2"
DPI = 90
GRID_COLUMN_IN, GRID_ROW_IN = 0.8, 0.42  # one of Grafana's 24 columns, one grid row (30 px)
# The sections of the dashboard drawn: the first screenful and the question behind it.
SECTIONS = (None, "Folio allocations", "Transparent huge pages", "Why no large folios")
METADATA_KEY = "Source"
LEGEND_ENTRIES = 9  # three lines of three under a panel


def load(path):
    with open(path, "rb") as f:
        raw = f.read()
    return json.loads(raw), hashlib.sha256(raw).hexdigest()


def utc(seconds):
    return datetime.datetime.fromtimestamp(float(seconds), datetime.timezone.utc)


def legend_text(template, labels):
    """Grafana's legend format: {{label}} replaced by the series' label."""
    text = template or ""
    if not text:
        return "{" + ", ".join(f'{k}="{v}"' for k, v in sorted(labels.items())) + "}"
    for name, value in labels.items():
        text = text.replace("{{" + name + "}}", value).replace("{{ " + name + " }}", value)
    while "{{" in text and "}}" in text:  # a label the series has not: Grafana leaves nothing
        head, _, rest = text.partition("{{")
        text = head + rest.partition("}}")[2]
    return text.strip()


def scaled_axis(unit):
    """A y-axis formatter for a Grafana unit, and the unit's text for the axis."""
    if unit == "percentunit":
        return ticker.PercentFormatter(1.0), ""
    if unit in ("Bps", "bytes"):
        def binary(value, _):
            for suffix in ("B", "KiB", "MiB", "GiB"):
                if abs(value) < 1024 or suffix == "GiB":
                    return f"{value:.3g} {suffix}"
                value /= 1024
            return str(value)
        return ticker.FuncFormatter(binary), "/s" if unit == "Bps" else ""
    if unit == "s":
        def duration(value, _):
            if value == 0:
                return "0"
            if abs(value) < 1e-3:
                return f"{value * 1e6:.3g} µs"
            return f"{value * 1e3:.3g} ms" if abs(value) < 1 else f"{value:.3g} s"
        return ticker.FuncFormatter(duration), ""
    return ticker.EngFormatter(sep=""), ""


def stat_text(panel):
    """What a stat panel shows: the last value (or the series' name, for text mode name)."""
    texts = []
    for target in panel["targets"]:
        for series in target.get("series", []):
            if panel.get("text_mode") == "name":
                texts.append(legend_text(target["legend"], series["labels"]))
                continue
            value = float(series["values"][-1][1])
            if panel["unit"] == "s":
                minutes, seconds = divmod(round(value), 60)
                texts.append(f"{minutes} min {seconds} s" if minutes else f"{seconds} s")
            else:
                texts.append(f"{value:,.0f}")
    return ", ".join(texts) or "No data"


def mark_phases(axes, run, label):
    for phase in run["phases"]:
        axes.axvspan(utc(phase["start"]), utc(phase["end"]), color=PHASE_COLOUR, alpha=0.12,
                     zorder=0, linewidth=0)
        if label:
            axes.text(utc(phase["start"]), 1.0, " " + phase["name"], color=PHASE_COLOUR,
                      transform=axes.get_xaxis_transform(), fontsize=7, va="top", ha="left")


def draw_timeseries(axes, panel, run):
    formatter, suffix = scaled_axis(panel["unit"])
    lines = []
    for target in panel["targets"]:
        for series in sorted(target.get("series", []), key=lambda s: sorted(s["labels"].items())):
            times = [utc(t) for t, _ in series["values"]]
            values = [v if v is not None else float("nan") for _, v in series["values"]]
            lines.append((legend_text(target["legend"], series["labels"]), times, values))
    if not lines:
        axes.text(0.5, 0.5, "No data", color=FAINT, ha="center", va="center",
                  transform=axes.transAxes, fontsize=11)
    colours = [PALETTE[i % len(PALETTE)] for i in range(len(lines))]
    if lines and panel["stacked"]:
        # Stacked as Grafana stacks: each series on the sum of those before it, on the union of
        # their timestamps (a series missing at a time adds nothing there).
        times = sorted({t for _, ts, _ in lines for t in ts})
        stacks = [[dict(zip(ts, vs)).get(t, 0.0) for t in times] for _, ts, vs in lines]
        stacks = [[0.0 if v != v else v for v in s] for s in stacks]
        axes.stackplot(times, *stacks, colors=colours, alpha=0.35, linewidth=0)
        base = [0.0] * len(times)
        for (name, _, _), stack, colour in zip(lines, stacks, colours):
            base = [b + v for b, v in zip(base, stack)]
            axes.plot(times, base, color=colour, linewidth=1, label=name)
    else:
        for (name, ts, vs), colour in zip(lines, colours):
            axes.plot(ts, vs, color=colour, linewidth=1.2, label=name)
            axes.fill_between(ts, vs, color=colour, alpha=0.1, linewidth=0)
    start, end = utc(run["span"]["start"]), utc(run["span"]["end"])
    axes.set_xlim(start, end)
    axes.set_ylim(bottom=0)
    axes.yaxis.set_major_formatter(formatter)
    axes.yaxis.set_major_locator(ticker.MaxNLocator(4))
    axes.xaxis.set_major_formatter(mdates.DateFormatter("%H:%M:%S", tz=datetime.timezone.utc))
    axes.xaxis.set_major_locator(ticker.MaxNLocator(6))
    if panel.get("axis_label") or suffix:
        axes.set_ylabel(panel.get("axis_label") or suffix, color=FAINT, fontsize=7)
    mark_phases(axes, run, label=False)
    if lines:
        # As much of the legend as the panel has room for (Grafana's would scroll): the series
        # that rose highest first.
        handles = sorted(zip(axes.get_lines(), lines),
                         key=lambda pair: -max((v for v in pair[1][2] if v == v), default=0))
        shown = handles[:LEGEND_ENTRIES]
        labels = [name for _, (name, _, _) in shown]
        if len(handles) > len(shown):
            labels[-1] += f"  (+{len(handles) - len(shown)} more series)"
        axes.legend([line for line, _ in shown], labels, loc="upper left",
                    bbox_to_anchor=(0, -0.14), ncol=3, fontsize=6.5, frameon=False,
                    labelcolor=TEXT, handlelength=1.2, columnspacing=1)


def style(axes):
    axes.set_facecolor(PANEL)
    for spine in axes.spines.values():
        spine.set_color(BORDER)
    axes.tick_params(colors=FAINT, labelsize=7)
    axes.grid(color=BORDER, linewidth=0.5)


def panel_box(figure, grid, height, top):
    """An axes where Grafana would put a panel at GRID, room left for title and legend."""
    width_in = 24 * GRID_COLUMN_IN
    left = grid["x"] * GRID_COLUMN_IN / width_in
    width = grid["w"] * GRID_COLUMN_IN / width_in
    y_top = 1 - (grid["y"] - top) * GRID_ROW_IN / height
    h = grid["h"] * GRID_ROW_IN / height
    return left, y_top - h, width, h


def close_gaps(drawn):
    """The grid's rows that none of the drawn panels covers (a section between two of SECTIONS
    that is not drawn) are left out: each panel moved up by the uncovered rows above it."""
    covered = set()
    for p in drawn:
        covered.update(range(p["grid"]["y"], p["grid"]["y"] + p["grid"]["h"]))
    top = min(covered)
    moved = []
    for p in drawn:
        gap = sum(1 for y in range(top, p["grid"]["y"]) if y not in covered)
        moved.append(dict(p, grid=dict(p["grid"], y=p["grid"]["y"] - gap)))
    return moved


def dashboard(run, out, digest):
    drawn = close_gaps([p for p in run["panels"] if p["title"] in SECTIONS and p["type"] == "row"
                        or p["row"] in SECTIONS and p["type"] != "row"])
    panels = [p for p in drawn if p["type"] != "row"]
    rows = [p for p in drawn if p["type"] == "row"]
    top = min(p["grid"]["y"] for p in panels)
    bottom = max(p["grid"]["y"] + p["grid"]["h"] for p in panels)
    caption_in = 0.9
    height = (bottom - top) * GRID_ROW_IN + caption_in
    figure = plt.figure(figsize=(24 * GRID_COLUMN_IN, height), facecolor=BACKGROUND)
    for panel in panels:
        left, low, width, h = panel_box(figure, panel["grid"], height, top)
        frame = figure.add_axes([left + 0.002, low + 0.002, width - 0.004, h - 0.004])
        frame.set_facecolor(PANEL)
        frame.set_xticks([])
        frame.set_yticks([])
        for spine in frame.spines.values():
            spine.set_color(BORDER)
        frame.text(0.01, 0.97, panel["title"], color=TEXT, fontsize=8.5, weight="bold",
                   va="top", transform=frame.transAxes)
        if panel["type"] == "stat":
            text = stat_text(panel)
            frame.text(0.5, 0.4, text, color="#73bf69", fontsize=18 if len(text) < 12 else 12,
                       ha="center", va="center", weight="bold", transform=frame.transAxes)
            continue
        # The plot inside the panel: below the title, above the legend.
        plot_h = h * 0.62
        axes = figure.add_axes([left + width * 0.07, low + h * 0.25, width * 0.9, plot_h])
        style(axes)
        draw_timeseries(axes, panel, run)
    for row in rows:
        y = 1 - (row["grid"]["y"] - top) * GRID_ROW_IN / height
        figure.text(0.004, y - 0.5 * GRID_ROW_IN / height, "▾ " + row["title"], color=TEXT,
                    fontsize=10, weight="bold", va="center")
    figure.text(0.004, 0.2 * caption_in / height, caption(run, "dashboard"), color=FAINT,
                fontsize=8, va="bottom", wrap=True)
    save(figure, out, run, digest, "dashboard")


def caption(run, picture):
    about = dict(run["about"])
    # "prometheus, version 2.42.0+ds (branch: ...)": the version is enough.
    words = (about.get("prometheus") or "").replace(",", "").split()
    if len(words) >= 3 and words[1] == "version":
        about["prometheus"] = f"Prometheus {words[2]}"
    when = about["gathered"][:10]
    host = f"Linux {about['kernel']} ({about['machine']}, {about.get('cpu') or 'CPU unknown'}, " \
        f"{about['nr_cpus']} CPUs)"
    phases = "; ".join(f"{p['name']}: {p['command']}" for p in run["phases"])
    if picture == "dashboard":
        return (f"foliostat's Grafana dashboard (contrib/grafana/foliostat.json), cgroup = "
                f"{about.get('cgroup_variable', '.*')}: its queries run against "
                f"{about['prometheus']} that scraped {about['foliostat']} (--listen) every "
                f"second on {host}, {when}. Drawn by scripts/plot_pictures.py with matplotlib, "
                f"not Grafana (not in Debian 12). Blue bands: the run's phases ({phases}).")
    return (f"The rows of the workloads' cgroups in the records of {about['foliostat']} -j --by "
            f"cgroup 1, each bar one record's interval, on {host}, {when}. Drawn by "
            f"scripts/plot_pictures.py. Blue bands: the workloads' spans ({phases}).")


def orders(run, out, digest):
    """The workloads' allocations (their cgroups' rows, summed) per record, by folio order."""
    records = run["records"]
    page_size = run["about"]["page_size"]
    cgroups = {p["cgroup"] for p in run["phases"]}

    def allocated(record):
        total = {}
        for name, row in record["cgroups"].items():
            if name in cgroups:
                for order, n in row["alloc"].items():
                    total[int(order)] = total.get(int(order), 0) + int(n)
        return total

    per_record = [allocated(r) for r in records]
    found = sorted({o for a in per_record for o in a})
    # A record's figures are those of its interval, which ends at its time.
    ends = [datetime.datetime.fromisoformat(r["time"].replace("Z", "+00:00")) for r in records]
    widths = [datetime.timedelta(seconds=r["interval_s"]) for r in records]
    starts = [end - width for end, width in zip(ends, widths)]
    mib_per_s = {
        order: [a.get(order, 0) * (page_size << order) / r["interval_s"] / 2**20
                for a, r in zip(per_record, records)]
        for order in found
    }
    figure, (axes, share_axes) = plt.subplots(
        2, 1, figsize=(12, 6.5), sharex=True, facecolor=BACKGROUND,
        gridspec_kw={"height_ratios": [3, 1], "hspace": 0.08})
    colours = matplotlib.colormaps["viridis"].resampled(max(len(found), 2))
    base = [0.0] * len(records)
    for i, order in enumerate(found):
        size = page_size << order
        name = f"order {order} ({size // 1024} KiB)" if size < 2**20 else \
            f"order {order} ({size // 2**20} MiB)"
        axes.bar(starts, mib_per_s[order], width=widths, bottom=base, align="edge",
                 color=colours(i), label=name, edgecolor=PANEL, linewidth=0.5)
        base = [b + v for b, v in zip(base, mib_per_s[order])]
    large = [sum(mib_per_s[o][i] for o in found if o > 0) for i in range(len(records))]
    share_axes.bar(starts, [lg / t if t else 0 for lg, t in zip(large, base)], width=widths,
                   align="edge", color="#f2cc0c", edgecolor=PANEL, linewidth=0.5)
    for a in (axes, share_axes):
        style(a)
        mark_phases(a, run, label=a is axes)
        a.set_xlim(utc(run["span"]["start"]), utc(run["span"]["end"]))
    axes.set_ylabel("MiB allocated per second", color=TEXT, fontsize=9)
    axes.set_title("What the workloads allocated per second, by folio order", color=TEXT,
                   fontsize=11, loc="left")
    axes.legend(loc="upper left", fontsize=7.5, frameon=False, labelcolor=TEXT)
    share_axes.set_ylabel("in large folios", color=TEXT, fontsize=9)
    share_axes.set_ylim(0, 1)
    share_axes.yaxis.set_major_formatter(ticker.PercentFormatter(1.0))
    share_axes.xaxis.set_major_formatter(mdates.DateFormatter("%H:%M:%S", tz=datetime.timezone.utc))
    figure.text(0.01, 0.01, caption(run, "orders"), color=FAINT, fontsize=7.5, wrap=True)
    figure.subplots_adjust(left=0.07, right=0.98, top=0.94, bottom=0.14)
    save(figure, out, run, digest, "orders")


def save(figure, out, run, digest, picture):
    """Into OUT (a path or a file object), with the digest of the data it was drawn from."""
    metadata = {
        "Title": f"foliostat: {picture}",
        METADATA_KEY: f"sha256:{digest} (scripts/plot_pictures.py over the data of a real run)",
        "Software": f"scripts/plot_pictures.py, matplotlib {matplotlib.__version__}",
        "Description": caption(run, picture),
    }
    figure.savefig(out, format="png", dpi=DPI, facecolor=figure.get_facecolor(), metadata=metadata)
    plt.close(figure)


def png_text(path):
    """The PNG's tEXt chunks, as a dict (the standard library is enough to read them)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path} is no PNG")
    texts, at = {}, 8
    while at + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        if kind == b"tEXt":
            key, _, value = body.partition(b"\0")
            texts[key.decode("latin-1")] = value.decode("latin-1")
        elif kind == b"zTXt":
            key, _, value = body.partition(b"\0")
            texts[key.decode("latin-1")] = zlib.decompress(value[1:]).decode("latin-1")
        at += 12 + length
    return texts


DRAW = {"dashboard": dashboard, "orders": orders}


def picture_kind(path):
    name = os.path.basename(path)
    for kind in DRAW:
        if name.startswith(kind):
            return kind
    raise ValueError(f"{path}: the name says neither dashboard nor orders")


def verify(run_path, pictures):
    run, digest = load(run_path)
    failed = 0
    for path in pictures:
        try:
            source = png_text(path).get(METADATA_KEY, "")
            kind = picture_kind(path)
        except (OSError, ValueError) as e:
            print(f"FAIL: {e}")
            failed += 1
            continue
        if not source.startswith(f"sha256:{digest} "):
            print(f"FAIL: {path} was drawn from other data ({source or 'no Source in it'}), "
                  f"not from {run_path} (sha256:{digest})")
            failed += 1
            continue
        redrawn = io.BytesIO()
        DRAW[kind](run, redrawn, digest)
        redrawn.seek(0)
        same = plt.imread(redrawn, format="png").tobytes() == plt.imread(path).tobytes()
        print(("ok: " if same else "FAIL: ") + f"{path}: drawn from {run_path}" +
              ("" if same else ", but drawing it again gives other pixels"))
        failed += not same
    return 1 if failed else 0


def main(argv):
    parser = argparse.ArgumentParser(description="The documentation's pictures.")
    parser.add_argument("verb", choices=["dashboard", "orders", "verify"])
    parser.add_argument("run", metavar="RUN.json")
    parser.add_argument("pictures", nargs="+", metavar="PNG")
    args = parser.parse_args(argv)
    try:
        if args.verb == "verify":
            return verify(args.run, args.pictures)
        if len(args.pictures) != 1:
            parser.error(f"{args.verb}: one output file")
        run, digest = load(args.run)
        DRAW[args.verb](run, args.pictures[0], digest)
    except OSError as e:
        print(f"plot_pictures.py: {e.filename}: {e.strerror}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
