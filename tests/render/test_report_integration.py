"""The optional sections inside the HTML, PDF and Markdown notes: cost charts drawn with the report's charts,
the summary's latency and cost columns, the runs and groups section, and HTML in the Markdown's order."""

from __future__ import annotations

import csv
import io
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from reading import external_references as _external_references
from reading import hostile_inputs as _hostile_inputs
from reading import parse as _parse
from reading import pdf_text as _pdf_text
from reading import words as _words

from conftest import EPOCH, ROOT
from conftest import build_report as _report
from releasegate import fmt
from releasegate.wording.sections import cluster_explanation, cost_clause, run_agreement

RC = ROOT / "examples" / "reading-comprehension"


@pytest.fixture(scope="module")
def bank(tmp_path_factory) -> dict:
    """The bank-assistant example written to HTML, PDF and Markdown in one call, counting vl-convert's draws."""
    import vl_convert

    from releasegate.demo import example_files
    from releasegate.render import write_reports
    from releasegate.render.charts import build_charts
    from releasegate.render.charts_costs import cost_charts

    example = example_files()
    out = tmp_path_factory.mktemp("bank")
    draws = []
    real = vl_convert.vegalite_to_svg
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SOURCE_DATE_EPOCH", EPOCH)
        report = _report(example["eval_results.csv"], example["eval_cases.csv"], example["releasegate.toml"])
        mp.setattr(vl_convert, "vegalite_to_svg", lambda spec, **kw: draws.append(spec) or real(spec, **kw))
        write_reports(report, [out / "r.html", out / "r.pdf", out / "r.md"])
    return {"report": report, "draws": len(draws), "expected_draws": len(build_charts(report.analysis))
            + len(cost_charts(report)), "cost_charts": cost_charts(report),
            "html": (out / "r.html").read_text(encoding="utf-8"), "pdf": (out / "r.pdf").read_bytes(),
            "md": (out / "r.md").read_text(encoding="utf-8")}


@pytest.fixture(scope="module")
def plain(tmp_path_factory):
    """A report without latency, tokens or cost columns."""
    results, cases = _hostile_inputs(tmp_path_factory.mktemp("plain"))
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SOURCE_DATE_EPOCH", EPOCH)
        return _report(results, cases, baseline="base", margin=0.1)


def _section(html: str, ident: str) -> str:
    start = html.index(f'id="{ident}"')
    return html[start:html.index("</section>", start)]


def _summary_table(html: str) -> str:
    section = _section(html, "summary")
    return section[:section.index("</table>")]


# ------------------------------------------------------------------------------------------------ costs


def test_cost_charts_are_inline_svg_in_the_costs_section_drawn_once(bank):
    # HTML and PDF written together: every chart drawn once, the cost charts in the same batch.
    assert len(bank["cost_charts"]) == 4 and bank["draws"] == bank["expected_draws"] == 7
    costs = _section(bank["html"], "costs")
    names = ["chart-costs-quality"] + [f"chart-costs-latency-{i}" for i in range(1, 4)]
    for name, (title, _) in zip(names, bank["cost_charts"]):
        plot = costs[costs.index(f'id="{name}-plot"'):]
        assert plot.index("<svg") < plot.index("</div>")  # the SVG itself sits in the figure
        assert f'aria-label="{title.split(" (")[0]}' in plot
    assert len(re.findall(r"<svg\b", costs)) == 4
    assert _external_references(bank["html"]) == []
    pdf = _words(_pdf_text(bank["pdf"]))
    # On paper the cost tables stand for the charts (issue 29 item 2); the --appendix holds them.
    assert "Pass rate against cost per 1,000 cases" not in pdf and "Latency distribution:" not in pdf
    assert "What each candidate saves and what it costs in quality" in pdf


def test_pdf_holds_the_costs_table(bank):
    text = _words(_pdf_text(bank["pdf"]))
    assert "Costs and latency" in text
    for row in bank["report"].analysis.sections.costs.releases:
        lat = row.latency
        figures = (f"{fmt.number(lat.mean, 0)} {fmt.number(lat.p50, 0)} {fmt.number(lat.p95, 0)} "
                   f"{fmt.number(row.input_tokens_per_case, 1)} {fmt.number(row.output_tokens_per_case, 1)} "
                   f"{fmt.money(row.cost_per_case, 5)} {fmt.money(row.cost_per_1k)}")
        assert figures in text, row.name
    for cand in bank["report"].analysis.candidates:
        assert cost_clause(cand.sections.costs) in text


