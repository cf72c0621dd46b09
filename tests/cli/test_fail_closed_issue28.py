"""Issue 28 (fail closed, the next twenty) and issue 29 items 7-8 on the command line: what judged nothing
refuses, the releases left out are named with the policy file in every format, the demo runs twice, plan
refuses at once what it cannot simulate and reads results as report does. The single input problems are rows of
tests/validate/input_cases_issue28.py; these are the commands' own behaviour around them."""

from __future__ import annotations

import hashlib
import json

import pytest

from conftest import run_cli
from releasegate.demo import example_files

GOOD = ("release,case_id,passed,category\nr1,c1,1,A\nr1,c2,1,A\nr1,c3,0,B\nr1,c4,1,B\n"
        "r2,c1,1,A\nr2,c2,0,A\nr2,c3,1,B\nr2,c4,1,B\n")


def _three_releases(folder):
    """r2 as good as r1; r3 20 points worse: a stray policy naming r2 alone would SHIP without a word of r3."""
    rows = ["release,case_id,passed,category"]
    for i in range(100):
        passed = int(i % 7 != 0)
        rows += [f"r1,c{i},{passed},k{i % 3}", f"r2,c{i},{passed},k{i % 3}",
                 f"r3,c{i},{0 if i % 5 == 0 else passed},k{i % 3}"]
    (folder / "evals").mkdir()
    (folder / "evals" / "r.csv").write_text("\n".join(rows) + "\n")
    policy = folder / "evals" / "releasegate.toml"
    policy.write_text('baseline = "r1"\ncandidates = ["r2"]\nmargin = 0\ncritical = []\n')
    return hashlib.sha256(policy.read_bytes()).hexdigest()


def test_check_with_nothing_judged_is_one_line_and_exit_2(tmp_path):
    (tmp_path / "ok.csv").write_text(GOOD)
    for command in ("check", "report"):
        extra = ("-o", "note.md") if command == "report" else ()
        result = run_cli(command, "ok.csv", "--baseline", "r1", "--baseline-rerun", "r2", *extra, cwd=tmp_path)
        assert result.exit_code == 2, result.output
        assert result.stdout == "" and len(result.stderr.splitlines()) == 1
        assert "nothing to judge" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ok.csv"]


def test_a_stray_policy_is_named_with_its_sha256_and_the_release_it_left_out(tmp_path, monkeypatch):
    digest = _three_releases(tmp_path)
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "summary.md"))
    result = run_cli("check", "evals/r.csv", "-o", "n.md", "-o", "n.json", "-o", "n.html", cwd=tmp_path)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0].startswith("policy: evals/releasegate.toml (found;")
    assert "not judged: r3, not among the policy's candidates (r2)" in result.stdout.splitlines()
    markdown = (tmp_path / "n.md").read_text()
    assert "Not judged: r3, not among the policy's candidates (r2)" in markdown
    assert f"Policy file: evals/releasegate.toml (found, not named with --policy) · sha256 `{digest}`" in markdown
    note = json.loads((tmp_path / "n.json").read_text())
    assert note["policy_file"] == {"path": "evals/releasegate.toml", "sha256": digest, "found": True}
    assert note["not_judged"] == [{"release": "r3", "reason": "not_a_candidate"}]
    assert "Not judged: r3, not among the policy's candidates (r2)" in (tmp_path / "summary.md").read_text()
    html = (tmp_path / "n.html").read_text()
    assert "Not judged: r3, not among the policy&#39;s candidates (r2)" in html and digest in html
    report = run_cli("report", "evals/r.csv", "-o", "m.md", cwd=tmp_path)
    assert "not judged: r3, not among the policy's candidates (r2)" in report.stdout


