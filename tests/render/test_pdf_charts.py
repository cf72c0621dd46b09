"""The PDF's page names its charts and WeasyPrint fetches them when it reaches them: the same bytes with the chart
worker as without it, a chart that cannot be drawn stops the PDF, and paper keeps the broken cases' answers."""

from __future__ import annotations

import base64
import io
from pathlib import Path

import pytest

from conftest import build_report, example_files
from releasegate.render import chart_worker, rendering
from releasegate.render.chart_url import CHART_URL
from releasegate.render.pdf import render_pdf


@pytest.fixture(scope="module")
def report():
    example = example_files()  # built once for the module: each PDF here takes seconds
    return build_report(example["eval_results.csv"], example["eval_cases.csv"], example["releasegate.toml"])


@pytest.fixture(scope="module")
def in_process(report):
    return render_pdf(report)  # no chart owner: charts drawn here when the page reaches them


@pytest.mark.chart_worker
def test_worker_charts_give_the_same_bytes_as_in_process(report, in_process):
    with rendering([Path("note.pdf")]) as charts:
        worker = charts.worker
        assert render_pdf(report, charts=charts) == in_process
    assert worker._process.returncode == 0  # it replied (plan, then charts) and ended


@pytest.mark.chart_worker
def test_a_worker_that_dies_after_its_plan_is_replaced_by_drawing_in_process(report, in_process, monkeypatch):
    def lost(self):
        raise chart_worker.WorkerLost("gone")

    with rendering([Path("note.pdf")]) as charts:
        monkeypatch.setattr(chart_worker.ChartWorker, "result", lost)
        assert render_pdf(report, charts=charts) == in_process


@pytest.mark.chart_worker
def test_charts_that_cannot_be_drawn_stop_the_pdf(report, monkeypatch):
    def broken(self):
        raise RuntimeError("drawing the charts failed: ValueError: no engine")

    with rendering([Path("note.pdf")]) as charts:
        monkeypatch.setattr(chart_worker.ChartWorker, "result", broken)
        with pytest.raises(RuntimeError, match="drawing the charts failed"):
            render_pdf(report, charts=charts)
def test_charts_that_cannot_be_drawn_stop_the_pdf_in_process(report, monkeypatch):
    def broken(planned):
        raise RuntimeError("no engine")

    monkeypatch.setattr(chart_worker, "draw_planned", broken)
    with pytest.raises(RuntimeError, match="no engine"):
        render_pdf(report)  # the error itself, not WeasyPrint's wrapper, and never a PDF without its charts


def test_plan_names_the_charts_that_get_draws(report):
    with rendering([Path("note.html")]) as charts:
        ((planned, planned_costs),) = charts.plan(report)  # one metric: one section's charts
        assert planned and all(c.svg == "" and c.title for c in planned)
        ((drawn, drawn_costs),) = charts.get(report)
    assert [c.name for c in planned] == [c.name for c in drawn]
    assert [(k, c.name) for k, c in planned_costs] == [(k, c.name) for k, c in drawn_costs]
    assert all(c.svg.startswith("<svg") for c in drawn)


def _typeset(page: str, svgs) -> bytes:
    import weasyprint
    from weasyprint.urls import FatalURLFetchingError

    from releasegate.render.chart_fetcher import ChartFetcher, unwrap

    try:
        return weasyprint.HTML(string=page, url_fetcher=ChartFetcher(svgs), base_url=None).write_pdf()
    except FatalURLFetchingError as exc:
        raise unwrap(exc) from None


def test_pages_fetch_data_urls_and_named_charts_only(tmp_path):
    from pypdf import PdfReader


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
    pdf = _typeset(page, svgs)
    assert asked == [1], "the charts are asked for once, when the first is reached"
    reader = PdfReader(io.BytesIO(pdf))
    xobjects = (reader.pages[0].get("/Resources") or {}).get("/XObject") or {}
    kinds = [x.get_object().get("/Subtype") for x in xobjects.values()]
    assert "/Image" not in kinds, "the local file is never read"
    without = _typeset('<html><body><img src="data:,"></body></html>', svgs)
    drawn = reader.pages[0].get_contents().get_data()
    assert len(drawn) > len(PdfReader(io.BytesIO(without)).pages[0].get_contents().get_data()) + 20, \
        "the named chart is drawn into the page"
    with pytest.raises(ValueError, match="names a chart that was not drawn: 'chart-b'"):
        _typeset(f'<html><body><img src="{CHART_URL}chart-b"></body></html>', svgs)


def _block(page: str, anchor: str) -> str:
    start = page.index(f'id="{anchor}"')
    return page[start:page.index("</details>" if "fixed" in anchor else "</table>", start)]


def test_paper_lists_the_broken_cases_and_the_appendix_every_answer(report, in_process):
    from pypdf import PdfReader

    from releasegate.render.html import render_html

    screen, paper = render_html(report), render_html(report, pdf_page=True)
    appendix = render_html(report, pdf_page=True, appendix=True)
    # On screen and in the appendix every broken case has both releases' answers; on paper its id and category.
    for page, ids in ((screen, ""), (appendix, "appendix-")):
        broken = page[page.index(f'id="{ids}cases-1-broken"'):page.index(f'id="{ids}cases-1-fixed"')]
        rows = broken.count("<tr") - 1  # less the header row
        assert rows > 0 and broken.count('class="data answer"') == 2 * rows
        assert _block(page, f"{ids}cases-1-fixed").count('class="data answer"') > 0
    broken = paper[paper.index('id="cases-1-broken"'):paper.index('id="method"')]
    listing = broken[:broken.index("</table>")]
    assert listing.count("<tr") > 1 and 'class="data answer"' not in listing and 'id="cases-1-fixed"' not in paper
    # Under the listing, the broken critical cases' input and both answers (the first 6 of each candidate).
    critical = [c for c in report.sections[0].analysis.candidates[0].broken_cases if c.critical]
    shown = broken[broken.index('class="cases with-answers paper-answers"'):]
    shown = shown[:shown.index("</table>")]
    assert critical and shown.count('class="data answer"') == 2 * min(6, len(critical))
    text = " ".join(page.extract_text() for page in PdfReader(io.BytesIO(in_process)).pages)
    assert "Every case with both answers is in the HTML and JSON reports" in " ".join(text.split())
