"""`releasegate history`: archived notes (JSON and PDF/A-3b) ordered by time and drawn per series; notes that do
not share a baseline or a suite drawn apart and said so."""

from __future__ import annotations

import csv
import json
import re
import shutil
from pathlib import Path

import pytest

from conftest import run_cli

RELEASES = ("r1-live", "r2-new-prompt", "r3-small-model")
EPOCHS = ("1796000000", "1797000000", "1798000000")


@pytest.fixture(scope="module")
def archive(tmp_path_factory) -> Path:
    """The demo archived three times: r2 alone, r3 alone, then both (each with its PDF/A-3b beside its JSON)."""
    from releasegate.demo import example_files

    folder = tmp_path_factory.mktemp("history")
    for name, path in example_files().items():
        shutil.copyfile(path, folder / name)
    for epoch, candidate in zip(EPOCHS, (("--candidate", "r2-new-prompt"), ("--candidate", "r3-small-model"), ())):
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("SOURCE_DATE_EPOCH", epoch)
            result = run_cli("report", "eval_results.csv", "--cases", "eval_cases.csv", "--policy", "releasegate.toml",
                             *candidate, "--archive", "archive", cwd=folder)
        assert result.exit_code == 0, result.output
    return folder


@pytest.fixture(scope="module")
def written(archive) -> dict[str, str]:
    # The folders named newest first: the history orders the notes by their time, not by how they were given.
    folders = sorted((archive / "archive").iterdir(), reverse=True)
    result = run_cli("history", *folders, "-o", "h.html", "-o", "h.md", "-o", "h.json", cwd=archive)
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0] == "read 3 note(s) in 1 series"
    return {suffix: (archive / f"h.{suffix}").read_text(encoding="utf-8") for suffix in ("html", "md", "json")}


def _chart(html: str, name: str) -> str:
    match = re.search(rf'<figure class="chart" id="{name}">(.*?)</figure>', html, re.DOTALL)
    assert match, name
    return match.group(1)


def test_the_html_draws_a_chart_naming_every_release(written):
    html = written["html"]
    rates = _chart(html, "history-1-rates")
    assert "<svg" in rates
    for release in RELEASES:
        assert f">{release}</text>" in rates, release  # drawn on the chart, not only in its legend
    for name in ("history-1-cost", "history-1-latency", "history-1-categories"):
        assert "<svg" in _chart(html, name)
    for label in ("1. 2026-11-30", "2. 2026-12-11", "3. 2026-12-23"):  # the notes in time order, as columns
        assert label in rates


def test_the_html_is_self_contained_and_needs_no_script(written):
    html = written["html"]
    assert "<script" not in html
    assert re.search(r"""(src|href)=["']?(https?:)?//""", html) is None
    assert re.search(r"Content-Security-Policy\" content=\"default-src (&#39;|')none", html)


def test_the_json_orders_the_notes_by_time_and_reads_each_once(written):
    data = json.loads(written["json"])
    assert data["kind"] == "releasegate_history" and data["notes"] == 3 and data["apart"] == []
    series = data["series"][0]
    assert [n["when"] for n in series["notes"]] == ["2026-11-30T00:53:20Z", "2026-12-11T14:40:00Z",
                                                    "2026-12-23T04:26:40Z"]
    assert all(n["path"].endswith("note.json") and n["also"][0].endswith("note.pdf") for n in series["notes"])
    points = [(p["note"], p["release"], p["verdict"]) for p in series["points"]]
    assert points == [(0, "r1-live", None), (0, "r2-new-prompt", "dont_ship"), (1, "r1-live", None),
                      (1, "r3-small-model", "dont_ship"), (2, "r1-live", None), (2, "r2-new-prompt", "dont_ship"),
                      (2, "r3-small-model", "dont_ship")]
    r2 = series["points"][1]
    assert (r2["rate"], r2["diff"]) == (0.9325, 0.015)  # the lesson's 93.2% and +1.5 points
    assert r2["cost_per_1k"] == pytest.approx(1.69, abs=0.01) and r2["p95_ms"] > 1900
    broke = {(b["note"], b["release"], b["category"]): (b["broke"], b["blocks"]) for b in series["breaks"]}
    assert broke[(0, "r2-new-prompt", "Fraud")] == (6, True)  # r2 broke six Fraud cases and that blocked it
    assert broke[(1, "r3-small-model", "Safety")] == (3, False)


