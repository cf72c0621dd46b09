"""The HTML note's case explorer without a browser: its rows (render/explorer.py), its filters in Python
(render/explorer_query.py, ``note.cases(search=...)``), the data and script the page carries
(render/explorer_page.py) and the policy that lets only that script run. The browser's side is
tests/render/test_explorer_browser.py."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import re

import pytest
from explorer_support import FRAUD_BROKEN_BY_R2, bank_report, csv_rows, hostile_report
from reading import parse
from test_hostile_text import HOSTILE

from conftest import EPOCH, build_report
from releasegate.api import ReleaseComparison
from releasegate.model.cases import UNCHANGED_LISTED_UP_TO
from releasegate.render import render
from releasegate.render.answers import WHOLE
from releasegate.render.explorer import build_explorer, explorer_data, shown
from releasegate.render.explorer_page import GZIP_TYPE, JSON_TYPE, explorer_view, script, script_source
from releasegate.render.explorer_query import Filters, select
from releasegate.render.json_text import dumps_compact, dumps_indented



@pytest.fixture(scope="module")
def bank():
    report, files = bank_report()
    return {"report": report, "files": files, "note": ReleaseComparison(report)}


def test_search_finds_exactly_the_rows_whose_text_holds_the_word(bank):
    # Expected from the input files alone: a row (a case of a candidate) matches when the case's id, category,
    # metadata, the baseline's output or that candidate's output holds "otp", whatever its case.
    cases = {row["case_id"]: row for row in csv_rows(bank["files"]["eval_cases.csv"])}
    outputs = {(row["release"], row["case_id"]): row["output"] for row in csv_rows(bank["files"]["eval_results.csv"])}
    expected = set()
    for candidate in ("r2-new-prompt", "r3-small-model"):
        for case_id, case in cases.items():
            texts = [case_id, *case.values(), outputs[("r1-live", case_id)], outputs[(candidate, case_id)]]
            if any("otp" in t.lower() for t in texts):
                expected.add((candidate, case_id))
    frame = bank["note"].cases(search="OTP")
    assert set(zip(frame["candidate"], frame["case_id"])) == expected
    assert {"EV264", "EV276"} <= set(frame["case_id"])
    assert set(bank["note"].cases(search="otp")["case_id"]) == set(frame["case_id"])  # any case
    # Every word must occur: "OTP hacked" is narrower than either word.
    both = bank["note"].cases(search="  OTP\thacked ")
    assert 0 < len(both) < len(frame)
    assert all("hacked" in " ".join(map(str, row)).lower() for row in both.itertuples())


def test_r2_fraud_broken_is_the_six_cases_with_their_input_and_both_answers(bank):
    frame = bank["note"].cases(candidate="r2-new-prompt", category="Fraud", change="broken")
    assert list(frame["case_id"]) == FRAUD_BROKEN_BY_R2
    cases = {row["case_id"]: row for row in csv_rows(bank["files"]["eval_cases.csv"])}
    outputs = {(row["release"], row["case_id"]): row["output"] for row in csv_rows(bank["files"]["eval_results.csv"])}
    for row in frame.itertuples(index=False):
        values = row._asdict()
        assert values["input"] == cases[row.case_id]["input"]
        assert frame.loc[frame["case_id"] == row.case_id, "output (baseline)"].item() == outputs[("r1-live", row.case_id)]
        assert frame.loc[frame["case_id"] == row.case_id, "output (candidate)"].item() == \
            outputs[("r2-new-prompt", row.case_id)]
    assert set(frame["change"]) == {"broken"} and frame["critical"].all()


def test_every_case_of_a_small_suite_is_a_row_once_per_candidate(bank):
    report = bank["report"]
    explorer = build_explorer(report)
    for cand in report.analysis.candidates:
        rows = [r for r in explorer.rows if r.candidate == cand.name]
        assert len(rows) == len({r.case.case_id for r in rows}) == report.analysis.n_cases
        by_change = {change: [r.case.case_id for r in rows if r.change == change] for change in explorer.changes}
        assert by_change["broken"] == [c.case_id for c in cand.broken_cases]
        assert by_change["fixed"] == [c.case_id for c in cand.fixed_cases]
        assert len(by_change["unchanged"]) == cand.details.unchanged_total == \
            report.analysis.n_cases - len(cand.broken_cases) - len(cand.fixed_cases)
    assert f"at most {UNCHANGED_LISTED_UP_TO:,} cases" in explorer.lead
    # The published figures: r2 fixed 12 and broke 6, r3 fixed 1 and broke 14.
    counts = {(r.candidate, r.change) for r in explorer.rows}
    assert ("r2-new-prompt", "broken") in counts
    assert len(select(explorer, Filters(candidate="r2-new-prompt", change="fixed"))) == 12
    assert len(select(explorer, Filters(candidate="r3-small-model", change="broken"))) == 14


def test_a_larger_suite_counts_its_unchanged_cases_without_listing_them(tmp_path):
    n = UNCHANGED_LISTED_UP_TO + 1
    lines = ["release,case_id,passed,latency_ms"]
    for release in ("r1", "r2"):
        lines += [f"{release},c{i:05d},{0 if release == 'r2' and i < 30 else 1},{100 + i % 7}" for i in range(n)]
    (tmp_path / "r.csv").write_text("\n".join(lines) + "\n")
    report = build_report(tmp_path / "r.csv", baseline="r1")
    explorer = build_explorer(report)
    assert [r.change for r in explorer.rows] == ["broken"] * 30
    (cand,) = report.analysis.candidates
    assert cand.details.unchanged == () and cand.details.unchanged_total == n - 30
    assert f"{n - 30:,} cases on r2" in explorer.lead and "counted, not listed" in explorer.lead
    assert explorer.rows[0].latency_change == 0.0  # the same latency on both sides


def test_rows_past_the_limit_are_counted_and_sent_to_the_json(bank):
    explorer = build_explorer(bank["report"], max_rows=10)
    assert [r.case.case_id for r in explorer.rows[:5]] == \
        [c.case_id for c in bank["report"].analysis.candidates[0].broken_cases[:5]]
    assert len(explorer.rows) == 10 and sum(x.cut for x in explorer.listed) == 790
    assert "the first 5 rows of each candidate" in explorer.lead and "790 cases more are in the JSON" in explorer.lead


def test_a_long_text_is_cut_with_an_ellipsis_and_shows_its_controls_as_codes():
    long = "word " * (WHOLE // 5 + 10)
    assert shown(long) == long[:WHOLE] + "…"
    assert shown("a\x1bb\u202ec") == "a\\x1bb\\u202ec" and shown(None) == ""


@pytest.fixture(scope="module")
def hostile_page(tmp_path_factory):
    report = hostile_report(tmp_path_factory.mktemp("explorer-hostile"))
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SOURCE_DATE_EPOCH", EPOCH)
        html = render(report, ".html").decode("utf-8")
    return {"report": report, "html": html}


def _data_element(html: str) -> tuple[str, str]:
    match = re.search(r'<script type="([^"]+)" id="explorer-data">(.*?)</script>', html, flags=re.DOTALL)
    assert match is not None
    return match.group(1), match.group(2)


def test_case_text_goes_in_as_inert_json(hostile_page):
    html, report = hostile_page["html"], hostile_page["report"]
    kind, text = _data_element(html)
    assert kind == JSON_TYPE and "<" not in text  # no "</script" and no "<!--" can end or bend the element
    data = json.loads(text)
    assert data == json.loads(dumps_compact(explorer_data(build_explorer(report))))
    strings = set(data["strings"])
    for value in HOSTILE[:-1]:  # the last is 100,000 characters: shown cut
        assert shown(value) in strings or shown(value * 2) in strings
    assert "<script>alert(1)</script>" in data["categories"] and "<img src=x onerror=alert(1)>" in strings
    assert "\\x1b[31mred\\u202eevil\\x00" in strings
    assert not re.search("[\x00-\x08\x0b\x0c\x0e-\x1f\u202e]", "".join([*strings, *data["categories"]]))


def test_the_policy_lets_exactly_the_explorers_script_run(hostile_page):
    html = hostile_page["html"]
    parsed = parse(html)
    (csp,) = [a["content"] for t, a in parsed.tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy"]
    assert "unsafe-inline" not in csp.split("script-src")[1] and "unsafe-eval" not in csp
    assert "default-src 'none'" in csp
    runnable = [a for t, a in parsed.tags if t == "script" and a.get("type") in (None, "", "text/javascript")]
    assert len(runnable) == 1
    code = re.search(r"<script>(.*?)</script>", html, flags=re.DOTALL).group(1)
    assert code == script()
    digest = base64.b64encode(hashlib.sha256(code.encode("utf-8")).digest()).decode("ascii")
    assert f"script-src 'sha256-{digest}'" in csp and script_source() == f"'sha256-{digest}'"
    assert "innerHTML" not in code and "eval(" not in code and "Function(" not in code and "fetch(" not in code


def test_above_the_size_limit_the_data_is_gzip_and_base64_and_reads_back(bank):
    report = bank["report"]
    plain = dumps_compact(explorer_data(build_explorer(report)))
    packed = explorer_view(report, compress_above=0)
    assert packed.data_type == GZIP_TYPE
    assert gzip.decompress(base64.b64decode(str(packed.data))).decode("utf-8") == plain
    assert explorer_view(report, compress_above=0).data == packed.data  # the same bytes every time
    assert explorer_view(report).data_type == JSON_TYPE  # the bank note is far below the limit


def test_paper_and_markdown_carry_no_explorer(bank):
    from releasegate.render.html import render_html

    report = bank["report"]
    pdf_page = render_html(report, pdf_page=True)
    assert 'id="explorer"' not in pdf_page and "<script" not in pdf_page and "script-src" not in pdf_page
    for suffix in (".md", ".json"):
        text = render(report, suffix).decode("utf-8").lower()
        assert "case explorer" not in text and "data-case-id" not in text and "unchanged" not in text
    assert 'id="explorer"' not in bank["note"]._repr_html_()


def test_explorer_follows_the_evidence_and_only_its_rows_carry_case_ids(bank):
    from releasegate.render.html import render_html

    html = render_html(bank["report"])
    assert html.index('id="costs"') < html.index('id="explorer"') < html.index('id="method"')
    assert "data-case-id" not in html.replace('item.setAttribute("data-case-id"', "")


def test_note_cases_refuses_what_the_explorer_does_not_hold(bank):
    note = bank["note"]
    with pytest.raises(KeyError, match="r9"):
        note.cases(candidate="r9", search="x")
    with pytest.raises(ValueError, match="broken, fixed, errored, unchanged"):
        note.cases(change="worsened")
    with pytest.raises(ValueError, match="Fraud"):
        note.cases(category="Frauds")
    with pytest.raises(ValueError, match="sort"):
        note.cases(sort="size")
    with pytest.raises(ValueError, match="change="):
        note.cases("fixed", search="OTP")
    assert list(note.cases()["case_id"]) == list(note.cases("broken")["case_id"])  # the listing, as before
    assert len(note.cases(change="all")) == 800


def test_sorts_put_missing_values_last_and_keep_the_notes_order_on_ties(bank):
    explorer = build_explorer(bank["report"])
    for sort, sign in (("latency", -1), ("cost", -1), ("score", 1)):
        rows = select(explorer, Filters(sort=sort))
        values = [float(format(getattr(r, f"{sort}_change"), ".12g")) for r in rows]  # as the page reads them
        assert all(sign * (b - a) >= 0 for a, b in zip(values, values[1:])), sort
    rows = select(explorer, Filters(sort="category"))
    assert [shown(r.case.category) for r in rows] == sorted(shown(r.case.category) for r in rows)
    fraud = [r.case.case_id for r in rows if r.case.category == "Fraud" and r.candidate == "r2-new-prompt"]
    assert fraud == [r.case.case_id for r in explorer.rows if r.case.category == "Fraud"
                     and r.candidate == "r2-new-prompt"]


@pytest.mark.parametrize("value", [[1.0, float("nan"), 1 / 3, {"a": [2.5e-7, float("inf")]}], 0.1 + 0.2, "x<y"])
def test_compact_json_reads_as_the_indented_writers(value):
    assert json.loads(dumps_compact(value)) == json.loads(dumps_indented(value, lambda v: v))
    assert " " not in dumps_compact([1, [2, 3], {"k": 1.5}])


def test_the_page_holds_at_most_its_data_limit_and_says_what_it_left_out(bank, monkeypatch):
    from releasegate.render import explorer_page

    monkeypatch.setattr(explorer_page, "MAX_DATA_BYTES", 30_000)
    view = explorer_page.explorer_view(bank["report"])
    assert len(view.data) <= 30_000 and 0 < view.rows < 800
    assert "more are in the JSON report" in view.lead
    packed = explorer_page.explorer_view(bank["report"], compress_above=0)  # compressed, more rows fit
    assert len(packed.data) <= 30_000 and view.rows < packed.rows <= 800


def test_errored_cases_are_rows_that_say_which_side_errored(tmp_path):
    lines = ["release,case_id,passed,output,error"]
    for i in range(20):
        lines.append(f"r1,c{i:02d},1,fine {i},{'timeout' if i == 3 else ''}")
        lines.append(f"r2,c{i:02d},{0 if i == 5 else 1},fine {i},{'rate limited' if i in (4, 7) else ''}")
    (tmp_path / "r.csv").write_text("\n".join(lines) + "\n")
    report = build_report(tmp_path / "r.csv", baseline="r1")
    explorer = build_explorer(report)
    errored = {r.case.case_id: r for r in explorer.rows if r.change == "errored"}
    assert set(errored) == {"c03", "c04", "c07"}
    assert [r.case.case_id for r in explorer.rows if r.change == "broken"] == ["c05"]
    data = explorer_data(explorer)
    strings, fields = data["strings"], {name: i for i, name in enumerate(data["fields"])}
    outcomes = {strings[row[fields["case_id"]]]: (strings[row[fields["baseline_outcome"]]],
                                                  strings[row[fields["candidate_outcome"]]]) for row in data["rows"]}
    assert outcomes["c03"] == ("errored", "–") and outcomes["c04"] == ("–", "errored")
    assert outcomes["c05"] == ("pass", "fail") and outcomes["c00"] == ("pass", "pass")
    frame = ReleaseComparison(report).cases(change="errored", search="rate limited")
    assert list(frame["case_id"]) == ["c04", "c07"]


def test_a_note_past_its_size_limit_gives_the_explorer_less_room(bank, monkeypatch):
    from releasegate.render import html as html_module

    full = html_module.render_html(bank["report"])
    limit = len(full.encode("utf-8")) - 40_000
    monkeypatch.setattr(html_module, "MAX_NOTE_BYTES", limit)
    monkeypatch.setattr(html_module, "MIN_DATA_BYTES", 1_000)
    smaller = html_module.render_html(bank["report"])
    assert len(smaller.encode("utf-8")) <= limit
    assert "more are in the JSON report" in smaller and "more are in the JSON report" not in full
    assert smaller.split('<section id="explorer"')[0] == full.split('<section id="explorer"')[0]


def test_a_limit_below_one_row_a_candidate_keeps_one_row_a_candidate(bank):
    view = explorer_view(bank["report"], max_data_bytes=10)
    assert view.rows == 2 and "the first row of each candidate" in view.lead
