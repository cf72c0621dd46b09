"""The PDF typeset in its worker process is the PDF typeset in process, and every way it can fail fails closed."""

from __future__ import annotations

import base64
import io
import pickle
from pathlib import Path

import pytest

from conftest import build_report, example_files
from releasegate.render import chart_worker, rendering, typeset_worker
from releasegate.render.chart_url import CHART_URL
from releasegate.render.pdf import render_pdf
from releasegate.render.print_options import PrintOptions
from releasegate.render.typeset_worker import TypesetWorker


@pytest.fixture(scope="module")
def report():
    example = example_files()  # built once for the module: each PDF here takes seconds
    return build_report(example["eval_results.csv"], example["eval_cases.csv"], example["releasegate.toml"])


@pytest.fixture(scope="module")
def in_process(report):
    return render_pdf(report)  # no chart owner: charts drawn and page typeset here


def test_worker_typesets_the_same_bytes_as_in_process(report, in_process):
    with rendering([Path("note.pdf")]) as charts:
        worker = charts.typesetter
        assert isinstance(worker, TypesetWorker), "a PDF output starts the typesetting worker"
        assert render_pdf(report, charts=charts) == in_process
        assert charts.typesetter is None, "the PDF took the worker"
    assert worker._process.returncode == 0  # it replied and ended


def test_a_typesetter_that_dies_is_replaced_by_typesetting_in_process(report, in_process):
    with rendering([Path("note.pdf")]) as charts:
        charts.typesetter._process.kill()
        charts.typesetter._process.wait()
        assert render_pdf(report, charts=charts) == in_process


def test_charts_that_cannot_be_drawn_stop_the_pdf(report, monkeypatch):
    def broken(self):
        raise RuntimeError("drawing the charts failed: ValueError: no engine")

    with rendering([Path("note.pdf")]) as charts:
        worker = charts.typesetter
        monkeypatch.setattr(chart_worker.ChartWorker, "result", broken)
        with pytest.raises(RuntimeError, match="drawing the charts failed"):
            render_pdf(report, charts=charts)
    assert worker._process.returncode is not None  # stopped, not left behind


def test_charts_that_cannot_be_drawn_stop_the_pdf_in_process(report, monkeypatch):
    def broken(planned):
        raise RuntimeError("no engine")

    monkeypatch.setattr(chart_worker, "draw_planned", broken)
    with pytest.raises(RuntimeError, match="no engine"):
        render_pdf(report)  # the error itself, not WeasyPrint's wrapper, and never a PDF without its charts


def test_plan_names_the_charts_that_get_draws(report):
    with rendering([Path("note.html")]) as charts:
        planned, planned_costs = charts.plan(report)
        assert planned and all(c.svg == "" and c.title for c in planned)
        drawn, drawn_costs = charts.get(report)
    assert [c.name for c in planned] == [c.name for c in drawn]
    assert [(k, c.name) for k, c in planned_costs] == [(k, c.name) for k, c in drawn_costs]
    assert all(c.svg.startswith("<svg") for c in drawn)


def test_unused_typesetter_is_stopped_and_html_starts_none():
    with rendering([Path("note.pdf")]) as charts:
        worker = charts.typesetter
    assert charts.typesetter is None and worker._process.poll() is not None
    with rendering([Path("note.html")]) as charts:
        assert charts.typesetter is None


def test_typesetter_error_reaches_the_caller_as_one_line():
    worker = TypesetWorker()
    assert worker.send(("page", None, PrintOptions(size="A4")))  # not a page: WeasyPrint cannot read it
    assert worker.send(("charts", {}))
    with pytest.raises(RuntimeError, match=r"^typesetting the PDF failed: \w+") as caught:
        worker.result()
    assert "\n" not in str(caught.value)


def test_typesetter_that_is_told_the_charts_failed_stops_with_an_error():
    worker = TypesetWorker()
    page = f'<html><body><img src="{CHART_URL}chart-overall"></body></html>'
    assert worker.send(("page", page, PrintOptions(size="A4")))
    assert worker.send(("error", "RuntimeError"))
    with pytest.raises(RuntimeError, match="the charts could not be drawn"):
        worker.result()


def test_a_lost_typesetter_is_said_so():
    worker = TypesetWorker()
    worker._process.kill()
    worker._process.wait()
    with pytest.raises(typeset_worker.TypesetterLost):
        worker.result()


def test_pages_fetch_data_urls_and_named_charts_only(tmp_path):
    from pypdf import PdfReader

    from releasegate.render.typeset import typeset

    svg = '<svg xmlns="http://www.w3.org/2000/svg" width="20" height="10"><rect width="20" height="10"/></svg>'
    png = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")
    local = tmp_path / "pixel.png"
    local.write_bytes(png)
    asked = []

    def svgs():
        asked.append(1)
        return {"chart-a": svg}

    page = (f'<html><body><img src="{local.as_uri()}"><img src="{CHART_URL}chart-a">'
            f'<img src="{CHART_URL}chart-a"></body></html>')
    pdf = typeset(page, PrintOptions(size="A4"), svgs)
    assert asked == [1], "the charts are asked for once, when the first is reached"
    reader = PdfReader(io.BytesIO(pdf))
    xobjects = (reader.pages[0].get("/Resources") or {}).get("/XObject") or {}
    kinds = [x.get_object().get("/Subtype") for x in xobjects.values()]
    assert "/Image" not in kinds, "the local file is never read"
    without = typeset('<html><body><img src="data:,"></body></html>', PrintOptions(size="A4"), svgs)
    drawn = reader.pages[0].get_contents().get_data()
    assert len(drawn) > len(PdfReader(io.BytesIO(without)).pages[0].get_contents().get_data()) + 20, \
        "the named chart is drawn into the page"
    with pytest.raises(ValueError, match="names a chart that was not drawn: 'chart-b'"):
        typeset(f'<html><body><img src="{CHART_URL}chart-b"></body></html>', PrintOptions(size="A4"), svgs)


def test_print_options_cross_the_pipe():
    options = PrintOptions(size="Letter", pdf_variant="pdf/a-3b", attachment="{}")
    assert pickle.loads(pickle.dumps(options)) == options


def _block(page: str, anchor: str) -> str:
    start = page.index(f'id="{anchor}"')
    return page[start:page.index("</details>" if "fixed" in anchor else "</table>", start)]


def test_paper_keeps_the_broken_cases_answers_and_points_to_the_fixed_ones(report, in_process):
    from pypdf import PdfReader

    from releasegate.render.html import render_html

    screen, paper = render_html(report), render_html(report, pdf_page=True)
    for page in (screen, paper):  # every broken case with both releases' answers, on screen and on paper
        broken = page[page.index('id="cases-1-broken"'):page.index('id="cases-1-fixed"')]
        rows = broken.count("<tr") - 1  # less the header row
        assert rows > 0 and broken.count('class="data answer"') == 2 * rows
    assert _block(screen, "cases-1-fixed").count('class="data answer"') > 0
    fixed = _block(paper, "cases-1-fixed")
    assert 'class="data answer"' not in fixed and "answers of these cases are in the HTML and JSON" in fixed
    text = " ".join(page.extract_text() for page in PdfReader(io.BytesIO(in_process)).pages)
    assert "answers of these cases are in the HTML and JSON reports" in " ".join(text.split())
