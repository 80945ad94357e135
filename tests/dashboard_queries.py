#!/usr/bin/env python3
"""The PromQL queries of a Grafana dashboard, ready for Prometheus.

Prints one line per query of every panel (panels of collapsed rows included):
PANEL_TITLE<TAB>EXPR, with the dashboard's template variables replaced by the values given with
--var NAME=VALUE (a variable not given matches anything: .*) and Grafana's interval variables
($__rate_interval, $__interval, $__range) by --range. The tests feed these lines to promtool
and to a live Prometheus; Grafana itself is never needed.

--layout prints, instead, the panels as JSON: for each (rows included) its id, type, title,
gridPos, unit, axis label, stacking and a stat's text mode, the row it sits in and whether that
row is collapsed, and its queries (expression with the variables replaced, legend format,
instant or range): what a renderer other than Grafana needs (scripts/plot_pictures.py draws the
dashboard from it).

--check also validates what importing the dashboard relies on: a `datasource` variable of type
datasource for Prometheus, every panel and query using it, unique panel ids, and a position on
the 24-column grid for every panel. Problems go to stderr, the count of queries to stdout.

Exit status: 0; 1 when the dashboard has no query, a variable is left unreplaced, or --check
finds a problem; 2 on a usage error (options, or a file that cannot be read).
"""

import argparse
import json
import os
import re
import sys

DEFAULT_DASHBOARD = os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "contrib", "grafana", "foliostat.json"
)
INTERVAL_VARIABLES = ("__rate_interval", "__interval", "__range")
# The forms Grafana replaces: $name, ${name}, ${name:format}, ${name.field}, and the deprecated
# [[name]] / [[name:format]].
VARIABLE = re.compile(
    r"\$\{(?P<braced>\w+)(?:[.:][^}]*)?\}|\$(?P<plain>\w+)|\[\[(?P<old>\w+)(?::[^\]]*)?\]\]"
)
# A Prometheus duration: 1m, 30s, 1h30m, 500ms.
DURATION = re.compile(r"(?:\d+(?:ms|[smhdwy]))+")
# What a panel's datasource must be: the variable, in any spelling Grafana resolves.
DATASOURCE_REFERENCES = ("${datasource}", "$datasource", "[[datasource]]")


class UsageError(Exception):
    pass


def parse_arguments(argv):
    parser = argparse.ArgumentParser(
        description="Print the PromQL queries of a Grafana dashboard, one per line as "
        "PANEL_TITLE<TAB>EXPR, with its variables replaced.",
    )
    parser.add_argument(
        "dashboard",
        nargs="?",
        default=DEFAULT_DASHBOARD,
        help="the dashboard's JSON (default: contrib/grafana/foliostat.json)",
    )
    parser.add_argument(
        "--var",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="the value of template variable NAME (repeatable; default .*)",
    )
    parser.add_argument(
        "--range",
        default="1m",
        metavar="DURATION",
        help="what $__rate_interval, $__interval and $__range become (default 1m)",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="validate the dashboard's structure as well; print a summary instead of queries",
    )
    parser.add_argument(
        "--layout",
        action="store_true",
        help="print the panels, their places and their queries as JSON instead",
    )
    args = parser.parse_args(argv)
    if args.check and args.layout:
        parser.error("--check and --layout: one at a time")
    values = {}
    for item in args.var:
        name, sep, value = item.partition("=")
        name = name.lstrip("$")
        if not sep or not re.fullmatch(r"\w+", name):
            parser.error(f"--var {item!r}: expected NAME=VALUE")
        values[name] = value
    if not DURATION.fullmatch(args.range):
        parser.error(f"--range {args.range!r}: expected a Prometheus duration such as 1m or 30s")
    args.values = values
    return args


def load_dashboard(path):
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e.strerror}") from e
    document = json.loads(text)
    # The HTTP API's form wraps the dashboard: {"dashboard": {...}, "folderId": ...}.
    if isinstance(document, dict) and "panels" not in document and "dashboard" in document:
        document = document["dashboard"]
    if not isinstance(document, dict):
        raise ValueError("the top level is not an object")
    return document


