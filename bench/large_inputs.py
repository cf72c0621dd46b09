"""Large inputs (issue 7): peak memory and wall time of `releasegate report` on generated results.

Scenarios (fixed seed; written to a temporary folder, never into the repository):
- 1m-x2:        1,000,000 cases x 2 releases, 20 categories, latency and tokens, 5% of cases change;
- 1m-x2-broken: the same, but 40% of the cases break: the Markdown must still fit in 65,536 characters;
- 200k-x5-x3:   200,000 cases x 5 releases x 3 runs (the several-runs path);
- 200k-x5-run1: the same file with only run 1 (one run per case, the McNemar path), measured when the
                several-runs path (releasegate.analyze.comparisons) is not installed, and for comparison.

Each report runs as its own process (`python -m releasegate report FILE --baseline r1 -o out.json -o out.md`);
its peak resident set size comes from os.wait4, which reports that child's own usage. Prints a Markdown table.

    PYTHONPATH=src python bench/large_inputs.py            # all scenarios (about 3 minutes, 2 GB of RAM)
    PYTHONPATH=src python bench/large_inputs.py --scale 0.01 --only 1m-x2
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
SEED = 20240501
GITHUB_COMMENT_LIMIT = 65_536
SCENARIOS = ("1m-x2", "1m-x2-broken", "200k-x5-x3", "200k-x5-run1")


@dataclass
class Measurement:
    scenario: str
    rows: int
    input_mb: float
    exit_code: int
    seconds: float
    peak_mb: float
    markdown_chars: int | None
    json_mb: float | None
    note: str = ""


def _pairs(n: int, n_releases: int, change: float, rng: np.random.Generator) -> list[np.ndarray]:
    """Pass/fail per release: the baseline passes 88%; each candidate flips a share ``change`` of cases."""
    base = rng.random(n) < 0.88
    out = [base]
    for _ in range(n_releases - 1):
        flip = rng.random(n) < change
        # Flips lean towards breaking, so that "broke" lists are long.
        out.append(np.where(flip, ~base & (rng.random(n) < 0.5), base))
    return out


def write_single_run(path: Path, n: int, n_releases: int, change: float, seed: int = SEED) -> int:
    rng = np.random.default_rng(seed)
    ids = np.char.add("case-", np.char.zfill(np.arange(n).astype(str), 7))
    categories = np.array([f"category-{k:02d}" for k in range(20)])[rng.integers(0, 20, n)]
    frames = []
    for r, passed in enumerate(_pairs(n, n_releases, change, rng), start=1):
        frames.append(pd.DataFrame({
            "release": f"r{r}", "case_id": ids, "passed": passed.astype(np.int8), "category": categories,
            "latency_ms": rng.gamma(4.0, 220.0, n).round(1),
            "input_tokens": rng.integers(200, 900, n), "output_tokens": rng.integers(50, 400, n),
        }))
    table = pd.concat(frames, ignore_index=True)
    table.to_csv(path, index=False)
    return int(table.shape[0])


def write_runs(path: Path, n: int, n_releases: int, n_runs: int, seed: int = SEED) -> int:
    """Several runs per case: each case has a pass probability per release; each run draws from it."""
    rng = np.random.default_rng(seed)
    ids = np.char.add("case-", np.char.zfill(np.arange(n).astype(str), 7))
    categories = np.array([f"category-{k:02d}" for k in range(20)])[rng.integers(0, 20, n)]
    base_p = rng.beta(6, 1, n)
    frames = []
    for r in range(1, n_releases + 1):
        p = np.clip(base_p + rng.normal(0, 0.05, n), 0, 1)
        for run in range(1, n_runs + 1):
            frames.append(pd.DataFrame({"release": f"r{r}", "case_id": ids, "run": run,
                                        "passed": (rng.random(n) < p).astype(np.int8), "category": categories}))
    table = pd.concat(frames, ignore_index=True)
    table.to_csv(path, index=False)
    return int(table.shape[0])


def measure(scenario: str, results: Path, rows: int, work: Path, note: str = "") -> Measurement:
    """Run one report as a child process and read its own peak RSS from wait4."""
    out_json, out_md = work / f"{scenario}.json", work / f"{scenario}.md"
    command = [sys.executable, "-m", "releasegate", "report", str(results), "--baseline", "r1",
               "-o", str(out_json), "-o", str(out_md)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    with open(work / f"{scenario}.log", "wb") as log:
        started = time.perf_counter()
        child = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env)
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode not in (0, 1):
        tail = (work / f"{scenario}.log").read_text(errors="replace").strip().splitlines()[-1:]
        note = "; ".join(filter(None, [note, *tail]))
    return Measurement(
        scenario=scenario, rows=rows, input_mb=results.stat().st_size / 1e6, exit_code=child.returncode,
        seconds=seconds, peak_mb=usage.ru_maxrss / 1024,  # kilobytes on Linux
        markdown_chars=len(out_md.read_text(encoding="utf-8")) if out_md.exists() else None,
        json_mb=out_json.stat().st_size / 1e6 if out_json.exists() else None, note=note,
    )


def has_runs_path() -> bool:
    """Whether the several-runs path exists in the tree being measured (this checkout's src first)."""
    if str(ROOT / "src") not in sys.path:
        sys.path.insert(0, str(ROOT / "src"))
    return importlib.util.find_spec("releasegate.analyze.comparisons") is not None


def run_all(work: Path, scale: float, only: tuple[str, ...]) -> list[Measurement]:
    n1, n2 = max(10, int(1_000_000 * scale)), max(10, int(200_000 * scale))
    out = []
    if "1m-x2" in only:
        path = work / "1m-x2.csv"
        out.append(measure("1m-x2", path, write_single_run(path, n1, 2, 0.05), work))
    if "1m-x2-broken" in only:
        path = work / "1m-x2-broken.csv"
        out.append(measure("1m-x2-broken", path, write_single_run(path, n1, 2, 0.8), work))
    runs_path = work / "200k-x5-x3.csv"
    if "200k-x5-x3" in only or "200k-x5-run1" in only:
        rows = write_runs(runs_path, n2, 5, 3)
    if "200k-x5-x3" in only:
        if has_runs_path():
            out.append(measure("200k-x5-x3", runs_path, rows, work))
        else:
            out.append(Measurement("200k-x5-x3", rows, runs_path.stat().st_size / 1e6, -1, float("nan"),
                                   float("nan"), None, None,
                                   "not run: releasegate.analyze.comparisons (several runs) is not installed"))
    if "200k-x5-run1" in only:
        single = work / "200k-x5-run1.csv"
        table = pd.read_csv(runs_path)
        table = table[table["run"] == 1].drop(columns="run")
        table.to_csv(single, index=False)
        del table
        out.append(measure("200k-x5-run1", single, n2 * 5, work, "run column dropped: run 1 only"))
    return out


def table(measurements: list[Measurement]) -> str:
    lines = ["| scenario | rows | input MB | exit | wall s | peak RSS MB | Markdown chars | JSON MB | note |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for m in measurements:
        md = f"{m.markdown_chars:,}" if m.markdown_chars is not None else "-"
        js = f"{m.json_mb:.1f}" if m.json_mb is not None else "-"
        lines.append(f"| {m.scenario} | {m.rows:,} | {m.input_mb:.1f} | {m.exit_code} | {m.seconds:.1f} | "
                     f"{m.peak_mb:,.0f} | {md} | {js} | {m.note} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> list[Measurement]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every case count (0.01 for a quick run)")
    parser.add_argument("--only", nargs="+", choices=SCENARIOS, default=list(SCENARIOS))
    parser.add_argument("--keep", type=Path, help="keep the generated files and reports in this folder")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="releasegate-large-"))
    try:
        measurements = run_all(work, args.scale, tuple(args.only))
        if args.keep:
            shutil.copytree(work, args.keep, dirs_exist_ok=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(table(measurements))
    too_long = [m.scenario for m in measurements if (m.markdown_chars or 0) > GITHUB_COMMENT_LIMIT]
    if too_long:
        print(f"Markdown over {GITHUB_COMMENT_LIMIT} characters: {', '.join(too_long)}", file=sys.stderr)
    return measurements


if __name__ == "__main__":
    main()
