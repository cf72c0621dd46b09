"""The memory estimate of load/capacity.py against the measured peak, one file shape at a time.

The refusal's estimate (an input this machine cannot hold is refused before it is read) must be at least the
peak of every shape, or a too-large input is killed instead of refused, and not far above it for the common
shape, or inputs that fit are refused. Each shape is written once (fixed seed) into WORKDIR, then compared by
the installed command (``releasegate report FILE --baseline B -o o.json -o o.md``, the check switched off) in
its own process; its peak resident set size comes from GNU time (/usr/bin/time). Prints a Markdown table: the
file's size, the measured peak, the estimate, estimate / peak, and (peak - start-up) per byte of file; and
keeps each peak in WORKDIR/peaks.json (by file), which bench/capacity_fit.py fits the factors to.

    python bench/capacity_shapes.py WORKDIR                 # every shape (a few minutes; 10^7 x 2 needs 2 GiB)
    python bench/capacity_shapes.py WORKDIR --only text-30 numbers-12

Memory, unlike time, does not depend on the machine's load, so one run of each is enough.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generate import RELEASES, SEED, _case_ids, _write_csv, binary_results, runs_results  # noqa: E402

WORDS = np.array("the of and to in is it that for on with as at by this be are or from an".split())


def text_scores(workdir: Path, n_cases: int, n_words: int, changed: float = 1.0) -> Path:
    """A score per case and a quoted answer of ``n_words`` words kept per row (an ``output`` column); a share
    ``changed`` of the candidate's scores differ from the baseline's."""
    path = workdir / f"text-{n_cases}x2-{n_words}w-changed{changed}.csv"
    if path.exists():
        return path
    rng = np.random.default_rng(SEED)
    ids = np.char.add("q", np.arange(n_cases).astype(str))
    category = np.char.add("cat", (np.arange(n_cases) % 25).astype(str))
    base = rng.random(n_cases).round(4)
    frames = []
    for release, score in ((RELEASES[0], base), (RELEASES[1], np.where(rng.random(n_cases) < changed,
                                                                           rng.random(n_cases).round(4), base))):
        words = WORDS[rng.integers(0, len(WORDS), (n_cases, n_words))]
        frames.append(pd.DataFrame({"case_id": ids, "release": release, "category": category, "score": score,
                                    "output": [" ".join(row) for row in words]}))
    return _write_csv(pd.concat(frames, ignore_index=True), path)


def many_numbers(workdir: Path, n_cases: int, n_numbers: int) -> Path:
    """Pass/fail per case with ``n_numbers`` further numeric columns (costs, token counts, judge scores)."""
    path = workdir / f"numbers-{n_cases}x2-{n_numbers}.csv"
    if path.exists():
        return path
    rng = np.random.default_rng(SEED)
    return _pass_fail(path, _case_ids(n_cases), rng,
                      lambda release: {f"x{i}": rng.random(n_cases).round(3) for i in range(n_numbers)})


def long_ids(workdir: Path, n_cases: int) -> Path:
    """Pass/fail per case under 36-character ids (UUIDs, as many harnesses write them)."""
    path = workdir / f"uuid-{n_cases}x2.csv"
    if path.exists():
        return path
    rng = np.random.default_rng(SEED)
    raw = rng.integers(0, 2**63, (n_cases, 2))
    ids = np.array([f"{a:016x}-{b:016x}"[:36].ljust(36, "0") for a, b in raw])
    return _pass_fail(path, ids, rng)


def repeated_text(workdir: Path, n_cases: int) -> Path:
    """Pass/fail per case with text columns of few distinct values (a model name, a judge's label)."""
    path = workdir / f"labels-{n_cases}x2.csv"
    if path.exists():
        return path
    rng = np.random.default_rng(SEED)
    ids = _case_ids(n_cases)
    labels = np.array(["correct", "partially correct", "incorrect", "refused", "off topic"])
    return _pass_fail(path, ids, rng, lambda release: {
        "model": f"provider/model-{release}-2026-05-01", "judge_label": labels[rng.integers(0, len(labels), n_cases)]})


def _pass_fail(path: Path, ids: np.ndarray, rng: np.random.Generator,
               more: Callable[[str], dict[str, Any]] | None = None) -> Path:
    """Both releases' pass/fail (90% passing) on ``ids``, with ``more(release)``'s columns after it, written to
    ``path`` as CSV. The draws are made release by release, the outcome first, so that each shape's file is the
    one it always was."""
    frames = []
    for release in RELEASES:
        columns = {"case_id": ids, "release": release, "passed": (rng.random(len(ids)) < 0.9).astype(np.int8)}
        columns.update(more(release) if more is not None else {})
        frames.append(pd.DataFrame(columns))
    return _write_csv(pd.concat(frames, ignore_index=True), path)


def as_format(path: Path, suffix: str) -> Path:
    """The same table as Parquet or JSON lines, beside the CSV."""
    out = path.with_suffix(suffix)
    if not out.exists():
        frame = pd.read_csv(path)
        temporary = out.with_suffix(".partial")
        if suffix == ".parquet":
            frame.to_parquet(temporary, index=False)
        else:
            frame.to_json(temporary, orient="records", lines=True)
        temporary.replace(out)
    return out


SHAPES: dict[str, Callable[[Path], Path]] = {
    "binary": lambda w: binary_results(w, 1_000_000),
    "binary-plain": lambda w: binary_results(w, 1_000_000, padded=False),
    "binary-40cat": lambda w: binary_results(w, 1_000_000, n_categories=40),
    "binary-plain-2x10^6": lambda w: binary_results(w, 2_000_000, n_categories=40, padded=False),
    "binary-10^7": lambda w: binary_results(w, 10_000_000, n_categories=40),
    "runs": lambda w: runs_results(w, 200_000, 5, 1_000),
    "text-30": lambda w: text_scores(w, 300_000, 30),
    "text-30-few-changed": lambda w: text_scores(w, 300_000, 30, changed=0.05),
    "text-120": lambda w: text_scores(w, 150_000, 120),
    "numbers-12": lambda w: many_numbers(w, 1_000_000, 12),
    "uuid": lambda w: long_ids(w, 1_000_000),
    "labels": lambda w: repeated_text(w, 1_000_000),
    "binary-parquet": lambda w: as_format(binary_results(w, 1_000_000), ".parquet"),
    "text-30-parquet": lambda w: as_format(text_scores(w, 300_000, 30), ".parquet"),
    "binary-jsonl": lambda w: as_format(binary_results(w, 300_000), ".jsonl"),
    "text-30-jsonl": lambda w: as_format(text_scores(w, 100_000, 30), ".jsonl"),
    # JSON Lines of flat records are read by pyarrow (load/arrow_json.py), to the table the same CSV gives.
    "binary-40cat-jsonl": lambda w: as_format(binary_results(w, 1_000_000, n_categories=40), ".jsonl"),
    "runs-jsonl": lambda w: as_format(runs_results(w, 200_000, 5, 1_000), ".jsonl"),
    "text-30-few-changed-jsonl": lambda w: as_format(text_scores(w, 300_000, 30, changed=0.05), ".jsonl"),
    "text-120-jsonl": lambda w: as_format(text_scores(w, 150_000, 120), ".jsonl"),
    "numbers-12-jsonl": lambda w: as_format(many_numbers(w, 1_000_000, 12), ".jsonl"),
    "uuid-jsonl": lambda w: as_format(long_ids(w, 1_000_000), ".jsonl"),
    "labels-jsonl": lambda w: as_format(repeated_text(w, 1_000_000), ".jsonl"),
}
PEAKS = "peaks.json"  # in WORKDIR: {file: peak bytes}, the shapes measured so far on this install


def peak(path: Path, baseline: str) -> int:
    """The peak resident bytes of one report of ``path`` in its own process, as GNU time reports it. Not this
    process's os.wait4: a child started from a large parent counts the parent's pages until it execs (the
    shapes written above), so its figure would be this script's."""
    with tempfile.TemporaryDirectory() as out:
        command = ["/usr/bin/time", "-f", "%M", "-o", f"{out}/peak", sys.executable, "-m", "releasegate", "report",
                   str(path), "--baseline", baseline, "-o", f"{out}/o.json", "-o", f"{out}/o.md"]
        env = {**os.environ, "RELEASEGATE_MEMORY_CHECK": "0"}
        done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, check=False)
        if done.returncode:
            raise SystemExit(f"{path}: report failed: {done.stderr.decode()[-400:]}")
        return int(Path(f"{out}/peak").read_text().split()[-1]) * 1024


def main(argv: list[str] | None = None) -> None:
    from releasegate.load import capacity

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("workdir", type=Path)
    parser.add_argument("--only", nargs="+", choices=sorted(SHAPES), default=tuple(SHAPES))
    args = parser.parse_args(argv)
    args.workdir.mkdir(parents=True, exist_ok=True)
    kept = args.workdir / PEAKS
    peaks = json.loads(kept.read_text()) if kept.exists() else {}
    print("| shape | file | MB | peak MiB | estimate MiB | estimate / peak | (peak - start) / byte |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for name in args.only:
        path = SHAPES[name](args.workdir)
        size = path.stat().st_size
        measured = peak(path, RELEASES[0])
        peaks[str(path.absolute())] = measured
        kept.write_text(json.dumps(peaks, indent=1) + "\n")
        estimate = capacity.BASE + (capacity.needed(path) or 0)
        print(f"| {name} | {path.name} | {size / 1e6:.0f} | {measured / 2**20:,.0f} | {estimate / 2**20:,.0f} | "
              f"{estimate / measured:.2f} | {(measured - capacity.BASE) / size:.2f} |", flush=True)


if __name__ == "__main__":
    main()
