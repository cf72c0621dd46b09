"""Done-when 6 of issue 20: a judge's unparseable replies are holes; re-scoring makes no system call."""

from __future__ import annotations

import math

from conftest import run_cli
from releasegate.run import run
from releasegate.run.judge import parse_judge
from releasegate.run.metric_kinds import local_score, parse_metric
from releasegate.run.store import Store
from run_support import write_cases

CALLS = {"system": 0, "judge": 0}


def system_under_test(case, run):
    CALLS["system"] += 1
    return {"output": case["reference"] if int(case["case_id"][1:]) % 4 else "wrong",
            "usage": {"input_tokens": 10, "output_tokens": 2}}


def judge(case, run):
    """Unreadable for every fifth case; otherwise PASS when the output equals the reference."""
    CALLS["judge"] += 1
    if int(case["case_id"][1:]) % 5 == 0:
        return "I would rather not say."
    verdict = "PASS" if case["output"] == case["reference"] else "FAIL"
    return f"Reasoning... VERDICT: {verdict}"


RUBRIC = "Question: {input}\nAnswer: {output}\nReference: {reference}\nReply PASS or FAIL."


def _run(tmp_path, metric, **kw):
    return run(systems={"r1": system_under_test, "r2": {"kind": "python", "function": system_under_test,
                                                         "version": "b"}},
               cases=write_cases(tmp_path / "cases.csv", 20), metric=metric, store=tmp_path / "store", runs=1,
               max_attempts=2, backoff_s=0.0, **kw)


def test_unparseable_judge_replies_are_holes_never_scores(tmp_path):
    CALLS.update(system=0, judge=0)
    metric = {"name": "judged", "kind": "judge", "rubric": RUBRIC, "system": {"kind": "python", "function": judge}}
    result = _run(tmp_path, metric)
    # r1 and r2 answer alike: 40 cells, 20 distinct (case, output) keys, one judge call each; an unreadable
    # reply is a hole, not asked again within the run.
    assert CALLS == {"system": 40, "judge": 20} and result.stats.judge_calls == 20
    unreadable = {f"C{i:04d}" for i in range(0, 20, 5)}
    assert {h.case_id for h in result.holes} == unreadable and len(result.holes) == 8
    assert all(h.reason == "unparseable" for h in result.holes)
    table = result.table.set_index(["release", "case_id"])
    for (release, case_id), row in table.iterrows():
        if case_id in unreadable:
            assert math.isnan(row["passed"])
        else:
            assert row["passed"] == (1.0 if int(case_id[1:]) % 4 else 0.0)
    with Store(tmp_path / "store") as db:
        stored = db.connection.execute("SELECT judge_prompt, judge_reply, status FROM scores").fetchall()
    assert any("Reference: answer" in p and s == "unparseable" for p, r, s in stored)

    refused = run_cli("check", tmp_path / "store")
    assert refused.exit_code == 2 and "8 cells missing or errored" in refused.output
    report = tmp_path / "note.md"
    dropped = run_cli("report", tmp_path / "store", "--baseline", "r1", "--drop-holes", "-o", report)
    assert dropped.exit_code == 0, dropped.output
    text = report.read_text()
    assert "4 case(s) dropped" in text and all(case in text for case in sorted(unreadable))
    # A judge metric gated without gold labels says so (issue 35).
    assert "Uncalibrated judge" in text and "releasegate run judge metric judged" in text

    # A resume asks the judge again on the holes only, once per distinct key: no system call, 4 judge calls for
    # the 8 cells (still unreadable).
    again = _run(tmp_path, metric)
    assert CALLS == {"system": 40, "judge": 24} and len(again.holes) == 8


def test_rescoring_with_a_new_metric_calls_no_system(tmp_path):
    CALLS.update(system=0, judge=0)
    first = _run(tmp_path, "exact")
    assert first.complete and CALLS["system"] == 40
    second = _run(tmp_path, {"kind": "contains"})
    assert second.complete and CALLS["system"] == 40 and second.plan.counts["unscored"] == 40
    assert second.table["passed"].tolist() == first.table["passed"].tolist()
    metric = {"kind": "judge", "rubric": RUBRIC, "pattern": r"VERDICT: (\w+)",
              "system": {"kind": "python", "function": judge}}
    third = _run(tmp_path, metric)
    assert CALLS["system"] == 40 and CALLS["judge"] == 20 and len(third.holes) == 8


def test_a_score_depends_on_the_case_not_only_on_the_output(tmp_path):
    """The same output right for one case and wrong for another: the score cache key covers the case."""
    def constant(case, run):
        return "answer1"

    result = run(systems={"r1": constant}, cases=write_cases(tmp_path / "cases.csv", 14), metric="exact",
                 store=tmp_path / "store")
    passed = result.table.set_index("case_id")["passed"]
    assert passed["C0001"] == 1.0 and passed["C0002"] == 0.0 and passed["C0008"] == 1.0


def test_metric_kinds():
    case = {"reference": "Paris", "case_id": "x"}
    exact = parse_metric({"kind": "exact", "ignore_case": True}, None, "m")
    assert local_score(exact, " paris ", case, "reference").value == 1.0
    assert local_score(parse_metric({"kind": "exact"}, None, "m"), "paris", case, "reference").value == 0.0
    contains = parse_metric({"kind": "contains"}, None, "m")
    assert local_score(contains, "It is Paris.", case, "reference").value == 1.0
    regex = parse_metric({"kind": "regex"}, None, "m")
    assert local_score(regex, "Paris!", {"reference": r"^Par\w+!$"}, "reference").value == 1.0
    assert local_score(regex, "x", {"reference": "("}, "reference").status == "error"
    assert local_score(exact, "x", {"case_id": "x"}, "reference").status == "error"  # no reference: a hole
    scored = parse_metric({"kind": "judge", "rubric": "{output}", "value": "score", "pattern": r"SCORE=([\d.]+)",
                           "system": {"kind": "python", "function": judge}}, None, "m")
    assert parse_judge(scored, "ok SCORE=0.75") == ("ok", 0.75)
    assert parse_judge(scored, "SCORE=") == ("unparseable", None)
