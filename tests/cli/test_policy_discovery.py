"""releasegate.toml found beside the results or in the working directory when no --policy is given (issue 17),
and said on stdout; --no-policy turns it off; an explicit --policy wins."""

from __future__ import annotations

from conftest import run_cli

RESULTS = "release,case_id,passed,category\n" + "".join(
    f"{r},c{i},{0 if (r == 'r2' and i == 0) else 1},{'Fraud' if i == 0 else 'Other'}\n"
    for r in ("r1", "r2") for i in range(30))
CRITICAL = 'baseline = "r1"\ncritical = ["Fraud"]\ncritical_rule = "any"\n'


def test_policy_beside_the_results_is_used_and_named(tmp_path):
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "results.csv").write_text(RESULTS)
    (tmp_path / "evals" / "releasegate.toml").write_text(CRITICAL)
    result = run_cli("check", "evals/results.csv", cwd=tmp_path)
    assert result.exit_code == 1, result.output
    first, *verdicts = result.stdout.splitlines()
    assert first == "policy: evals/releasegate.toml (found; --policy FILE for another, --no-policy for none)"
    assert verdicts[0].startswith("DON'T SHIP r2: it broke 1 of 1 passing Fraud cases")


def test_policy_in_the_working_directory_is_used(tmp_path):
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "results.csv").write_text(RESULTS)
    (tmp_path / "releasegate.toml").write_text(CRITICAL)
    result = run_cli("check", "evals/results.csv", cwd=tmp_path)
    assert result.exit_code == 1 and result.stdout.startswith("policy: releasegate.toml (found;")


def test_beside_the_results_wins_over_the_working_directory(tmp_path):
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "results.csv").write_text(RESULTS)
    (tmp_path / "evals" / "releasegate.toml").write_text(CRITICAL)
    (tmp_path / "releasegate.toml").write_text('baseline = "r1"\n')
    result = run_cli("check", "evals/results.csv", cwd=tmp_path)
    assert result.stdout.startswith("policy: evals/releasegate.toml")


def test_no_policy_and_explicit_policy(tmp_path):
    (tmp_path / "results.csv").write_text(RESULTS)
    (tmp_path / "releasegate.toml").write_text(CRITICAL)
    (tmp_path / "lenient.toml").write_text('baseline = "r1"\nmargin = 0.2\n')
    result = run_cli("check", "results.csv", "--no-policy", "--baseline", "r1", "--margin", "0.2", cwd=tmp_path)
    assert result.exit_code == 0 and "policy:" not in result.stdout, result.output
    result = run_cli("check", "results.csv", "--policy", "lenient.toml", cwd=tmp_path)
    assert result.exit_code == 0 and "policy:" not in result.stdout, result.output


def test_no_policy_file_anywhere_says_nothing(tmp_path):
    (tmp_path / "results.csv").write_text(RESULTS)
    result = run_cli("check", "results.csv", "--baseline", "r1", "--margin", "0.2", cwd=tmp_path)
    assert result.exit_code == 0 and len(result.stdout.splitlines()) == 1


def test_a_refused_run_prints_only_its_error(tmp_path):
    (tmp_path / "results.csv").write_text("release,case_id,passed\nr1,c1,1\n")
    (tmp_path / "releasegate.toml").write_text(CRITICAL)
    result = run_cli("check", "results.csv", cwd=tmp_path)
    assert result.exit_code == 2 and result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith("releasegate: error[input]: need at least two releases")
