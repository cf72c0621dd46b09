"""Chart work on the background thread gives the same report as drawing in line, and reports its errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from releasegate.errors import InputError
from releasegate.render import background, html, start_rendering


def _report(example):
    from releasegate.load import Source
    from releasegate.pipeline import run
    from releasegate.policy import load_policy_file, make_policy

    policy = make_policy(load_policy_file(example["releasegate.toml"]))
    return run([Source(example["eval_results.csv"])], policy, cases=example["eval_cases.csv"], command_line="pytest")


def test_engine_started_early_and_drawing_in_background_give_the_same_html(example):
    report = _report(example)
    html._LAST.clear()
    inline = html.render_html(report)  # drawn when asked
    html._LAST.clear()
    start_rendering([Path("note.pdf")])
    assert background._engine is not None
    assert background._engine.result(timeout=120) is None  # the engine really started
    html.draw_charts_in_background(report)
    first = html._LAST[1]
    assert html.render_html(report) == inline
    html.draw_charts_in_background(report)
    assert html._LAST[1] is first  # a second output of the same report reuses the drawing


def test_an_error_on_the_chart_thread_reaches_the_caller():
    def fails() -> None:
        raise InputError("chart failed")

    with pytest.raises(InputError, match="chart failed"):
        background.submit(fails).result(timeout=60)
