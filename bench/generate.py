"""Synthetic eval results for the benchmark, drawn with a fixed seed so that every run times the same bytes.

Two shapes:

- ``binary_results``: one row per (release, case), the bank-assistant example's columns (case_id, release,
  category, passed, latency_ms, input_tokens, output_tokens). The candidate agrees with the baseline on most
  cases and fixes / breaks a few per cent, as real releases do.
- ``runs_results``: one row per (release, case, run) with a cluster column, pass/fail per run; a per-cluster
  difficulty makes the clustering matter.

Files are written once into the work directory under a name that holds every parameter, and reused.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

SEED = 20240611
RELEASES = ("r1-live", "r2-candidate")


def _case_ids(n: int, padded: bool = True) -> np.ndarray:
    """``C0000001`` .. (zero-padded: they sort as numbers) or ``case1`` .. (plain: as a user's ids often are)."""
    numbers = np.arange(1, n + 1).astype(str)
    return np.char.add("C", np.char.zfill(numbers, len(str(n)))) if padded else np.char.add("case", numbers)


def _write_csv(frame: pd.DataFrame, path: Path) -> Path:
    """Write through a temporary name so that an interrupted run never leaves a half file to be reused."""
    temporary = path.with_suffix(".partial")
    frame.to_csv(temporary, index=False, float_format="%.1f")
    temporary.replace(path)
    return path


def binary_results(workdir: Path, n_cases: int, n_categories: int = 20, seed: int = SEED,
                   padded: bool = True) -> Path:
    """``n_cases`` x 2 releases of pass/fail results with categories, latency and tokens, as one CSV; the case
    ids zero-padded (``C0000017``) or, with ``padded=False``, plain (``case17``)."""
    path = workdir / f"binary-{n_cases}x2-{n_categories}cat-seed{seed}{'' if padded else '-plain'}.csv"
    if path.exists():
        return path
    rng = np.random.default_rng(seed)
    ids = _case_ids(n_cases, padded)
    category = np.char.add("Category ", np.char.zfill((rng.integers(0, n_categories, n_cases) + 1).astype(str), 2))
    base = rng.random(n_cases) < 0.90
    # The candidate breaks 3% of the baseline's passes and fixes 30% of its failures.
    flip = rng.random(n_cases)
    cand = np.where(base, flip >= 0.03, flip < 0.30)
    frames = []
    for release, passed, latency_scale in ((RELEASES[0], base, 900.0), (RELEASES[1], cand, 850.0)):
        frames.append(pd.DataFrame({
            "case_id": ids,
            "release": release,
            "category": category,
            "passed": passed.astype(np.int8),
            "latency_ms": rng.lognormal(np.log(latency_scale), 0.5, n_cases).round(1),
            "input_tokens": rng.integers(200, 900, n_cases),
            "output_tokens": rng.integers(20, 400, n_cases),
        }))
    return _write_csv(pd.concat(frames, ignore_index=True), path)


def streamed_binary_results(workdir: Path, n_cases: int, n_categories: int = 40, chunk: int = 5_000_000,
                            seed: int = SEED) -> Path:
    """:func:`binary_results`' shape at any size (10^8 cases x 2 is a 9.9 GB CSV): written a chunk of cases at a
    time by pyarrow's CSV writer, so that only one chunk is in memory, values unquoted (the reader then splits the
    file on two threads, as for bench/generate.py's other files). Each chunk draws from its own seed, so the file
    depends on ``chunk``; the candidate breaks 3% of the baseline's passes and fixes 30% of its failures."""
    import pyarrow as pa
    import pyarrow.csv as csv

    path = workdir / f"binary-{n_cases}x2-{n_categories}cat-streamed-seed{seed}.csv"
    if path.exists():
        return path
    names = pa.array([f"Category {k + 1:02d}" for k in range(n_categories)])
    columns = ("case_id", "release", "category", "passed", "latency_ms", "input_tokens", "output_tokens")
    temporary = path.with_suffix(".partial")
    with open(temporary, "wb") as handle:
        handle.write((",".join(columns) + "\n").encode())  # pyarrow would quote the header's names
        with csv.CSVWriter(handle, pa.schema([(c, pa.string()) for c in columns[:3]] +
                                             [("passed", pa.int8()), ("latency_ms", pa.float64()),
                                              ("input_tokens", pa.int64()), ("output_tokens", pa.int64())]),
                           write_options=csv.WriteOptions(include_header=False, quoting_style="none")) as writer:
            for number, (release, latency_scale) in enumerate(((RELEASES[0], 900.0), (RELEASES[1], 850.0))):
                for start in range(0, n_cases, chunk):
                    n = min(chunk, n_cases - start)
                    case = np.random.default_rng([seed, start])  # the case's category and baseline outcome
                    category = case.integers(0, n_categories, n)
                    base = case.random(n) < 0.90
                    flip = case.random(n)
                    passed = base if number == 0 else np.where(base, flip >= 0.03, flip < 0.30)
                    # This release's latency and tokens: streams 7 and 8, those of the 10^8 file bench/RESULTS.md
                    # measured (the same bytes again).
                    own = np.random.default_rng([7 + number, start])
                    writer.write_table(pa.table({
                        "case_id": pa.array(np.char.add("C", np.char.zfill(
                            np.arange(start + 1, start + n + 1).astype(str), len(str(n_cases))))),
                        "release": pa.array(np.full(n, release)),
                        "category": names.take(pa.array(category)),
                        "passed": pa.array(passed.astype(np.int8)),
                        "latency_ms": pa.array(own.lognormal(np.log(latency_scale), 0.5, n).round(1)),
                        "input_tokens": pa.array(own.integers(200, 900, n)),
                        "output_tokens": pa.array(own.integers(20, 400, n)),
                    }))
    temporary.replace(path)
    return path


def runs_results(workdir: Path, n_cases: int, n_runs: int, n_clusters: int, seed: int = SEED) -> Path:
    """``n_cases`` x ``n_runs`` x 2 releases of pass/fail results, cases grouped in ``n_clusters`` clusters."""
    path = workdir / f"runs-{n_cases}x{n_runs}x2-{n_clusters}cl-seed{seed}.csv"
    if path.exists():
        return path
    rng = np.random.default_rng(seed)
    ids = _case_ids(n_cases)
    cluster_of_case = rng.integers(0, n_clusters, n_cases)
    cluster_names = np.char.add("K", np.char.zfill(cluster_of_case.astype(str), len(str(n_clusters))))
    # Cases of one cluster share a difficulty (a passage, a template): that is why clusters matter.
    cluster_logit = rng.normal(2.0, 1.0, n_clusters)[cluster_of_case]
    case_logit = cluster_logit + rng.normal(0.0, 0.5, n_cases)
    frames = []
    for release, shift in ((RELEASES[0], 0.0), (RELEASES[1], 0.05)):
        p = 1.0 / (1.0 + np.exp(-(case_logit + shift)))
        for run in range(1, n_runs + 1):
            frames.append(pd.DataFrame({
                "case_id": ids,
                "release": release,
                "run": run,
                "cluster": cluster_names,
                "passed": (rng.random(n_cases) < p).astype(np.int8),
            }))
    return _write_csv(pd.concat(frames, ignore_index=True), path)


def main(argv: list[str] | None = None) -> None:
    """``python bench/generate.py WORKDIR``: write (or reuse) the benchmark's inputs; print their paths as JSON."""
    import argparse
    import json

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("workdir", type=Path)
    parser.add_argument("--streamed", type=int, metavar="N_CASES",
                        help="write only N_CASES x 2 of the binary shape, a chunk at a time (10^8: 9.9 GB)")
    args = parser.parse_args(argv)
    args.workdir.mkdir(parents=True, exist_ok=True)
    if args.streamed:
        print(json.dumps({"binary_streamed": str(streamed_binary_results(args.workdir, args.streamed))}))
        return
    paths = {"binary": binary_results(args.workdir, 1_000_000), "runs": runs_results(args.workdir, 100_000, 5, 1_000),
             "binary_plain": binary_results(args.workdir, 1_000_000, padded=False)}
    print(json.dumps({k: str(v) for k, v in paths.items()}))


if __name__ == "__main__":
    main()
