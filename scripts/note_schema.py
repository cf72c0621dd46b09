"""Generate the JSON Schema (draft 2020-12) of the release note from its reference, docs/json.md.

Run: PYTHONPATH=src python scripts/note_schema.py [--check]

docs/json.md documents every key of every object the JSON holds, with its type and meaning, and
tests/tooling/test_json_doc.py fails when a key the code writes is missing there. This script turns those tables
into the schema, so that the schema grows with the doc: a section ("Where: `path`") is an object, each row a
property (its type from the type column, its description from the meaning column), required unless its meaning
says it may be absent. Rows whose meaning starts with a variant in parentheses, e.g. "(categories)", belong only
to the section's path of that name (``candidates[].categories[]``). Every object the doc describes allows no
other key; objects whose keys come from the user's data (columns, releases, packages) allow any.

Writes src/releasegate/schema/note.schema.json (shipped in the package) and docs/schema/note.schema.json (the
same bytes). ``--check`` writes nothing and exits 1 when either would change; tests/audit/test_schema.py does the
same, and validates every golden note and the notes the tests build against the schema.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "json.md"
TARGETS = (ROOT / "src" / "releasegate" / "schema" / "note.schema.json", ROOT / "docs" / "schema" / "note.schema.json")

# Objects whose keys are names from the user's data, not the tool's: any key, any value (test_json_doc.py's list).
USER_NAMED = {"packages", "loading.options", "policy.prices", "policy.columns", "policy.guardrails", "policy.metrics",
              "candidates[].broken_cases[].metadata", "candidates[].broken_cases[].answers",
              "candidates[].fixed_cases[].metadata", "candidates[].fixed_cases[].answers",
              "candidates[].case_view.both_fail[].metadata", "candidates[].case_view.both_fail[].answers",
              "candidates[].case_view.errored[].metadata", "candidates[].case_view.errored[].answers"}
# Objects keyed by a name whose values share one documented shape ("path.*").
KEYED = {"candidates[].costs.guardrail_bounds", "several_metrics.candidates[].metrics"}
# Objects documented as the shape of another: path -> the definition it takes.
SAME_AS = {"candidates[].critical.overall": "candidates[].critical.tests[]"}
# A several-metric note holds each metric's complete single-metric note.
NOTE_BY_NAME = {"several_metrics.metrics"}

SCALARS = {"string": "string", "int": "integer", "float": "number", "bool": "boolean"}
ROW = re.compile(r"^\| `([^`]+)` \| ([^|]+?) \|[ \t]*(.*?)[ \t]*\|[ \t]*$", re.MULTILINE)
WHERE = re.compile(r"^Where: ((?:`[^`]+`(?:,\s*)?)+)", re.MULTILINE)
LINK = re.compile(r"\[([^\]]+)\]\([^)]+\)")


def sections(text: str) -> list[tuple[list[str], list[tuple[str, str, str]]]]:
    """Each "Where:" section's paths and its rows (key, type, meaning)."""
    parts = WHERE.split(text)
    out = []
    for where, body in zip(parts[1::2], parts[2::2]):
        body = body.split("\n## ")[0].split("\nWhere: ")[0]
        paths = ["" if p == "(root)" else p for p in re.findall(r"`([^`]+)`", where)]
        rows = [(k, t.strip(), m.strip()) for k, t, m in ROW.findall(body)]
        out.append((paths, rows))
    return out


def _last(path: str) -> str:
    return path.rpartition(".")[2].removesuffix("[]")


def objects(text: str) -> dict[str, dict[str, tuple[str, str, bool]]]:
    """Object path -> key -> (type, description, required)."""
    out: dict[str, dict[str, tuple[str, str, bool]]] = {}
    for paths, rows in sections(text):
        for path in paths:
            out.setdefault(path, {})
        for key, kind, meaning in rows:
            variant = re.match(r"^\(([a-z_]+)\)", meaning)
            owners = [p for p in paths if variant and _last(p) == variant.group(1)]
            optional = "absent" in meaning or meaning.startswith("several metrics only") or (variant and not owners)
            description = LINK.sub(r"\1", meaning).replace("`", "").replace("**", "")
            for path in owners or paths:
                out[path][key] = (kind, description, not optional)
    return out


