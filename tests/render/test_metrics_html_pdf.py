"""HTML and PDF release notes with several metrics (issue 16): page one holds the combined verdicts, the headline
naming the blocking metric(s) and the candidate x metric grid; then each metric's section, its figures the
single-metric report's; lists bounded; all-or-nothing writing; Inspect scorers and promptfoo named metrics."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from reading import external_references, parse, pdf_text, without_explorer, words

from conftest import build_report, run_cli
from metrics_support import METRICS, metric_args, promptfoo_with_named_metrics, three_metrics
from releasegate import fmt

EPOCH = "1796000000"
TESTS = Path(__file__).resolve().parents[1]
POPULARITY = TESTS / "fixtures" / "inspect" / "2025-05-12T20-28-13-04-00_popularity.json"
CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)


@pytest.fixture(scope="module")
def rendered(tmp_path_factory) -> dict:
    """The three-metric file written once as HTML, PDF and JSON through the command line."""
    out = tmp_path_factory.mktemp("three")
    path = three_metrics(out)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SOURCE_DATE_EPOCH", EPOCH)
        result = run_cli("report", path, "--baseline", "r1", *metric_args(),
                         "-o", out / "r.html", "-o", out / "r.pdf", "-o", out / "r.json")
    assert result.exit_code == 0, result.output
    return {"path": path, "html": (out / "r.html").read_text(encoding="utf-8"), "pdf": (out / "r.pdf").read_bytes(),
            "json": json.loads((out / "r.json").read_text(encoding="utf-8"))}


@pytest.fixture(scope="module")
def report(rendered):
    """The three-metric file's Report through the library (frozen: the tests share it)."""
    from releasegate.load import parse_source
    from releasegate.pipeline import run
    from releasegate.policy import make_policy

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SOURCE_DATE_EPOCH", EPOCH)  # a module fixture is built before the autouse one sets it
        return run([parse_source(str(rendered["path"]))], make_policy(baseline="r1"), metrics=METRICS)


@pytest.fixture(scope="module")
def single_page(rendered):
    """The HTML page of one metric of the three-metric file run alone, each built once for the module."""
    from releasegate.render.html import render_html

    pages: dict[str, str] = {}

    def page(metric: str) -> str:
        if metric not in pages:
            pages[metric] = render_html(build_report(rendered["path"], baseline="r1", columns={"passed": metric}))
        return pages[metric]

    return page


def _section(html: str, start: str, end: str) -> str:
    """The page from the tag that holds ``id=start`` to the tag that holds ``id=end``."""
    return html[html.rindex("<", 0, html.index(f'id="{start}"')):html.rindex("<", 0, html.index(f'id="{end}"'))]


def _rows(html: str) -> list[list[str]]:
    """Each table row's cells as visible text."""
    rows = []
    for row in re.findall(r"<tr\b[^>]*>(.*?)</tr>", html, flags=re.DOTALL):
        cells = re.findall(r"<t[hd]\b[^>]*>(.*?)</t[hd]>", row, flags=re.DOTALL)
        rows.append([words(" ".join(parse(c).text)) for c in cells])
    return rows


def _text(html: str) -> str:
    return words(" ".join(parse(html).text))


def _layout_page_one(pdf: bytes) -> str:
    """Page one's text as laid out (a table's header on one line)."""
    if not shutil.which("pdftotext"):
        pytest.skip("pdftotext (poppler-utils) is not installed")
    return subprocess.run(["pdftotext", "-q", "-layout", "-f", "1", "-l", "1", "-", "-"], input=pdf,
                          capture_output=True, check=True).stdout.decode("utf-8")


def _grid_figure(cell: dict) -> str:
    return f"{fmt.points(cell['diff'])} points {fmt.interval_points(cell['ci_low'], cell['ci_high'])}"


# ----------------------------------------------------------------------------------------------------- page one


