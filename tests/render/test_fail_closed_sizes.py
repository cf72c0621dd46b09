"""Issue 15, item 11: every renderer handles every size validation admits.

Charts show the worst N categories and candidates and say how many more; the HTML (and PDF) tables are cut
with a count; the JSON keeps everything. On main, 1,800 categories crashed the chart engine (an internal error
that lost the Markdown written beside it) and 400 releases took the PDF 3 minutes and 2.4 GB.
"""

from __future__ import annotations

import json
import re

import pytest

from conftest import run_cli
from releasegate.render.chart_limits import MAX_CHART_CANDIDATES, MAX_CHART_CATEGORIES
from releasegate.render.html_limits import MAX_CATEGORY_ROWS, MAX_DETAILED_CANDIDATES

N_CATEGORIES = 1_800


@pytest.fixture(scope="module")
def many_categories(tmp_path_factory):
    work = tmp_path_factory.mktemp("categories")
    rows = ["release,case_id,passed,category"]
    for release in ("r1", "r2"):
        for i in range(2 * N_CATEGORIES):
            broke = release == "r2" and i % 7 == 0
            rows.append(f"{release},c{i},{0 if broke else 1},k{i // 2:04d}")
    (work / "r.csv").write_text("\n".join(rows) + "\n")
    result = run_cli("report", "r.csv", "--baseline", "r1", "-o", "r.html", "-o", "r.md", "-o", "r.json", cwd=work)
    assert result.exit_code == 0, result.stderr
    return work


def test_1800_categories_draw_the_worst_and_say_how_many_more(many_categories):
    html = (many_categories / "r.html").read_text(encoding="utf-8")
    assert (f"The charts show the {MAX_CHART_CATEGORIES} worst of 1,800 categories (critical first)") in html
    assert f"{N_CATEGORIES - MAX_CATEGORY_ROWS:,} more categories of r2" in html  # grouped as the sentences group counts
    assert html.count('<tr class=" worse">') + html.count('<tr class="">') <= MAX_CATEGORY_ROWS + 1


def test_1800_categories_keep_every_figure_in_the_json_and_the_markdown_too(many_categories):
    report = json.loads((many_categories / "r.json").read_text(encoding="utf-8"))
    (candidate,) = report["candidates"]
    assert len(candidate["categories"]) == N_CATEGORIES
    assert (many_categories / "r.md").read_text(encoding="utf-8").startswith("<!-- releasegate -->")


@pytest.fixture(scope="module")
def many_releases(tmp_path_factory):
    work = tmp_path_factory.mktemp("releases")
    n_releases = MAX_DETAILED_CANDIDATES + 15
    rows = ["release,case_id,passed"]
    for k in range(n_releases):
        broke = 20 if k % 5 == 1 else 0  # every fifth candidate breaks 20 cases: DON'T SHIP; the rest SHIP
        rows += [f"r{k:03d},c{i},{0 if i < broke else 1}" for i in range(100)]
    (work / "r.csv").write_text("\n".join(rows) + "\n")
    result = run_cli("report", "r.csv", "--baseline", "r000", "-o", "r.html", "-o", "r.json", cwd=work)
    assert result.exit_code == 0, result.stderr
    return work, n_releases - 1


def test_many_releases_detail_the_worst_and_count_the_rest(many_releases):
    work, n_candidates = many_releases
    html = (work / "r.html").read_text(encoding="utf-8")
    rules = re.search(r'<table class="rules">.*?</thead>', html, re.DOTALL).group(0)
    assert rules.count('<th scope="col">') == MAX_DETAILED_CANDIDATES
    assert html.count('<article class="verdict') == MAX_DETAILED_CANDIDATES
    assert (f"{n_candidates - MAX_DETAILED_CANDIDATES} more candidates are not detailed here (this page details "
            f"the {MAX_DETAILED_CANDIDATES} worst of {n_candidates}") in html
    assert f"The charts show the {MAX_CHART_CANDIDATES} worst of {n_candidates} candidates" in html
    report = json.loads((work / "r.json").read_text(encoding="utf-8"))
    assert len(report["candidates"]) == n_candidates


def test_the_worst_candidates_are_the_ones_detailed(many_releases):
    work, _ = many_releases
    html = (work / "r.html").read_text(encoding="utf-8")
    shown = re.findall(r'<h2 class="candidate">(r\d+)</h2>', html)
    report = json.loads((work / "r.json").read_text(encoding="utf-8"))
    dont = {c["name"] for c in report["candidates"] if c["verdict"] == "dont_ship"}
    assert len(shown) == MAX_DETAILED_CANDIDATES
    assert 0 < len(dont) < MAX_DETAILED_CANDIDATES  # so that both rules of the order are seen
    assert dont <= set(shown)
