#!/usr/bin/env python3
"""Checks foliostat's NDJSON records against its schema, docs/foliostat.schema.json:

    validate_records.py [--as-published] FILE...        (FILE "-" is standard input)

Every line of each FILE must be one whole record: valid UTF-8, one JSON object (no NaN, no
member named twice: a JSON parser would keep one of the two silently), ended by a newline (a
record without one was cut short), and valid against the schema (JSON Schema draft 7).

The published schema is open to members later versions add (foliostat(8): a reader ignores what
it does not know); each object it marks "x-closed" lists every member this version writes, and
is closed here (no other member), so that a member foliostat writes without the schema saying
so fails foliostat's own tests. --as-published validates as a reader would, against the schema
as it is.

Prints nothing when every record is valid. Otherwise, for each file, its first invalid record's
most relevant error on standard error, as

    FILE:LINE: $.json.path: what is wrong

Exit status: 0 every record valid (a file with no record is valid), 1 a record is not, 2 a usage
error or a file or schema that cannot be read. Needs python3-jsonschema (Debian 12: 4.10).
"""
import json
import os
import re
import sys

DEBIAN_PYTHON = "/usr/bin/python3"

SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs",
                      "foliostat.schema.json")
USAGE = "usage: validate_records.py [--as-published] FILE... (- for standard input)"
# An error message quotes the value it is about, which can be a whole row: enough to recognise it.
MAX_MESSAGE = 300


class NotARecord(Exception):
    """A line that is not one JSON object, before the schema is even asked."""


def members(pairs):
    seen = set()
    for key, _ in pairs:
        if key in seen:
            raise NotARecord(f"member {json.dumps(key)} appears twice in one object")
        seen.add(key)
    return dict(pairs)


def no_constant(name):
    raise NotARecord(f"{name} is not JSON")


def parse(raw):
    if not raw.endswith(b"\n"):
        raise NotARecord("no newline at the end: a record cut short?")
    try:
        text = raw[:-1].decode("utf-8")
    except UnicodeDecodeError as e:
        raise NotARecord(f"invalid UTF-8 at byte {e.start}") from None
    if not text.strip():
        raise NotARecord("an empty line, not a record")
    try:
        return json.loads(text, object_pairs_hook=members, parse_constant=no_constant)
    except json.JSONDecodeError as e:
        raise NotARecord(f"invalid JSON: {e}") from None


IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def closed(node):
    """The schema with every object marked "x-closed" closed to members it does not list."""
    if isinstance(node, dict):
        node = {key: closed(value) for key, value in node.items()}
        if node.pop("x-closed", False):
            node["additionalProperties"] = False
        return node
    if isinstance(node, list):
        return [closed(value) for value in node]
    return node


def json_path(path):
    """$.system.folios.alloc["9"], $.processes[3].pid: where in the record the error is."""
    text = "$"
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        elif IDENTIFIER.match(part):
            text += f".{part}"
        else:
            text += f"[{json.dumps(part)}]"
    return text


def shorten(message):
    return message if len(message) <= MAX_MESSAGE else message[:MAX_MESSAGE - 3] + "..."


def first_problem(validator, best_match, raw):
    """What is wrong with one line, or None."""
    try:
        record = parse(raw)
    except NotARecord as e:
        return str(e)
    errors = list(validator.iter_errors(record))
    if not errors:
        return None
    best = best_match(errors)
    more = f" (and {len(errors) - 1} more errors in this record)" if len(errors) > 1 else ""
    return f"{json_path(best.absolute_path)}: {shorten(best.message)}{more}"


def validate_file(name, stream, validator, best_match):
    """0 if every record of the stream is valid, else 1 after saying where the first is not."""
    for number, raw in enumerate(stream, 1):
        problem = first_problem(validator, best_match, raw)
        if problem:
            print(f"{name}:{number}: {problem}", file=sys.stderr)
            return 1
    return 0


def main(argv):
    files = argv[1:]
    as_published = files[:1] == ["--as-published"]
    if as_published:
        files = files[1:]
    if files[:1] == ["--"]:
        files = files[1:]
    elif any(f in ("-h", "--help") for f in files):
        print(__doc__.strip())
        return 0
    elif any(f.startswith("-") and f != "-" for f in files):
        print(f"validate_records.py: unknown option\n{USAGE}", file=sys.stderr)
        return 2
    if not files:
        print(USAGE, file=sys.stderr)
        return 2
    try:
        import jsonschema
        from jsonschema.exceptions import best_match
    except ImportError:
        # python3-jsonschema is Debian's python's: a python3 of another origin first on the
        # PATH (pyenv, a virtualenv) may lack it.
        if sys.executable != DEBIAN_PYTHON and os.access(DEBIAN_PYTHON, os.X_OK):
            os.execv(DEBIAN_PYTHON, [DEBIAN_PYTHON, os.path.abspath(__file__)] + sys.argv[1:])
        print("validate_records.py: needs the jsonschema module (Debian: python3-jsonschema)",
              file=sys.stderr)
        return 2
    try:
        with open(SCHEMA, encoding="utf-8") as f:
            schema = json.load(f)
        jsonschema.Draft7Validator.check_schema(schema)
        if not as_published:
            schema = closed(schema)
    except (OSError, ValueError, jsonschema.SchemaError) as e:
        print(f"validate_records.py: {SCHEMA}: {e}", file=sys.stderr)
        return 2
    validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker())

    status = 0
    for name in files:
        try:
            if name == "-":
                result = validate_file("-", sys.stdin.buffer, validator, best_match)
            else:
                with open(name, "rb") as stream:
                    result = validate_file(name, stream, validator, best_match)
        except OSError as e:
            print(f"validate_records.py: {name}: {e.strerror}", file=sys.stderr)
            result = 2
        status = max(status, result)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