def test_pdf_page_one_names_safe_as_blocking_and_shows_the_grid(rendered):
    page_one = words(pdf_text(rendered["pdf"], 1, 1))
    cand = rendered["json"]["candidates"][0]
    assert (cand["verdict"], cand["blocking_metrics"]) == ("dont_ship", ["safe"])
    assert "DON'T SHIP r2" in page_one and "Blocking metric: safe" in page_one
    # The headline after "DON'T SHIP r2: ", as the box prints it.
    assert words(cand["headline"]).split(": ", 1)[1] in page_one
    assert re.search(r"candidate +verdict +correct +safe +format_ok", _layout_page_one(rendered["pdf"]))
    for metric in METRICS:
        assert _grid_figure(cand["metrics"][metric]) in page_one, metric
    assert "✗ blocks" in page_one and page_one.count("✓ ship") == 2
    # The metrics' own sections start on the next pages, each named in the page's corner.
    assert "Rules that fired" not in page_one
    later = words(pdf_text(rendered["pdf"], 2))
    assert all(f"Metric: {m}" in later for m in METRICS)


def test_pdf_page_one_check_can_fail(rendered):
    # The check above reads page one only: the metrics' rule tables are in the PDF, on later pages.
    detail = "✓ ok no category regresses significantly"
    assert detail not in words(pdf_text(rendered["pdf"], 1, 1)) and detail in words(pdf_text(rendered["pdf"]))


def test_html_grid_first_then_one_section_per_metric(rendered):
    html = rendered["html"]
    body = html[html.index("<body"):]
    grid, sections = body.index('class="grid"'), [body.index(f'id="metric-{i}-section"') for i in (1, 2, 3)]
    # The grid (every verdict at a glance), the boxes with the headlines, then the metrics' sections.
    boxes = body.index('class="verdicts"')
    assert grid < body.index("DON&#39;T SHIP") < boxes < sections[0] < sections[1] < sections[2] < body.index('id="method"')
    header = _rows(body[grid:boxes])[0]
    assert header == ["candidate", "verdict", *METRICS]
    row = _rows(body[grid:boxes])[1]
    assert row[:2] == ["r2", "✗ DON'T SHIP"]
    assert row[2].startswith("✓ ship") and row[4].startswith("✓ ship")
    assert row[3].startswith("✗ blocks " + _grid_figure(rendered["json"]["candidates"][0]["metrics"]["safe"]))
    assert "overall_regression" in row[3]
    for i, metric in enumerate(METRICS, start=1):
        section = body[sections[i - 1]:sections[i] if i < 3 else body.index('id="method"')]
        assert f"Metric {metric}" in _text(section)
        for part in ("summary", "rules", "categories", "cases", "method"):
            assert f'id="metric-{i}-{part}"' in section
            assert f'href="#metric-{i}-{part}"' in section


def test_html_is_self_contained_with_ids_unique(rendered):
    html = rendered["html"]
    assert external_references(html) == [] and "<script" not in without_explorer(html).lower()
    ids = re.findall(r'\bid="([^"]+)"', html)
    assert len(ids) == len(set(ids))
    # Every in-page link lands on an id of the page.
    assert set(re.findall(r'href="#([^"]+)"', html)) <= set(ids)
    assert len(re.findall(r"<svg\b[^>]*class=\"marks\"", html)) == 3 * 3  # each metric's three charts
    title = re.search(r"<title>(.*?)</title>", html, flags=re.DOTALL).group(1)
    assert "DON&#39;T SHIP" in title and ": correct" not in title


def test_single_metric_pages_carry_nothing_of_the_several_metric_page(single_page):
    html = single_page("safe")
    assert "table.grid" not in html and 'id="metric-1-' not in html and 'id="summary"' in html


# -------------------------------------------------------------------------------- each metric = its single run