def test_the_markdown_holds_the_same_tables(written):
    md = written["md"]
    assert "| 1. 2026-11-30 | r2-new-prompt | DON'T SHIP | 93.2% \\[90.4, 95.3\\] | +1.5 \\[-0.7, +3.8\\] |" in md
    assert "| Fraud (critical) | -12.0 ▼ (0/6) |" in md
    assert "| 1. 2026-11-30 | r2-new-prompt | Fraud | 6 | 0 | 0.016 | yes |" in md


def _subset(archive: Path, to: Path, drop_category: str) -> None:
    """The demo without one category's cases."""
    to.mkdir()
    cases = list(csv.DictReader(open(archive / "eval_cases.csv", newline="", encoding="utf-8")))
    kept = {c["case_id"] for c in cases if c["category"] != drop_category}
    for name, rows in (("eval_cases.csv", cases),
                       ("eval_results.csv", list(csv.DictReader(open(archive / "eval_results.csv", newline="",
                                                                     encoding="utf-8"))))):
        with open(to / name, "w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(r for r in rows if r["case_id"] in kept)
    shutil.copyfile(archive / "releasegate.toml", to / "releasegate.toml")


def _first_note(archive: Path) -> Path:
    return next(p for p in sorted((archive / "archive").iterdir())) / "note.json"


def _note(folder: Path, out: Path, *args: str) -> Path:
    """The example's note written to ``out`` from the files in ``folder``, with ``args`` added."""
    result = run_cli("report", "eval_results.csv", "--cases", "eval_cases.csv", "--policy", "releasegate.toml",
                     *args, "-o", out, cwd=folder)
    assert result.exit_code == 0, result.output
    return out


def test_notes_of_another_baseline_or_suite_are_drawn_apart(archive, tmp_path):
    first = _first_note(archive)
    other = _note(archive, tmp_path / "other.json", "--baseline", "r2-new-prompt")
    _subset(archive, tmp_path / "small", "Cards")
    smaller = _note(tmp_path / "small", tmp_path / "smaller.json", "--title", "bank-assistant")
    result = run_cli("history", first, other, smaller, "-o", tmp_path / "h.json", "-o", tmp_path / "h.md")
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "h.json").read_text())
    assert len(data["series"]) == 3
    apart = " ".join(data["apart"])
    assert "series 2 against series 1" in apart and "baseline r2-new-prompt, not r1-live" in apart
    assert "Cards" in apart and "370 cases in 8 categories" in apart
    assert "Drawn apart" in (tmp_path / "h.md").read_text()


def test_notes_of_another_title_are_drawn_apart_saying_both_titles(archive, tmp_path):
    first = _first_note(archive)
    other = _note(archive, tmp_path / "other.json", "--title", "savings-assistant")
    result = run_cli("history", first, other, "-o", tmp_path / "h.json")
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "h.json").read_text())
    title = json.loads(first.read_text())["title"]
    # Said as the other differences are: this series' value, then the first's (it once read "note savings-assistant").
    assert data["apart"] == [f"series 2 against series 1: title savings-assistant, not {title}"]


def test_several_metrics_give_a_series_per_metric(tmp_path):
    from metrics_support import metric_args, three_metrics

    three_metrics(tmp_path)
    result = run_cli("report", "three.csv", "--baseline", "r1", *metric_args(), "-o", "m.json", cwd=tmp_path)
    assert result.exit_code == 0, result.output
    result = run_cli("history", "m.json", "-o", "h.json", cwd=tmp_path)
    assert result.exit_code == 0, result.output
    series = json.loads((tmp_path / "h.json").read_text())["series"]
    assert [s["metric"] for s in series] == ["correct", "format_ok", "safe"]


def test_files_in_a_folder_that_are_not_notes_are_listed_not_read(archive, tmp_path):
    shutil.copytree(archive / "archive", tmp_path / "a")
    (tmp_path / "a" / "plan.json").write_text('{"design": 1}')
    result = run_cli("history", tmp_path / "a", "-o", tmp_path / "h.md")
    assert result.exit_code == 0
    assert "1 file(s) were not notes" in result.output
    assert "plan.json" in (tmp_path / "h.md").read_text() and "no schema\\_version" in (tmp_path / "h.md").read_text()


