"""Time the analysis stage on its own, inside one process: load and validate first (timed apart), then
``analyze`` (every statistic, every resample, and the modules it imports on first use), then ``analyze`` once
more (the statistics alone). Prints one JSON line with the stage times in seconds.

Usage: python bench/analysis_timer.py RESULTS.csv --baseline NAME [--resamples N] [--seed N]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

START = time.perf_counter()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path)
    parser.add_argument("--baseline", required=True)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    from releasegate.analyze import analyze
    from releasegate.load import Source, load_results
    from releasegate.policy import make_policy
    from releasegate.validate import validate

    policy = make_policy({}, baseline=args.baseline, n_resamples=args.resamples, seed=args.seed)
    t0 = time.perf_counter()
    loaded = load_results([Source(args.results)], columns=policy.columns)
    t1 = time.perf_counter()
    data = validate(loaded.table, policy, loaded.metadata_columns)
    t2 = time.perf_counter()
    analyze(data, policy)
    t3 = time.perf_counter()
    # Again, with every module the analysis imports on first use already loaded: the statistics alone.
    analyze(data, policy)
    t4 = time.perf_counter()
    print(json.dumps({"imports_s": t0 - START, "load_s": t1 - t0, "validate_s": t2 - t1, "analysis_s": t3 - t2,
                      "analysis_again_s": t4 - t3, "has_runs": data.has_runs, "has_clusters": data.has_clusters}))


if __name__ == "__main__":
    main()
