"""Both releases' answers side by side (issue 17): per-release columns detected at validation, carried to the
broken and fixed cases, and shown whole (JSON), cut with a note (Markdown) and with a word diff (HTML)."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reading import without_explorer
from releasegate.api import compare
from releasegate.render.answers import _WORDS, MARKDOWN_CUT, pair_of, word_diff
from releasegate.render.markdown import GITHUB_COMMENT_LIMIT
from releasegate.validate import per_release_columns

FREEZE = "Freeze your card in the app now and call the bank on the number on the back of your card."
LONG = ("I understand how worrying this is. " * 40) + "Please call us."


def _table(rows):
    return pd.DataFrame(rows, columns=["release", "case_id", "passed", "category", "input", "difficulty", "output",
                                       "reason"])


@pytest.fixture
def results() -> pd.DataFrame:
    rows = []
    for i in range(6):
        same = f"answer {i}"
        rows.append(["r1", f"c{i}", 1, "Fraud", f"question {i}", "easy", FREEZE if i == 0 else same, ""])
        # c0 broken with a long answer; c5 fixed; the others keep their answer and their outcome.
        passed, output = (0, LONG) if i == 0 else ((1, "fixed now") if i == 5 else (1, same))
        rows.append(["r2", f"c{i}", passed, "Fraud", f"question {i}", "easy", output, "too long" if i == 0 else ""])
    table = _table(rows)
    table.loc[(table.release == "r1") & (table.case_id == "c5"), "passed"] = 0
    return table


def test_per_release_columns_are_those_that_differ_between_releases(results):
    columns = ("input", "difficulty", "output", "reason")
    assert per_release_columns(results, columns) == ("output", "reason")
    same = results[results.case_id != "c0"].copy()
    same["output"] = "one answer"
    assert per_release_columns(same, columns) == ()  # without c0 every case has one output and one reason
    # An input or difficulty written differently by two harnesses is still an attribute of the case.
    results.loc[results.release == "r2", "input"] = "reworded"
    assert "input" not in per_release_columns(results, columns)


def test_an_answer_missing_on_one_side_is_per_release():
    table = _table([["r1", "c1", 1, "A", "q", "easy", "yes", None], ["r2", "c1", 0, "A", "q", "easy", None, None]])
    assert per_release_columns(table, ("output", "reason")) == ("output",)


def test_a_json_object_or_list_in_a_frame_s_metadata_is_compared_as_its_json_text() -> None:
    """A notebook's DataFrame holding a dict or a list in its metadata is read as a file's is: each as its JSON
    text (a dict can be neither compared nor shown; it raised "unhashable type: 'dict'")."""
    from releasegate.load import load_frame

    rows = [["r1", "c1", 1, "A", "q", "easy", {"a": 1, "b": [2]}, ["x"]],
            ["r2", "c1", 1, "A", "q", "easy", {"a": 1, "b": [2]}, ["y"]],
            ["r1", "c2", 1, "A", "q", "easy", None, ["x"]], ["r2", "c2", 0, "A", "q", "easy", None, ["x"]]]
    table = load_frame(_table(rows)).table
    assert table["output"].tolist()[0] == '{"a": 1, "b": [2]}' and table["reason"].tolist()[1] == '["y"]'
    assert per_release_columns(table, ("output", "reason")) == ("reason",)
    assert compare(_table(rows), baseline="r1").verdicts


def test_word_diff_marks_only_the_changed_words_and_keeps_both_texts():
    base, cand = "Freeze your card and call the bank.", "Freeze your card, then wait for an email from the bank."
    gone, new = word_diff(_WORDS.findall(base), _WORDS.findall(cand))
    assert "".join(t for _, t in gone) == base and "".join(t for _, t in new) == cand
    assert [t for k, t in gone if k == "gone"] == ["card and call "]
    assert [t for k, t in new if k == "new"] == ["card, then wait for an email from "]
    assert [t for k, t in gone if k == "same"] == ["Freeze your ", "the bank."]


def test_pair_markup_escapes_and_cuts_the_short_text():
    pair = pair_of("output", "<b>x</b> " * 100, "<b>x</b> " * 100 + "more")
    assert "<b>" not in pair.baseline_html and "&lt;b&gt;" in pair.baseline_html
    assert pair.baseline_long and pair.candidate_long and pair.baseline_short.endswith("…")
    assert pair.candidate_html.endswith("<ins>more</ins>")
    assert "<del>" not in pair.baseline_html  # the baseline's text is all in the candidate's


def test_broken_and_fixed_cases_carry_both_answers(results):
    note = compare(results, baseline="r1")
    (cand,) = note.analysis.candidates
    (broken,) = cand.broken_cases
    assert broken.case_id == "c0"
    assert dict(broken.baseline_texts) == {"output": FREEZE, "reason": ""}
    assert dict(broken.metadata)["output"] == LONG
    (fixed,) = cand.fixed_cases
    assert dict(fixed.baseline_texts)["output"] == "answer 5" and dict(fixed.metadata)["output"] == "fixed now"


def test_scores_path_carries_both_answers(results):
    scored = results.rename(columns={"passed": "score"})
    scored["score"] = scored["score"] * 0.5 + 0.25
    scored.loc[scored.case_id == "c1", "score"] = [0.75, 0.7]
    note = compare(scored, baseline="r1")
    broken = {c.case_id: c for c in note.analysis.candidates[0].broken_cases}
    assert dict(broken["c0"].baseline_texts)["output"] == FREEZE
    assert dict(broken["c1"].baseline_texts)["output"] == "answer 1"


def test_json_keeps_both_answers_whole(results):
    report = json.loads(compare(results, baseline="r1").to_json())
    (broken,) = report["candidates"][0]["broken_cases"]
    assert broken["answers"]["output"] == {"baseline": FREEZE, "candidate": LONG}
    assert broken["answers"]["reason"] == {"baseline": "", "candidate": "too long"}
    assert broken["metadata"]["input"] == "question 0"


def test_markdown_shows_both_answers_cut_with_a_note(results):
    md = compare(results, baseline="r1").to_markdown()
    assert "| output on r1 | output on r2 | reason on r1 | reason on r2 |" in md
    assert FREEZE in md and LONG not in md and LONG[: MARKDOWN_CUT - 1] in md
    assert "Answers longer than 160 characters are cut here; the HTML report" in md
    assert len(md) <= GITHUB_COMMENT_LIMIT


def test_markdown_without_long_answers_has_no_cut_note(results):
    results.loc[results.output == LONG, "output"] = "short"
    md = compare(results, baseline="r1").to_markdown()
    assert "output on r1" in md and "Answers longer than" not in md


def test_html_shows_both_answers_with_the_difference_marked_and_the_whole_text(results):
    html = compare(results, baseline="r1").to_html()
    assert "output</span> on <span class=\"name\">r1</span>" in html
    assert "<del>" in html and "<ins>" in html
    assert '<details class="answer"><summary>whole text</summary>' in html
    wholes = re.findall(r'<div class="whole">(.*?)</div>', html, flags=re.DOTALL)
    assert LONG in [re.sub(r"</?(ins|del)>", "", w) for w in wholes]  # whole, reachable without a script
    assert without_explorer(html).count("<script") == 0


def test_short_matches_between_changes_count_as_changed():
    base = "Please freeze your account now and call the bank on 0700 123 4567."
    cand = "I'm sorry to hear that; fraud is common and the bank will never ask for your code."
    gone, new = word_diff(_WORDS.findall(base), _WORDS.findall(cand))
    # "and", "the bank" are shared, but marking them common would chop both sentences into pieces.
    assert gone == [("gone", base)] and new == [("new", cand)]
    # A shared opening and ending stay unmarked, however short.
    gone, new = word_diff(_WORDS.findall("Hello! Yes. Bye"), _WORDS.findall("Hello! No. Bye"))
    assert gone == [("same", "Hello! "), ("gone", "Yes. "), ("same", "Bye")]
    assert new == [("same", "Hello! "), ("new", "No. "), ("same", "Bye")]


@given(st.lists(st.sampled_from(["a", "b", "the", "bank", "  ", "\n", "x,"]), max_size=30),
       st.lists(st.sampled_from(["a", "b", "the", "bank", "  ", "\n", "y."]), max_size=30))
@settings(max_examples=200, deadline=None)
def test_word_diff_rebuilds_both_texts(base_tokens, cand_tokens):
    base, cand = " ".join(base_tokens), " ".join(cand_tokens)
    gone, new = word_diff(_WORDS.findall(base), _WORDS.findall(cand))
    assert "".join(t for _, t in gone) == base and "".join(t for _, t in new) == cand
    assert {k for k, _ in gone} <= {"same", "gone"} and {k for k, _ in new} <= {"same", "new"}
    # The unmarked words are the same on both sides, in the same order.
    assert [t for k, t in gone if k == "same"] == [t for k, t in new if k == "same"]


def test_notebook_cases_return_both_answers(results):
    note = compare(results, baseline="r1")
    broken = note.cases("broken")
    assert broken[["case_id", "output (r1)", "output (r2)"]].values.tolist() == [["c0", FREEZE, LONG]]
    assert broken.loc[0, "input"] == "question 0" and broken.loc[0, "candidate"] == "r2"
    fixed = note.cases("fixed", candidate="r2")
    assert fixed[["output (r1)", "output (r2)"]].values.tolist() == [["answer 5", "fixed now"]]
    assert note.cases("errored").empty and list(note.cases("both_fail").columns)[:3] == ["candidate", "metric", "case_id"]
    with pytest.raises(ValueError, match="unknown kind of case 'lost'"):
        note.cases("lost")
    with pytest.raises(KeyError):
        note.cases("broken", candidate="r9")


def test_notebook_view_shows_charts_answers_and_costs(results):
    results["latency_ms"] = 100.0
    html = compare(results, baseline="r1")._repr_html_()
    assert html.count("<svg") >= 2  # the overall chart and the category charts, inline
    # Both answers side by side; the broken case's two answers share no word, so neither is marked (issue 29 item 5).
    assert "<th>output on r1</th><th>output on r2</th>" in html and "<del>" not in html
    assert "latency, ms p50 / p95" in html
    assert "text-align: left" in html


def test_to_frame_explains_the_p_values_and_has_cost_columns(results):
    results["latency_ms"] = [100.0 + i for i in range(len(results))]
    frame = compare(results, baseline="r1").to_frame()
    assert {"latency_p95_ratio", "latency_p95_ratio_ci_high", "p_adjusted", "p_value_adjusted"} <= set(frame.columns)
    assert "the gate reads" in frame.attrs["columns"]["p_adjusted"]
    assert "does not use it" in frame.attrs["columns"]["p_value_adjusted"]


def test_the_start_of_a_long_answer_ends_on_a_whole_word():
    pair = pair_of("output", "short", "word " * 100)
    assert str(pair.candidate_short).endswith("word …") and "wor…" not in str(pair.candidate_short)
    assert len(str(pair.candidate_short)) <= 300 + len("…")
    assert "<ins>" not in str(pair.candidate_html)  # nothing alike: both plain, side by side
    assert not pair.baseline_long and str(pair.baseline_short) == str(pair.baseline_html)


def test_only_answers_that_are_mostly_alike_are_marked():
    edited = pair_of("output", "Your card is blocked for 24 hours.", "Your card is blocked for 48 hours.")
    assert "<del>24 </del>" in str(edited.baseline_html) and "<ins>48 </ins>" in str(edited.candidate_html)
    rewritten = pair_of("output", "Your card is blocked.", "Please call the bank on its number.")
    assert "<del>" not in str(rewritten.baseline_html) and "<ins>" not in str(rewritten.candidate_html)
    assert rewritten.marked  # compared, and shown plain: no "too long to mark" note


def test_per_release_detection_past_the_first_rows(monkeypatch):
    import releasegate.validate.results as per_release

    monkeypatch.setattr(per_release, "_SAMPLE", 4)
    rows = [[r, f"c{i}", 1, "A", "q", "easy", "same", ""] for r in ("r1", "r2") for i in range(10)]
    table = _table(rows)
    assert per_release.per_release_columns(table, ("output", "reason")) == ()
    table.loc[19, "output"] = "changed"  # the last row, far past the sample
    table.loc[18, "reason"] = None
    assert per_release.per_release_columns(table, ("output", "reason")) == ("output", "reason")


def test_markdown_with_many_long_answers_stays_under_the_limit():
    rows = []
    for i in range(600):
        rows.append(["r1", f"c{i:04d}", 1, "A", f"q{i}", "easy", "Freeze and call. " * 60, ""])
        rows.append(["r2", f"c{i:04d}", 0, "A", f"q{i}", "easy", "Let me explain at length. " * 60, ""])
    md = compare(_table(rows), baseline="r1").to_markdown()
    assert len(md) <= GITHUB_COMMENT_LIMIT
    assert "| output on r1 | output on r2 |" in md and "more broken cases cut" in md
