"""Errored cases, a third state (issue 16, part 1): a non-empty ``error`` cell leaves the comparison, is counted
and listed with its message beside the verdict, in ``check``'s stdout and in the job summary; a baseline error
never reads as a candidate fix; errored latencies stay out of the costs; ``max_error_rate_increase`` can block.
"""

from __future__ import annotations

import json

import pytest

from conftest import build_report, run_cli
from releasegate.render.markdown import render_markdown
from releasegate.render.summary import render_summary

N = 300


def _write(tmp_path, base_errors=range(12), cand_errors=(), name="results.csv", drop_errored=False, runs=1):
    """300 cases; the baseline fails every case the candidate passes among the first 40 (so a baseline error
    there would be a "fix" if errors were counted as failures)."""
    lines = ["release,case_id,category,run,passed,error,latency_ms"]
    for release, errored in (("r1", set(base_errors)), ("r2", set(cand_errors))):
        for i in range(N):
            for run in range(1, runs + 1):
                error = f"TimeoutError: case {i} took 30 s" if i in errored and run == 1 else ""
                if error and drop_errored:
                    continue
                passed = "" if error else (0 if release == "r1" and i < 40 else 1 if i % 7 else 0)
                latency = 30000 if error else 100 + i % 50
                lines.append(f"{release},c{i:03d},{'AB'[i % 2]},{run},{passed},{error},{latency}")
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return path


def test_twelve_baseline_errors_are_counted_listed_and_never_fixed(tmp_path):
    report = build_report(_write(tmp_path), baseline="r1")
    cand = report.analysis.candidates[0]
    e = cand.sections.errors
    assert (e.n_cases, e.excluded, e.compared) == (N, 12, 288)
    assert (e.baseline_only, e.candidate_only, e.both) == (12, 0, 0)
    errored = {c.case_id for c in e.cases}
    assert errored == {f"c{i:03d}" for i in range(12)}
    assert all(c.side == "baseline" and c.baseline_error.startswith("TimeoutError") and c.candidate_error == ""
               for c in e.cases)
    fixed = {c.case_id for c in cand.fixed_cases}
    assert fixed and not fixed & errored  # c012..c039 are fixes; no errored case is one
    assert cand.overall.n == 288
    assert e.rate.increase == pytest.approx(-12 / N)


def test_figures_equal_a_run_without_the_errored_cases(tmp_path):
    with_errors = build_report(_write(tmp_path), baseline="r1").analysis.candidates[0]
    lines = _write(tmp_path, name="all.csv").read_text().splitlines()
    kept = [line for line in lines if not any(f",c{i:03d}," in line for i in range(12))]
    (tmp_path / "without.csv").write_text("\n".join(kept) + "\n")
    without = build_report(tmp_path / "without.csv", baseline="r1").analysis.candidates[0]
    assert with_errors.overall == without.overall
    assert with_errors.categories == without.categories
    # The cases themselves; the error column's text beside them differs (empty in the file without errors).
    def bare(changes):
        return [(c.case_id, c.category, c.baseline_outcome, c.candidate_outcome) for c in changes]

    assert bare(with_errors.broken_cases) == bare(without.broken_cases)
    assert bare(with_errors.fixed_cases) == bare(without.fixed_cases)


