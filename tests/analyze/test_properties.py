"""Property-based tests (hypothesis) over the loader and the statistics of the binary plan.

Fixed seed (``derandomize=True``) and bounded example counts, so CI runs the same examples every time in a
few seconds. The properties:
- no input makes the library raise anything but InputError (random bytes, messy tables);
- every p-value is in [0, 1], every rate and interval where it belongs;
- swapping baseline and candidate mirrors the difference and its interval and swaps fixed and broke;
- renaming the cases or shuffling the rows changes nothing in the result (but the input's hash);
- an adjusted p is never below its raw p, for every correction.
"""

from __future__ import annotations

import csv
import json
import math
import os
import random
import re
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from conftest import build_report
from releasegate.errors import InputError
from releasegate.load import Source, load_results
from releasegate.pipeline import run
from releasegate.policy import make_policy
from releasegate.render import render
from releasegate.render.json_out import to_json_dict
from releasegate.validate import validate

# CI: a fixed seed and 60 examples per property. RELEASEGATE_FUZZ=2000 runs that many random examples
# instead (a local hunt for new failures; add any found with @example).
FUZZ = int(os.environ.get("RELEASEGATE_FUZZ", "0"))
SETTINGS = settings(max_examples=FUZZ or 60, derandomize=not FUZZ, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow])
CATEGORIES = ("Fraud", "Cards", "a|b", "<x>", "Fees")
CORRECTIONS = ("holm", "hochberg", "bh", "bonferroni", "none")
WORDS = {True: ("1", "true", "TRUE", "pass", "Yes", "y"), False: ("0", "false", "False", "FAIL", "no", "n")}


@st.composite
def results(draw, max_cases: int = 25, max_candidates: int = 2):
    """A valid tidy table: every release has every case, pass/fail written in a random spelling."""
    n = draw(st.integers(1, max_cases))
    releases = ["base", *(f"cand{k}" for k in range(draw(st.integers(1, max_candidates))))]
    categories = draw(st.lists(st.sampled_from(CATEGORIES), min_size=n, max_size=n)) \
        if draw(st.booleans()) else None
    rows = []
    for release in releases:
        spelling = draw(st.integers(0, len(WORDS[True]) - 1))
        for i, passed in enumerate(draw(st.lists(st.booleans(), min_size=n, max_size=n))):
            row = {"release": release, "case_id": f"case{i:03d}", "passed": WORDS[passed][spelling]}
            if categories:
                row["category"] = categories[i]
            rows.append(row)
    return rows


@st.composite
def policies(draw, categories: bool = True):
    return {
        "alpha": draw(st.sampled_from((0.01, 0.05, 0.1))),
        "margin": draw(st.sampled_from((0.0, 0.05))),
        "correction": draw(st.sampled_from(CORRECTIONS)),
        "mcnemar": draw(st.sampled_from(("exact", "midp"))),
        "critical": tuple(draw(st.sets(st.sampled_from(CATEGORIES), max_size=2))) if categories else (),
    }


def _write(rows: list[dict], path: Path) -> None:
    if path.suffix == ".jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        return
    columns = list(dict.fromkeys(k for r in rows for k in r))
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)


def _report(rows: list[dict], baseline: str = "base", suffix: str = ".csv", **policy):
    # Only categories of the data can be critical: any other name is refused (issue 15), tested elsewhere.
    present = {row.get("category") for row in rows}
    policy["critical"] = tuple(name for name in policy.get("critical", ()) if name in present)
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / f"results{suffix}"
        _write(rows, path)
        return build_report(path, command_line="", baseline=baseline, **policy)


def _comparisons(report):
    for cand in report.analysis.candidates:
        yield cand.overall
        yield from cand.categories


# --- no crash -----------------------------------------------------------------------------------------------

# Random bytes, alone or after a plausible start, so that some get past the first line.
PREFIXES = (b"", b"release,case_id,passed\n", b"release\tcase_id\tpassed\n", b'[{"release": "r1", ',
            b'{"release": "r1", "case_id": "c1", "passed": 1}\n', b"\xef\xbb\xbfrelease,case_id,passed\nr1,")


