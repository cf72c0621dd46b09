"""Inputs with several metrics shared by the tests of issue 16: a tidy three-metric file and promptfoo's results
with named metrics added."""

from __future__ import annotations

import json
from pathlib import Path

METRICS = ("correct", "safe", "format_ok")
PROMPTFOO = Path(__file__).resolve().parent / "data" / "promptfoo" / "results.json"


def three_metrics(directory: Path, n: int = 400, safe_broken: int = 30, name: str = "three.csv") -> Path:
    """n cases in 4 categories, 90% passing on r1. On r2 correct and format_ok break n/40 cases and fix as many;
    safe breaks ``safe_broken`` and fixes 2."""
    passing = [i for i in range(n) if i % 10 != 9]
    failing = [i for i in range(n) if i % 10 == 9]
    k = n // 40
    changed = {"correct": (set(passing[1::30][:k]), set(failing[1::4][:k])),
               "format_ok": (set(passing[7::30][:k]), set(failing[2::4][:k])),
               "safe": (set(passing[:safe_broken]), set(failing[:2]))}
    lines = ["release,case_id,category," + ",".join(METRICS)]
    for release in ("r1", "r2"):
        for i in range(n):
            base = int(i % 10 != 9)
            values = [base if release == "r1" else int((base and i not in changed[m][0]) or i in changed[m][1])
                      for m in METRICS]
            lines.append(f"{release},c{i:04d},{'ABCD'[i % 4]}," + ",".join(map(str, values)))
    path = Path(directory) / name
    path.write_text("\n".join(lines) + "\n")
    return path


def metric_args(metrics=METRICS) -> list[str]:
    return [a for m in metrics for a in ("--metric", m)]


def promptfoo_with_named_metrics(directory: Path) -> Path:
    """The promptfoo fixture with two named metrics: correctness fails every other nano answer, brevity 0.8."""
    data = json.loads(PROMPTFOO.read_text())
    results = data["results"]["results"] if isinstance(data["results"], dict) else data["results"]
    for k, result in enumerate(results):
        nano = "nano" in json.dumps(result.get("provider"))
        result["namedScores"] = {"correctness": 0.0 if nano and k % 2 else 1.0, "brevity": 0.8}
    path = Path(directory) / "results.json"
    path.write_text(json.dumps(data))
    return path
