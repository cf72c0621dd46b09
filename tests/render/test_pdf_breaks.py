"""Where the printed note breaks its pages: no heading is left alone on a page while what it heads opens the next.

A category table of about a page (40 rows) held whole went to the next page and left its heading, "r2 vs r1", on
an otherwise blank one (report.css keeps short tables whole; a long one now splits between rows, its header
repeated)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from conftest import run_cli

pytestmark = pytest.mark.skipif(shutil.which("pdftotext") is None, reason="needs poppler's pdftotext")


def _pages(pdf: Path) -> list[list[str]]:
    """Each page's lines of text, without the running header (the first line) and the page number (the last)."""
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True,
                          check=True).stdout
    pages = [[line.strip() for line in page.splitlines() if line.strip()] for page in text.split("\f")]
    return [page[1:-1] for page in pages if page]


@pytest.mark.parametrize("categories", [40, 100])
def test_no_page_holds_only_a_heading(categories: int, tmp_path: Path) -> None:
    rng = np.random.default_rng(categories)
    n = categories * 30
    base = rng.random(n) < 0.85
    cand = np.where(rng.random(n) < 0.1, ~base, base)
    lines = ["case_id,release,category,passed"]
    for i in range(n):
        category = f"Category {i % categories:03d}"
        lines += [f"q{i},r1,{category},{int(base[i])}", f"q{i},r2,{category},{int(cand[i])}"]
    results = tmp_path / "results.csv"
    results.write_text("\n".join(lines) + "\n", encoding="utf-8")
    pdf = tmp_path / "note.pdf"
    result = run_cli("report", results, "--baseline", "r1", "-o", pdf)
    assert result.exit_code == 0, result.output
    pages = _pages(pdf)
    alone = [page for page in pages if len(page) <= 1]
    assert alone == [], alone
    assert any("r2 vs r1" in page for page in pages)  # the heading is there, on a page with its table