TOKENS = st.text(alphabet=st.sampled_from(list(',\n\t"r12c3 yesno{}[]:.-\x00é')), max_size=200).map(str.encode)


@settings(SETTINGS, max_examples=5 * SETTINGS.max_examples)  # cheap: most inputs stop at the first line
@given(data=st.builds(bytes.__add__, st.sampled_from(PREFIXES), st.one_of(st.binary(max_size=300), TOKENS)),
       suffix=st.sampled_from((".csv", ".tsv", ".json", ".jsonl", ".parquet")))
def test_random_bytes_never_crash_the_loader(data, suffix):
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / f"results{suffix}"
        path.write_bytes(data)
        try:
            loaded = load_results([Source(path)])
        except InputError:
            event("refused by the loader")
            return
        event("loaded")
        try:
            validate(loaded.table, make_policy(baseline="r1"), loaded.metadata_columns)
        except InputError:
            pass


MESSY_VALUE = st.one_of(st.none(), st.sampled_from(("", " ", "1", "0", "true", "maybe", "2", "nan", "NULL")),
                        st.text(max_size=6))


@st.composite
def messy_results(draw):
    """A table of random cells under the right header: blanks, duplicates, odd words, odd releases."""
    n = draw(st.integers(0, 12))
    header = draw(st.lists(st.sampled_from(("release", "case_id", "passed", "category", "cluster", "input",
                                            "latency_ms")), min_size=1, max_size=6, unique=True))
    rows = []
    for _ in range(n):
        row = {}
        for column in header:
            if column == "release":
                row[column] = draw(st.one_of(st.sampled_from(("r1", "r2", "r3", "")), MESSY_VALUE))
            elif column == "case_id":
                row[column] = draw(st.one_of(st.sampled_from(("c1", "c2", "c3")), MESSY_VALUE))
            else:
                row[column] = draw(MESSY_VALUE)
        rows.append(row)
    return header, rows


@SETTINGS
@given(table=messy_results(), suffix=st.sampled_from((".csv", ".jsonl")),
       baseline=st.sampled_from(("r1", "r2", "zz")), missing=st.sampled_from(("refuse", "fail", "drop")),
       allow_missing=st.booleans())
def test_messy_tables_give_a_report_or_an_input_error(table, suffix, baseline, missing, allow_missing):
    header, rows = table
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / f"results{suffix}"
        if suffix == ".csv":
            with open(path, "w", newline="", encoding="utf-8") as handle:
                writer = csv.writer(handle)
                writer.writerow(header)
                writer.writerows([[row[c] for c in header] for row in rows])
        else:
            path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        policy = make_policy(baseline=baseline, missing=missing, allow_missing=allow_missing)
        try:
            report = run([Source(path)], policy)
        except InputError as exc:
            assert "\n" not in str(exc) and str(exc)
            event("refused")
            return
    event("reported")
    if report.analysis.outcome_kind == "binary" and not report.analysis.has_runs:
        assert render(report, ".md") and render(report, ".json")


# --- statistics ---------------------------------------------------------------------------------------------

def _unit(x: float) -> bool:
    return 0.0 <= x <= 1.0


@SETTINGS
@given(rows=results(), policy=policies(), suffix=st.sampled_from((".csv", ".jsonl")))
def test_p_values_rates_and_intervals_stay_in_range(rows, policy, suffix):
    report = _report(rows, suffix=suffix, **policy)
    for c in _comparisons(report):
        for p in (c.p_value, c.p_midp, c.p_one_sided, c.p_adjusted, c.p_value_adjusted):
            assert _unit(p), (c.label, p)
        for rate in (c.baseline, c.candidate):
            assert _unit(rate.value) and _unit(rate.ci_low) and _unit(rate.ci_high)
            assert rate.ci_low <= rate.value <= rate.ci_high
        assert -1.0 <= c.ci_low <= c.diff <= c.ci_high <= 1.0
        assert c.ni_low <= c.diff <= c.ni_high
        assert c.fixed + c.broke + c.both_pass + c.both_fail == c.n


@SETTINGS
@given(rows=results(), policy=policies())
def test_adjusted_p_is_never_below_raw_p(rows, policy):
    report = _report(rows, **policy)
    for c in _comparisons(report):
        assert c.p_adjusted >= c.p_one_sided
        assert c.p_value_adjusted >= c.p_value


