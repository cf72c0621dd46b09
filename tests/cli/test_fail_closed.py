"""Issue 15 (fail closed), the parts that are not rows of the input-problem table."""

from __future__ import annotations

import os

import click
import pytest
from click.testing import CliRunner

from releasegate.cli import OneValued, main

GOOD = ("release,case_id,passed\nr1,c1,1\nr1,c2,0\nr2,c1,1\nr2,c2,1\n")


def _one_valued_options():
    for command in main.commands.values():
        for param in command.params:
            if isinstance(param, click.Option) and not (param.multiple or param.is_flag or param.count):
                yield command.name, param


def test_every_one_valued_option_refuses_a_second_value():
    options = list(_one_valued_options())
    assert len(options) > 20
    assert all(isinstance(param, OneValued) for _, param in options), [
        (name, param.name) for name, param in options if not isinstance(param, OneValued)]


@pytest.mark.parametrize("command", ["report", "check"])
def test_a_repeated_option_is_one_line_and_exit_2(tmp_path, monkeypatch, command):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "r.csv").write_text(GOOD)
    result = CliRunner().invoke(main, [command, "r.csv", "--baseline", "r1", "--baseline", "r2", "-o", "x.md"])
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        "releasegate: error[input]: --baseline takes one value and was given 2 times ('r1', 'r2'); give it once"]
    assert not (tmp_path / "x.md").exists()


def test_a_repeatable_option_stays_repeatable(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "r.csv").write_text(GOOD)
    result = CliRunner().invoke(main, ["report", "r.csv", "--baseline", "r1", "-o", "a.md", "-o", "b.json"])
    assert result.exit_code == 0, result.stderr
    assert (tmp_path / "a.md").exists() and (tmp_path / "b.json").exists()


@pytest.mark.parametrize("link", ["symbolic", "hard"])
@pytest.mark.parametrize("command", ["report", "check"])
def test_an_output_linked_to_an_input_is_refused(tmp_path, monkeypatch, link, command):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "r.csv").write_text(GOOD)
    (tmp_path / "cases.csv").write_text("case_id,category\nc1,A\nc2,B\n")
    (os.symlink if link == "symbolic" else os.link)("cases.csv", "note.md")
    result = CliRunner().invoke(main, [command, "r.csv", "--cases", "cases.csv", "--baseline", "r1", "-o", "note.md"])
    assert result.exit_code == 2
    assert result.stderr == "releasegate: error[output]: output note.md is the input file cases.csv; write the report to " \
                            "another name\n"
    assert (tmp_path / "cases.csv").read_text() == "case_id,category\nc1,A\nc2,B\n"


def test_the_policy_file_is_an_input_too(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "r.csv").write_text(GOOD)
    (tmp_path / "p.toml").write_text('baseline = "r1"\n')
    os.symlink("p.toml", "out.json")
    result = CliRunner().invoke(main, ["report", "r.csv", "--policy", "p.toml", "-o", "out.json"])
    assert result.exit_code == 2 and "is the input file p.toml" in result.stderr
    assert (tmp_path / "p.toml").read_text() == 'baseline = "r1"\n'


def test_the_bundled_example_with_a_lower_case_critical_name_does_not_ship(tmp_path, monkeypatch):
    """r2 broke 6 Fraud cases: `--critical fraud` used to check nothing and let it SHIP (exit 0)."""
    from releasegate.demo import example_files

    files = example_files()
    result = CliRunner().invoke(main, ["check", str(files["eval_results.csv"]), "--cases", str(files["eval_cases.csv"]),
                                       "--baseline", "r1-live", "--candidate", "r2-new-prompt", "--critical", "fraud"])
    assert result.exit_code == 2
    assert "closest match 'Fraud'" in result.stderr


@pytest.mark.parametrize("command", ["report", "check"])
def test_a_policy_found_beside_the_results_is_an_input_too(tmp_path, monkeypatch, command):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "r.csv").write_text(GOOD)
    (tmp_path / "releasegate.toml").write_text('baseline = "r1"\n')
    result = CliRunner().invoke(main, [command, "r.csv", "--comment", "releasegate.toml"])
    assert result.exit_code == 2
    assert result.stderr == "releasegate: error[output]: output releasegate.toml is the input file releasegate.toml; " \
                            "write the report to another name\n"
    assert (tmp_path / "releasegate.toml").read_text() == 'baseline = "r1"\n'


@pytest.mark.parametrize("command", ["report", "check", "plan"])
def test_gold_labels_named_by_the_policy_are_an_input_too(tmp_path, monkeypatch, command):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "r.csv").write_text(GOOD)
    (tmp_path / "p.toml").write_text('baseline = "r1"\ngold = "gold.json"\n')
    gold = '[{"release": "r1", "case_id": "c1", "label": 1}]'
    (tmp_path / "gold.json").write_text(gold)
    result = CliRunner().invoke(main, [command, "r.csv", "--policy", "p.toml", "-o", "gold.json"])
    assert result.exit_code == 2
    assert result.stderr == "releasegate: error[output]: output gold.json is the input file gold.json; write the report " \
                            "to another name\n"
    assert (tmp_path / "gold.json").read_text() == gold
