"""``releasegate plan`` on the command line and in the notebook API (issue 21 item 4)."""

from __future__ import annotations

import json

import pytest

from conftest import run_cli


def test_plan_answers_for_the_example_and_writes_json(tmp_path, example):
    out = tmp_path / "plan.json"
    result = run_cli("plan", example["eval_results.csv"], "--cases", example["eval_cases.csv"], "--policy",
                     example["releasegate.toml"], "--replications", "20", "--seed", "5", "-o", out)
    assert result.exit_code == 0, result.output
    text = result.output
    assert "suite: 400 cases, baseline pass rate 91.8%, critical categories: Fraud 50, Safety 30" in text
    assert "churn: 4.5% between releases (measured between r1-live and r2-new-prompt); all of it simulated as " \
        "case-level change (run-to-run churn unknown)" in text
    for line in ("a release that changes nothing: DON'T SHIP", ", NOT PROVEN ", ", SHIP ",
                 "a 2-point regression overall: DON'T SHIP", "a 3-point regression overall: DON'T SHIP",
                 "a 5-point regression overall: DON'T SHIP", "a 20-point drop in Fraud (critical): DON'T SHIP",
                 "a 20-point drop in Safety (critical): DON'T SHIP", ", not SHIP ",
                 "80% detection of a 3-point regression at no more than 5% false blocks"):
        assert line in text
    assert "simulating [" not in text  # no progress bar when stderr is not a terminal
    data = json.loads(out.read_text())
    assert data["replications"] == 20 and data["seed"] == 5
    assert [r["drop"] for r in data["regressions"]] == [0.02, 0.03, 0.05]
    assert data["false_blocks"]["replications"] == 20 and "guardrail" not in json.dumps(data["false_blocks_by_rule"])
    harmless = data["harmless"]
    assert sum(harmless[k]["blocked"] for k in ("dont_ship", "not_proven", "ship")) == 20
    assert harmless["dont_ship"]["blocked"] + harmless["not_proven"]["blocked"] == data["false_blocks"]["blocked"]
    assert all(r["dont_ship"]["rate"] <= r["detection"]["rate"] for r in data["regressions"])
    again = run_cli("plan", example["eval_results.csv"], "--cases", example["eval_cases.csv"], "--policy",
                    example["releasegate.toml"], "--replications", "20", "--seed", "5")
    assert again.output == text  # seeded: the same output


def test_plan_from_counts():
    result = run_cli("plan", "--n-cases", "300", "--critical-size", "Fraud=40", "--categories", "5", "--churn",
                     "0.05", "--replications", "10")
    assert result.exit_code == 0, result.output
    assert "suite: 300 cases, baseline pass rate 90.0%, critical categories: Fraud 40; 5 other categories" in \
        result.output
    assert "churn: 5.0% between releases (given)" in result.output


def test_plan_accepts_every_feasible_churn():
    # 20% at pass rate 0.9 is feasible (every failing case fixed, as many passing ones broken): issue 34.
    result = run_cli("plan", "--n-cases", "200", "--churn", "0.20", "--replications", "5")
    assert result.exit_code == 0, result.output
    over = run_cli("plan", "--n-cases", "200", "--churn", "0.21", "--replications", "5")
    assert over.exit_code == 2 and "impossible" in over.output
    split = run_cli("plan", "--n-cases", "200", "--runs", "5", "--churn", "0.10", "--run-churn", "0.04",
                    "--replications", "5")
    assert split.exit_code == 0, split.output
    # One run of each release disagrees on r + c rho^2: 6 points beyond the run-to-run 4 need c = 6 / rho^2.
    assert "run-to-run 4.0% (given), case-level change 7.7%" in split.output
    bad = run_cli("plan", "--n-cases", "200", "--churn", "0.05", "--run-churn", "0.08", "--replications", "5")
    assert bad.exit_code == 2 and "cannot exceed" in bad.output