@pytest.mark.parametrize("index,metric", list(enumerate(METRICS, start=1)))
def test_each_metric_section_shows_the_single_metric_figures(rendered, single_page, index, metric):
    single = single_page(metric)
    html, a = rendered["html"], f"metric-{index}-"
    # The summary (rates, difference, interval, fixed, broke, p, verdict) is the single run's, word for word.
    assert _text(_section(html, f"{a}summary", f"{a}rules")) == _text(_section(single, "summary", "rules"))
    # Per category: every figure but the adjusted p, which carries the correction across the 3 metrics.
    mine = _rows(_section(html, f"{a}categories", f"{a}cases"))
    theirs = _rows(_section(single, "categories", "cases"))
    assert len(mine) == len(theirs) == 5
    # The ▼ marks a regression the rule names, read at the adjusted p: it may differ too.
    assert [[x.replace("▼ ", "") for x in r[:-1]] for r in mine] == [[x.replace("▼ ", "") for x in r[:-1]] for r in theirs]
    for row in mine[1:]:  # the first row is the header
        assert row[4].startswith("▼") == (float(row[-1].lstrip("<")) < 0.05 and row[4].lstrip("▼ ").startswith("-")), row
    # The rules: the same ones fire.
    fired = re.compile(r'<td class="(fired|ok)">')
    assert fired.findall(_section(html, f"{a}rules", f"{a}categories")) == \
        fired.findall(_section(single, "rules", "categories"))
    # The broken cases: the same ids (the single run shows the other metrics beside them as metadata).
    ids = re.compile(r'<td class="id">(?:<span class="whole-id">)?([^<]+)(?:</span>)?</td>')
    broken_mine = ids.findall(_section(html, f"{a}cases-1-broken", f"{a}method"))
    broken_theirs = ids.findall(single[single.index('id="cases-1-broken"'):single.index('id="method"')])
    assert broken_mine and broken_mine == broken_theirs


# ------------------------------------------------------------------------------------------- size and writing


def test_three_metrics_with_many_cases_stay_bounded(tmp_path):
    from releasegate.load import parse_source
    from releasegate.pipeline import run
    from releasegate.policy import make_policy
    from releasegate.render.html import render_html
    from releasegate.render.html_limits import MAX_CASE_ROWS, shared_limits

    path = three_metrics(tmp_path, n=4000, safe_broken=1500, name="big.csv")
    report = run([parse_source(str(path))], make_policy(baseline="r1"), metrics=METRICS)
    html = render_html(report)
    limit = shared_limits(3)[0]
    assert limit == MAX_CASE_ROWS // 3
    broken = _section(html, "metric-2-cases-1-broken", "metric-2-method")
    listed = broken[:broken.index("</table>")].count('<td class="id">')
    assert listed == limit
    assert f"{1500 - limit:,} more broken cases of r2; the JSON report lists them all." in _text(broken)
    # Each of the 3 metrics' 3 listings (broken, fixed, failing on both) holds at most its share: the page holds
    # about as many case rows as one metric's page (402 here, its broken list alone 200).
    single = render_html(run([parse_source(str(path))], make_policy(baseline="r1"), metrics=("safe",)))
    assert html.count('<td class="id">') <= 3 * 3 * limit < 1.5 * single.count('<td class="id">')


def test_a_failure_writes_no_file(tmp_path, monkeypatch):
    from releasegate.errors import InputError
    from releasegate.render import pdf

    def fail(*args, **kwargs):
        raise InputError("typesetting failed")

    monkeypatch.setattr(pdf, "_typeset", fail)
    outs = [tmp_path / "n.md", tmp_path / "n.html", tmp_path / "n.pdf"]
    result = run_cli("report", three_metrics(tmp_path), "--baseline", "r1", *metric_args(),
                     *[a for o in outs for a in ("-o", o)])
    assert result.exit_code == 2 and "typesetting failed" in result.output
    assert not any(o.exists() for o in outs)
    assert "Traceback" not in result.output


def test_an_existing_html_is_replaced_only_by_a_complete_one(tmp_path, monkeypatch):
    from releasegate.render import html

    out = tmp_path / "n.html"
    out.write_text("old")
    monkeypatch.setattr(html, "grid", lambda report: (_ for _ in ()).throw(ValueError("broken grid")))
    result = run_cli("report", three_metrics(tmp_path), "--baseline", "r1", *metric_args(), "-o", out)
    assert result.exit_code == 2 and "broken grid" in result.output and "Traceback" not in result.output
    assert out.read_text() == "old"


# --------------------------------------------------------------------------------------------- harness inputs


def _inspect(tmp_path: Path, name: str, safe: list[str]) -> Path:
    log = json.loads(POPULARITY.read_text())
    log["status"] = "success"  # the fixture's log was cancelled after 3 samples; read it as a finished one
    for sample, s in zip(log["samples"], safe):
        sample["scores"]["safe"] = {"value": s}
        sample["scores"]["style"] = {"value": {"tone": 0.5, "length": 1}}
    path = tmp_path / name
    path.write_text(json.dumps(log))
    return path


