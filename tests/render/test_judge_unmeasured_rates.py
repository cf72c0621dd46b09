"""A corrected figure whose gold labels show the judge no error is no figure to the rules
(stats.ppi.shows_no_judge_error); each release's corrected rate is marked the same way (``degenerate`` in the
JSON), and the Markdown, HTML and notebook tables show n/a where they showed an interval that counts none of the
judge's error, with the sentence that says why. The sentence and the table never disagree."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd

from conftest import run_cli


def _agreeing(n: int = 1000):
    """A judge that agrees with every human label (analyze/test_judge_gated.py's agreeing suite); the gold rows
    listed release by release, the baseline's first."""
    rng = np.random.default_rng(2)
    fb = (rng.random(n) < 0.8).astype(float)
    fc = fb.copy()
    flip = rng.choice(n, 10, replace=False)
    fc[flip] = 1 - fc[flip]
    same = np.flatnonzero(fb == fc)
    picks = np.concatenate([same[fb[same] == 1][:20], same[fb[same] == 0][:20]])
    rows = [{"release": r, "case_id": f"c{i:04d}", "passed": int(v)} for r, f in (("r1", fb), ("r2", fc))
            for i, v in enumerate(f)]
    gold = [{"release": r, "case_id": f"c{i:04d}", "label": int(f[i])} for r, f in (("r1", fb), ("r2", fc))
            for i in picks]
    return pd.DataFrame(rows), gold


def _notes(tmp_path, gold: list[dict], policy: str = ""):
    rows, _ = _agreeing()
    (tmp_path / "releasegate.toml").write_text(policy)
    rows.to_csv(tmp_path / "results.csv", index=False)
    pd.DataFrame(gold).to_csv(tmp_path / "gold.csv", index=False)
    outs = [tmp_path / f"note.{s}" for s in ("md", "json", "html")]
    args = [a for o in outs for a in ("-o", o)]
    result = run_cli("report", tmp_path / "results.csv", "--baseline", "r1", "--gold", tmp_path / "gold.csv",
                     "--policy", tmp_path / "releasegate.toml", *args)
    assert result.exit_code == 0, result.output
    return outs[0].read_text(), json.loads(outs[1].read_text())["candidates"][0]["judge"], outs[2].read_text()


def _corrected_cells(md: str) -> dict[str, str]:
    """The last cell (corrected) of the judge table's rows, by their first cell."""
    cells = {}
    for line in md.splitlines():
        parts = [p.strip() for p in line.strip().strip("|").split("|")]
        if line.startswith("| r1 |") or line.startswith("| r2 |") or line.startswith("| difference"):
            cells[parts[0].split(" ")[0]] = parts[-1]
    return cells


def test_rates_whose_labels_show_the_judge_no_error_are_not_shown_as_corrected_figures(tmp_path):
    _, gold = _agreeing()
    md, judge, html = _notes(tmp_path, gold[1:])  # per release: the standard errors are not 0
    for side in ("baseline", "candidate"):
        assert judge[side]["corrected"]["se"] > 0 and judge[side]["corrected"]["degenerate"], side
    assert judge["corrected"]["degenerate"]
    assert _corrected_cells(md) == {"r1": "n/a", "r2": "n/a", "difference": "n/a"}
    said = ("Not measured (n/a): r1's corrected rate, r2's corrected rate and the corrected difference; the gold "
            "labels show no error of the judge's")
    assert said in md and said.replace("'", "&#39;") in html
    assert "which cannot be measured here" in md


def test_a_label_that_shows_the_judge_wrong_gives_that_release_its_figure_back(tmp_path):
    _, gold = _agreeing()
    gold = gold[1:]
    gold[5]["label"] = 1 - gold[5]["label"]  # a baseline label: r1's labels now show a judge error
    md, judge, _ = _notes(tmp_path, gold)
    assert not judge["baseline"]["corrected"]["degenerate"] and judge["candidate"]["corrected"]["degenerate"]
    assert not judge["corrected"]["degenerate"]
    cells = _corrected_cells(md)
    assert cells["r2"] == "n/a" and re.fullmatch(r"\d+\.\d% \\\[.*\\\]", cells["r1"]), cells
    assert cells["difference"] != "n/a"
    assert "Not measured (n/a): r2's corrected rate; the gold labels show no error of the judge's" in md
    assert "r1's corrected rate" not in md


def test_an_ordinary_judge_shows_every_corrected_figure_and_no_such_sentence(tmp_path):
    _, gold = _agreeing()
    for k in (3, 30, 45, 70):  # errors of the judge's on both releases
        gold[k]["label"] = 1 - gold[k]["label"]
    md, judge, _ = _notes(tmp_path, gold)
    assert not any(judge[s]["corrected"]["degenerate"] for s in ("baseline", "candidate"))
    assert "n/a" not in _corrected_cells(md).values() and "Not measured" not in md


def test_read_by_no_rule_the_sentence_says_it_cannot_be_measured_too(tmp_path):
    _, gold = _agreeing()
    md, _, _ = _notes(tmp_path, gold[1:], 'judge_correction = "none"\n')
    assert "the corrected difference cannot be measured here and is not read" in md
    assert "shown beside it" not in md and _corrected_cells(md)["difference"] == "n/a"