def test_several_metrics_name_the_release_left_out_once(tmp_path, monkeypatch):
    rows = ["release,case_id,correct,safe"] + [f"{r},c{i},{int(i % 4 > 0)},1" for r in ("r1", "r2", "r3")
                                               for i in range(40)]
    (tmp_path / "m.csv").write_text("\n".join(rows) + "\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "summary.md"))
    result = run_cli("check", "m.csv", "--baseline", "r1", "--candidate", "r2", "--metric", "correct",
                     "--metric", "safe", "--margin", "0", "-o", "n.md", "-o", "n.html", cwd=tmp_path)
    assert result.exit_code == 0, result.output
    assert result.stdout.count("not judged: r3") == 1
    assert "Not judged: r3, not among the policy&#39;s candidates (r2)" in (tmp_path / "n.html").read_text()
    # The grid on top of the Markdown and the job summary (templates/grid.md) says it once.
    line = "Not judged: r3, not among the policy's candidates (r2)"
    assert (tmp_path / "summary.md").read_text().count(line) == 1
    markdown = (tmp_path / "n.md").read_text()
    assert line in markdown.split("# Metric: correct")[0]


def test_plan_simulates_one_metric_named_as_report_names_it(tmp_path):
    rows = ["release,case_id,correct,safe"] + [f"{r},c{i},{int((i * 7 + k) % 10 > 1)},{int((i * 3 + k) % 10 > 0)}"
                                               for k, r in enumerate(("r1", "r2")) for i in range(60)]
    (tmp_path / "p.csv").write_text("\n".join(rows) + "\n")
    one = run_cli("plan", "p.csv", "--baseline", "r1", "--metric", "correct", "--replications", "5", cwd=tmp_path)
    assert one.exit_code == 0, one.output
    assert one.output.startswith("suite: 60 cases, baseline pass rate 80.0%")
    safe = run_cli("plan", "p.csv", "--baseline", "r1", "--metric", "safe", "--replications", "5", cwd=tmp_path)
    assert safe.exit_code == 0 and safe.output.startswith("suite: 60 cases, baseline pass rate 90.0%"), safe.output
    two = run_cli("plan", "p.csv", "--baseline", "r1", "--metric", "correct", "--metric", "safe", cwd=tmp_path)
    assert two.exit_code == 2 and "not --metric's several" in two.output


def test_the_demo_runs_twice_and_never_overwrites_an_edited_file(tmp_path):
    folder = tmp_path / "demo"
    first = run_cli("demo", folder)
    assert first.exit_code == 0, first.output
    # Two refusals, then the second run: over the first run's own files (all but the two moved away), so it
    # is also the demo run twice on one folder (a third full run, 5 s, proved nothing more).
    for name in ("releasegate.toml", "report.md"):
        path = folder / name
        edited = path.read_bytes() + b"\n# mine\n"
        path.write_bytes(edited)
        before = {p.name: p.read_bytes() for p in folder.iterdir()}
        refused = run_cli("demo", folder)
        assert refused.exit_code == 2 and refused.stderr.splitlines() == [
            f"releasegate: error[input]: {folder} already holds {name}, not as the demo wrote it; the demo never "
            "overwrites a file it did not write or that was changed since: move it away, or give a new or empty "
            "folder"]
        assert {p.name: p.read_bytes() for p in folder.iterdir()} == before
        path.unlink()
    again = run_cli("demo", folder)  # the edited files moved away: the demo writes them again
    assert again.exit_code == 0, again.output
    assert (folder / "report.md").read_text().startswith("<!-- releasegate -->")
    assert (folder / "releasegate.toml").read_bytes() == example_files()["releasegate.toml"].read_bytes()


def test_the_run_demo_runs_twice_and_keeps_an_edited_config(tmp_path):
    folder = tmp_path / "d"
    assert run_cli("demo", "--run", folder).exit_code == 0
    assert run_cli("demo", "--run", folder).exit_code == 0
    config = folder / "releasegate-run.toml"
    config.write_text(config.read_text() + "\n# my change\n")
    refused = run_cli("demo", "--run", folder)
    assert refused.exit_code == 2 and "already holds releasegate-run.toml, not as the demo wrote it" in refused.stderr
    assert config.read_text().endswith("# my change\n")


@pytest.mark.parametrize(("args", "needle"), [
    (("--n-cases", "400", "--categories", "100000"), "100000 categories need at least one case each"),
    (("--n-cases", "200000", "--categories", "100000"), "100000 categories x 150 replications are more than"),
    (("--n-cases", "400", "--categories", "51"), "(at 150, at most 50 categories)"),
    (("--n-cases", "100000000"), "100,000,000 cases x 150 replications are more than a plan simulates"),
    (("--n-cases", "400", "--runs", "100000000"), "400 cases x 100000000 runs x 150 replications"),
    (("--n-cases", "400", "--replications", "1000000"), "--replications 1000000 is more than 10,000"),
])
def test_plan_refuses_at_once_what_it_cannot_simulate(monkeypatch, tmp_path, args, needle):
    import releasegate.plan.evaluate as evaluate  # imported first: it holds draw_releases by name

    monkeypatch.setattr(evaluate, "draw_releases", lambda *a, **k: pytest.fail("simulated before refusing"))
    result = run_cli("plan", *args, cwd=tmp_path)
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1, result.output
    assert needle in result.output


def test_plan_refuses_an_output_onto_an_input_before_simulating(monkeypatch, tmp_path, example):
    import releasegate.plan.evaluate as evaluate  # imported first: it holds draw_releases by name

    monkeypatch.setattr(evaluate, "draw_releases", lambda *a, **k: pytest.fail("simulated before refusing"))
    (tmp_path / "results.json").write_text("[]")
    link = tmp_path / "link.json"
    link.symlink_to(tmp_path / "results.json")
    for output in ("results.json", "link.json"):
        result = run_cli("plan", "results.json", "--baseline", "r1", "-o", output, cwd=tmp_path)
        assert result.exit_code == 2 and "results.json" in result.output, result.output
    assert (tmp_path / "results.json").read_text() == "[]"


def test_plan_reads_results_with_the_flags_report_takes(tmp_path):
    rows = ["model,id,correct,topic"] + [f"{r},c{i},{int((i * 7 + k) % 10 > 1)},t{i % 2}"
                                         for k, r in enumerate(("r1", "r2")) for i in range(60)]
    (tmp_path / "r.csv").write_text("\n".join(rows) + "\n")
    missing = run_cli("plan", "r.csv", "--baseline", "r1", cwd=tmp_path)
    assert missing.exit_code == 2 and "3 problems with the columns" in missing.output
    result = run_cli("plan", "r.csv", "--baseline", "r1", "--release-col", "model", "--case-col", "id",
                     "--passed-col", "correct", "--category-col", "topic", "--critical", "t0",
                     "--replications", "5", cwd=tmp_path)
    assert result.exit_code == 0, result.output
    assert result.output.startswith("suite: 60 cases") and "critical categories: t0 30" in result.output