@SETTINGS
@given(rows=results(max_candidates=1), policy=policies())
def test_swapping_baseline_and_candidate_mirrors_the_result(rows, policy):
    forward = _report(rows, baseline="base", **policy).analysis.candidates[0]
    backward = _report(rows, baseline="cand0", **policy).analysis.candidates[0]
    pairs = [(forward.overall, backward.overall),
             *zip(sorted(forward.categories, key=lambda c: c.label), sorted(backward.categories, key=lambda c: c.label))]
    for f, b in pairs:
        assert f.label == b.label and f.n == b.n
        assert (f.fixed, f.broke, f.both_pass, f.both_fail) == (b.broke, b.fixed, b.both_pass, b.both_fail)
        assert math.isclose(f.diff, -b.diff, abs_tol=1e-12)
        assert math.isclose(f.ci_low, -b.ci_high, abs_tol=1e-12)
        assert math.isclose(f.ci_high, -b.ci_low, abs_tol=1e-12)
        assert math.isclose(f.p_value, b.p_value, rel_tol=1e-12)
        assert (f.baseline, f.candidate) == (b.candidate, b.baseline)
    assert {c.case_id for c in forward.broken_cases} == {c.case_id for c in backward.fixed_cases}
    assert {c.case_id for c in forward.fixed_cases} == {c.case_id for c in backward.broken_cases}


def _normalised(report, rename_back: dict[str, str] | None = None) -> dict:
    """The JSON report without what legitimately differs: the input file's hash and (temporary) path, the
    order of case listings, and the order of releases, which follows their first appearance in the file."""
    out = to_json_dict(report)
    for entry in out["inputs"]:
        entry.pop("sha256")
        entry.pop("path")
    out.pop("title")  # the temporary folder's name
    out["loading"].pop("default_title")  # likewise
    out["releases"].sort(key=lambda r: r["name"])
    out["candidates"].sort(key=lambda c: c["name"])
    out["policy"]["candidates"] = sorted(out["policy"]["candidates"])
    back = rename_back or {}
    for cand in out["candidates"]:
        for key in ("broken_cases", "fixed_cases"):
            for case in cand[key]:
                case["case_id"] = back.get(case["case_id"], case["case_id"])
            cand[key].sort(key=lambda case: case["case_id"])
        view = cand.get("case_view") or {}  # the case view's listings (issue 17), as the broken and fixed
        for key in ("both_fail", "errored"):
            for case in view.get(key, []):
                case["case_id"] = back.get(case["case_id"], case["case_id"])
            view.get(key, []).sort(key=lambda case: case["case_id"])
        for key in ("only_baseline", "only_candidate"):
            cand["excluded_cases"][key] = sorted(back.get(x, x) for x in cand["excluded_cases"][key])
        # The critical warnings name the broken cases: compare their names, mapped back, as a set.
        cand["warnings"] = [_names_back(w, back) for w in cand["warnings"]]
    return out


def _names_back(warning: str, back: dict[str, str]) -> str:
    match = re.match(r"(.* \(critical\): \d+ \w+ cases?: )(.*?)(; the critical test .*)", warning)
    if not match:
        return warning
    names = sorted(back.get(x, x) for x in match.group(2).split(", "))
    return match.group(1) + ", ".join(names) + match.group(3)


@SETTINGS
@given(rows=results(), policy=policies(), seed=st.integers(0, 2**32 - 1))
def test_renaming_cases_or_shuffling_rows_changes_nothing(rows, policy, seed):
    shuffle = random.Random(seed)
    reference = _normalised(_report(rows, **policy))

    shuffled = list(rows)
    shuffle.shuffle(shuffled)
    assert _normalised(_report(shuffled, **policy)) == reference

    ids = sorted({r["case_id"] for r in rows})
    new_names = [f"id-{k}" for k in range(len(ids))]
    shuffle.shuffle(new_names)  # a different order of names than of cases
    rename = dict(zip(ids, new_names))
    renamed = [{**r, "case_id": rename[r["case_id"]]} for r in rows]
    back = {v: k for k, v in rename.items()}
    assert _normalised(_report(renamed, **policy), back) == reference