def test_shown_next_to_the_verdict_in_stdout_markdown_html_and_summary(tmp_path):
    path = _write(tmp_path)
    out_md, out_html, out_json = tmp_path / "note.md", tmp_path / "note.html", tmp_path / "note.json"
    result = run_cli("check", path, "--baseline", "r1", "-o", out_md, "-o", out_html, "-o", out_json)
    lines = result.output.splitlines()
    assert lines[0].startswith("DON'T SHIP r2") or lines[0].startswith("SHIP r2")
    assert " r2 (12 of 300 cases left out: errored): " in lines[0]
    assert lines[1].strip().startswith("12 of 300 cases errored and left the comparison of r2 with r1 "
                                       "(12 on the baseline only, 0 on the candidate only")
    md = out_md.read_text()
    verdict_table_end = md.index("### Summary")
    assert "**Errored cases, r2:** 12 of 300 cases errored" in md[:verdict_table_end]
    assert "### Errored cases: r2 against r1" in md and "TimeoutError: case 0 took 30 s" in md
    html = out_html.read_text()
    assert html.index("Errored cases:") < html.index('id="summary"')
    assert "TimeoutError: case 11 took 30 s" in html
    data = json.loads(out_json.read_text())["candidates"][0]["errors"]
    assert (data["excluded"], data["baseline_errored"], len(data["cases"])) == (12, 12, 12)
    assert data["error_rate"]["increase"] == pytest.approx(-0.04)
    summary = render_summary(build_report(path, baseline="r1"))
    assert "**Errored cases, r2:** 12 of 300 cases errored" in summary


def test_few_errors_are_counted_in_the_headline_and_told_apart_below_it(tmp_path):
    result = run_cli("check", _write(tmp_path, base_errors=[0], cand_errors=[1]), "--baseline", "r1")
    first, second = result.output.splitlines()[:2]
    assert " r2 (2 of 300 cases left out: errored): " in first
    assert "2 of 300 cases errored" in second and "1 on the baseline only, 1 on the candidate only" in second


def test_no_error_column_or_no_errors_changes_nothing(tmp_path):
    path = _write(tmp_path, base_errors=())
    report = build_report(path, baseline="r1")
    assert report.analysis.candidates[0].sections.errors.excluded == 0
    assert "rrored" not in render_markdown(report)
    plain = tmp_path / "plain" / path.name  # the same file name: the same default title
    plain.parent.mkdir()
    plain.write_text("\n".join(",".join(p for k, p in enumerate(line.split(",")) if k != 5)
                               for line in path.read_text().splitlines()) + "\n")
    bare = build_report(plain, baseline="r1")
    assert bare.analysis.candidates[0].sections.errors is None

    def without_inputs(md: str) -> list[str]:
        # Up to the case listings, where an (empty) error column is shown as case metadata like any other.
        return md.split("### Broken cases")[0].splitlines()

    assert without_inputs(render_markdown(bare)) == without_inputs(render_markdown(report))


def test_missing_fail_stays_the_explicit_choice(tmp_path):
    report = build_report(_write(tmp_path), baseline="r1", missing="fail")
    cand = report.analysis.candidates[0]
    # Compared as failures, yet still measured as errors (the guardrail reads them): none left the comparison.
    e = cand.sections.errors
    assert cand.overall.n == N and e.counted_as_failures and (e.excluded, e.compared, e.baseline_only) == (12, N, 12)
    assert not any(r.reason == "errored" for r in cand.exclusions.reasons)
    # Counted as failures, the twelve baseline errors read as candidate fixes: the explicit choice says so.
    assert {f"c{i:03d}" for i in range(12) if i % 7} <= {c.case_id for c in cand.fixed_cases}
    assert any("errored row(s) counted as failures" in note for note in report.analysis.notes)


def test_errored_latency_stays_out_of_the_costs(tmp_path):
    with_errors = build_report(_write(tmp_path), baseline="r1").analysis
    without = build_report(_write(tmp_path, name="gone.csv", drop_errored=True), baseline="r1",
                           allow_missing=True).analysis
    base_costs = with_errors.sections.costs.releases[0].latency
    assert base_costs.p95 < 1000  # no 30,000 ms timeout in the baseline's latency
    assert base_costs == without.sections.costs.releases[0].latency
    assert with_errors.candidates[0].sections.costs.latency_p95_ratio.high < 1.5


def test_a_case_errored_in_one_run_leaves_the_comparison(tmp_path):
    report = build_report(_write(tmp_path, base_errors=range(5), runs=3), baseline="r1")
    cand = report.analysis.candidates[0]
    assert cand.sections.errors.excluded == 5 and cand.overall.n == N - 5
    assert cand.sections.run_axis is not None


