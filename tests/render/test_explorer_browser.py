"""The HTML note's case explorer in a real browser: Playwright drives the system's Chromium (nothing downloaded)
through the bank-assistant note, a hostile note and a three-metric note. Every request the page makes is
routed: anything but the note's own file fails the test, as does any console error, page error or dialog.
One browser serves the module; each test opens its own page."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from explorer_support import FRAUD_BROKEN_BY_R2, bank_report, csv_rows, hostile_report

from conftest import EPOCH, build_report
from metrics_support import METRICS, three_metrics
from releasegate.api import ReleaseComparison
from releasegate.render.explorer import build_explorer, shown
from releasegate.render.explorer_query import Filters, select
from releasegate.text import visible

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        chromium.close()


def _render(report, path: Path) -> Path:
    from releasegate.render.html import render_html

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SOURCE_DATE_EPOCH", EPOCH)
        path.write_text(render_html(report), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def bank(tmp_path_factory):
    report, files = bank_report()
    return {"report": report, "path": _render(report, tmp_path_factory.mktemp("bank") / "note.html"),
            "files": files}


class Visit:
    """One page of the note, with what it asked for and what it said."""

    def __init__(self, browser, path: Path, fragment: str = "", *, width: int = 1280, scripts: bool = True):
        self.file = path.as_uri()
        self.foreign: list[str] = []
        self.errors: list[str] = []
        self.context = browser.new_context(viewport={"width": width, "height": 900}, java_script_enabled=scripts)
        self.context.route("**/*", self._route)
        self.page = self.context.new_page()
        self.page.on("console", lambda m: self.errors.append(f"console {m.type}: {m.text}")
                     if m.type in ("error", "warning") else None)
        self.page.on("pageerror", lambda e: self.errors.append(f"page error: {e}"))
        self.page.on("dialog", lambda d: (self.errors.append(f"dialog: {d.message}"), d.dismiss()))
        self.page.goto(self.file + fragment)
        if scripts:
            self.page.wait_for_selector("#explorer[data-ready]", state="attached", timeout=20_000)

    def _route(self, route):
        if route.request.url.split("#")[0] == self.file:
            route.continue_()
        else:
            self.foreign.append(route.request.url)
            route.abort()

    def close(self):
        self.context.close()
        assert self.foreign == [], self.foreign
        assert self.errors == [], self.errors

    def choose(self, **values: str):
        for name, value in values.items():
            self.page.select_option(f"#x-{name}", value)

    def search(self, text: str):
        self.page.fill("#x-search", text)
        self.settled()

    def settled(self):
        # The search waits 60 ms for the typing to pause; the count then says what the list holds.
        self.page.wait_for_function("() => !document.querySelector('#x-list').dataset.pending", timeout=10_000)

    def rows(self) -> list[tuple[str, str]]:
        """Every matching row's (candidate, case id), showing the next page until none is left."""
        self.page.evaluate("() => { const more = document.getElementById('x-more');"
                           " while (!more.hidden) { more.click(); } }")
        return [tuple(row) for row in self.page.eval_on_selector_all(
            "#x-list [data-case-id]", "els => els.map(e => [e.dataset.candidate, e.dataset.caseId])")]


@pytest.fixture
def visit(browser):
    opened = []

    def open_page(path: Path, fragment: str = "", **options) -> Visit:
        page = Visit(browser, path, fragment, **options)
        opened.append(page)
        return page

    yield open_page
    for page in opened:
        page.close()


def _python_rows(report, **filters) -> list[tuple[str, str]]:
    return [(r.candidate, shown(r.case.case_id)) for r in select(build_explorer(report), Filters(**filters))]


def test_searching_otp_shows_exactly_the_cases_whose_text_holds_it(bank, visit):
    page = visit(bank["path"])
    page.page.click("#x-search")
    page.page.keyboard.type("OTP")
    page.settled()
    shown_rows = page.rows()
    assert shown_rows == _python_rows(bank["report"], search="OTP")
    ids = {case for _, case in shown_rows}
    assert {"EV264", "EV276"} <= ids
    frame = ReleaseComparison(bank["report"]).cases(search="OTP")
    assert ids == set(frame["case_id"])
    assert page.page.inner_text("#x-count").startswith(f"{len(shown_rows)} of 800 rows match")