def _name(path: str) -> str:
    """A definition's name: the object's path without list marks (``candidates.overall``), ``note`` for the top."""
    return path.replace("[]", "").replace(".*", ".each") or "note"


def _property(path: str, key: str, kind: str, documented: dict) -> dict:
    child = f"{path}.{key}" if path else key
    nullable = kind.endswith(" or null")
    base = kind.removesuffix(" or null")
    if " or " in base.removesuffix(" or nulls"):  # one of several types ("string or list of strings")
        schema: dict = {"anyOf": [_property(path, key, one, documented) for one in base.split(" or ")]}
    elif base in SCALARS:
        schema = {"type": SCALARS[base]}
    elif base.startswith("list of "):
        item = base.removeprefix("list of ")
        items_nullable = item.endswith(" or nulls")  # "list of ints or nulls"
        item = item.removesuffix(" or nulls").removesuffix("s")
        schema = {"type": "array", "items": {"type": [SCALARS[item], "null"] if items_nullable else SCALARS[item]}}
    elif base == "list":
        item = f"{child}[]"
        schema = {"type": "array", "items": {"$ref": f"#/$defs/{_name(item)}"}} if item in documented \
            else {"type": "array"}
    elif base == "object":
        schema = _object_ref(child, documented)
    else:
        raise SystemExit(f"docs/json.md: `{key}` of {path or '(root)'} has a type this script cannot read: {kind!r}")
    if nullable:
        schema = {"anyOf": [schema, {"type": "null"}]}
    return schema


def _object_ref(path: str, documented: dict) -> dict:
    if path in NOTE_BY_NAME:
        return {"type": "object", "additionalProperties": {"$ref": "#/$defs/note"}}
    if path in KEYED:
        return {"type": "object", "additionalProperties": {"$ref": f"#/$defs/{_name(path + '.*')}"}}
    if path in SAME_AS:
        return {"$ref": f"#/$defs/{_name(SAME_AS[path])}"}
    if path in documented:
        return {"$ref": f"#/$defs/{_name(path)}"}
    if path in USER_NAMED:
        return {"type": "object"}
    raise SystemExit(f"docs/json.md: the object {path} has no section (Where: `{path}`) and is not user-named")


def build(text: str, version: str) -> dict:
    """The schema of the note of schema ``version`` (major.minor), from the doc's text."""
    documented = objects(text)
    defs = {}
    for path, keys in documented.items():
        if path in KEYED:  # its listed keys are examples of the names; the values are "path.*"
            continue
        properties = {}
        for key, (kind, description, _) in keys.items():
            properties[key] = {"description": description, **_property(path, key, kind, documented)}
        if path in ("", "several_metrics"):
            major = version.partition(".")[0]
            properties["schema_version"] = {**properties["schema_version"], "pattern": rf"^{major}\.[0-9]+$"}
        if path == "several_metrics":
            properties["kind"] = {**properties["kind"], "const": "several_metrics"}
        if _name(path) in defs:
            raise SystemExit(f"docs/json.md: two objects would share the definition {_name(path)!r}")
        defs[_name(path)] = {"type": "object", "properties": properties,
                             "required": [k for k, (_, _, required) in keys.items() if required],
                             "additionalProperties": False}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"releasegate release note, schema {version}",
        "description": ("The JSON note `releasegate report -o note.json` writes (and a PDF/A-3b note carries). "
                        "Generated from docs/json.md by scripts/note_schema.py: do not edit by hand."),
        "if": {"type": "object", "properties": {"kind": {"const": "several_metrics"}}, "required": ["kind"]},
        "then": {"$ref": "#/$defs/several_metrics"},
        "else": {"$ref": "#/$defs/note"},
        "$defs": defs,
    }


def text_of(schema: dict) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def current() -> str:
    """The schema's text for this tree: the doc as it is, the version json_out writes."""
    from releasegate.render.json_out import SCHEMA_VERSION

    return text_of(build(DOC.read_text(encoding="utf-8"), SCHEMA_VERSION))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when a file would change")
    args = parser.parse_args(argv)
    text = current()
    stale = [p for p in TARGETS if not p.exists() or p.read_text(encoding="utf-8") != text]
    if args.check:
        for path in stale:
            print(f"would change: {path.relative_to(ROOT)}", file=sys.stderr)
        return 1 if stale else 0
    for path in TARGETS:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
