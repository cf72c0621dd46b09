"""Write the reading-comprehension example (runs and clusters) and its reports, in one command.

    PYTHONPATH=src python scripts/make_reading_comprehension.py [examples/reading-comprehension]

The eval: 60 passages with 6 questions each (360 cases; the passage is the cluster), four question types (the
categories), every question answered 5 times (runs) by three releases:
- r1-live, the baseline;
- r2-rerank, a retrieval change that helps on every kind of passage (a real gain);
- r3-distilled, a cheaper model that is about as good on average but loses badly on the long passages and
  gains a little on the others. Treating the 360 questions as independent, its interval rules out a loss
  larger than the 5-point margin; counting passages, not questions, it does not.
Outcomes are drawn from a logistic model with Python's `random.Random`, whose sequence is stable across Python
versions, so the files are reproducible. The reports are written with SOURCE_DATE_EPOCH fixed, in every format
whose renderer is installed (Markdown and JSON always; HTML and PDF once their renderers are present).
"""

from __future__ import annotations

import contextlib
import csv
import math
import os
import random
import sys
from pathlib import Path

PASSAGES = 40
TYPES = {"detail": (3, 0.5), "inference": (3, -0.4), "main idea": (1, 0.3), "vocabulary": (2, 0.0)}
RUNS = 5
RELEASES = ("r1-live", "r2-rerank", "r3-distilled")
LONG_EVERY = 5  # every fifth passage is long: r3-distilled loses there
SOURCE_DATE_EPOCH = "1796000000"
POLICY = """# Policy of the reading-comprehension example (see docs/policy.md for every key).
title = "reading-comprehension"
baseline = "r1-live"
alpha = 0.05
margin = 0.05
correction = "discrete-holm"

# The questions of one passage share what makes the passage easy or hard: the passage is the cluster.
[columns]
cluster = "passage"
"""


def _logistic(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def build(seed: int = 20261205) -> list[dict]:
    rng = random.Random(seed)
    rows: list[dict] = []
    questions = []
    for g in range(PASSAGES):
        long = g % LONG_EVERY == LONG_EVERY - 1
        level = rng.gauss(1.1, 0.9) - (0.3 if long else 0.0)
        shift = {
            "r1-live": 0.0,
            "r2-rerank": rng.gauss(0.55, 0.15),
            "r3-distilled": rng.gauss(-1.9, 0.5) if long else rng.gauss(0.5, 0.6),
        }
        number = 1
        for kind, (count, offset) in TYPES.items():
            for _ in range(count):
                logit = level + offset + rng.gauss(0.0, 0.8)
                questions.append((f"P{g + 1:02d}-Q{number}", f"P{g + 1:02d}", kind, "long" if long else "short",
                                  logit, shift))
                number += 1
    for release in RELEASES:
        for run in range(1, RUNS + 1):
            for case_id, passage, kind, length, logit, shift in questions:
                passed = rng.random() < _logistic(logit + shift[release])
                rows.append({"release": release, "case_id": case_id, "run": run, "passage": passage,
                             "category": kind, "passage_length": length, "passed": int(passed)})
    return rows


def write_inputs(directory: Path) -> None:
    rows = build()
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / "results.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    (directory / "releasegate.toml").write_text(POLICY, encoding="utf-8")


def _available_formats() -> list[str]:
    """Markdown and JSON always; HTML and PDF when this checkout has their renderers."""
    from importlib.util import find_spec

    formats = ["md", "json"]
    for name in ("html", "pdf"):
        if find_spec(f"releasegate.render.{name}") is not None:
            formats.append(name)
    return formats


def write_reports(directory: Path) -> list[Path]:
    from releasegate.load import Source
    from releasegate.load.policy_file import policy_record
    from releasegate.pipeline import run
    from releasegate.policy import load_policy_file, make_policy
    from releasegate.render import write_reports as write

    outputs = [Path(f"report.{suffix}") for suffix in _available_formats()]
    command = ("releasegate report results.csv --policy releasegate.toml "
               + " ".join(f"-o {path}" for path in outputs))
    os.environ["SOURCE_DATE_EPOCH"] = SOURCE_DATE_EPOCH
    with contextlib.chdir(directory):
        policy = make_policy(load_policy_file(Path("releasegate.toml")))
        report = run([Source(Path("results.csv"))], policy, command_line=command,
                     policy_file=policy_record(Path("releasegate.toml"), found=False))
        write(report, outputs)
    return [directory / path for path in outputs]


def main(argv: list[str]) -> None:
    directory = Path(argv[1] if len(argv) > 1 else "examples/reading-comprehension")
    write_inputs(directory)
    for path in write_reports(directory):
        print(f"wrote {path}")


if __name__ == "__main__":
    main(sys.argv)
