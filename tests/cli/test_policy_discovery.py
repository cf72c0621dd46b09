"""releasegate.toml found beside the results when no --policy is given (issues 17 and 45), and said on stderr and
in the note's method section; never one only in the working directory, which is named as not read (a stray file
there must not change the gate); --no-policy turns discovery off; an explicit --policy wins."""

from __future__ import annotations

import json

from conftest import run_cli

RESULTS = "release,case_id,passed,category\n" + "".join(
    f"{r},c{i},{0 if (r == 'r2' and i == 0) else 1},{'Fraud' if i == 0 else 'Other'}\n"
    for r in ("r1", "r2") for i in range(30))
CRITICAL = 'baseline = "r1"\ncritical = ["Fraud"]\ncritical_rule = "any"\n'
FOUND = "policy: evals/releasegate.toml (found beside the results; --policy FILE for another, --no-policy for none)"


def test_policy_beside_the_results_is_used_and_named(tmp_path):
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "results.csv").write_text(RESULTS)
    (tmp_path / "evals" / "releasegate.toml").write_text(CRITICAL)
    result = run_cli("check", "evals/results.csv", "-o", "note.md", cwd=tmp_path)
    assert result.exit_code == 1, result.output
    assert result.stdout.splitlines()[0].startswith("DON'T SHIP r2: it broke 1 of 1 passing Fraud cases")
    assert result.stderr.splitlines()[0] == FOUND
    method = (tmp_path / "note.md").read_text().split("How these figures were computed", 1)[-1]
    assert ("Policy: read from evals/releasegate.toml, found beside the results, not named with --policy (its "
            "sha256 is in the provenance); --no-policy compares without it.") in method


def test_a_policy_only_in_the_working_directory_is_named_and_not_read(tmp_path):
    """A stray releasegate.toml in the working directory that would drop r2 from the gate (candidates = r3)
    changes nothing: check judges r2 and says on stderr which file it did not read."""
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "results.csv").write_text(RESULTS)
    (tmp_path / "releasegate.toml").write_text('baseline = "r1"\ncandidates = ["r3"]\n')
    result = run_cli("check", "evals/results.csv", "--baseline", "r1", "--margin", "0.2", "-o", "n.json",
                     cwd=tmp_path)
    assert result.exit_code == 0 and result.stdout.startswith("SHIP r2"), result.output
    assert result.stderr.splitlines()[0] == ("policy: none read; releasegate.toml in the working directory is not "
                                             "beside the results (--policy releasegate.toml to read it)")
    assert json.loads((tmp_path / "n.json").read_text())["policy_file"] is None
    asked = run_cli("check", "evals/results.csv", "--policy", "releasegate.toml", cwd=tmp_path)
    assert asked.exit_code == 2 and "r3" in asked.stderr  # read when asked: its candidate is not in the data


def test_beside_the_results_wins_and_the_working_directory_is_not_read(tmp_path):
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "results.csv").write_text(RESULTS)
    (tmp_path / "evals" / "releasegate.toml").write_text(CRITICAL)
    (tmp_path / "releasegate.toml").write_text('baseline = "r1"\n')
    result = run_cli("check", "evals/results.csv", cwd=tmp_path)
    assert result.stderr.startswith(FOUND)


def test_results_in_the_working_directory_read_the_policy_there(tmp_path):
    (tmp_path / "results.csv").write_text(RESULTS)
    (tmp_path / "releasegate.toml").write_text(CRITICAL)
    result = run_cli("check", "results.csv", cwd=tmp_path)
    assert result.exit_code == 1 and result.stderr.startswith("policy: releasegate.toml (found beside the results;")


def test_no_policy_and_explicit_policy(tmp_path):
    (tmp_path / "results.csv").write_text(RESULTS)
    (tmp_path / "releasegate.toml").write_text(CRITICAL)
    (tmp_path / "lenient.toml").write_text('baseline = "r1"\nmargin = 0.2\n')
    result = run_cli("check", "results.csv", "--no-policy", "--baseline", "r1", "--margin", "0.2", cwd=tmp_path)
    assert result.exit_code == 0 and "policy:" not in result.output, result.output
    result = run_cli("check", "results.csv", "--policy", "lenient.toml", cwd=tmp_path)
    assert result.exit_code == 0 and "policy:" not in result.output, result.output


def test_no_policy_file_anywhere_says_nothing(tmp_path):
    (tmp_path / "results.csv").write_text(RESULTS)
    result = run_cli("check", "results.csv", "--baseline", "r1", "--margin", "0.2", cwd=tmp_path)
    assert result.exit_code == 0 and len(result.stdout.splitlines()) == 1 and result.stderr == ""


def test_a_refused_run_prints_only_its_error(tmp_path):
    (tmp_path / "results.csv").write_text("release,case_id,passed\nr1,c1,1\n")
    (tmp_path / "releasegate.toml").write_text(CRITICAL)
    result = run_cli("check", "results.csv", cwd=tmp_path)
    assert result.exit_code == 2 and result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith("releasegate: error[input]: need at least two releases")
