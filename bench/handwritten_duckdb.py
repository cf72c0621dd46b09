"""The columnar yardstick of the large rows (issue 50): bench/handwritten.py's answer written by hand in DuckDB,
the fastest of the hand-written scripts measured on this machine (pandas, polars, duckdb). It reads the file
(CSV, JSON Lines or Parquet, by its suffix), prints the pass rate per release, and per candidate joins it to the
baseline on the case, crosstabs the outcomes, prints per-category pass rates, the fixed and broken counts and the
exact McNemar p (bench/exact_mcnemar.py, as bench/handwritten.py).

DuckDB is a bench-only dependency (``pip install '.[bench]'``); the package never imports it. Usage:

    python bench/handwritten_duckdb.py RESULTS.csv|RESULTS.jsonl|RESULTS.parquet [BASELINE]
"""

import sys
from pathlib import Path

import duckdb

from exact_mcnemar import mcnemar_exact_p


path, baseline = Path(sys.argv[1]), sys.argv[2] if len(sys.argv) > 2 else "r1-live"
reader = {".parquet": "read_parquet", ".jsonl": "read_ndjson_auto", ".ndjson": "read_ndjson_auto"}.get(
    path.suffix, "read_csv")
db = duckdb.connect()
# case_id as text, as a user who knows that "007" is not 7 would write it (the tool reads it so too).
options = ", types = {'case_id': 'VARCHAR'}" if reader == "read_csv" else ""
db.execute(f"CREATE TABLE results AS SELECT * FROM {reader}(?{options})", [str(path)])
print(db.sql("SELECT release, round(avg(passed), 3) AS rate FROM results GROUP BY release ORDER BY release"))
candidates = [r for (r,) in db.execute("SELECT DISTINCT release FROM results WHERE release <> ? ORDER BY 1",
                                       [baseline]).fetchall()]
for candidate in candidates:
    db.execute("""CREATE OR REPLACE TEMP TABLE pairs AS
                  SELECT b.category, b.passed AS passed_base, c.passed AS passed_cand
                  FROM results b JOIN results c USING (case_id)
                  WHERE b.release = ? AND c.release = ?""", [baseline, candidate])
    print(db.sql("SELECT passed_base, passed_cand, count(*) AS n FROM pairs GROUP BY ALL ORDER BY ALL"))
    print(db.sql("""SELECT category, round(avg(passed_base), 3) AS base, round(avg(passed_cand), 3) AS cand
                    FROM pairs GROUP BY category ORDER BY category"""))
    fixed, broke = db.execute("""SELECT count(*) FILTER (passed_base = 0 AND passed_cand = 1),
                                        count(*) FILTER (passed_base = 1 AND passed_cand = 0) FROM pairs""").fetchone()
    print(f"{candidate}: fixed {fixed}, broke {broke}, McNemar p = {mcnemar_exact_p(fixed, broke):.3g}")
