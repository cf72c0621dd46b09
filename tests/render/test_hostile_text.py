"""Hostile text in case ids, categories, release names, inputs and outputs (issue 7, SPEC section 6).

The Markdown must keep its structure whatever the data holds: every table row has its header's number of
cells, no HTML tag but the template's own (details, summary, br) appears, no link can be formed, no value
starts a line, controls are shown as codes, mentions are defused, and long texts are cut with a marker.
The JSON keeps the raw text exactly. The HTML and PDF checks run once their renderers exist.
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest

from conftest import build_report, run_cli
from releasegate.render import render
from releasegate.render.markdown import GITHUB_COMMENT_LIMIT

LONG = "long output " + "x" * 100_000
HOSTILE = (
    "<script>alert(1)</script>",
    "</details><details open>",
    "a|b|c",
    "`code` ``` fence",
    "line1\nline2\r\n::warning::line3",
    "[x](javascript:alert(1))",
    "javascript:alert(1)",
    "<img src=x onerror=alert(1)>",
    "=cmd|' /C calc'!A0",
    "@octocat see #1",
    "\x1b[31mred\u202eevil\x00",
    "# heading",
    "- item\n> quote\n---",
    "\\|backslash pipe",
    "&lt;entity&gt;",
    "C" * 100_000,
)
BASELINE = "r1 <b>|base"
CANDIDATE = "r2`</details>\n::warning::x"
# The template's own tags, and the marker comment the PR-comment workflow finds its comment by.
ALLOWED_TAGS = re.compile(r"<(/?details|/?summary|br|!-- releasegate --)>")


def _write_results(path: Path, n_plain: int = 5) -> list[str]:
    """Every hostile text as a case id, a category, an input and an output; the candidate breaks them all."""
    ids = []
    with open(path, "w", newline="", encoding="utf-8") as handle:
        out = csv.writer(handle)
        out.writerow(["release", "case_id", "passed", "category", "input", "output"])
        for release, passed in ((BASELINE, 1), (CANDIDATE, 0)):
            for i, text in enumerate(HOSTILE):
                case_id = f"{text}#{i}"
                ids.append(case_id)
                output = LONG if i == 0 else text
                out.writerow([release, case_id, passed, text, text * 2, output])
            for i in range(n_plain):  # a fixed case, so the collapsed <details> list is drawn too
                out.writerow([release, f"plain{i}", 1 - passed if i == 0 else 1, "plain", "in", "out"])
    return ids[: len(HOSTILE)]


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    work = tmp_path_factory.mktemp("hostile")
    ids = _write_results(work / "results.csv")
    result = run_cli("report", "results.csv", "--baseline", BASELINE, "-o", "r.md", "-o", "r.json", cwd=work)
    assert result.exit_code == 0, result.output
    return {"md": (work / "r.md").read_text(encoding="utf-8"), "json": json.loads((work / "r.json").read_text()),
            "stdout": result.stdout, "ids": ids, "work": work}


def _unescaped_pipes(line: str) -> int:
    """Pipes GFM counts as cell borders: those not preceded by an odd number of backslashes."""
    count = 0
    for match in re.finditer(r"(\\*)\|", line):
        if len(match.group(1)) % 2 == 0:
            count += 1
    return count


def _tables(markdown: str) -> list[list[str]]:
    tables, current = [], None
    lines = markdown.split("\n")
    for k, line in enumerate(lines):
        if line.startswith("|") and k + 1 < len(lines) and re.match(r"^\|(-+:?\|)+$", lines[k + 1].strip()) \
                and current is None:
            current = [line]
        elif current is not None and line.startswith("|"):
            current.append(line)
        elif current is not None:
            tables.append(current)
            current = None
    if current:
        tables.append(current)
    return tables


def assert_markdown_structure(markdown: str) -> None:
    tables = _tables(markdown)
    assert tables
    for table in tables:
        cells = _unescaped_pipes(table[0])
        for row in table[1:]:
            assert _unescaped_pipes(row) == cells, row[:300]
    # Anything HTML would take for a tag, comment or declaration ("p < 0.001" is none of these).
    for start in re.finditer(r"<[A-Za-z/!?]", markdown):
        assert ALLOWED_TAGS.match(markdown, start.start()), markdown[start.start():start.start() + 40]
    assert markdown.count("<details>") == markdown.count("</details>")
    assert markdown.count("<summary>") == markdown.count("</summary>")
    # No link or image can be formed: every ']' is escaped, so '](' never opens a URL.
    assert not re.search(r"(?<!\\)\]\(", markdown)
    assert len(markdown) <= GITHUB_COMMENT_LIMIT


def test_markdown_tables_keep_their_shape(hostile):
    assert_markdown_structure(hostile["md"])


def test_no_html_from_data(hostile):
    md = hostile["md"]
    for raw in ("<script", "<img", "</details><details open>", "<b>"):
        assert raw not in md
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in md
    assert "&lt;img src=x onerror=alert(1)&gt;" in md
    assert "&amp;lt;entity&amp;gt;" in md  # an entity in data shows as text, it is not decoded


def test_no_value_starts_a_line(hostile):
    for line in hostile["md"].split("\n"):
        for start in ("line2", "::warning::", "> quote", "---\n", "- item", "# heading"):
            assert not line.startswith(start), line[:200]
    assert "line1<br>line2<br>::warning::line3" in hostile["md"]


def test_pipes_backticks_and_markup_are_escaped(hostile):
    md = hostile["md"]
    assert "a\\|b\\|c" in md
    assert "\\`code\\` \\`\\`\\` fence" in md
    assert "\\[x\\](javascript:alert(1))" in md
    assert "\\\\\\|backslash pipe" in md
    assert "=cmd\\|' /C calc'\\!A0" in md


def test_controls_shown_as_codes_and_mentions_defused(hostile):
    md = hostile["md"]
    assert not re.search("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u202e]", md)
    assert "\\\\x1b\\[31mred\\\\u202eevil\\\\x00" in md
    # GitHub mentions "@name" only after a non-word character ("1@octocat" is no mention, as in e-mail).
    assert not re.search(r"(?<![\w@])@octocat", md) and "@&#8203;octocat" in md
    assert "\\#&#8203;1" in md


def test_long_texts_are_cut_with_a_marker(hostile):
    md = hostile["md"]
    # No value runs past the Markdown cap (render/filters.MAX_MD_VALUE, the HTML's 2,000 too), whatever its length.
    from releasegate.render.filters import MAX_MD_VALUE

    assert "x" * MAX_MD_VALUE not in md and "C" * (MAX_MD_VALUE + 1) not in md and "C" * 1000 in md
    assert "long output " + "x" * 100 in md
    assert "…" in md
    assert len(md) <= GITHUB_COMMENT_LIMIT


def test_json_keeps_the_raw_text(hostile):
    report = hostile["json"]
    assert report["baseline"] == BASELINE
    (cand,) = report["candidates"]
    assert cand["name"] == CANDIDATE
    broken = {b["case_id"]: b for b in cand["broken_cases"]}
    assert set(hostile["ids"]) <= set(broken)
    for i, text in enumerate(HOSTILE):
        # The CSV writer stores \r\n inside a quoted value as is; the reader keeps it.
        case = broken[f"{text}#{i}"]
        assert case["category"] == text
        assert case["metadata"]["input"] == text * 2
        assert case["metadata"]["output"] == (LONG if i == 0 else text)
    assert {c["category"] for c in cand["categories"]} >= set(HOSTILE)


def test_stdout_is_one_line_per_candidate(hostile):
    lines = hostile["stdout"].splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("DON'T SHIP")
    assert "::warning::x" in lines[0] and not lines[0].startswith("::")


def test_error_messages_show_controls_as_codes(tmp_path):
    (tmp_path / "r.csv").write_text('release,case_id,passed\n"r1\x1b[2J\n::error::x",c1,1\nr2,c1,0\n')
    result = run_cli("report", "r.csv", "--baseline", "nope", "-o", "r.md", cwd=tmp_path)
    assert result.exit_code == 2
    (line,) = result.stderr.splitlines()
    assert "\x1b" not in line and "\\x1b" in line


def test_check_prints_headlines_on_one_line(tmp_path):
    _write_results(tmp_path / "results.csv")
    result = run_cli("check", "results.csv", "--baseline", BASELINE, cwd=tmp_path)
    assert result.exit_code == 1
    (line,) = result.stdout.splitlines()
    assert "\x1b" not in line and "\u202e" not in line


def _report(path: Path, baseline: str = BASELINE, **policy):
    return build_report(path, command_line="", baseline=baseline, **policy)


def test_html_escapes_hostile_text(hostile):
    pytest.importorskip("releasegate.render.html")
    html = render(_report(hostile["work"] / "results.csv"), ".html").decode("utf-8")
    assert "<script>alert" not in html
    assert "<img src=x" not in html
    assert "</details><details open>" not in html
    assert not re.search(r"""(?:href|src|action|xlink:href)\s*=\s*["']?\s*javascript:""", html, re.IGNORECASE)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_pdf_has_no_script_or_javascript_link(hostile):
    pytest.importorskip("releasegate.render.pdf")
    from io import BytesIO

    from pypdf import PdfReader

    pdf = render(_report(hostile["work"] / "results.csv"), ".pdf")
    assert b"/JavaScript" not in pdf and b"/JS " not in pdf
    for page in PdfReader(BytesIO(pdf)).pages:
        for annotation in page.get("/Annots") or []:
            action = annotation.get_object().get("/A") or {}
            assert not str(action.get("/URI", "")).lower().startswith("javascript:")


