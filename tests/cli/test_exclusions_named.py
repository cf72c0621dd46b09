"""Every kind of case or input a comparison leaves out is named, with its count, in each of the five places a
verdict is read (SPEC 3.2): the lines ``check`` prints, the GitHub job summary, the pull-request comment, page
one of the HTML note (the plain paragraphs and the verdict cards, above the first section) and the JSON note.

One table, one row per kind, each with the smallest input that produces it; the pairing's own clause is tested
in tests/wording/test_exclusions.py, the kinds' readings where they are made."""

from __future__ import annotations

import html
import json
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import run_cli

HARNESS = Path(__file__).parents[1] / "fixtures" / "harness"
N = 12


def _write(path: Path, header: str, rows: list[tuple]) -> Path:
    path.write_text(header + "\n" + "".join(",".join(map(str, r)) + "\n" for r in rows))
    return path


def _outcome(release: str, i: int) -> int:
    return int((i * 7 + (release == "r2") * 3) % 5 != 0)


def _pairs(releases: tuple[str, ...] = ("r1", "r2")) -> list[tuple]:
    return [(r, f"c{i}", _outcome(r, i)) for r in releases for i in range(N)]


def only_baseline(tmp: Path) -> list[str]:
    rows = [row for row in _pairs() if row[:2] != ("r2", "c0")]
    return [str(_write(tmp / "results.csv", "release,case_id,passed", rows)), "--allow-missing"]


def only_candidate(tmp: Path) -> list[str]:
    rows = [row for row in _pairs() if row[:2] != ("r1", "c0")]
    return [str(_write(tmp / "results.csv", "release,case_id,passed", rows)), "--allow-missing"]


def content_changed(tmp: Path) -> list[str]:
    rows = [(*row, f"question {row[1]}" + (" reworded" if row[:2] == ("r2", "c0") else "")) for row in _pairs()]
    return [str(_write(tmp / "results.csv", "release,case_id,passed,input", rows)), "--allow-changed"]


def errored(tmp: Path) -> list[str]:
    rows = [(r, c, "" if (r, c) == ("r2", "c0") else p, "timeout" if (r, c) == ("r2", "c0") else "")
            for r, c, p in _pairs()]
    return [str(_write(tmp / "results.csv", "release,case_id,passed,error", rows))]


def _runs(skip: tuple[str, str, int] | None = None, blank: tuple[str, str, int] | None = None) -> list[tuple]:
    return [(r, c, k, "" if (r, c, k) == blank else (p if k == 1 else 1 - p)) for r, c, p in _pairs()
            for k in (1, 2) if (r, c, k) != skip]


def runs_incomplete(tmp: Path) -> list[str]:
    rows = _runs(skip=("r2", "c0", 2))
    return [str(_write(tmp / "results.csv", "release,case_id,run,passed", rows)), "--allow-incomplete-runs"]


def rows_dropped(tmp: Path) -> list[str]:
    # With runs, a case that lost one run's row is still compared, on its other run: nothing in the pairing
    # sees the row that --missing drop dropped.
    rows = _runs(blank=("r2", "c0", 2))
    return [str(_write(tmp / "results.csv", "release,case_id,run,passed", rows)), "--missing", "drop"]


def rows_failed(tmp: Path) -> list[str]:
    rows = [(r, c, "" if (r, c) == ("r2", "c0") else p) for r, c, p in _pairs()]
    return [str(_write(tmp / "results.csv", "release,case_id,passed", rows)), "--missing", "fail"]


def errors_failed(tmp: Path) -> list[str]:
    # An errored row counted as a failure is counted otherwise than it was given, as a row without an outcome is.
    return [*errored(tmp), "--missing", "fail"]


def rows_failed_of_one_metric(tmp: Path) -> list[str]:
    rows = [(r, c, "" if (r, c) == ("r2", "c0") else p, int(c[1:]) % 3 != 0) for r, c, p in _pairs()]
    path = _write(tmp / "results.csv", "release,case_id,accuracy,format_ok", rows)
    return [str(path), "--metric", "accuracy", "--metric", "format_ok", "--missing", "fail"]


def not_judged(tmp: Path) -> list[str]:
    return [str(_write(tmp / "results.csv", "release,case_id,passed", _pairs(("r1", "r2", "r3")))),
            "--candidate", "r2"]


def table_not_read(tmp: Path) -> list[str]:
    folder = tmp / "eval-set"
    shutil.copytree(HARNESS / "inspect-0.3.285" / "eval-set", folder)
    (folder / "samples.csv").write_text("id,epoch,score_includes\n1,1,C\n")
    models = sorted({h["eval"]["model"] for h in json.loads((folder / "logs.json").read_text()).values()})
    return [str(folder), "--scorer", "includes", "--baseline", models[0]]


def _answer(case, run):
    return {"output": case["reference"], "usage": {"input_tokens": 10, "output_tokens": 2}}


def _judge(case, run):
    """Unreadable on case C0000, so its cells are holes that --drop-holes drops from every release."""
    return "I would rather not say." if case["case_id"] == "C0000" else "VERDICT: PASS"


