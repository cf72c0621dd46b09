"""The printed tables (issue 8): fixed column widths that hold their data, so the PDF is fast and still reads.

The print stylesheet lays tables out with ``table-layout: fixed``; the case tables take their widths from
:func:`releasegate.render.columns.case_columns`. A width too small shows as a line running out of its cell (read
from WeasyPrint's layout) or text past the margin (every word's box in the PDF, from pdftotext -bbox).
"""

from __future__ import annotations

import csv
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import build_report
from releasegate.model import CaseChange
from releasegate.render.columns import LINE, case_columns

MARGIN_PT = 15 / 25.4 * 72  # the print stylesheet's left and right page margins
LONG_CATEGORY = "Account access and identity verification (legacy flows)"
UNBROKEN = "Supercalifragilisticexpialidocious_" * 3 + "category"
BASELINE = "baseline-production-2024-11-01"
CANDIDATE = "candidate-gpt-4o-mini-with-retrieval-augmented-prompt-v2"


def _case(case_id="C1", category="Fees", critical=False, cluster=None, **metadata) -> CaseChange:
    return CaseChange(case_id, category, cluster, 1.0, 0.0, critical, tuple(metadata.items()))


def _shares(widths: list[str]) -> list[float]:
    assert all(w.endswith("%") for w in widths)
    return [float(w[:-1]) for w in widths]


def test_case_columns_follow_the_text_and_fill_at_most_the_table():
    rows = [_case(f"EV{i:03d}", "Fees", input=f"How much is a transfer to another bank? ({i})", difficulty="easy")
            for i in range(20)]
    shares = _shares(case_columns(rows, ["input", "difficulty"], clusters=False, outcomes=[]))
    assert len(shares) == 4
    assert 99.5 <= sum(shares) <= 100
    case, category, text, difficulty = shares
    assert text > 2 * max(case, category, difficulty)  # the long text gets the room
    assert difficulty >= category  # its header ("difficulty") is longer than "Fees"


def test_case_columns_keep_short_words_whole_when_the_line_is_full():
    long_text = "word " * 200
    rows = [_case("doc-009/q2", "x", cluster="document-009", a=long_text, b=long_text, c=long_text)]
    shares = _shares(case_columns(rows, ["a", "b", "c"], clusters=True, outcomes=[BASELINE, CANDIDATE]))
    assert len(shares) == 2 + 1 + 2 + 3
    assert sum(shares) <= 100
    characters = [s / 100 * LINE for s in shares]
    assert characters[0] >= len("doc-009/q2") and characters[2] >= len("document-009")  # ids on one line
    assert min(characters[3:5]) >= len("1,234.568")  # scores keep their figures
    assert characters[5] == pytest.approx(characters[6]) == pytest.approx(characters[7])


def test_case_columns_count_only_what_the_template_prints():
    # The template cuts a case id at 80 characters and a metadata value at 300.
    rows = [_case("C" * 100_000, "Fees", note="n" * 100_000, other="o" * 300)]
    case, _, note, other = _shares(case_columns(rows, ["note", "other"], clusters=False, outcomes=[]))
    assert note == pytest.approx(other, abs=0.2)
    assert case < note


def _stress_inputs(directory: Path) -> tuple[Path, Path]:
    """Long release names, long and unbroken category names, long case ids and several metadata columns."""
    results, cases = directory / "results.csv", directory / "cases.csv"
    categories = [LONG_CATEGORY, UNBROKEN, "Fees", "Out of scope"]
    with results.open("w", newline="") as r, cases.open("w", newline="") as c:
        rw, cw = csv.writer(r), csv.writer(c)
        rw.writerow(["case_id", "release", "passed"])
        cw.writerow(["case_id", "category", "input", "expected_answer", "difficulty"])
        for i in range(80):
            case = f"bank/2024-q3/{categories[i % 4][:8].lower()}/case-{i:05d}" if i % 2 else f"E{i}"
            broken = i % 5 == 1
            rw.writerow([case, BASELINE, 1])
            rw.writerow([case, CANDIDATE, 0 if broken else 1])
            text = "A rather long customer question that goes on about the account " * (1 + i % 3)
            cw.writerow([case, categories[i % 4], text.strip(), "yes" if i % 2 else "The expected answer, at length",
                         ["easy", "medium", "hard"][i % 3]])
    return results, cases


def _overflows(document) -> list[str]:
    """Every line of a table cell that runs past the cell's content box, and every table wider than the page's
    content box, in a laid-out WeasyPrint document (walks its box tree: ``Page._page_box``)."""
    from weasyprint.formatting_structure import boxes

    found = []

    def text(box) -> str:
        return box.text if isinstance(box, boxes.TextBox) else "".join(text(c) for c in getattr(box, "children", ()))

    def walk(box, number, right, cell):
        if isinstance(box, boxes.TableBox) and box.content_box_x() + box.width > right + 0.5:
            found.append(f"page {number}: table {box.element.get('class')} wider than the page")
        if isinstance(box, boxes.TableCellBox):
            cell = box
        if isinstance(box, boxes.LineBox) and cell is not None:
            end = max((c.position_x + c.margin_width() for c in box.children), default=box.position_x)
            if end > cell.content_box_x() + cell.width + 0.5:
                found.append(f"page {number}: {text(box)[:40]!r} runs out of its cell")
            return
        for child in getattr(box, "children", ()):
            walk(child, number, right, cell)

    for number, page in enumerate(document.pages, start=1):
        page_box = page._page_box
        walk(page_box, number, page_box.content_box_x() + page_box.width, None)
    return found


def _words(pdf: bytes) -> list[tuple[int, float, list[tuple[float, float, float, float, str]]]]:
    """(page number, page width, [(x0, y0, x1, y1, word)]) for every page, from pdftotext -bbox."""
    out = subprocess.run(["pdftotext", "-q", "-bbox", "-", "-"], input=pdf, capture_output=True, check=True)
    pages = []
    for number, page in enumerate(re.split(r"<page ", out.stdout.decode("utf-8"))[1:], start=1):
        width = float(re.search(r'width="([\d.]+)"', page).group(1))
        boxes = [(float(a), float(b), float(c), float(d), word) for a, b, c, d, word in re.findall(
            r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)</word>', page)]
        pages.append((number, width, boxes))
    return pages


@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="needs poppler-utils (pdftotext)")
@pytest.mark.parametrize("paper", ["A4", "Letter"])
def test_pdf_text_stays_inside_its_cell_and_the_margins(tmp_path, monkeypatch, paper):
    from weasyprint.document import Document

    from releasegate.render.pdf import render_pdf

    laid_out = []
    write_pdf = Document.write_pdf
    monkeypatch.setattr(Document, "write_pdf", lambda self, *a, **k: laid_out.append(self) or write_pdf(self, *a, **k))
    results, cases = _stress_inputs(tmp_path)
    report = build_report(results, cases, command_line="", baseline=BASELINE, critical=(LONG_CATEGORY,))
    pdf = render_pdf(report, paper=paper)
    problems = _overflows(laid_out[0])
    for number, width, boxes in _words(pdf):
        problems += [f"page {number}: {word[:40]!r} runs past the margin" for x0, _, x1, _, word in boxes
                     if x0 < MARGIN_PT - 1 or x1 > width - MARGIN_PT + 1]
    assert not problems, problems[:10]
