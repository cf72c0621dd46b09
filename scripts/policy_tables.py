"""Write the policy's key tables into the docs from the table of keys (src/releasegate/policy/keys.py).

Run: PYTHONPATH=src python scripts/policy_tables.py [--check]

Three tables, each between its markers: docs/policy.md's "Keys" table (key, default, flag, meaning) and its
``[metrics.NAME]`` table (key, values, meaning), and docs/json.md's ``policy`` table (key, JSON type, meaning),
from which scripts/note_schema.py generates the note's JSON Schema. ``--check`` writes nothing and exits 1 when
a doc would change; tests/policy/test_policy_table.py does the same.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
POLICY_DOC = ROOT / "docs" / "policy.md"
JSON_DOC = ROOT / "docs" / "json.md"
# The note's JSON carries one key beside the policy's own: the metrics named on the command line.
JSON_EXTRA = ("| `metric` | string or list of strings | the metrics named with `--metric` (a list; absent when the "
              "outcome column is gated alone); in a several-metric note's `metrics.NAME.policy`, the one metric that "
              "note gates (a string) |")


def _default(row) -> str:
    if row.shown:
        return row.shown
    value = row.default
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, str):
        return f'`"{value}"`'
    return "none" if value is None else f"`{value}`"


def _flag(row) -> str:
    if row.flag_doc:
        return row.flag_doc
    if not row.flag:
        return "-"
    return f"`{row.flag}`" + (" (repeatable)" if row.value.flag == "names" else "")


def key_table(keys) -> list[str]:
    """docs/policy.md's table of every key."""
    lines = ["| key | default | flag | meaning |", "|---|---|---|---|"]
    for row in keys:
        lines.append(f"| [`{row.name}`](#{row.section or row.name}) | {_default(row)} | {_flag(row)} | {row.doc} |")
    return lines


def metric_table(own, keys) -> list[str]:
    """docs/policy.md's table of a ``[metrics.NAME]`` table's keys: the metric's own, then the policy keys it may
    set for that metric."""
    lines = ["| key | values | meaning |", "|---|---|---|"]
    for row in own:
        lines.append(f"| `{row.name}` | {row.value.expected} (default {_default(row)}) | {row.doc} |")
    for row in keys:
        if row.per_metric:
            lines.append(f"| `{row.name}` | {row.value.expected} | this metric's [`{row.name}`](#{row.section or row.name}):"
                         f" {row.doc} |")
    return lines


def json_table(keys) -> list[str]:
    """docs/json.md's table of the note's ``policy`` object."""
    lines = ["| key | type | meaning |", "|---|---|---|"]
    for row in keys:
        absent = f"; absent {row.absent}" if row.absent else ""
        lines.append(f"| `{row.name}` | {row.value.json} | {row.doc}{absent} |")
    return [*lines, JSON_EXTRA]


def replaced(text: str, name: str, lines: list[str]) -> str:
    """``text`` with the part between ``<!-- NAME:start -->`` and ``<!-- NAME:end -->`` made ``lines``."""
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    if start not in text or end not in text:
        raise SystemExit(f"no {start} ... {end} markers")
    head, rest = text.split(start, 1)
    return f"{head}{start}\n" + "\n".join(lines) + f"\n{end}{rest.split(end, 1)[1]}"


def current() -> dict[Path, str]:
    """Each doc's text with its tables made from the table of keys."""
    from releasegate.policy import KEYS, METRIC_OWN_KEYS

    policy = POLICY_DOC.read_text(encoding="utf-8")
    policy = replaced(policy, "policy-keys", key_table(KEYS))
    policy = replaced(policy, "metric-keys", metric_table(METRIC_OWN_KEYS, KEYS))
    json_text = replaced(JSON_DOC.read_text(encoding="utf-8"), "policy-json", json_table(KEYS))
    return {POLICY_DOC: policy, JSON_DOC: json_text}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when a doc would change")
    args = parser.parse_args(argv)
    stale = {path: text for path, text in current().items() if path.read_text(encoding="utf-8") != text}
    for path, text in stale.items():
        if args.check:
            print(f"would change: {path.relative_to(ROOT)}", file=sys.stderr)
        else:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path.relative_to(ROOT)}")
    return 1 if stale and args.check else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