def test_r2_fraud_broken_shows_the_six_each_opening_to_its_input_and_both_answers(bank, visit):
    page = visit(bank["path"])
    page.choose(candidate="r2-new-prompt", category="Fraud", change="broken")
    page.settled()
    assert [case for _, case in page.rows()] == FRAUD_BROKEN_BY_R2
    assert page.page.inner_text("#x-count").startswith("6 of 800 rows match")
    inputs = {row["case_id"]: row["input"] for row in csv_rows(bank["files"]["eval_cases.csv"])}
    outputs = {(row["release"], row["case_id"]): row["output"] for row in csv_rows(bank["files"]["eval_results.csv"])}
    for case in FRAUD_BROKEN_BY_R2:
        item = page.page.locator(f'details.x-case[data-case-id="{case}"]')
        item.locator("summary").click()
        body = item.locator(".x-body")
        body.wait_for()
        assert body.locator(".x-meta dd").first.inner_text() == inputs[case]
        sides = body.locator(".x-side .x-text").all_inner_texts()
        assert sides == [outputs[("r1-live", case)], outputs[("r2-new-prompt", case)]]
        heads = body.locator(".x-side h4").all_inner_texts()
        assert heads == ["output on r1-live", "output on r2-new-prompt"]


def test_keyboard_slash_searches_j_and_k_move_and_enter_opens(bank, visit):
    page = visit(bank["path"], "#explorer?candidate=r3-small-model&change=broken")
    p = page.page
    p.locator("body").click(position={"x": 5, "y": 5})
    p.keyboard.press("/")
    assert p.evaluate("document.activeElement.id") == "x-search"
    p.keyboard.type("Fraud")
    page.settled()
    p.locator("#x-count").click()  # out of the search box: the letters move again
    p.keyboard.press("j")
    p.keyboard.press("j")
    p.keyboard.press("k")
    first = p.evaluate("document.activeElement.parentElement.dataset.caseId")
    assert first == page.rows()[0][1]
    p.keyboard.press("j")
    second = p.evaluate("document.activeElement.parentElement.dataset.caseId")
    assert second == page.rows()[1][1]
    p.keyboard.press("Enter")
    assert p.evaluate("document.activeElement.parentElement.open") is True
    p.locator(f'details.x-case[data-case-id="{second}"] .x-body').wait_for(timeout=5_000)  # built on opening


def test_the_view_lives_in_the_address(bank, visit):
    page = visit(bank["path"], "#explorer?candidate=r2-new-prompt&category=Fraud&change=broken")
    assert [case for _, case in page.rows()] == FRAUD_BROKEN_BY_R2
    assert page.page.input_value("#x-candidate") == "r2-new-prompt"
    page.choose(change="fixed", sort="latency")
    page.settled()
    assert page.page.evaluate("location.hash") == "#explorer?candidate=r2-new-prompt&category=Fraud&change=fixed&sort=latency"
    page.search("code")
    assert "q=code" in page.page.evaluate("location.hash")
    assert page.rows() == _python_rows(bank["report"], search="code", candidate="r2-new-prompt", category="Fraud",
                                       change="fixed", sort="latency")


@pytest.mark.parametrize("filters", [
    {"sort": "latency"},
    {"sort": "cost", "candidate": "r3-small-model"},
    {"sort": "category", "search": "card"},
    {"sort": "score", "change": "unchanged", "search": "the app"},
    {"category": "Safety"},
    {"change": "fixed", "search": "your"},
], ids=lambda f: "-".join(f"{k}={v}" for k, v in f.items()))
def test_python_rows_are_the_browsers_rows(bank, visit, filters):
    page = visit(bank["path"])
    selects = {k: v for k, v in filters.items() if k != "search"}
    page.choose(**selects)
    page.search(filters.get("search", ""))
    browser_rows = page.rows()
    frame = ReleaseComparison(bank["report"]).cases(**filters)
    assert browser_rows == list(zip(frame["candidate"], frame["case_id"])) == _python_rows(bank["report"], **filters)
    assert browser_rows  # every view here shows something


def test_without_scripts_the_static_tables_show_and_the_explorer_says_why(bank, visit):
    page = visit(bank["path"], scripts=False)
    p = page.page
    assert p.is_visible("#explorer-noscript") and not p.is_visible("#explorer-ui")
    p.locator("#cases").scroll_into_view_if_needed()  # laid out near the screen (content-visibility: auto)
    # The section is laid out at a rendering step after the scroll: Playwright's expect reads it again until it
    # holds the case (at most 5 s; it reads from its own script, which a page without scripts still runs).
    pytest.importorskip("playwright.sync_api").expect(p.locator("#cases")).to_contain_text("EV264", timeout=5000)
    assert p.locator("#cases table.cases").first.is_visible()


