#!/usr/bin/env python3
"""gen-schema.py FRAME FIGURES: the record's JSON Schema (docs/foliostat.schema.json), on
standard output.

FRAME (scripts/schema-frame.json) is written by hand: the record's members that are not figures
(host, probes, a row's identity, self, files) and the definitions of each kind of value. FIGURES
is what `gen-docs --schema-figures` makes of the figure registry (user/output/record_layout.c):
the objects of a row's, a group's and the system's figures, each marked "x-closed" (every member
this version writes is listed: tests/validate_records.py closes them for foliostat's own tests;
the published schema stays open to members later versions add, as foliostat(8) says). A definition of the frame with
"x-figures": SCOPE gets that scope's members after its own; "x-frame" notes are dropped.
`make docs` runs it; tests/integration_docs.sh fails when the checked-in schema differs.
"""
import json
import sys

WIDTH = 100


def merge(node, figures):
    if isinstance(node, dict):
        node.pop("x-frame", None)
        scope = node.pop("x-figures", None)
        for value in node.values():
            merge(value, figures)
        if scope is not None:
            generated = figures[scope]
            node["type"] = "object"
            node["required"] = node.get("required", []) + generated["required"]
            properties = node.setdefault("properties", {})
            properties.update(generated["properties"])
            node["x-closed"] = True
    elif isinstance(node, list):
        for value in node:
            merge(value, figures)


def write(value, indent, prefix, out):
    """The value on one line where it fits in WIDTH columns, else one member per line."""
    line = json.dumps(value, ensure_ascii=False)
    if len(" " * indent + prefix + line) + 1 <= WIDTH or not isinstance(value, (dict, list)) \
            or not value:
        out.append(" " * indent + prefix + line)
        return
    opening, closing = ("{", "}") if isinstance(value, dict) else ("[", "]")
    out.append(" " * indent + prefix + opening)
    items = list(value.items()) if isinstance(value, dict) else [(None, v) for v in value]
    for n, (key, item) in enumerate(items):
        start = len(out)
        write(item, indent + 2, "" if key is None else json.dumps(key) + ": ", out)
        if n < len(items) - 1:
            out[-1] += ","
        del start
    out.append(" " * indent + closing)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: gen-schema.py FRAME FIGURES")
    with open(sys.argv[1], encoding="utf-8") as f:
        schema = json.load(f)
    with open(sys.argv[2], encoding="utf-8") as f:
        figures = json.load(f)
    merge(schema, figures)
    out = []
    write(schema, 0, "", out)
    sys.stdout.write("\n".join(out) + "\n")


main()