def test_an_inspect_log_with_three_scorers_gives_html(tmp_path):
    live = _inspect(tmp_path, "live.json", ["C", "C", "C"])
    new = _inspect(tmp_path, "new.json", ["C", "I", "I"])
    out = tmp_path / "note.html"
    result = run_cli("report", f"live={live}", f"new={new}", "--baseline", "live", "--margin", "0.9",
                     "--metric", "match", "--metric", "safe", "--metric", "style/tone", "-o", out)
    assert result.exit_code == 0, result.output
    html = out.read_text(encoding="utf-8")
    grid = _rows(html[html.index('class="grid"'):html.index('id="metric-1-section"')])
    assert grid[0] == ["candidate", "verdict", "match", "safe", "style/tone"]
    assert grid[1][3].startswith(f"? not proven {fmt.points(-2 / 3)} points")  # 3 cases: only not_non_inferior
    assert all(f'id="metric-{i}-summary"' in html for i in (1, 2, 3))
    assert "mean score" in _section(html, "metric-3-summary", "metric-3-rules")  # style/tone is a score


def test_a_promptfoo_file_with_named_metrics_gives_html(tmp_path):
    path = promptfoo_with_named_metrics(tmp_path)
    out = tmp_path / "note.html"
    result = run_cli("report", path, "--baseline", "gpt-4o-mini", "--margin", "0.9", "--metric", "success",
                     "--metric", "correctness", "--metric", "brevity", "-o", out)
    assert result.exit_code == 0, result.output
    html = out.read_text(encoding="utf-8")
    assert _rows(html[html.index('class="grid"'):])[0] == ["candidate", "verdict", "success", "correctness", "brevity"]
    # The provider error left every metric's comparison, and each metric's box says so.
    for i in (1, 2, 3):
        assert "Errored cases:" in _text(_section(html, f"metric-{i}-section", f"metric-{i}-summary"))


# ------------------------------------------------------------------------------------------------ interactive


def test_interactive_has_one_bundle_and_every_metrics_specs(report):
    from releasegate.render.html import render_html

    html = render_html(report, interactive=True)
    # The bundle, the case explorer's script, then the one script that embeds every chart.
    assert html.count("<script>") == 3
    specs = json.loads(re.search(r"var specs = (\{.*?\});\n", html, flags=re.DOTALL).group(1))
    assert {f"metric-{i}-chart-overall" for i in (1, 2, 3)} <= set(specs)
    assert all(f'id="{name}-plot"' in html for name in specs)


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (/usr/bin/chromium absent)")
def test_chromium_renders_the_page_offline_without_console_messages(rendered, tmp_path):
    page = tmp_path / "three.html"
    page.write_text(rendered["html"], encoding="utf-8")
    profile = tempfile.mkdtemp(prefix="chromium-profile-")
    try:
        proc = subprocess.run(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={profile}",
             "--enable-logging=stderr", "--v=0", "--dump-dom", page.as_uri()],
            check=False, capture_output=True, text=True, timeout=120)
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert [line for line in proc.stderr.splitlines() if ":CONSOLE" in line] == []
    assert proc.stdout.count('class="grid"') == 1 and "metric-3-section" in proc.stdout


# ------------------------------------------------------------------------------------------------ PDF variants


@pytest.mark.chart_worker
def test_the_audit_pdf_attaches_the_several_metric_json_and_is_reproducible(report):
    import io

    from pypdf import PdfReader

    from releasegate.render import rendering
    from releasegate.render.json_out import render_json
    from releasegate.render.pdf import render_pdf

    pdf = render_pdf(report, pdf_variant="pdf/a-3b", paper="Letter")
    attached = PdfReader(io.BytesIO(pdf)).attachments["analysis.json"][0]
    assert attached == render_json(report).encode("utf-8")
    assert json.loads(attached)["kind"] == "several_metrics"
    # Typeset again, with the chart worker drawing every metric's charts: the same bytes, so the note is
    # reproducible and the worker's charts are those drawn in process.
    with rendering([Path("note.pdf")]) as owner:
        worker = owner.worker
        assert render_pdf(report, pdf_variant="pdf/a-3b", paper="Letter", charts=owner) == pdf
    assert worker._process.returncode == 0  # it replied (plan, then charts) and ended