def test_every_later_pdf_page_carries_the_running_header(bank):
    from pypdf import PdfReader

    pages = len(PdfReader(io.BytesIO(bank["pdf"])).pages)
    assert pages >= 4
    for number in range(2, pages + 1):
        head = _words(_pdf_text(bank["pdf"], number, number))[:200]
        if shutil.which("pdftotext"):
            # The top margin alone: pdftotext reads a page in columns, and a table at the top of a page (the
            # case tables with both answers) sits between the header's left and right parts in its order.
            top = subprocess.run(["pdftotext", "-q", "-enc", "UTF-8", "-f", str(number), "-l", str(number),
                                  "-x", "0", "-y", "0", "-W", "2000", "-H", "45", "-", "-"],
                                 input=bank["pdf"], capture_output=True, check=True).stdout.decode("utf-8")
            head = _words(top)
        assert head.startswith("bank-assistant Baseline r1-live · 400 cases · 2 candidates"), (number, head)


def test_summary_shows_latency_and_cost_when_the_data_has_them(bank, plain):
    from releasegate.render.html import render_html
    from releasegate.render.markdown import render_markdown

    summary = _words(" ".join(_parse(_summary_table(bank["html"])).text))
    assert "latency, ms p50 / p95" in summary and "cost per 1,000 cases" in summary
    md = bank["md"]
    for row in bank["report"].analysis.sections.costs.releases:
        figures = f"{fmt.number(row.latency.p50, 0)} / {fmt.number(row.latency.p95, 0)}"
        assert figures in summary and fmt.money(row.cost_per_1k) in summary
        line = next(line for line in md.splitlines() if line.startswith(f"| {row.name}"))
        assert line.endswith(f"| {figures} | {fmt.money(row.cost_per_1k)} |")
    assert "latency p50 / p95 (ms) | cost / 1,000 cases |" in md
    assert plain.analysis.sections.costs is None
    html = render_html(plain)
    summary = _words(" ".join(_parse(_summary_table(html)).text))
    assert "latency" not in summary and "cost" not in summary and "$" not in summary
    md = render_markdown(plain)
    header = next(line for line in md.splitlines() if line.startswith("| release |"))
    assert header.endswith("| p (two-sided) |")


# ------------------------------------------------------------------------------------ runs and groups


@pytest.fixture(scope="module")
def reading():
    """The reading-comprehension example (scores over 5 runs, 40 passage groups) as HTML and Markdown."""
    from releasegate.render.html import render_html
    from releasegate.render.markdown import render_markdown

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SOURCE_DATE_EPOCH", EPOCH)
        report = _report(RC / "results.csv", policy=RC / "releasegate.toml")
    return {"report": report, "html": render_html(report), "md": render_markdown(report)}


def _md_headings(md: str, level: int) -> list[str]:
    prefix = "#" * level + " "
    return [line[len(prefix):].strip() for line in md.splitlines() if line.startswith(prefix)]


def _html_headings(html: str, tag: str) -> list[str]:
    body = html[html.index("<main>"):]
    found = re.findall(rf"<{tag}\b[^>]*>(.*?)</{tag}>", body, re.DOTALL)
    return [_words(re.sub(r"<[^>]+>", "", h)) for h in found]


def test_reading_comprehension_html_holds_the_axes_section_in_the_markdown_order(reading):
    html, md, report = reading["html"], reading["md"], reading["report"]
    body = html[html.index("<main>"):]
    order = [body.index(f'id="{name}"') for name in ("summary", "rules", "axes", "categories", "cases", "method")]
    assert order == sorted(order)
    # The case explorer is the HTML page's alone (no other format can search).
    sections = [h for h in _html_headings(html, "h2")
                if h not in {c.name for c in report.analysis.candidates} and h != "Case explorer"]
    assert sections == _md_headings(md, 3)
    # The per-candidate headings of the axes and case sections read the same in both formats.
    md_sub = _md_headings(md, 4)
    assert [h for h in _html_headings(html, "h3") if h in md_sub] == md_sub
    axes = _words(" ".join(_parse(_section(html, "axes")).text))
    assert "Would a rerun agree?" in axes and "Grouped cases (passage)" in axes
    for cand in report.analysis.candidates:
        assert _words(cluster_explanation(cand.sections.clusters)) in axes
        assert _words(run_agreement(cand.sections.run_axis, report.analysis.parameters, report.analysis.baseline, cand.sections.clusters.cluster_column)[0]) in axes
    cases = _section(html, "cases")
    assert "<th scope=\"col\">group</th>" in cases
    for cand in report.analysis.candidates:
        assert f"{cand.name}: {len(cand.broken_cases)} worsened" in _words(re.sub(r"<[^>]+>", "", cases))
    method = _words(" ".join(_parse(_section(html, "method")).text))
    assert "Runs: each release's overall mean per run" in method
    assert "Grouped cases: each difference's p-value and interval come from one method" in method