def holes_dropped(tmp: Path) -> list[str]:
    from releasegate.run import run
    from run_support import write_cases

    metric = {"name": "judged", "kind": "judge", "rubric": "Q: {input}\nA: {output}\nReply PASS or FAIL.",
              "system": {"kind": "python", "function": _judge}}
    run(systems={"r1": _answer, "r2": {"kind": "python", "function": _answer, "version": "b"}},
        cases=write_cases(tmp / "cases.csv", N), metric=metric, store=tmp / "store", runs=1, max_attempts=1,
        backoff_s=0.0)
    return [str(tmp / "store"), "--baseline", "r1", "--drop-holes"]


def _reason(name: str, count: int) -> Callable[[dict], bool]:
    return lambda note: any(r["reason"] == name and r["count"] == count
                            for c in note["candidates"] for r in c["exclusions"]["reasons"])


def _set_apart(kind: str, count: int) -> Callable[[dict], bool]:
    return lambda note: any(x["kind"] == kind and x["count"] == count for x in note.get("input_exclusions", ()))


@dataclass(frozen=True)
class Kind:
    make: Callable[[Path], list[str]]  # writes the smallest input under the folder; the arguments of check
    said: str  # the words, with the count, each of the four texts holds
    in_json: Callable[[dict], bool]  # the JSON note's record of it, with its count


KINDS = {
    "only_baseline": Kind(only_baseline, "1 of 12 cases left out: missing on r2", _reason("only_baseline", 1)),
    "only_candidate": Kind(only_candidate, "1 case only on r2, not compared", _reason("only_candidate", 1)),
    "content_changed": Kind(content_changed, "1 of 12 cases left out: content changed",
                            _reason("content_changed", 1)),
    "errored": Kind(errored, "1 of 12 cases left out: errored", _reason("errored", 1)),
    "runs_incomplete": Kind(runs_incomplete, "1 case with missing runs counted as failures",
                            _reason("runs_incomplete", 1)),
    "rows_dropped": Kind(rows_dropped, "1 row without an outcome dropped in r2 (--missing drop)",
                         _set_apart("rows_dropped", 1)),
    "rows_failed": Kind(rows_failed, "1 row without an outcome in r2 counted as a failure (--missing fail)",
                        _set_apart("rows_failed", 1)),
    "errors_failed": Kind(errors_failed, "1 errored row in r2 counted as a failure (--missing fail)",
                          _set_apart("errors_failed", 1)),
    "rows_failed_of_one_metric": Kind(
        rows_failed_of_one_metric, "accuracy: 1 row without an outcome in r2 counted as a failure (--missing fail)",
        lambda note: [(x["kind"], x["count"]) for x in note["metrics"]["accuracy"]["input_exclusions"]]
        == [("rows_failed", 1)] and "input_exclusions" not in note["metrics"]["format_ok"]),
    "not_judged": Kind(not_judged, "r3, not among the policy's candidates (r2)",
                       lambda note: note["not_judged"] == [{"release": "r3", "reason": "not_a_candidate"}]),
    "table_not_read": Kind(table_not_read, "1 table not read (samples.csv)", _set_apart("tables_not_read", 1)),
    "holes_dropped": Kind(holes_dropped, "1 case dropped from the run store", _set_apart("holes_dropped", 1)),
}


def _text(markup: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", markup)).split())


def _page_one(page: str) -> str:
    """The HTML note's text from its title to the first section of the statistics (with several metrics, the
    first metric's section): the plain paragraphs and the verdict cards a reader sees first."""
    body = page[page.index("<body"):]
    ends = [body.find(mark) for mark in ('<section id="summary"', '<section class="metric"')]
    return _text(body[:min(end for end in ends if end >= 0)])


def _flat(text: str) -> str:
    """Markdown as read: the escapes of its special characters undone, every run of spaces one."""
    return " ".join(re.sub(r"\\([\\`*_{}\[\]()#+\-.!|<>])", r"\1", text).split())


@pytest.mark.parametrize("name", list(KINDS))
def test_each_exclusion_is_named_with_its_count_wherever_the_verdict_is_read(name, tmp_path, monkeypatch):
    kind = KINDS[name]
    work = tmp_path / "in"
    work.mkdir()
    arguments = kind.make(work)
    out = tmp_path / "out"
    out.mkdir()
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(out / "summary.md"))
    if "--baseline" not in arguments:
        arguments += ["--baseline", "r1"]
    result = run_cli("check", *arguments, "-o", out / "note.html", "-o", out / "note.json",
                     "--comment", out / "comment.md")
    assert result.exit_code in (0, 1, 3), result.output
    places = {"check": " ".join(result.stdout.split()),
              "job summary": _flat((out / "summary.md").read_text()),
              "PR comment": _flat((out / "comment.md").read_text()),
              "page one": _page_one((out / "note.html").read_text())}
    missing = [place for place, text in places.items() if kind.said not in text]
    assert not missing, f"{kind.said!r} not in {missing}:\n" + "\n---\n".join(places[p] for p in missing)
    assert kind.in_json(json.loads((out / "note.json").read_text()))