def _guardrail(tmp_path, path, limit: float):
    policy = tmp_path / "policy.toml"
    policy.write_text(f'baseline = "r1"\nmargin = 0\n[guardrails]\nmax_error_rate_increase = {limit}\n')
    out = tmp_path / "out.json"
    result = run_cli("check", path, "--policy", policy, "-o", out)
    cand = json.loads(out.read_text())["candidates"][0]
    return result.exit_code, next(c for c in cand["checks"] if c["rule"] == "guardrail")


def test_error_rate_guardrail_blocks_a_candidate_that_errors_more(tmp_path):
    code, check = _guardrail(tmp_path, _write(tmp_path, base_errors=(), cand_errors=range(0, 300, 10)), 0.02)
    assert code == 1 and check["fired"]
    assert check["detail"].startswith("guardrail exceeded: error_rate_increase +10.0 points")


def test_error_rate_guardrail_passes_when_the_interval_is_below_the_limit(tmp_path):
    _code, check = _guardrail(tmp_path, _write(tmp_path, base_errors=range(12)), 0.02)
    assert not check["fired"] and "error_rate_increase -4.0 points" in check["detail"]


def test_error_rate_guardrail_without_an_error_column_finds_no_error(tmp_path):
    # On by default (issue 34): without an error column every row has an outcome, so no case errored; the rule
    # passes, as it does on an error column that is empty.
    path = tmp_path / "plain.csv"
    path.write_text("release,case_id,passed\n" + "".join(f"{r},c{i},1\n" for r in ("r1", "r2") for i in range(50)))
    code, check = _guardrail(tmp_path, path, 0.02)
    assert code == 0 and not check["fired"] and "no errors on either side" in check["detail"]


def _check_missing_fail(tmp_path, path):
    out = tmp_path / "fail.json"
    result = run_cli("check", path, "--baseline", "r1", "--missing", "fail", "-o", out)
    cand = json.loads(out.read_text())["candidates"][0]
    return result, next(c for c in cand["checks"] if c["rule"] == "guardrail"), cand


def test_missing_fail_still_blocks_a_candidate_that_errors_more(tmp_path):
    # The candidate errors on the 40 cases the baseline fails: counted as failures they move no outcome, so only
    # the error-rate guardrail (on by default) can block it, as it does without --missing fail.
    path = _write(tmp_path, base_errors=(), cand_errors=range(40))
    assert run_cli("check", path, "--baseline", "r1").exit_code == 1
    result, check, cand = _check_missing_fail(tmp_path, path)
    assert result.exit_code == 1 and check["fired"], result.output
    assert [c["rule"] for c in cand["checks"] if c["fired"]] == ["guardrail"]
    assert check["detail"].startswith("guardrail exceeded: error_rate_increase +13.3 points")
    assert "(40 cases errored on the candidate only, 0 on the baseline only)" in check["detail"]
    assert cand["errors"]["counted_as_failures"] and cand["errors"]["compared"] == N


def test_missing_fail_does_not_block_equal_errors_on_both_sides(tmp_path):
    # 20 cases errored on each side: the error rates are equal, and the rule measures them and passes.
    path = _write(tmp_path, base_errors=range(100, 120), cand_errors=range(20))
    result, check, _cand = _check_missing_fail(tmp_path, path)
    assert not check["fired"] and "error_rate_increase +0.0 points" in check["detail"], check["detail"]
    assert "(20 cases errored on the candidate only, 20 on the baseline only)" in check["detail"]
    assert result.exit_code == 0, result.output