def test_score_differences_carry_their_sign_everywhere(reading):
    html_text = _words(" ".join(_parse(reading["html"]).text))
    md = reading["md"]
    for cand, verdict in zip(reading["report"].analysis.candidates, reading["report"].verdicts):
        o = cand.overall
        shown = f"{fmt.signed(o.diff)} [{fmt.signed(o.ci_low)}, {fmt.signed(o.ci_high)}]"
        assert shown in verdict.because  # as the headline prints it
        assert shown in html_text
        summary = next(line for line in md.splitlines() if line.startswith(f"| {cand.name} |"))
        assert shown.replace("[", "\\[").replace("]", "\\]") in summary
        run_axis, clusters = cand.sections.run_axis, cand.sections.clusters
        rerun = f"{fmt.signed(run_axis.run_diff)} {fmt.interval_signed(run_axis.run_ci_low, run_axis.run_ci_high)}"
        assert rerun in html_text and rerun.replace("[", "\\[").replace("]", "\\]") in md
        assert fmt.interval_signed(clusters.clustered_ci_low, clusters.clustered_ci_high) in cluster_explanation(clusters)


def test_signed_formats_zero_without_a_minus():
    # A loss too small for three digits keeps its minus and shows its first digit (tests/wording/
    # test_signed_figures.py); zero itself has none.
    assert fmt.signed(0.0574) == "+0.057" and fmt.signed(-0.0004) == "-0.0004" and fmt.signed(-0.012) == "-0.012"
    assert fmt.signed(0.0) == fmt.signed(-0.0) == "+0.000"
    assert fmt.interval_signed(-0.073, 0.064) == "[-0.073, +0.064]" and fmt.signed(float("nan")) == "n/a"


def test_committed_examples_are_whole_in_html():
    # The committed HTML examples carry every section they should (regenerated with their scripts).
    bank_html = (ROOT / "examples" / "bank-assistant" / "report.html").read_text(encoding="utf-8")
    rc_html = (RC / "report.html").read_text(encoding="utf-8")
    assert 'id="costs"' in bank_html and 'id="chart-costs-quality"' in bank_html and 'id="axes"' not in bank_html
    assert 'id="axes"' in rc_html and 'id="costs"' not in rc_html


# ------------------------------------------------------------------------------------------- page width


@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="poppler-utils' pdftotext is not installed")
def test_long_names_and_values_stay_inside_the_pdf_margins(tmp_path):
    from releasegate.render.pdf import render_pdf

    results, cases = tmp_path / "results.csv", tmp_path / "cases.csv"
    base, cand = "base-release-with-a-rather-long-name", "candidate_release_with_an_even_longer_name_v2"
    with results.open("w", newline="") as r, cases.open("w", newline="") as c:
        rw, cw = csv.writer(r), csv.writer(c)
        rw.writerow(["case_id", "release", "passed"])
        cw.writerow(["case_id", "category", "input", "source_url"])
        for i in range(120):
            case = f"case-{i:03d}-" + "abcdefghij" * 7
            before = 0 if i % 10 == 0 else 1
            rw.writerow([case, base, before])
            rw.writerow([case, cand, 0 if i in (7, 8) else (1 if i in (0, 10) else before)])
            cw.writerow([case, "Category_" + "x" * 50 if i % 2 else "Plain", "question " + "w" * 120,
                         "https://example.test/" + "p" * 150])
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SOURCE_DATE_EPOCH", EPOCH)
        report = _report(results, cases, baseline=base)
    pdf = tmp_path / "r.pdf"
    pdf.write_bytes(render_pdf(report))
    assert _outside_margins(pdf) == []


def _outside_margins(pdf: Path) -> list[str]:
    """Words whose box reaches into the 15 mm side margins of their page (pdftotext -bbox)."""
    xml = subprocess.run(["pdftotext", "-bbox", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    margin = 15 / 25.4 * 72 - 1.0
    outside = []
    pages = re.findall(r'<page width="([\d.]+)"[^>]*>(.*?)</page>', xml, re.DOTALL)
    for number, (width, body) in enumerate(pages, 1):
        for x0, x1, word in re.findall(r'<word xMin="([\d.]+)" yMin="[\d.]+" xMax="([\d.]+)"[^>]*>(.*?)</word>',
                                       body):
            if float(x0) < margin or float(x1) > float(width) - margin:
                outside.append(f"page {number}: {word}")
    assert xml.count("<page ") >= 2 and "<word " in xml  # the check read the pages
    return outside


def test_a_not_proven_with_runs_and_groups_says_why_runs_are_unknown_as_its_paragraph_does(reading):
    # Scores over 5 runs of grouped cases: the run-to-run share is measured for pass/fail alone. The verdict once
    # said "one run of each release cannot tell run-to-run noise" beside a paragraph saying "With 5 runs".
    from releasegate.wording import plain

    (verdict,) = [v for v in reading["report"].verdicts if v.decision.value == "not_proven"]
    paragraph = plain.paragraphs(reading["report"])[verdict.candidate]
    assert "With 5 runs (epochs) of every case" in paragraph
    assert "whether more runs would help is not measured for scores or grouped cases" in paragraph
    assert "one run" not in verdict.headline
    assert ("Whether more runs would help is unknown: the run-to-run share of the change is not measured for scores "
            "or grouped cases.") in verdict.headline