def all_panels(dashboard):
    """Every panel, rows' nested panels (collapsed rows keep theirs) right after their row."""

    def walk(panels):
        for panel in panels if isinstance(panels, list) else []:
            if not isinstance(panel, dict):
                continue
            yield panel
            yield from walk(panel.get("panels"))

    yield from walk(dashboard.get("panels"))
    # Dashboards of schema version 15 and older keep their panels in rows[].panels.
    for old_row in dashboard.get("rows") or []:
        if isinstance(old_row, dict):
            yield from walk(old_row.get("panels"))


def template_variables(dashboard):
    templating = dashboard.get("templating") or {}
    return [v for v in templating.get("list") or [] if isinstance(v, dict)]


def substitutions(dashboard, given, interval):
    """Each variable a query may use, and what it becomes."""
    values = {name: interval for name in INTERVAL_VARIABLES}
    for variable in template_variables(dashboard):
        name = variable.get("name")
        # A data source variable names a data source, never part of a query: left in an
        # expression, it stays there and is reported.
        if not name or variable.get("type") == "datasource":
            continue
        if variable.get("type") == "interval":
            values[name] = interval
        elif variable.get("type") == "constant":
            values[name] = str(variable.get("query", ""))
        else:
            values[name] = ".*"
    values.update(given)
    return values


def substitute(expr, values):
    """The expression with every known variable replaced, and the variables left in it."""
    left = []

    def replace(match):
        name = match.group("braced") or match.group("plain") or match.group("old")
        if name in values:
            return values[name]
        # $1 in label_replace's replacement is PromQL's own, not a variable.
        if not name.isdigit():
            left.append(match.group(0))
        return match.group(0)

    return VARIABLE.sub(replace, expr), left


def queries(dashboard, values):
    """(panel title, expression, variables left) for every target with an expression."""
    found = []
    for panel in all_panels(dashboard):
        for target in panel.get("targets") or []:
            if not isinstance(target, dict) or not isinstance(target.get("expr"), str):
                continue
            if not target["expr"].strip():
                continue
            expr, left = substitute(target["expr"], values)
            found.append((panel.get("title") or f"panel {panel.get('id')}", expr, left))
    return found


def layout(dashboard, values):
    """Every panel as a renderer needs it, in the dashboard's order."""
    panels, row = [], None
    for panel in all_panels(dashboard):
        if panel.get("type") == "row":
            row = panel
        defaults = (panel.get("fieldConfig") or {}).get("defaults") or {}
        custom = defaults.get("custom") or {}
        targets = []
        for target in panel.get("targets") or []:
            expr = target.get("expr") if isinstance(target, dict) else None
            if isinstance(expr, str) and expr.strip():
                targets.append({
                    "ref_id": target.get("refId"),
                    "expr": one_line(substitute(expr, values)[0]),
                    "legend": target.get("legendFormat", ""),
                    "instant": bool(target.get("instant")),
                })
        panels.append({
            "id": panel.get("id"),
            "type": panel.get("type"),
            "title": panel.get("title", ""),
            "grid": panel.get("gridPos"),
            "unit": defaults.get("unit", ""),
            "axis_label": custom.get("axisLabel", ""),
            "stacked": (custom.get("stacking") or {}).get("mode", "none") != "none",
            "text_mode": (panel.get("options") or {}).get("textMode", ""),
            "row": row.get("title") if row is not None and panel is not row else None,
            "collapsed": bool(row.get("collapsed")) if row is not None else False,
            "targets": targets,
        })
    return panels


def refers_to_datasource_variable(datasource):
    if isinstance(datasource, str):
        return datasource in DATASOURCE_REFERENCES
    if isinstance(datasource, dict):
        return datasource.get("uid") in DATASOURCE_REFERENCES
    return False


