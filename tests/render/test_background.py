"""The chart worker process gives the same charts as drawing in process, and fails as one clear error."""

from __future__ import annotations

import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import build_report
from releasegate.render import chart_worker, html, rendering

pytestmark = pytest.mark.chart_worker  # these tests run the worker process itself (tests/conftest.py)


@pytest.fixture(scope="module")
def example_page() -> tuple:
    """The example's Report and its HTML page with the charts drawn in process (no chart owner), built once."""
    from releasegate.demo import example_files

    example = example_files()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SOURCE_DATE_EPOCH", "1796000000")  # built before the autouse fixture sets it
        report = build_report(example["eval_results.csv"], example["eval_cases.csv"], example["releasegate.toml"])
        return report, html.render_html(report)


def test_worker_draws_the_same_html_as_in_process(example_page):
    report, inline = example_page
    with rendering([Path("note.pdf")]) as charts:
        worker = charts.worker
        assert isinstance(worker, chart_worker.ChartWorker), "an HTML or PDF output starts the worker"
        charts.ask(report)
        assert html.render_html(report, charts=charts) == inline
        drawn = charts.get(report)
        assert html.render_html(report, charts=charts, pdf_page=True)  # a second output reuses them
        assert charts.get(report) is drawn
    assert worker._process.returncode == 0


def test_unused_worker_is_stopped_with_the_command():
    with rendering([Path("note.html")]) as charts:
        worker = charts.worker
    assert charts.worker is None
    assert worker._process.poll() is not None  # it ended: no process left behind


def test_text_outputs_start_no_worker():
    with rendering([Path("note.md"), Path("note.json")]) as charts:
        assert charts is None


def test_a_worker_that_dies_is_replaced_by_drawing_in_process(example_page):
    worker = chart_worker.ChartWorker()
    worker._process.kill()
    worker._process.wait()
    with pytest.raises(chart_worker.WorkerLost):
        worker.result()
    report, inline = example_page
    with rendering([Path("note.html")]) as charts:
        charts.worker._process.kill()
        assert html.render_html(report, charts=charts) == inline  # same page, drawn here instead


def test_worker_error_reaches_the_caller_as_one_line():
    # A report the worker cannot draw: its reply is an error message, raised in the parent.
    worker = chart_worker.ChartWorker()
    pickle.dump("not a report", worker._process.stdin)  # what send() would write, but undrawable
    worker._process.stdin.close()
    with pytest.raises(RuntimeError, match=r"drawing the charts failed: AttributeError: .*sections") as caught:
        worker.result()
    assert "\n" not in str(caught.value)


def test_worker_exits_when_its_input_closes_unused():
    done = subprocess.run([sys.executable, "-c", "from releasegate.render.chart_worker import serve; serve()"],
                          input=b"", capture_output=True, timeout=120, check=False)
    assert done.returncode == 0 and done.stdout == b"" and done.stderr == b""


def test_no_worker_when_no_process_can_start(monkeypatch):
    def cannot(*args, **kwargs):
        raise OSError("no processes left")

    monkeypatch.setattr(chart_worker, "ChartWorker", cannot)
    with rendering([Path("note.html")]) as charts:
        assert charts.worker is None  # the charts are then drawn in process
