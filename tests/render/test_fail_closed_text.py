"""Issue 15, item 14: hostile text is harmless in every output, not only the Markdown."""

from __future__ import annotations

import re

import pytest

from releasegate.load import Source
from releasegate.pipeline import run
from releasegate.policy import make_policy
from releasegate.render import render
from releasegate.render.charts import _scope_ids
from releasegate.render.filters import environment, md_escape

TROJAN = "refund-\u202egnp.exe"


@pytest.mark.parametrize(("text", "expected"), [
    ("@@octocat", "@@&#8203;octocat"),
    ("\u00e9@octocat", "\u00e9@&#8203;octocat"),
    ("see GH-1 and gh-22", "see GH-&#8203;1 and gh-&#8203;22"),
    ("https://evil.example/x", "https:&#8203;//evil.example/x"),
    ("HTTP://EVIL.EXAMPLE", "HTTP:&#8203;//EVIL.EXAMPLE"),
    ("www.evil.example", "www&#8203;.evil.example"),
    ("ask a@b.example", "ask a@&#8203;b.example"),
])
def test_markdown_defuses_mentions_references_and_links(text, expected):
    assert md_escape(text) == expected


def test_plain_text_is_left_alone():
    assert md_escape("GHz-1 wwwx 10:30 user@ 5 @") == "GHz-1 wwwx 10:30 user@ 5 @"


def test_each_kind_keeps_its_own_escaping_in_its_shared_environment():
    # One environment per kind and process (templates compiled once): the kinds must not share one.
    assert environment("md") is environment("md") and environment("html") is environment("html")
    hostile = "<b>@octocat</b>"
    for _ in range(2):  # a second render through the cached environment escapes as the first
        assert environment("html").from_string("{{ x }}").render(x=hostile) == "&lt;b&gt;@octocat&lt;/b&gt;"
        assert environment("md").from_string("{{ x }}").render(x=hostile) == md_escape(hostile)
    assert md_escape(hostile) != hostile and "<b>" not in md_escape(hostile)


def test_chart_id_rewrite_takes_captured_text_literally():
    svg = '<clipPath id="x id=\\q"></clipPath><g clip-path="url(#x id=\\q)"></g><use href="#x id=\\q"/>'
    assert _scope_ids(svg, "overall") == ('<clipPath id="overall-x id=\\q"></clipPath>'
                                          '<g clip-path="url(#overall-x id=\\q)"></g><use href="#overall-x id=\\q"/>')


@pytest.fixture(scope="module")
def trojan_report(tmp_path_factory):
    work = tmp_path_factory.mktemp("trojan")
    rows = [f"r1,{TROJAN},1,Fraud\u202e", "r1,c2,1,A", f"r2,{TROJAN},0,Fraud\u202e", "r2,c2,1,A"]
    (work / "r.csv").write_text("release,case_id,passed,category\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return run([Source(work / "r.csv")], make_policy(baseline="r1"))


def test_html_shows_bidi_and_controls_as_codes(trojan_report):
    html = render(trojan_report, ".html").decode("utf-8")
    assert "\u202e" not in html
    assert "refund-\\u202egnp.exe" in html
    assert not re.search("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]", html)


def test_pdf_text_shows_the_override_as_a_code(trojan_report):
    from io import BytesIO

    from pypdf import PdfReader

    pdf = render(trojan_report, ".pdf")
    text = "".join(page.extract_text() for page in PdfReader(BytesIO(pdf)).pages)
    assert "\u202e" not in text
    assert "refund-" in text and "u202egnp.exe" in text
