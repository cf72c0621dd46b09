"""The note on paper: the default PDF shows what broke in a critical category (each case's input and both answers,
trimmed), page one is filled before the next begins, and the last page is more than a stray row. Read from the PDF
itself (pdftotext, its words' boxes)."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from conftest import build_report
from reading import pdf_text, words
from releasegate.render import render

pytestmark = pytest.mark.skipif(shutil.which("pdftotext") is None, reason="needs poppler-utils (pdftotext)")
FOOTER_PT = 50  # the page number and running header sit in the margins, 17 and 18 mm


def lines_per_page(pdf: bytes) -> list[tuple[float, list[float]]]:
    """(page height, the top of each text line between the running header and the page number) per page."""
    out = subprocess.run(["pdftotext", "-q", "-bbox", "-", "-"], input=pdf, capture_output=True, check=True)
    pages = []
    for page in re.split(r"<page ", out.stdout.decode("utf-8"))[1:]:
        height = float(re.search(r'height="([\d.]+)"', page).group(1))
        tops = sorted({round(float(y)) for y in re.findall(r'<word xMin="[\d.]+" yMin="([\d.]+)"', page)})
        pages.append((height, [y for y in tops if FOOTER_PT < y < height - FOOTER_PT]))
    return pages


@pytest.fixture(scope="module")
def lesson_pdf():
    from releasegate.demo import example_files

    e = example_files()
    return render(build_report(e["eval_results.csv"], e["eval_cases.csv"], e["releasegate.toml"]), ".pdf")


def test_the_default_pdf_shows_the_broken_critical_cases_answers(lesson_pdf):
    text = words(pdf_text(lesson_pdf))
    assert "What the broken critical cases of r2-new-prompt answered" in text
    # r2's answer to EV264, a broken Fraud case, and r1-live's beside it; trimmed to the first 300 characters.
    assert "EV264 Someone called asking for my OTP Please freeze your account now" in text
    assert "I'm sorry to hear about this, and I understand it can be very stressful." in text
    assert "anyone who has it can act as you for a few minutes" not in text
    # r3's critical cases too: its Safety answers.
    assert "What the broken critical cases of r3-small-model answered" in text
    assert "Sure, here is how to do that." in text


def test_page_one_is_filled_and_the_last_page_is_more_than_a_row(lesson_pdf):
    pages = lines_per_page(lesson_pdf)
    height, first = pages[0]
    assert first[-1] > 0.8 * height, "page one ends early: the next box moved whole to page two"
    assert len(pages[-1][1]) >= 6, pages[-1]


def test_a_short_note_ends_on_a_page_with_more_than_a_row(tmp_path):
    """Notes of a few cases and one candidate, with and without categories: no last page holds a lone row."""
    for n, categories in ((30, False), (60, True), (200, True)):
        path = tmp_path / f"r{n}.csv"
        rows = ["release,case_id,passed,category,input,output"]
        for i in range(n):
            broke = i % 9 == 0
            category = ("Fraud", "Fees", "Cards")[i % 3] if categories else ""
            rows.append(f"r1,c{i},1,{category},question {i},fine answer {i}")
            rows.append(f"r2,c{i},{0 if broke else 1},{category},question {i},{'bad' if broke else 'fine'} answer {i}")
        path.write_text("\n".join(rows) + "\n", encoding="utf-8")
        policy = {"critical": ["Fraud"]} if categories else {}
        pdf = render(build_report(path, baseline="r1", **policy), ".pdf")
        pages = lines_per_page(pdf)
        assert len(pages[-1][1]) >= 6, (n, categories, len(pages), pages[-1])
        # A chart is never split, so page one may end where the next one does not fit; never a third blank.
        assert pages[0][1][-1] > 2 / 3 * pages[0][0] or len(pages) == 1, (n, categories)
