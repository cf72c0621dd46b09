"""Counts of cases, rows and categories print with their thousands grouped in every format a reader opens (the
Markdown note, the HTML page, the pull-request comment, the job summary), as the sentences beside them print
them: "27,091 broken" in the heading of a list whose sentence says "27,091 broken", never "27091"."""

from __future__ import annotations

import html
import re
from pathlib import Path

import numpy as np
import pytest

from conftest import run_cli
from releasegate import fmt
from releasegate.render import filters

# A run of four or more digits not grouped: not inside a word (a case id, a hash), not part of a grouped or
# decimal number, not a date (followed by "-"), and not the seed or a policy key's value as its file spells it.
UNGROUPED = re.compile(r"(?<![\w.,-])\d{4,}(?![\d,.\w-])")


def _ungrouped(text: str) -> list[str]:
    text = re.sub(r"\b[0-9a-f]{64}\b", "", text)  # sha256 digests
    text = re.sub(r"seed\s+\d+", "", text)
    text = re.sub(r"\w+ = \d+", "", text)  # the policy's keys as the policy file spells them (n_resamples = 10000)
    return [text[max(0, m.start() - 40):m.end() + 20] for m in UNGROUPED.finditer(text)]


def _visible_html(page: str) -> str:
    page = re.sub(r"<(script|style|svg)\b.*?</\1>", "", page, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


@pytest.fixture(scope="module")
def large(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """12,000 cases in 3 categories, about 1,200 fixed and 1,500 broken: counts past a thousand everywhere."""
    rng = np.random.default_rng(5)
    n = 12_000
    base = rng.random(n) < 0.8
    cand = np.where(rng.random(n) < 0.12, ~base, base)
    lines = ["case_id,release,category,passed"]
    for i in range(n):
        category = "ABC"[i % 3]
        lines.append(f"q{i},r1,{category},{int(base[i])}")
        lines.append(f"q{i},r2,{category},{int(cand[i])}")
    path = tmp_path_factory.mktemp("counts") / "results.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_the_counts_print_grouped_in_every_format(large: Path, tmp_path: Path, monkeypatch) -> None:
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = run_cli("check", large, "--baseline", "r1", "-o", tmp_path / "n.md", "-o", tmp_path / "n.html",
                     "--comment", tmp_path / "c.md")
    assert result.exit_code in (0, 1, 3), result.output
    markdown = (tmp_path / "n.md").read_text(encoding="utf-8")
    assert "12,000 |" in markdown or "| 4,000 |" in markdown  # the counts are there, grouped
    for name, text in [("n.md", markdown), ("c.md", (tmp_path / "c.md").read_text(encoding="utf-8")),
                       ("summary.md", summary.read_text(encoding="utf-8")),
                       ("n.html", _visible_html((tmp_path / "n.html").read_text(encoding="utf-8")))]:
        assert _ungrouped(text) == [], name


def test_the_filter_groups_whole_numbers_only() -> None:
    assert filters.count(27091) == "27,091" == fmt.count(27091)
    assert filters.count(np.int64(1_000_000)) == "1,000,000"
    assert filters.count(999) == "999" and filters.count(0) == "0"
    assert filters.count(None) is None and filters.count(True) is True and filters.count(2.5) == 2.5