def test_compressed_data_reads_the_same(bank, visit, tmp_path, monkeypatch):
    from releasegate.render import explorer_page

    monkeypatch.setattr(explorer_page, "COMPRESS_ABOVE", 0)
    path = _render(bank["report"], tmp_path / "packed.html")
    assert 'type="application/gzip" id="explorer-data"' in path.read_text(encoding="utf-8")
    page = visit(path, "#explorer?candidate=r2-new-prompt&category=Fraud&change=broken")
    assert [case for _, case in page.rows()] == FRAUD_BROKEN_BY_R2


def test_narrow_screen_keeps_the_page_within_its_width(bank, visit):
    page = visit(bank["path"], "#explorer?candidate=r2-new-prompt&change=broken", width=390)
    page.page.locator("details.x-case summary").first.click()
    page.page.locator(".x-body").first.wait_for()
    widest = page.page.evaluate("Math.max(...Array.from(document.querySelectorAll('#explorer *'))"
                                ".map(e => e.getBoundingClientRect().right))")
    assert widest <= 390
    boxes = page.page.locator(".x-side").evaluate_all("els => els.map(e => e.getBoundingClientRect().left)")
    assert len(set(round(x) for x in boxes[:2])) == 1  # the two answers stack on a phone


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    work = tmp_path_factory.mktemp("hostile-explorer")
    report = hostile_report(work)
    return {"report": report, "path": _render(report, work / "note.html")}


def test_hostile_text_stays_text(hostile, visit):
    page = visit(hostile["path"])
    p = page.page
    rows = page.rows()
    assert rows == _python_rows(hostile["report"])
    for item in p.locator("details.x-case").all():
        item.locator("summary").click()
    p.locator(".x-body").last.wait_for()
    # No element but the explorer's own came from the data, no handler ran, every text reads as its codes.
    tags = set(p.eval_on_selector_all("#x-list *", "els => els.map(e => e.tagName.toLowerCase())"))
    assert tags <= {"details", "summary", "span", "div", "dl", "dt", "dd", "h4", "p", "del", "ins"}
    text = p.inner_text("#x-list")
    assert "<script>alert(1)</script>" in text and "<img src=x onerror=alert(1)>" in text
    assert visible("\x1b[31mred\u202eevil\x00") in text and "\u202e" not in text
    page.search("</details><details open>")
    assert len(page.rows()) == 1


@pytest.fixture(scope="module")
def three(tmp_path_factory):
    from releasegate.load import parse_source
    from releasegate.pipeline import run
    from releasegate.policy import make_policy

    work = tmp_path_factory.mktemp("three-explorer")
    path = three_metrics(work)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SOURCE_DATE_EPOCH", EPOCH)
        report = run([parse_source(str(path))], make_policy(baseline="r1"), metrics=METRICS)
    return {"report": report, "path": _render(report, work / "note.html")}


def test_several_metrics_add_the_metric_select(three, visit):
    page = visit(three["path"])
    options = page.page.eval_on_selector_all("#x-metric option", "els => els.map(e => e.value)")
    assert options == ["", *METRICS]
    page.choose(metric="safe", change="broken")
    page.settled()
    rows = page.rows()
    assert rows == _python_rows(three["report"], metric="safe", change="broken") and len(rows) == 30
    assert re.search(r"30 of [\d,]+ rows match", page.page.inner_text("#x-count"))