def test_plan_api_is_the_same_function(example):
    from releasegate import plan_suite
    from releasegate.plan.suite import plan_lines

    plan = plan_suite(str(example["eval_results.csv"]), cases=example["eval_cases.csv"],
                      policy=example["releasegate.toml"], replications=20, seed=5)
    result = run_cli("plan", example["eval_results.csv"], "--cases", example["eval_cases.csv"], "--policy",
                     example["releasegate.toml"], "--replications", "20", "--seed", "5")
    assert result.output.splitlines() == plan_lines(plan)
    counted = plan_suite(n_cases=200, critical_sizes={"Fraud": 30}, replications=5, seed=1)
    assert counted.design.critical == (("Fraud", 30),)


@pytest.mark.parametrize(("args", "needle"), [
    (("--n-cases", "0"), "cannot be simulated"),
    ((), "needs RESULTS"),
    (("--n-cases", "100", "--churn", "0.5"), "cannot be simulated"),
    (("--n-cases", "100", "--critical-size", "Fraud"), "NAME=CASES"),
    (("--n-cases", "100", "--replications", "0"), "--replications must be at least 1"),
    (("--n-cases", "100", "-o", "plan.txt"), "writes .json, .md, .html"),
    (("--n-cases", "100", "--churn", "-0.1"), "--churn must be a share"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, args, needle):
    result = run_cli("plan", *args, cwd=tmp_path)
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], result.output
    assert not (tmp_path / "plan.txt").exists()


def test_results_and_counts_together_are_refused(example):
    result = run_cli("plan", example["eval_results.csv"], "--n-cases", "100")
    assert result.exit_code == 2 and "not both" in result.output


def test_output_that_is_an_input_is_refused_and_nothing_is_written(tmp_path):
    from releasegate.errors import InputError
    from releasegate.plan.command import write_json
    from releasegate.plan.suite import SuiteDesign, plan_suite
    from releasegate.policy import make_policy

    plan = plan_suite(SuiteDesign(50, 0.9), make_policy({}, baseline="a"), replications=2, scales=())
    target = tmp_path / "in.json"
    target.write_text("{}")
    with pytest.raises(InputError, match="one of the inputs"):
        write_json(plan, target, [target])
    assert target.read_text() == "{}"
    write_json(plan, tmp_path / "plan.json", [target])
    assert json.loads((tmp_path / "plan.json").read_text())["replications"] == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.json", "plan.json"]  # no temporary left


def test_o_writes_json_markdown_and_html_and_refuses_before_simulating(tmp_path):
    from releasegate.plan.outputs import PLAN_FORMATS

    args = ("plan", "--n-cases", "60", "--replications", "5", "--seed", "3")
    result = run_cli(*args, "-o", tmp_path / "p.json", "-o", tmp_path / "p.md", "-o", tmp_path / "p.html")
    assert result.exit_code == 0, result.output
    lines = result.output.strip().splitlines()
    assert json.loads((tmp_path / "p.json").read_text())["replications"] == 5
    markdown = (tmp_path / "p.md").read_text()
    assert markdown.startswith("## releasegate plan\n") and markdown.count("\n- ") == len(lines)
    assert "a release that changes nothing: DON'T SHIP" in markdown
    page = (tmp_path / "p.html").read_text()
    assert page.count("<li>") == len(lines) and "DON&#39;T SHIP" in page and "http" not in page
    for suffix in PLAN_FORMATS:
        assert suffix in run_cli("plan", "--help").output
    # A wrong suffix or the same file twice is refused at once, and nothing is written.
    for bad in (("-o", tmp_path / "p.txt"), ("-o", tmp_path / "q.md", "-o", tmp_path / "q.md")):
        refused = run_cli(*args, "-o", tmp_path / "q.json", *bad)
        assert refused.exit_code == 2 and "-o" in refused.output, refused.output
        assert not (tmp_path / "q.json").exists()
