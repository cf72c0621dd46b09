"""Fit the memory factors of load/capacity.py to the peaks bench/capacity_shapes.py measured.

The factors are the least that put the estimate at or above the measured peak of every file, plus a margin: a
linear program (scipy's linprog, HiGHS) over the six factors of a CSV or Parquet file's shape (per row, per
numeric column, per coded column (at most :data:`CODE_BOUND`), per byte of case id, per metadata value, per byte of metadata), one
constraint per file (start-up plus estimate at least its peak), minimising the sum over files of estimate /
peak with the bench's pass/fail shape weighted ten times (the common input: an estimate far above it refuses
files that fit). Then :data:`MARGIN` more, rounded up to two significant figures. JSON has one factor per
byte: the largest measured (peak - start-up) per byte, plus the margin. Prints the factors before and after
the margin, then every file's peak, estimate and their ratio with the new factors.

    python bench/capacity_shapes.py WORKDIR          # on the default install: measures, writes WORKDIR/peaks.json
    PYTHONPATH=src .venv/bin/python bench/capacity_fit.py WORKDIR/peaks.json [--peak FILE=MIB ...]

scipy is in the test extra, not the default install; the fit reads only the files' samples, not their peaks.
``--peak`` adds a peak measured by hand (a file too large to measure with every run, such as 10^8 cases).
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import numpy as np

from releasegate.load import capacity

MARGIN = 1.15
FACTORS = ("PER_ROW", "PER_NUMBER", "PER_CODE", "PER_ID_BYTE", "PER_META_VALUE", "PER_META_BYTE")
COMMON_WEIGHT = 10.0  # the bench's shape (bench/generate.py's binary_results) against any other
# Every file has a release column and most a category, so a coded column's factor and the per-row one are
# nearly the same unknown: unbounded, the program moves the per-row cost into it (20 bytes a code, none a
# row), which would overstate files with clusters. A coded column holds a 32-bit code per row; what it costs
# beyond that is counted per row.
CODE_BOUND = 4.0


def shape_terms(path: Path) -> np.ndarray | None:
    """What each factor multiplies in the file's estimate (None: JSON, one factor per byte)."""
    suffix = path.suffix.lower()
    if suffix == ".parquet":
        shape = capacity.parquet_shape(path)
    elif suffix in (".csv", ".tsv"):
        shape = capacity.delimited_shape(path, "\t" if suffix == ".tsv" else ",")
    else:
        return None
    if shape is None:
        raise SystemExit(f"{path}: its shape cannot be read (is pyarrow installed?)")
    return np.array([shape.rows, shape.rows * shape.numbers, shape.rows * shape.codes, shape.id_bytes,
                     shape.rows * shape.metas, shape.meta_bytes])


def least_factors(terms: np.ndarray, peaks: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """The non-negative factors x minimising sum(weights * (terms @ x) / peaks) with terms @ x >= peaks."""
    from scipy.optimize import linprog

    bounds = [(0, CODE_BOUND) if name == "PER_CODE" else (0, None) for name in FACTORS]
    cost = (weights[:, None] * terms / peaks[:, None]).sum(axis=0)
    done = linprog(cost, A_ub=-terms, b_ub=-peaks, bounds=bounds, method="highs")
    if done.status != 0:
        raise SystemExit(f"the linear program found no factors: {done.message}")
    return done.x


def rounded_up(value: float) -> float:
    """``value`` rounded up to two significant figures (never below it)."""
    if value <= 0:
        return 0.0
    step = 10.0 ** (math.floor(math.log10(value)) - 1)
    return math.ceil(round(value / step, 9)) * step


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("peaks", type=Path, help="peaks.json written by bench/capacity_shapes.py")
    parser.add_argument("--peak", action="append", default=[], metavar="FILE=MIB",
                        help="a peak measured by hand, in MiB")
    args = parser.parse_args(argv)
    peaks = {Path(name): float(value) for name, value in json.loads(args.peaks.read_text()).items()}
    for one in args.peak:
        name, mib = one.rsplit("=", 1)
        peaks[Path(name)] = float(mib.replace(",", "")) * 2**20
    tables = {path: shape_terms(path) for path in peaks}
    fitted = [path for path, terms in tables.items() if terms is not None]
    terms = np.array([tables[path] for path in fitted])
    above = np.array([peaks[path] - capacity.BASE for path in fitted])
    weights = np.array([COMMON_WEIGHT if path.name.startswith("binary-") else 1.0 for path in fitted])
    least = least_factors(terms, above, weights)
    chosen = np.array([rounded_up(value * MARGIN) for value in least])
    json_files = [path for path, terms in tables.items() if terms is None]
    json_least = max(((peaks[p] - capacity.BASE) / p.stat().st_size for p in json_files), default=0.0)
    print("| factor | now | least | least + margin |")
    print("|---|---:|---:|---:|")
    for name, low, high in zip(FACTORS, least, chosen):
        print(f"| {name} | {getattr(capacity, name)} | {low:.2f} | {high:g} |")
    if json_files:
        print(f"| PER_JSON_BYTE | {capacity.PER_JSON_BYTE} | {json_least:.2f} | {rounded_up(json_least * MARGIN):g} |")
    print("\n| file | MB | peak MiB | estimate MiB | estimate / peak |")
    print("|---|---:|---:|---:|---:|")
    for path in peaks:
        if tables[path] is None:
            estimate = capacity.BASE + path.stat().st_size * rounded_up(json_least * MARGIN)
        else:
            estimate = capacity.BASE + float(tables[path] @ chosen)
        print(f"| {path.name} | {path.stat().st_size / 1e6:,.0f} | {peaks[path] / 2**20:,.0f} | "
              f"{estimate / 2**20:,.0f} | {estimate / peaks[path]:.2f} |")


if __name__ == "__main__":
    main()