@pytest.mark.parametrize("setup,args,message", [
    ("empty", ("folder", "-o", "h.md"), "no releasegate notes in folder"),
    ("junk", ("junk.json", "-o", "h.md"), "junk.json is not a releasegate note"),
    ("none", ("nowhere", "-o", "h.md"), "note or folder not found: nowhere"),
    ("junk", ("junk.json", "-o", "h.pdf"), "cannot tell the history's format of h.pdf"),
    ("junk", ("junk.json", "-o", "junk.json"), "output junk.json is the input file junk.json"),
])
def test_bad_input_is_one_line_and_writes_nothing(tmp_path, setup, args, message):
    (tmp_path / "folder").mkdir()
    (tmp_path / "junk.json").write_text("[]")
    result = run_cli("history", *args, cwd=tmp_path)
    assert result.exit_code == 2 and message in result.output and result.output.count("\n") == 1, result.output
    assert not (tmp_path / "h.md").exists()


def test_release_names_from_the_data_cannot_inject_markup(tmp_path):
    hostile = "@octocat<img src=x onerror=alert(1)>|x"
    lines = ["release,case_id,category,passed"]
    for release in ("base", hostile):
        lines += [f'"{release}",c{i},{"AB"[i % 2]},{int(i % 5 != 0)}' for i in range(40)]
    (tmp_path / "r.csv").write_text("\n".join(lines) + "\n")
    result = run_cli("report", "r.csv", "--baseline", "base", "--no-policy", "-o", "n.json", cwd=tmp_path)
    assert result.exit_code == 0, result.output
    result = run_cli("history", "n.json", "-o", "h.html", "-o", "h.md", cwd=tmp_path)
    assert result.exit_code == 0, result.output
    html, md = (tmp_path / "h.html").read_text(), (tmp_path / "h.md").read_text()
    assert "<img" not in html and "&lt;img" in html
    assert "<img" not in md and "@octocat" not in md  # the mention defused, the tag escaped


def test_dont_ship_has_its_own_mark_and_a_policy_change_behind_a_flip_is_flagged(tmp_path):
    """The demo's r2 judged three times: DON'T SHIP under the demo's policy, then SHIP under one that drops the
    critical categories, the margin and the guardrail; the flip names what changed. DON'T SHIP is drawn as an x,
    not Vega's plus-shaped "cross"."""
    from releasegate.audit.history_charts import VERDICT_LOOK
    from releasegate.demo import example_files

    for name, path in example_files().items():
        shutil.copyfile(path, tmp_path / name)
    (tmp_path / "loose.toml").write_text('title = "bank-assistant"\nbaseline = "r1-live"\nmargin = 0.0\n'
                                         'alpha = 0.001\n', encoding="utf-8")
    for epoch, policy in (("1796000000", "releasegate.toml"), ("1797000000", "loose.toml"),
                          ("1798000000", "loose.toml")):
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("SOURCE_DATE_EPOCH", epoch)
            result = run_cli("report", "eval_results.csv", "--cases", "eval_cases.csv", "--policy", policy,
                             "--candidate", "r2-new-prompt", "--archive", "archive", cwd=tmp_path)
        assert result.exit_code == 0, result.output
    result = run_cli("history", "archive", "-o", "h.md", "-o", "h.json", "-o", "h.html", cwd=tmp_path)
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "h.json").read_text(encoding="utf-8"))
    flips = [f for s in data["series"] for f in s["flips"]]
    assert [(f["release"], f["before"], f["after"]) for f in flips] == [("r2-new-prompt", "dont_ship", "ship")]
    assert "margin: 0.05 -> 0.0" in flips[0]["policy"] and "alpha: 0.05 -> 0.001" in flips[0]["policy"]
    markdown = (tmp_path / "h.md").read_text(encoding="utf-8")
    assert "DON'T SHIP → SHIP | **changed**: " in markdown and "margin: 0.05 -&gt; 0.0" in markdown
    html = (tmp_path / "h.html").read_text(encoding="utf-8")
    assert "<strong>changed</strong>" in html
    shape = VERDICT_LOOK["dont_ship"][0]
    assert shape != "cross" and shape not in {look[0] for key, look in VERDICT_LOOK.items() if key != "dont_ship"}