def test_missing_fail_says_the_errors_were_counted_as_failures(tmp_path):
    report = build_report(_write(tmp_path, base_errors=(), cand_errors=range(40)), baseline="r1", missing="fail")
    md = render_markdown(report)
    assert "no errors" not in md and "left out: errored" not in md and "left the comparison" not in md
    assert ("40 of 300 cases errored in the comparison of r2 with r1 (0 on the baseline only, 40 on the candidate "
            "only, 0 on both) and were counted as failures (--missing fail); all 300 compared") in md
    assert "(40 cases errored on the candidate only, 0 on the baseline only)" in md


def test_a_release_whose_every_row_errored_is_refused(tmp_path):
    path = _write(tmp_path, base_errors=range(N))
    result = run_cli("check", path, "--baseline", "r1")
    assert result.exit_code == 2
    assert "release 'r1' has no rows left to compare: every row errored" in result.output
    assert "nothing can be compared against it" in result.output and "--missing fail" in result.output


def test_a_candidate_whose_every_row_errored_is_refused_saying_how_to_judge_it(tmp_path):
    # The refusal names the way to a verdict: with --missing fail its errors count as failures, and it is judged.
    path = _write(tmp_path, base_errors=(), cand_errors=range(N))
    refused = run_cli("check", path, "--baseline", "r1")
    assert refused.exit_code == 2 and "cannot be shown fit to ship" in refused.output
    assert f"({N:,} row(s), e.g." in refused.output and "--missing fail" in refused.output
    judged = run_cli("check", path, "--baseline", "r1", "--missing", "fail")
    assert judged.exit_code == 1 and judged.output.startswith("DON'T SHIP r2")


def test_the_three_error_counts_are_disjoint_and_sum_to_the_errored_cases(tmp_path):
    # Two cases errored on both sides, three on the baseline only, one on the candidate only: 6 errored cases.
    path = _write(tmp_path, base_errors=[0, 1, 2, 3, 4], cand_errors=[0, 1, 5])
    out = tmp_path / "note.json"
    result = run_cli("report", path, "--baseline", "r1", "-o", out)
    assert result.exit_code == 0, result.output
    errors = json.loads(out.read_text())["candidates"][0]["errors"]
    assert (errors["baseline_errored"], errors["candidate_errored"], errors["both_errored"]) == (3, 1, 2)
    assert errors["baseline_errored"] + errors["candidate_errored"] + errors["both_errored"] == errors["excluded"] == 6


def test_the_listing_names_200_cases_and_counts_the_rest(tmp_path):
    # 201 baseline errors: all counted, 200 named (the baseline side first, then by id), the one past them cut.
    e = build_report(_write(tmp_path, base_errors=range(201)), baseline="r1").analysis.candidates[0].sections.errors
    assert (e.excluded, len(e.cases), e.listed_cut) == (201, 200, 1)
    assert [c.case_id for c in e.cases] == [f"c{i:03d}" for i in range(200)]
    e = build_report(_write(tmp_path, base_errors=range(200)), baseline="r1").analysis.candidates[0].sections.errors
    assert (e.excluded, len(e.cases), e.listed_cut) == (200, 200, 0)


def test_a_case_whose_question_changed_is_no_errored_case_of_the_comparison(tmp_path):
    # 12 cases; s05 asks another question on r2 (left out as changed, --allow-changed), s01 errored on r2: the
    # errored cases are counted over the 11 cases left after the changed one, 1 errored and 10 compared.
    lines = ["release,case_id,passed,error,input"]
    for release in ("r1", "r2"):
        for k in range(12):
            error = "TimeoutError" if release == "r2" and k == 1 else ""
            text = "A replaced question." if release == "r2" and k == 5 else f"Question {k}"
            lines.append(f"{release},s{k:02d},{'' if error else 1},{error},{text}")
    path = tmp_path / "results.csv"
    path.write_text("\n".join(lines) + "\n")
    e = build_report(path, baseline="r1", allow_changed=True).analysis.candidates[0].sections.errors
    assert (e.n_cases, e.excluded, e.compared, e.candidate_only) == (11, 1, 10, 1)
