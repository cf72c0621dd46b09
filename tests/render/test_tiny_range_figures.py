"""Scores on a tiny range (0 to 0.01) through `releasegate report` to Markdown, JSON and HTML: every difference
is a few ten-thousandths, below the three digits a score prints with. No figure may print as a negative zero or
as zero at all (none of these differences is zero), and no sentence may put a direction word ("regression",
"worsened", "non-inferior") beside a figure of the other sign or the wrong side of its margin. Then pass/fail
outcomes over runs, whose majority-outcome sentence printed "p = < 0.001"."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd

from conftest import run_cli

NEGATIVE_ZERO = re.compile(r"(?<![\w.])-\$?0(?:\.0+)?(?![\d.])")
SIGNED = re.compile(r"(?<![\w.])[+-]<?\d[\d,]*\.\d+")


def tiny_scores(path: Path) -> Path:
    """300 cases in three categories, baseline scores uniform on [0, 0.01], the candidate 0.0003 lower on
    average with a spread of 0.0008 (kept in range); a cost of a fraction of a cent per 1,000 cases."""
    rng = np.random.default_rng(7)
    n = 300
    base = rng.uniform(0, 0.01, n)
    cand = np.clip(base - 0.0003 + rng.normal(0, 0.0008, n), 0, 0.01)
    ids = [f"c{i:03d}" for i in range(n)]
    cats = [("alpha", "beta", "gamma")[i % 3] for i in range(n)]
    table = pd.concat([pd.DataFrame({"release": "base", "case_id": ids, "category": cats, "score": base.round(6),
                                     "cost": 1.2e-6}),
                       pd.DataFrame({"release": "cand", "case_id": ids, "category": cats, "score": cand.round(6),
                                     "cost": 1.8e-6})])
    table.to_csv(path, index=False)
    return path


def texts(folder: Path) -> dict[str, str]:
    """The reader's text of each format: the Markdown as written, the HTML (its charts' SVG text among it)
    without its tags, scripts and styles, every string of the JSON."""
    page = (folder / "note.html").read_text()
    page = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S)
    strings: list[str] = []

    def walk(x):
        if isinstance(x, dict):
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
        elif isinstance(x, str):
            strings.append(x)

    walk(json.loads((folder / "note.json").read_text()))
    found = {"md": (folder / "note.md").read_text(), "html": html.unescape(re.sub(r"<[^>]+>", " ", page)),
             "json": "\n".join(strings)}
    return {kind: text.replace("\N{MINUS SIGN}", "-") for kind, text in found.items()}  # the charts' minus


def read(text: str) -> float:
    return float(text.replace(",", "").replace("<", ""))


def test_tiny_score_differences_print_as_what_they_are(tmp_path):
    results = tiny_scores(tmp_path / "tiny.csv")
    out = [f"-o{tmp_path / f'note.{s}'}" for s in ("md", "json", "html")]
    result = run_cli("report", str(results), "--baseline", "base", *out)
    assert result.exit_code == 0, result.output
    for kind, text in texts(tmp_path).items():
        assert not NEGATIVE_ZERO.findall(text), (kind, NEGATIVE_ZERO.findall(text)[:5])
        zeros = [s for s in SIGNED.findall(text) if read(s) == 0]
        assert not zeros, (kind, zeros[:5])
        # The overall rule fired: its figure and interval are below zero.
        for figure, low, high in re.findall(r"significant overall regression: overall (\S+) \\?\[(\S+), (\S+?)\\?\]",
                                            text):
            assert read(figure) < 0 and read(high) < 0 and read(low) <= read(figure) <= read(high), (kind, figure)
        named = re.findall(r"(?:significant regression in|;) (alpha|beta|gamma) (\S+) \\?\[", text)
        assert named and all(read(x) < 0 for _, x in named), (kind, named)
        for word, bound, margin in re.findall(r"(non-inferior|no worse): the 90% interval's lower bound is (\S+), "
                                              r"margin (\S+)", text):
            assert (word == "non-inferior") == (read(bound) >= read(margin)), (kind, bound, margin)
        # The counts beside the worsened rule read 1% of the range (0.0001), not any move.
        assert "by any amount" not in text and "by more than 0.0001" in text, kind
    # Every chart's ticks print apart: a tiny-range axis printed 0.00 0.00 0.01 0.01, a cost axis $0.00 on each.
    page = (tmp_path / "note.html").read_text()
    svgs = re.findall(r"<svg\b.*?</svg>", page, flags=re.S)
    assert len(svgs) >= 4  # the overall rates and difference, the categories, quality against cost
    for svg in svgs:
        ticks = [t for t in re.findall(r">([^<>]*)</text>", svg.replace("\N{MINUS SIGN}", "-"))
                 if re.fullmatch(r"[-+$]*\d+\.\d+%?", t)]
        assert len(ticks) == len(set(ticks)), ticks
        assert not [t for t in ticks if NEGATIVE_ZERO.fullmatch(t)], ticks


def test_a_p_value_after_its_sign_reads_as_one(tmp_path):
    """Pass/fail over two runs: the majority outcome's McNemar p is far below 0.001."""
    rows = []
    for i in range(300):
        for run in (1, 2):
            rows += [("r1", f"c{i}", run, 1), ("r2", f"c{i}", run, 0 if i < 60 else 1)]
    path = tmp_path / "runs.csv"
    pd.DataFrame(rows, columns=["release", "case_id", "run", "passed"]).to_csv(path, index=False)
    out = [f"-o{tmp_path / f'note.{s}'}" for s in ("md", "json", "html")]
    result = run_cli("report", str(path), "--baseline", "r1", *out)
    assert result.exit_code == 0, result.output
    found = texts(tmp_path)
    assert "majority outcome" in found["md"] and "majority outcome" in found["html"]
    for kind, text in found.items():
        assert not re.search(r"p = [<>]", text), (kind, re.findall(r".{60}p = [<>].{20}", text)[:3])


def test_no_json_figure_is_a_negative_zero(tmp_path):
    """With margin 0 the non-inferiority rule's limit is -0.0, which the JSON wrote as such."""
    results = tiny_scores(tmp_path / "tiny.csv")
    result = run_cli("report", str(results), "--baseline", "base", "--margin", "0", f"-o{tmp_path / 'note.json'}")
    assert result.exit_code == 0, result.output
    text = (tmp_path / "note.json").read_text()
    assert not re.findall(r"[:\[,]\s*-0\.0\b(?![\d.eE])", text)