def structure_problems(dashboard):
    problems = []
    variables = template_variables(dashboard)
    source = [v for v in variables if v.get("name") == "datasource"]
    if not source:
        problems.append("no template variable named datasource")
    elif source[0].get("type") != "datasource" or source[0].get("query") != "prometheus":
        problems.append("variable datasource: expected type datasource with query prometheus")
    for variable in variables:
        if variable.get("type") == "query" and not refers_to_datasource_variable(
            variable.get("datasource")
        ):
            problems.append(f"variable {variable.get('name')}: its datasource is not ${{datasource}}")

    if not isinstance(dashboard.get("panels"), list) or not dashboard["panels"]:
        problems.append("no panels")
    seen_ids = {}
    for panel in all_panels(dashboard):
        name = f"panel {panel.get('id')} ({panel.get('title', 'untitled')!r})"
        panel_id = panel.get("id")
        if not isinstance(panel_id, int) or isinstance(panel_id, bool):
            problems.append(f"{name}: no integer id")
        elif panel_id in seen_ids:
            problems.append(f"{name}: id also used by {seen_ids[panel_id]!r}")
        else:
            seen_ids[panel_id] = panel.get("title", "untitled")
        problems += [f"{name}: {p}" for p in grid_problems(panel.get("gridPos"))]
        targets = [t for t in panel.get("targets") or [] if isinstance(t, dict)]
        # A row draws nothing: it needs no data source unless it has queries of its own.
        if panel.get("type") != "row" or targets or "datasource" in panel:
            if not refers_to_datasource_variable(panel.get("datasource")):
                problems.append(f"{name}: datasource is {panel.get('datasource')!r}, "
                                "not ${datasource}")
        ref_ids = set()
        for target in targets:
            if "datasource" in target and not refers_to_datasource_variable(target["datasource"]):
                problems.append(f"{name}: query {target.get('refId')} has datasource "
                                f"{target['datasource']!r}, not ${{datasource}}")
            if target.get("refId") in ref_ids:
                problems.append(f"{name}: two queries with refId {target.get('refId')}")
            ref_ids.add(target.get("refId"))
            if not isinstance(target.get("expr"), str) or not target["expr"].strip():
                problems.append(f"{name}: query {target.get('refId')} has no expr")
    return problems


def grid_problems(grid):
    if not isinstance(grid, dict):
        return ["no gridPos"]
    fields = {key: grid.get(key) for key in ("h", "w", "x", "y")}
    bad = [k for k, v in fields.items() if not isinstance(v, int) or isinstance(v, bool) or v < 0]
    if bad:
        return [f"gridPos {', '.join(bad)} not a non-negative integer"]
    if fields["w"] < 1 or fields["h"] < 1 or fields["x"] + fields["w"] > 24:
        return [f"gridPos {grid} is outside the 24-column grid"]
    return []


def one_line(text):
    return re.sub(r"[\t\r\n]+", " ", text).strip()


def main(argv):
    args = parse_arguments(argv)
    try:
        dashboard = load_dashboard(args.dashboard)
    except UsageError as e:
        print(f"dashboard_queries.py: {e}", file=sys.stderr)
        return 2
    except ValueError as e:  # json.JSONDecodeError is one
        print(f"dashboard_queries.py: {args.dashboard} is no dashboard: {e}", file=sys.stderr)
        return 1

    found = queries(dashboard, substitutions(dashboard, args.values, args.range))
    problems = structure_problems(dashboard) if args.check else []
    if not found:
        problems.append(f"{args.dashboard} has no queries")
    for title, _, left in found:
        if left:
            problems.append(f"panel {title!r}: {', '.join(sorted(set(left)))} left unreplaced "
                            "(no such variable: give it with --var NAME=VALUE)")
    for problem in problems:
        print(f"dashboard_queries.py: {problem}", file=sys.stderr)
    if args.layout and not problems:
        json.dump(layout(dashboard, substitutions(dashboard, args.values, args.range)), sys.stdout,
                  indent=1)
        print()
    elif args.check:
        if not problems:
            panels = sum(1 for p in all_panels(dashboard) if p.get("type") != "row")
            print(f"ok: {panels} panels, {len(found)} queries")
    else:
        for title, expr, _ in found:
            # One line per query, whatever the title or a multi-line expression holds.
            print(f"{one_line(title)}\t{one_line(expr)}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
