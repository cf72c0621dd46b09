"""The report and check commands pause Python's cyclic garbage collector (process.cyclic_gc_paused) and restore it."""

from __future__ import annotations

import gc

import pytest

from conftest import run_cli
from releasegate.demo import example_files
from releasegate.process import cyclic_gc_paused


def test_the_collector_is_off_inside_and_on_again_after():
    assert gc.isenabled()
    with cyclic_gc_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_it_comes_back_after_an_error():
    with pytest.raises(ValueError), cyclic_gc_paused():
        raise ValueError("bad input")
    assert gc.isenabled()


def test_releasegate_gc_keeps_it_on(monkeypatch):
    monkeypatch.setenv("RELEASEGATE_GC", "1")
    with cyclic_gc_paused():
        assert gc.isenabled()


def test_a_collector_already_off_stays_off():
    gc.disable()
    try:
        with cyclic_gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_the_report_command_runs_with_it_off(monkeypatch, tmp_path):
    from releasegate import cli

    seen = []
    real = cli.build_report

    def spy(kw):
        seen.append(gc.isenabled())
        return real(kw)

    monkeypatch.setattr(cli, "build_report", spy)
    example = example_files()  # the bundled example's inputs (the demo would also typeset its four reports)
    result = run_cli("report", example["eval_results.csv"], "--cases", example["eval_cases.csv"],
                     "--policy", example["releasegate.toml"], "-o", tmp_path / "n.md")
    assert seen == [False] and gc.isenabled(), result.output


def test_the_verify_command_runs_with_it_off(monkeypatch, tmp_path):
    import releasegate.audit.verify as verify_module

    example = example_files()
    given = (example["eval_results.csv"], "--cases", example["eval_cases.csv"])
    note = tmp_path / "n.json"
    assert run_cli("report", *given, "--policy", example["releasegate.toml"], "-o", note).exit_code == 0
    seen = []
    real = verify_module.verify

    def spy(*args, **kw):
        seen.append(gc.isenabled())
        return real(*args, **kw)

    monkeypatch.setattr(verify_module, "verify", spy)
    result = run_cli("verify", note, *given, "--policy", example["releasegate.toml"])
    assert result.exit_code == 0 and seen == [False] and gc.isenabled(), result.output