def _answer_pairs(n: int) -> list[tuple[str, str]]:
    """Seeded answer pairs of every kind of edit: identical, words dropped, added, replaced, swapped, rewritten,
    repeated words, empty, unicode and emoji, mixed white space, and texts past the diff's word limit."""
    import random

    from releasegate.render.answers import DIFF_WORDS

    rng = random.Random(20261206)
    vocabulary = ["the", "the", "a", "card", "bank", "freeze", "naïve", "😀", "é", "x\u00a0y", "OTP,", "call",
                  "(Security", ">", "Freeze)", "never", "share", "your", "PIN.", "thé", "code"]
    spaces = [" ", " ", " ", "  ", "\n", "\t", "\u3000", " \n"]

    def text(words: list[str]) -> str:
        return "".join(w + rng.choice(spaces) for w in words).rstrip() if words else ""

    pairs = []
    for k in range(n):
        words = [rng.choice(vocabulary) for _ in range(rng.randint(1, 40))]
        kind = k % 9
        other = list(words)
        if kind == 1:
            del other[rng.randrange(len(other))]
        elif kind == 2:
            other.insert(rng.randrange(len(other) + 1), rng.choice(vocabulary))
        elif kind == 3:
            for _ in range(3):
                other[rng.randrange(len(other))] = rng.choice(vocabulary)
        elif kind == 4 and len(other) > 2:
            i, j = rng.sample(range(len(other)), 2)
            other[i], other[j] = other[j], other[i]
        elif kind == 5:
            other = [rng.choice(vocabulary) for _ in range(rng.randint(1, 40))]
        elif kind == 6:
            other = words[: len(words) // 2] + ["the"] * 3 + words[len(words) // 2:]
        elif kind == 7:
            other = [] if k % 2 else words[:1]
        pairs.append((text(words), text(other)))
    pairs.append(("word " * (DIFF_WORDS + 1), "word " * DIFF_WORDS + "other"))
    return pairs


def test_the_script_marks_the_words_render_answers_marks(tmp_path, visit):
    import csv

    from releasegate.render.answers import diff_runs

    pairs = _answer_pairs(180)
    with open(tmp_path / "results.csv", "w", newline="", encoding="utf-8") as handle:
        out = csv.writer(handle)
        out.writerow(["release", "case_id", "passed", "output"])
        for k, (base, cand) in enumerate(pairs):
            out.writerow(["r1", f"c{k:03d}", 1, base])
            out.writerow(["r2", f"c{k:03d}", k % 2, cand])
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SOURCE_DATE_EPOCH", EPOCH)
        report = build_report(tmp_path / "results.csv", baseline="r1")
    page = visit(_render(report, tmp_path / "note.html"))
    assert len(page.rows()) == len(pairs)
    drawn = page.page.evaluate("""async () => {
      const items = Array.from(document.querySelectorAll('details.x-case'));
      items.forEach(d => { d.open = true; });
      while (document.querySelectorAll('.x-body').length < items.length) { await new Promise(r => setTimeout(r, 10)); }
      return items.map(d => [d.dataset.caseId, Array.from(d.querySelectorAll('.x-text')).map(p =>
        Array.from(p.childNodes).map(n => [n.nodeType !== 3, n.textContent]))]);
    }""")

    def merged(runs):
        out = []
        for flag, part in runs:
            if not part:
                continue
            if out and out[-1][0] == flag:
                out[-1][1] += part
            else:
                out.append([flag, part])
        return out

    for case_id, sides in drawn:
        base, cand = pairs[int(case_id[1:])]
        base_runs, cand_runs, _ = diff_runs(base, cand)
        expected = [merged([(kind != "same", visible(part)) for kind, part in runs]) for runs in (base_runs, cand_runs)]
        assert [merged(side) for side in sides] == expected, (case_id, base, cand)
    assert any(flag for _, sides in drawn for side in sides for flag, _ in side)  # some words were marked


@pytest.fixture(scope="module")
def long_names(tmp_path_factory):
    """A candidate's name and a metadata column's name of 120 letters without a space, a category of 170."""
    import csv

    work = tmp_path_factory.mktemp("long-names")
    with open(work / "results.csv", "w", newline="", encoding="utf-8") as handle:
        out = csv.writer(handle)
        out.writerow(["release", "case_id", "passed", "category", "input", "grader_" + "q" * 120, "output"])
        for k in range(12):
            for release in ("r1", "candidate-" + "y" * 120):
                out.writerow([release, f"c{k}", int(release == "r1" or k % 2 == 0),
                              "A category named at length, " * 6 if k % 3 else "Short", f"question {k}", "meta",
                              f"answer {k} on {release[:2]}"])
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SOURCE_DATE_EPOCH", EPOCH)
        report = build_report(work / "results.csv", baseline="r1")
    return _render(report, work / "note.html")


@pytest.mark.parametrize("width", [1280, 390])
def test_long_names_in_an_open_case_stay_within_the_page(long_names, visit, width):
    page = visit(long_names, "#explorer?change=broken", width=width)
    page.page.locator("details.x-case summary").first.click()
    page.page.locator(".x-body .x-side h4").first.wait_for()
    widest = page.page.evaluate("Math.max(...Array.from(document.querySelectorAll('#explorer *'))"
                                ".map(e => e.getBoundingClientRect().right))")
    assert widest <= width


def test_a_suite_without_categories_offers_no_category_filter_or_sort(tmp_path, visit):
    import csv

    with open(tmp_path / "results.csv", "w", newline="", encoding="utf-8") as handle:
        out = csv.writer(handle)
        out.writerow(["release", "case_id", "passed", "output"])
        for k in range(20):
            out.writerow(["r1", f"c{k}", 1, "same"])
            out.writerow(["r2", f"c{k}", int(k % 3 > 0), "other"])
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SOURCE_DATE_EPOCH", EPOCH)
        report = build_report(tmp_path / "results.csv", baseline="r1")
    page = visit(_render(report, tmp_path / "note.html"), "#explorer?category=x&sort=category")
    assert page.page.locator("#x-category").count() == 0
    assert "category" not in page.page.eval_on_selector_all("#x-sort option", "els => els.map(e => e.value)")
    assert page.page.input_value("#x-sort") == "note"
    assert len(page.rows()) == 20
    page.choose(change="broken")
    page.settled()
    assert page.page.evaluate("location.hash") == "#explorer?change=broken"


def test_rows_left_out_of_a_large_note_are_sent_where_its_json_keeps_them(bank, visit, tmp_path, monkeypatch):
    # Past 10,000 listed cases the JSON note keeps each listing's first 100 and moves every listing to its case
    # file (render/json_cases.py): the explorer's lead and its notice without scripts send the reader there.
    from releasegate.render import explorer_page, json_cases

    monkeypatch.setattr(explorer_page, "build_explorer", lambda report, most=10: build_explorer(report, min(most, 10)))
    small = _render(bank["report"], tmp_path / "small.html")
    monkeypatch.setattr(json_cases, "CASES_IN_NOTE", 10)  # the bank note lists 33 cases
    large = _render(bank["report"], tmp_path / "large.html")
    lead = visit(small).page.inner_text("#explorer .lead")
    assert "790 cases more are in the JSON report." in lead
    page = visit(large)
    lead = page.page.inner_text("#explorer .lead")
    assert "790 cases more are in the JSON report's case file (NOTE.cases.parquet beside NOTE.json)." in lead
    notice = visit(large, scripts=False).page.inner_text("#explorer-noscript")
    assert "and the JSON report's case file (NOTE.cases.parquet beside NOTE.json) every one." in notice


def test_the_change_select_offers_only_the_changes_some_row_has(bank, visit):
    # The bank note has no errored case: "errored" would only ever match nothing. Above 2,000 cases the unchanged
    # ones are counted, not listed, and "unchanged" would read as "no case was unchanged".
    page = visit(bank["path"])
    options = page.page.eval_on_selector_all("#x-change option", "els => els.map(e => e.value)")
    assert options == ["", "broken", "fixed", "unchanged"]


def test_a_suite_past_the_listed_unchanged_cases_offers_no_unchanged_change(tmp_path, visit):
    import csv

    from releasegate.model.cases import UNCHANGED_LISTED_UP_TO

    with open(tmp_path / "results.csv", "w", newline="", encoding="utf-8") as handle:
        out = csv.writer(handle)
        out.writerow(["release", "case_id", "passed"])
        for k in range(UNCHANGED_LISTED_UP_TO + 1):
            out.writerow(["r1", f"c{k}", 1])
            out.writerow(["r2", f"c{k}", int(k % 50 > 0)])
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SOURCE_DATE_EPOCH", EPOCH)
        report = build_report(tmp_path / "results.csv", baseline="r1")
    page = visit(_render(report, tmp_path / "note.html"))
    assert "counted, not listed" in page.page.inner_text("#explorer .lead")
    assert page.page.eval_on_selector_all("#x-change option", "els => els.map(e => e.value)") == ["", "broken"]


def test_long_names_keep_the_controls_on_two_lines(long_names, bank, visit):
    for path, lines in ((bank["path"], 1), (long_names, 2)):
        page = visit(path)
        rows = page.page.eval_on_selector_all(".x-controls .x-field",
                                              "els => els.map(e => e.getBoundingClientRect().bottom)")
        assert len(set(round(bottom) for bottom in rows)) == lines, (path, rows)  # aligned at their foot