# --- size: however many cases broke, the Markdown fits in a GitHub comment ---------------------------------

def test_markdown_cap_with_thousands_of_long_broken_cases(tmp_path):
    path = tmp_path / "results.csv"
    with open(path, "w", newline="", encoding="utf-8") as handle:
        out = csv.writer(handle)
        out.writerow(["release", "case_id", "passed", "category", "output"])
        for release, passed in (("r1", 1), ("r2", 0)):
            for i in range(20_000):
                out.writerow([release, f"case-{i:05d}-" + "i" * 50, passed, f"cat{i % 40}", "<o>|" * 100])
    markdown = render(_report(path, baseline="r1"), ".md").decode("utf-8")
    assert len(markdown) <= GITHUB_COMMENT_LIMIT
    assert "more broken cases cut to keep this comment under GitHub's size limit" in markdown
    assert_markdown_structure(markdown)


def test_markdown_cap_at_the_category_limit(tmp_path):
    """10,000 categories (the most validate accepts), 30,000 cases: it runs, and the Markdown is cut."""
    from releasegate.validate import MAX_CATEGORIES

    path = tmp_path / "results.csv"
    lines = ["release,case_id,passed,category"]
    for release in ("r1", "r2"):
        for i in range(3 * MAX_CATEGORIES):
            passed = int(not (release == "r2" and i % 7 == 0))
            lines.append(f"{release},c{i},{passed},k{i % MAX_CATEGORIES}")
    path.write_text("\n".join(lines) + "\n")
    # How long it takes is bench/'s business (no timed tests); it must finish and cut.
    report = _report(path, baseline="r1")
    markdown = render(report, ".md").decode("utf-8")
    assert len(report.analysis.candidates[0].categories) == MAX_CATEGORIES
    assert len(markdown) <= GITHUB_COMMENT_LIMIT
    assert "more categories cut" in markdown
    assert_markdown_structure(markdown)


def test_markdown_hard_cut_keeps_structure(tmp_path):
    """Enormous names in many places: the last resort cuts at a line and closes what it opened."""
    path = tmp_path / "results.csv"
    names = [f"r{k}-" + "<n>|" * 300 for k in range(40)]
    with open(path, "w", newline="", encoding="utf-8") as handle:
        out = csv.writer(handle)
        out.writerow(["release", "case_id", "passed"])
        for k, name in enumerate(names):
            for i in range(40):
                out.writerow([name, f"c{i}", int((i + k) % 3 != 0)])
    markdown = render(_report(path, baseline=names[0]), ".md").decode("utf-8")
    assert len(markdown) <= GITHUB_COMMENT_LIMIT
    assert "cut at GitHub's size limit" in markdown
    assert_markdown_structure(markdown)
