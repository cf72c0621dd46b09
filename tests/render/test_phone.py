"""The HTML note on a phone, in a real browser: Playwright drives the system's Chromium (nothing downloaded) at
390 x 844 and at 1280 x 900. On the phone the summary keeps each release, its difference and its verdict on
screen, every other column a swipe to the right with the release's name kept in view; on the desktop every
column shows at once. Boxes are read from the laid-out page, not from the stylesheet."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import EPOCH, build_report

CHROMIUM = "/usr/bin/chromium"
pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists() or shutil.which("bash") is None,
                                reason="needs the system's Chromium")


@pytest.fixture(scope="module")
def note(tmp_path_factory) -> Path:
    from releasegate.demo import example_files
    from releasegate.render.html import render_html

    files = example_files()
    path = tmp_path_factory.mktemp("phone") / "note.html"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SOURCE_DATE_EPOCH", EPOCH)
        report = build_report(files["eval_results.csv"], files["eval_cases.csv"], files["releasegate.toml"])
        path.write_text(render_html(report), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def browser():
    playwright_api = pytest.importorskip("playwright.sync_api")
    with playwright_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        yield chromium
        chromium.close()


CELLS = """() => [...document.querySelectorAll('#summary table.summary tr')].map(row =>
  Object.fromEntries([...row.children].map(cell => {
    const box = cell.getBoundingClientRect();
    return [cell.className.split(' ').find(c => c.startsWith('c-') || c === 'verdict-col'),
            {left: box.left, right: box.right, text: cell.innerText.trim()}];
  })))"""


def _rows(browser, note: Path, width: int, height: int, swipe: int = 0):
    page = browser.new_page(viewport={"width": width, "height": height})
    try:
        page.goto(note.as_uri())
        # Sections away from the screen are laid out only when near it (content-visibility, for long notes):
        # the summary is brought to the screen, as a reader scrolling to it would.
        page.evaluate("document.querySelector('#summary').scrollIntoView()")
        page.wait_for_function("document.querySelector('#summary table.summary').innerText.includes('r2-new-prompt')",
                               timeout=5000)
        if swipe:
            page.evaluate(f"document.querySelector('#summary .table-wrap').scrollLeft = {swipe}")
        return page.evaluate(CELLS), page.evaluate("document.documentElement.scrollWidth")
    finally:
        page.close()


def test_on_a_phone_release_difference_and_verdict_stay_on_screen(browser, note):
    rows, page_width = _rows(browser, note, 390, 844)
    assert page_width <= 390, "the page itself never scrolls sideways"
    header, *body = rows
    assert [c for c in ("c-release", "c-diff", "verdict-col")] == sorted(
        ("c-release", "c-diff", "verdict-col"), key=lambda c: header[c]["left"])
    for row in body:
        for column in ("c-release", "c-diff", "verdict-col"):
            assert 0 <= row[column]["left"] and row[column]["right"] <= 390, (column, row[column])
    r2 = next(r for r in body if r["c-release"]["text"].startswith("r2-new-prompt"))
    assert "+1.5" in r2["c-diff"]["text"] and "DON'T SHIP" in r2["verdict-col"]["text"]
    # The other columns are there, to the right, a swipe away.
    assert all(r["c-p"]["left"] >= 390 or r["c-p"]["right"] > 390 for r in body)
    swiped, _ = _rows(browser, note, 390, 844, swipe=1000)
    for row in swiped[1:]:
        assert 0 <= row["c-p"]["left"] and row["c-p"]["right"] <= 390  # p is on screen after the swipe
        assert row["c-release"]["left"] >= 0 and row["c-release"]["right"] <= 390  # the name stays in view


def test_on_a_desktop_every_column_shows_in_the_tables_order(browser, note):
    rows, page_width = _rows(browser, note, 1280, 900)
    assert page_width <= 1280
    header = rows[0]
    order = sorted(header, key=lambda c: header[c]["left"])
    assert order[:3] == ["c-release", "c-rate", "c-diff"] and order[-1] == "verdict-col"
    assert all(cell["right"] <= 1280 for row in rows for cell in row.values())
