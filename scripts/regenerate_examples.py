"""Regenerate the bundled examples' reports (the golden files the tests compare byte for byte).

Run: PYTHONPATH=src python scripts/regenerate_examples.py [--check] [--formats md,json]

Writes examples/bank-assistant/report.{md,json,html,pdf} (the `releasegate demo` command's reports, from the
inputs bundled in the package) and examples/reading-comprehension/report.* (from its results.csv), with
SOURCE_DATE_EPOCH fixed so that the same tree gives the same bytes. ``--check`` writes nothing and exits 1 when
a Markdown or JSON report would change (the test tests/tooling/test_golden.py does the same).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE_DATE_EPOCH = "1796000000"
EXAMPLES = {
    # name: (folder, results file(s), case table, command line recorded in the report)
    "bank-assistant": ("examples/bank-assistant", "eval_results.csv", "eval_cases.csv",
                       ("releasegate report eval_results.csv --cases eval_cases.csv --policy releasegate.toml "
                        "-o report.md -o report.json -o report.html -o report.pdf")),
    "reading-comprehension": ("examples/reading-comprehension", "results.csv", None,
                              ("releasegate report results.csv --policy releasegate.toml "
                               "-o report.md -o report.json -o report.html -o report.pdf")),
}
ALL_FORMATS = ("md", "json", "html", "pdf")


def build(name: str):
    """The example's Report, computed as the command line would (run inside the example's folder)."""
    from releasegate.load import Source
    from releasegate.load.policy_file import policy_record
    from releasegate.pipeline import run
    from releasegate.policy import load_policy_file, make_policy

    folder, results, cases, command = EXAMPLES[name]
    os.environ["SOURCE_DATE_EPOCH"] = SOURCE_DATE_EPOCH
    with contextlib.chdir(ROOT / folder):
        policy = make_policy(load_policy_file(Path("releasegate.toml")))
        return run([Source(Path(results))], policy, cases=Path(cases) if cases else None, command_line=command,
                   policy_file=policy_record(Path("releasegate.toml"), found=False))


def rendered(name: str, formats: tuple[str, ...]) -> dict[Path, bytes]:
    from releasegate.render import render

    report = build(name)
    folder = ROOT / EXAMPLES[name][0]
    return {folder / f"report.{suffix}": render(report, f".{suffix}") for suffix in formats}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare the Markdown and JSON, write nothing")
    parser.add_argument("--formats", default=",".join(ALL_FORMATS), help="comma-separated: md,json,html,pdf")
    args = parser.parse_args(argv)
    formats = ("md", "json") if args.check else tuple(f.strip() for f in args.formats.split(",") if f.strip())
    changed = []
    for name in EXAMPLES:
        for path, data in rendered(name, formats).items():
            if args.check:
                if path.read_bytes() != data:
                    changed.append(path)
            else:
                path.write_bytes(data)
                print(f"wrote {path.relative_to(ROOT)}")
    for path in changed:
        print(f"would change: {path.relative_to(ROOT)}", file=sys.stderr)
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
