"""The pull-request comment shows what broke: the first broken cases' input and both answers in <details>, as many
as keep it under 8,000 characters; read as GitHub renders it (cmarkgfm, GitHub's own cmark-gfm) and with every
value from the data escaped."""

from __future__ import annotations

import csv
from html.parser import HTMLParser

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options

from conftest import build_report
from releasegate.render.comment import COMMENT_LIMIT, render_comment
from test_hostile_text import BASELINE, HOSTILE, assert_markdown_structure

LINK = "https://github.com/o/r/actions/runs/1"


def github_html(markdown: str) -> str:
    """The comment as GitHub renders it: cmark-gfm with the GFM extensions and raw HTML passed through (GitHub
    then filters the HTML; the comment must be safe before that)."""
    return cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE)


class Folds(HTMLParser):
    """Every tag the HTML opens, and the text of each <details> block: its summary and its body."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.folds: list[dict[str, str]] = []
        self._in: str | None = None

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag == "details":
            self.folds.append({"summary": "", "body": ""})
            self._in = "body"
        elif tag == "summary" and self.folds:
            self._in = "summary"

    def handle_endtag(self, tag):
        if tag == "summary":
            self._in = "body"
        elif tag == "details":
            self._in = None

    def handle_data(self, data):
        if self._in and self.folds:
            self.folds[-1][self._in] += data


def folds_of(markdown: str) -> Folds:
    parser = Folds()
    parser.feed(github_html(markdown))
    return parser


@pytest.fixture(scope="module")
def lesson():
    from releasegate.demo import example_files

    e = example_files()
    return build_report(e["eval_results.csv"], e["eval_cases.csv"], e["releasegate.toml"])


def test_the_lessons_comment_holds_ev264s_input_and_r2s_answer(lesson):
    text = render_comment(lesson, LINK)
    assert len(text) < COMMENT_LIMIT == 8000
    parsed = folds_of(text)
    ev264 = next(f for f in parsed.folds if f["summary"].startswith("EV264"))
    assert ev264["summary"] == "EV264 · Fraud (critical): the input and both answers"
    assert "Input: Someone called asking for my OTP" in ev264["body"]
    assert "r1-live (passed): Please freeze your account now in the app (Security > Freeze account)" in ev264["body"]
    assert "r2-new-prompt (failed): I'm sorry to hear about this" in ev264["body"]
    assert ev264["body"].rstrip().endswith("…")  # r2's long answer, trimmed on a word
    # Critical first, every listed case of both candidates; the plain paragraph's "Next:" and the link stay.
    assert [f["summary"].split(" ")[0] for f in parsed.folds] == [
        "EV264", "EV265", "EV274", "EV276", "EV283", "EV284", "EV290", "EV316", "EV318", "EV336"]
    assert text.count("Next: fix") == 2 and f"<{LINK}>" in text
    assert "\\" not in "".join(f["summary"] for f in parsed.folds)  # no Markdown escape shows in raw HTML


def test_fewer_cases_open_when_the_comment_would_be_too_long(lesson):
    whole = render_comment(lesson, LINK)
    for limit in (6000, 4000, 2500):
        text = render_comment(lesson, LINK, limit=limit)
        opened = len(folds_of(text).folds)
        assert opened < 10 and (len(text) < limit or opened == 0), (limit, len(text), opened)
        # Only the details go: the listing, the paragraphs and the link are the whole comment's.
        assert text.count("| Fraud **(critical)** |") == whole.count("| Fraud **(critical)** |")


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    """The hostile texts as case ids, categories, inputs and both answers (each release's its own), of cases the
    candidate breaks; the first answer 100,000 characters long."""
    work = tmp_path_factory.mktemp("hostile-comment")
    with open(work / "results.csv", "w", newline="", encoding="utf-8") as handle:
        out = csv.writer(handle)
        out.writerow(["release", "case_id", "passed", "category", "input", "output"])
        for i, text in enumerate(HOSTILE[:6] + HOSTILE[9:12]):
            out.writerow([BASELINE, f"{text}#{i}", 1, text, f"in {text}", ("long " * 30_000) if i == 0 else f"ok {text}"])
            out.writerow(["r2", f"{text}#{i}", 0, text, f"in {text}", f"bad {text}"])
        for i in range(30):
            for release in (BASELINE, "r2"):
                out.writerow([release, f"plain{i}", 1, "plain", "in", "out"])
    return render_comment(build_report(work / "results.csv", baseline=BASELINE))


def test_hostile_values_are_escaped_in_the_cases_details(hostile):
    assert_markdown_structure(hostile)
    parsed = folds_of(hostile)
    assert len(parsed.folds) == 5, "the five listed cases open"
    assert set(parsed.tags) <= {"h2", "h3", "p", "strong", "table", "thead", "tbody", "tr", "th", "td", "details",
                                "summary", "em", "br"}, set(parsed.tags)
    by_id = {f["summary"].split("#")[0]: f for f in parsed.folds}
    # The data reads as the text it is, in the summary (raw HTML) and in the body (Markdown).
    script = by_id["<script>alert(1)</script>"]
    assert script["summary"] == "<script>alert(1)</script>#0 · <script>alert(1)</script>: the input and both answers"
    assert "Input: in <script>alert(1)</script>" in script["body"]
    assert "r1 <b>|base (passed): long long" in script["body"] and "r2 (failed): bad <script>alert(1)</script>" \
        in script["body"]
    details = by_id["</details><details open>"]
    assert "r2 (failed): bad </details><details open>" in details["body"]
    assert any("@\u200boctocat" in f["summary"] for f in parsed.folds)  # mentions defused in raw HTML too
    assert "<script" not in github_html(hostile) and "<details open" not in github_html(hostile)


def test_the_hostile_comment_stays_under_the_limit(hostile):
    assert len(hostile) < COMMENT_LIMIT
    assert "long " * 100 not in hostile  # the 150,000-character answer is trimmed
