"""Issue 21 item 5: when a candidate that changes nothing has less than an even chance to be shown no worse
than the margin, the verdict says so, with the cases that would give an even and an 80% chance."""

from __future__ import annotations

from conftest import build_report


def _write(tmp_path, n: int, broke: int, fixed: int, runs: int = 1):
    """n cases, 80% passing on r1; r2 breaks the first ``broke`` passing cases and fixes ``fixed`` failing."""
    passing = [i for i in range(n) if i % 5 != 4]
    failing = [i for i in range(n) if i % 5 == 4]
    broken, mended = set(passing[:broke]), set(failing[:fixed])
    lines = ["release,case_id,run,passed"]
    for release in ("r1", "r2"):
        for i in range(n):
            base = int(i % 5 != 4)
            out = base if release == "r1" else int((base and i not in broken) or i in mended)
            for run in range(runs):
                # with several runs, run 1 flips every sixth case on both releases: per-case means that are
                # not 0/1, so the paired-mean path (not the sparse exact test) decides
                flip = runs > 1 and run == 1 and i % 6 == 1
                lines.append(f"{release},c{i:04d},{run},{1 - out if flip else out}")
    path = tmp_path / "results.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


def _reach_warnings(report):
    return [w for v in report.verdicts for w in v.warnings if w.startswith("the suite is too small for its margin")]


def test_small_suite_at_high_churn_is_told_what_would_be_enough(tmp_path):
    # 60 cases, 2 broke and 10 fixed: 20% changing, shown no worse (SHIP), yet a candidate that changes nothing
    # would seldom be. Power Phi(0.05 sqrt(60) / sqrt(0.2) - 1.645) = 22%;
    # an even chance needs 0.2 * 1.645^2 / 0.05^2 = 216.5 -> 217 cases, 80%: 0.2 * 2.486^2 / 0.0025 = 494.5 -> 495.
    report = build_report(_write(tmp_path, 60, 2, 10), baseline="r1")
    assert report.verdicts[0].verdict == "ship"
    (warning,) = _reach_warnings(report)
    assert warning == ("the suite is too small for its margin: a candidate that changes nothing has a 22% chance "
                       "to be shown no worse than 5.0 points with 20.0% of cases changing outcome here; 217 cases "
                       "would give an even chance, 495 a chance of 80% (has 60)")
    reach = report.analysis.candidates[0].power.ni_reach
    assert (reach.n_even, reach.n_target) == (217, 495)


def test_large_enough_suite_has_no_such_warning(tmp_path):
    # 400 cases, 10% changing: 94% chance, above one half.
    report = build_report(_write(tmp_path, 400, 20, 20), baseline="r1")
    assert _reach_warnings(report) == []
    assert report.analysis.candidates[0].power.ni_reach.power > 0.9


def test_margin_zero_turns_the_warning_off(tmp_path):
    report = build_report(_write(tmp_path, 60, 6, 6), baseline="r1", margin=0.0)
    assert _reach_warnings(report) == []
    assert report.analysis.candidates[0].power.ni_reach is None


def test_a_not_proven_candidate_is_told_by_its_settle_figures_alone(tmp_path):
    """With 6 broke and 6 fixed the rule holds the candidate NOT PROVEN: its verdict says what would settle it
    (analyze/settle.py), and no second figure for the same question stands in the warnings."""
    report = build_report(_write(tmp_path, 60, 6, 6), baseline="r1")
    verdict = report.verdicts[0]
    assert verdict.verdict == "not_proven"
    assert _reach_warnings(report) == []
    settle = report.analysis.candidates[0].sections.settle.plan
    assert f"a suite of {settle.cases_needed[0]:,} cases ({settle.cases_needed[0] - 60:,} more) gives an 80% " \
           "chance" in verdict.headline


def test_several_runs_use_the_spread_of_the_differences(tmp_path):
    report = build_report(_write(tmp_path, 60, 2, 10, runs=3), baseline="r1")
    (warning,) = _reach_warnings(report)
    assert "at the spread of the per-case differences here" in warning