def test_pdf_page_one_holds_the_whole_grid_with_several_candidates(tmp_path):
    from releasegate.load import parse_source
    from releasegate.pipeline import run
    from releasegate.policy import make_policy
    from releasegate.render.pdf import render_pdf

    path = three_metrics(tmp_path)
    lines = path.read_text().splitlines()
    rows = {r: [line for line in lines[1:] if line.startswith(f"{r},")] for r in ("r1", "r2")}
    # r3 and r5 repeat r1 (harmless), r4 repeats r2 (safe regresses): five releases, four candidates.
    extra = [line.replace("r1,", f"{name},", 1) for name in ("r3", "r5") for line in rows["r1"]]
    extra += [line.replace("r2,", "r4,", 1) for line in rows["r2"]]
    path.write_text("\n".join([*lines, *extra]) + "\n")
    report = run([parse_source(str(path))], make_policy(baseline="r1"), metrics=METRICS)
    page_one = words(pdf_text(render_pdf(report), 1, 1))
    # The grid is kept whole: its 4 x 3 cells and the paragraph after it are on page one.
    assert "Verdict per candidate and metric" in page_one and "Per cell: the metric's verdict" in page_one
    assert page_one.count("✗ blocks") == 2 and page_one.count("✓ ship") == 10
    assert all(name in page_one for name in ("r2", "r3", "r4", "r5"))


def test_metric_names_with_markup_are_shown_as_text(tmp_path):
    hostile = '<img src=x onerror=alert(1)>'
    path = three_metrics(tmp_path)
    lines = path.read_text().splitlines()
    path.write_text("\n".join([lines[0].replace("safe", hostile), *lines[1:]]) + "\n")
    out = tmp_path / "n.html"
    result = run_cli("report", path, "--baseline", "r1", "--metric", "correct", "--metric", hostile, "-o", out)
    assert result.exit_code == 0, result.output
    html = out.read_text(encoding="utf-8")
    assert "<img" not in html and external_references(html) == []
    assert hostile in _text(html[html.index('class="grid"'):])
    assert f"Blocking metric: {hostile}" in _text(html)


@pytest.mark.chart_worker
def test_the_chart_worker_draws_every_metric_as_in_process(report):
    from releasegate.render.chart_worker import Charts, draw_charts

    charts = Charts(start_worker=True)
    try:
        assert charts.worker is not None
        charts.ask(report)
        drawn = charts.get(report)
        assert charts.worker is None  # the worker's reply was used (a lost worker would be redrawn here)
    finally:
        charts.close()
    here = draw_charts(report)
    assert len(drawn) == 3
    for i, (main, costs) in enumerate(drawn, start=1):
        assert main and all(c.name.startswith(f"metric-{i}-chart-") for c in main)
        assert costs == []
    assert [[c.svg for c in main] for main, _ in drawn] == [[c.svg for c in main] for main, _ in here]


def test_the_pdf_names_every_metrics_charts(report):
    # The same PDF bytes with the chart worker as without it: the audit PDF's test above typesets both.
    from releasegate.render.chart_url import CHART_URL
    from releasegate.render.chart_worker import Charts
    from releasegate.render.html import render_html

    charts = Charts()
    page = render_html(report, charts=charts, pdf_page=True)
    named = re.findall(re.escape(CHART_URL) + r'([^"]+)"', page)
    drawn = [c.name for main, costs in charts.get(report) for c in (*main, *(c for _, c in costs))]
    # Paper leaves out the category chart (its table says the same; the --appendix keeps it).
    assert len(set(named)) == len(named) and set(named) == {n for n in drawn if "chart-categories" not in n}
    appendix = render_html(report, charts=charts, pdf_page=True, appendix=True)
    assert set(re.findall(re.escape(CHART_URL) + r'([^"]+)"', appendix)) == set(drawn)
    assert {name.split("-chart")[0] for name in named} == {f"metric-{i}" for i in range(1, len(METRICS) + 1)}
