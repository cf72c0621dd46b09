"""A case is compared only with itself (issue 44 items 1 and 2): its content decides as well as its id, ids that
are dataset positions are paired by content, and a case lacking runs is refused or its missing runs counted as
failures, never dropped unseen. Expected figures are computed here from the rows themselves, by content, not by
releasegate."""

from __future__ import annotations

import json

import pytest

from conftest import build_report, run_cli
from releasegate.errors import IncompleteRunsError, PairingError

QUESTIONS = [f"Question {k}: what is {k} + {k}?" for k in range(13)]


def _write(tmp_path, rows, header, name="results.csv"):
    path = tmp_path / name
    path.write_text("\n".join([header, *(",".join(map(str, r)) for r in rows)]) + "\n")
    return path


def _by_content(base: dict[str, int], cand: dict[str, int]) -> tuple[int, int]:
    """fixed, broke over the questions both releases asked, paired by their text."""
    shared = base.keys() & cand.keys()
    return (sum(base[q] == 0 and cand[q] == 1 for q in shared), sum(base[q] == 1 and cand[q] == 0 for q in shared))


def test_a_replaced_case_is_refused_in_one_line_naming_the_old_and_new_text(tmp_path):
    rows = [("r1", f"s{k:02d}", k % 3 > 0, QUESTIONS[k]) for k in range(12)]
    rows += [("r2", f"s{k:02d}", k % 4 > 0, QUESTIONS[k] if k != 5 else "A replaced question.") for k in range(12)]
    path = _write(tmp_path, rows, "release,case_id,passed,input")
    result = run_cli("check", path, "--baseline", "r1")
    assert result.exit_code == 2
    line = result.output.strip()
    assert line.count("\n") == 0 and "error[pairing]" in line
    assert "1 case(s) have other content in 'r2'" in line and "'s05'" in line
    assert "'Question 5: what is 5 + 5?' in 'r1'" in line and "'A replaced question.' in 'r2'" in line
    with pytest.raises(PairingError, match="--allow-changed"):
        build_report(path, baseline="r1")


@pytest.mark.parametrize("replaced", [0, 11])
def test_a_replaced_case_is_found_on_the_first_and_the_last_row_of_each_release(tmp_path, replaced):
    # The first case of the file is its first row: a content check that skipped row 0, or a release's last row,
    # would compare another question under the same id unseen.
    rows = [("r1", f"s{k:02d}", k % 3 > 0, QUESTIONS[k]) for k in range(12)]
    rows += [("r2", f"s{k:02d}", k % 4 > 0, QUESTIONS[k] if k != replaced else "A replaced question.")
             for k in range(12)]
    result = run_cli("check", _write(tmp_path, rows, "release,case_id,passed,input"), "--baseline", "r1")
    assert result.exit_code == 2 and "error[pairing]" in result.output
    assert "1 case(s) have other content in 'r2'" in result.output and f"'s{replaced:02d}'" in result.output


@pytest.mark.parametrize("without_content", [(), (0,), (0, 11)])
def test_the_cases_paired_by_id_alone_are_counted_exactly(tmp_path, without_content):
    # A case whose input is blank on one side is paired by its id only; the count is said in the note and the
    # JSON. The first row of the file is a case with content like any other: it is not counted.
    rows = [("r1", f"s{k:02d}", k % 3 > 0, "" if k in without_content else QUESTIONS[k]) for k in range(12)]
    rows += [("r2", f"s{k:02d}", k % 4 > 0, QUESTIONS[k]) for k in range(12)]
    out = tmp_path / "note.json"
    result = run_cli("check", _write(tmp_path, rows, "release,case_id,passed,input"), "--baseline", "r1", "-o", out)
    assert result.exit_code in (0, 1, 3), result.output
    note = json.loads(out.read_text())
    exclusions = note["candidates"][0]["exclusions"]
    assert exclusions["pairing"] == "content" and exclusions["compared"] == 12
    assert exclusions["paired_by_id_only"] == len(without_content)
    said = f"r2: {len(without_content)} of the cases compared paired by id only"
    assert any(said in line for line in note["notes"]) is bool(without_content), note["notes"]
    # Compared without being checked to be the same question: said on the check line too, as a case left out is.
    n = len(without_content)
    on_line = f" r2 ({n} case{'' if n == 1 else 's'} paired by id only, their content not given on both sides): "
    assert (on_line in result.output.splitlines()[0]) is bool(without_content), result.output
    assert ("paired by id only" in note["candidates"][0]["headline"]) is bool(without_content)


def test_an_empty_text_is_no_content_and_pairs_its_case_by_id(tmp_path):
    # JSON lines keep an empty input as the empty text (a CSV reads it as missing): it asks nothing, so the case is
    # paired by its id and counted as such, not refused as another question.
    lines = [json.dumps({"release": r, "case_id": f"c{k}", "passed": int(k % 2 == 0),
                         "input": "" if (r, k) == ("r2", 3) else QUESTIONS[k]}) for r in ("r1", "r2") for k in range(6)]
    path, out = tmp_path / "results.jsonl", tmp_path / "note.json"
    path.write_text("\n".join(lines) + "\n")
    result = run_cli("check", path, "--baseline", "r1", "-o", out)
    assert result.exit_code in (0, 1, 3), result.output
    exclusions = json.loads(out.read_text())["candidates"][0]["exclusions"]
    assert (exclusions["compared"], exclusions["paired_by_id_only"], exclusions["reasons"]) == (6, 1, [])


def test_with_allow_changed_the_changed_case_is_left_out_counted_and_named(tmp_path):
    base = {f"s{k:02d}": int(k % 3 > 0) for k in range(12)}
    cand = {f"s{k:02d}": int(k % 4 > 0) for k in range(12)}
    rows = [("r1", c, v, QUESTIONS[int(c[1:])]) for c, v in base.items()]
    rows += [("r2", c, v, QUESTIONS[int(c[1:])] if c != "s05" else "A replaced question.") for c, v in cand.items()]
    path = _write(tmp_path, rows, "release,case_id,passed,input")
    out = tmp_path / "note.json"
    result = run_cli("check", path, "--baseline", "r1", "--allow-changed", "--margin", "0.5", "-o", out)
    assert result.exit_code in (0, 1, 3), result.output
    assert " r2 (1 of 12 cases left out: content changed): " in result.output.splitlines()[0]
    candidate = json.loads(out.read_text())["candidates"][0]
    kept = {c: v for c, v in base.items() if c != "s05"}
    fixed, broke = _by_content({QUESTIONS[int(c[1:])]: v for c, v in kept.items()},
                               {QUESTIONS[int(c[1:])]: cand[c] for c in kept})
    assert (candidate["overall"]["n"], candidate["overall"]["fixed"], candidate["overall"]["broke"]) == (11, fixed, broke)
    exclusions = candidate["exclusions"]
    assert exclusions["reasons"] == [{"reason": "content_changed", "count": 1, "left_out": True, "case_ids": ["s05"]}]
    assert (exclusions["baseline_cases"], exclusions["compared"], exclusions["pairing"]) == (12, 11, "content")


def test_a_case_whose_text_differs_only_in_spacing_is_the_same_case(tmp_path):
    rows = [("r1", f"c{k}", 1, QUESTIONS[k]) for k in range(4)]
    rows += [("r2", f"c{k}", 1, f"  {QUESTIONS[k]}  " if k == 2 else QUESTIONS[k]) for k in range(4)]
    report = build_report(_write(tmp_path, rows, "release,case_id,passed,input"), baseline="r1")
    cand = report.analysis.candidates[0]
    assert cand.overall.n == 4 and cand.exclusions.count == 0 and cand.exclusions.basis == "content"


def _inserted(tmp_path):
    """OpenAI evals' shape: ids are positions (`split.n`); the candidate's dataset has a question inserted at the
    top, so every id of the baseline names another question in the candidate."""
    base_outcome = {q: int(k % 5 != 0) for k, q in enumerate(QUESTIONS[1:])}  # 12 questions
    cand_outcome = {q: int(k % 3 != 0) for k, q in enumerate(QUESTIONS)}  # QUESTIONS[0] is the new one
    rows = [("r1", f"dev.{k}", base_outcome[q], q, "true") for k, q in enumerate(QUESTIONS[1:])]
    rows += [("r2", f"dev.{k}", cand_outcome[q], q, "true") for k, q in enumerate(QUESTIONS)]
    return _write(tmp_path, rows, "release,case_id,passed,input,id_is_position"), base_outcome, cand_outcome


def test_position_ids_across_an_inserted_question_are_paired_by_content(tmp_path):
    path, base, cand = _inserted(tmp_path)
    refused = run_cli("check", path, "--baseline", "r1")
    assert refused.exit_code == 2 and "1 case(s) only in 'r2' (e.g. 'r2:dev.0')" in refused.output
    report = build_report(path, baseline="r1", allow_missing=True)
    c = report.analysis.candidates[0]
    assert (c.overall.n, c.overall.fixed, c.overall.broke) == (12, *_by_content(base, cand))
    # By id every pair would be two different questions; the listing shows the baseline's ids and the text asked.
    broken = {b.case_id: dict(b.metadata)["input"] for b in c.broken_cases}
    assert broken and all(QUESTIONS[1:].index(text) == int(case.split(".")[1]) for case, text in broken.items())
    assert c.exclusions.ids("only_candidate") == ("r2:dev.0",)
    assert any("paired with r1's by content: 12 found (12 under another id), 1 not in r1" in n
               for n in report.analysis.notes)
    assert report.verdicts[0].headline.startswith(
        f"{report.verdicts[0].label} r2 (1 case only on r2, not compared): ")


def test_position_ids_without_content_are_refused(tmp_path):
    rows = [(r, k, 1, "true") for r in ("r1", "r2") for k in range(1, 4)]
    path = _write(tmp_path, rows, "release,case_id,passed,id_is_position")
    with pytest.raises(PairingError, match="are positions in its dataset"):
        build_report(path, baseline="r1", allow_missing=True)


def test_position_ids_are_paired_by_the_adapters_content_hash(tmp_path):
    # What an adapter writes: the fingerprint, no text; the candidate's ids shifted by one.
    rows = [("r1", k, int(k % 2 == 0), f"h{k:04d}", "true") for k in range(1, 9)]
    rows += [("r2", k + 1, int(k % 3 != 0), f"h{k:04d}", "true") for k in range(1, 9)]
    report = build_report(_write(tmp_path, rows, "release,case_id,passed,content_hash,id_is_position"),
                          baseline="r1")
    c = report.analysis.candidates[0]
    base = {f"h{k:04d}": int(k % 2 == 0) for k in range(1, 9)}
    cand = {f"h{k:04d}": int(k % 3 != 0) for k in range(1, 9)}
    assert (c.overall.n, c.overall.fixed, c.overall.broke) == (8, *_by_content(base, cand))
    # Every case found under another id and none new: the note says so all the same.
    assert any("paired with r1's by content: 8 found (8 under another id), 0 not in r1." in n
               for n in report.analysis.notes), report.analysis.notes


def test_without_content_the_note_says_pairing_by_id_once(tmp_path):
    rows = [(r, f"c{k}", 1) for r in ("r1", "r2", "r3") for k in range(5)]
    report = build_report(_write(tmp_path, rows, "release,case_id,passed"), baseline="r1")
    said = [n for n in report.analysis.notes if "pairing by id only" in n.lower()]
    assert said == ["Pairing by id only: the cases' content was not given."]
    assert all(c.exclusions.basis == "id" for c in report.analysis.candidates)


def test_content_from_the_case_table_pairs_by_id_and_says_so(example):
    report = build_report(example["eval_results.csv"], example["eval_cases.csv"], example["releasegate.toml"])
    assert any("content came from the case table" in n for n in report.analysis.notes)
    assert all(c.exclusions.basis == "case_table" for c in report.analysis.candidates)


def _runs(tmp_path, drop_failing: bool):
    """300 cases x 3 runs; the baseline passes every run; the candidate fails run 3 of 120 cases. With
    ``drop_failing`` those 120 failing run rows are absent (a crashed or filtered job)."""
    rows = [("r1", f"c{i:03d}", k, 1) for i in range(300) for k in (1, 2, 3)]
    for i in range(300):
        for k in (1, 2, 3):
            failing = i < 120 and k == 3
            if not (failing and drop_failing):
                rows.append(("r2", f"c{i:03d}", k, 0 if failing else 1))
    return _write(tmp_path, rows, "release,case_id,run,passed", "absent.csv" if drop_failing else "present.csv")


def test_missing_failing_runs_are_refused_and_with_the_flag_read_as_with_the_rows_present(tmp_path):
    absent, present = _runs(tmp_path, True), _runs(tmp_path, False)
    refused = run_cli("check", absent, "--baseline", "r1")
    assert refused.exit_code == 2 and refused.output.count("\n") == 1
    assert "error[runs]: 120 case(s) of 'r2' have fewer runs than the 3" in refused.output
    with pytest.raises(IncompleteRunsError):
        build_report(absent, baseline="r1")
    whole = run_cli("check", present, "--baseline", "r1")
    assert whole.exit_code == 1 and whole.output.startswith("DON'T SHIP r2: ")
    allowed = run_cli("check", absent, "--baseline", "r1", "--allow-incomplete-runs")
    assert allowed.exit_code == 1
    assert allowed.output.startswith("DON'T SHIP r2 (120 cases with missing runs counted as failures): ")
    a = build_report(absent, baseline="r1", allow_incomplete_runs=True).analysis.candidates[0]
    b = build_report(present, baseline="r1").analysis.candidates[0]
    assert a.overall == b.overall and a.overall.diff == pytest.approx(-120 / 900)
    assert a.sections.run_axis.per_run == b.sections.run_axis.per_run


def test_errored_runs_stay_errored_with_the_flag(tmp_path):
    rows = [("r1", f"c{i}", k, 1, "") for i in range(40) for k in (1, 2)]
    rows += [("r2", f"c{i}", k, 1, "") for i in range(40) for k in (1, 2) if not (i == 3 and k == 2)]
    rows[-1] = ("r2", "c39", 2, "", "TimeoutError")
    report = build_report(_write(tmp_path, rows, "release,case_id,run,passed,error"), baseline="r1",
                          allow_incomplete_runs=True)
    x = report.analysis.candidates[0].exclusions
    assert x.ids("errored") == ("c39",) and x.ids("runs_incomplete") == ("c3",)
    assert report.analysis.candidates[0].overall.n == 39


def test_allow_missing_is_named_on_the_check_line_the_job_summary_and_the_pr_comment(tmp_path, monkeypatch):
    rows = [("r1", f"c{i:03d}", int(i % 5 != 0)) for i in range(300)]
    # The candidate's 60 failing cases are absent; the rest pass.
    rows += [("r2", f"c{i:03d}", 1) for i in range(300) if i % 5 != 0]
    path = _write(tmp_path, rows, "release,case_id,passed")
    summary, comment = tmp_path / "summary.md", tmp_path / "comment.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = run_cli("check", path, "--baseline", "r1", "--allow-missing", "--comment", comment)
    clause = "60 of 300 cases left out: missing on r2"
    assert f"r2 ({clause}): " in result.output.splitlines()[0]
    assert clause in summary.read_text() and clause in comment.read_text()


def test_the_notebook_api_takes_the_keys_as_keywords():
    import pandas as pd

    import releasegate

    frame = pd.DataFrame({"release": ["r1"] * 4 + ["r2"] * 4, "case_id": ["c1", "c2", "c3", "c4"] * 2,
                          "passed": [1, 1, 0, 1, 1, 0, 1, 1],
                          "input": ["a", "b", "c", "d", "a", "B?", "c", "d"]})
    with pytest.raises(PairingError, match="other content"):
        releasegate.compare(frame, baseline="r1")
    note = releasegate.compare(frame, baseline="r1", allow_changed=True)
    assert note.verdicts[0].excluded == "1 of 4 cases left out: content changed"


def test_a_filled_run_takes_a_label_of_its_own_release(tmp_path):
    # Seeds 1-3 for the baseline, 4-6 for the candidate; c000 lacks its run 6. The run counted as a failure is the
    # candidate's run 6, not the baseline's run 1: the run axis shows the candidate's three runs and no fourth.
    rows = [("r1", f"c{i:03d}", k, 1) for i in range(40) for k in (1, 2, 3)]
    rows += [("r2", f"c{i:03d}", k, 1) for i in range(40) for k in (4, 5, 6) if not (i == 0 and k == 6)]
    report = build_report(_write(tmp_path, rows, "release,case_id,run,passed"), baseline="r1",
                          allow_incomplete_runs=True)
    axis = report.analysis.candidates[0].sections.run_axis
    assert [(r.run, r.candidate) for r in axis.per_run if r.candidate == r.candidate] == [
        ("4", 1.0), ("5", 1.0), ("6", pytest.approx(39 / 40))]
    assert axis.runs_candidate == 3


@pytest.mark.parametrize("short", ["one case", "every case"])
def test_the_baselines_missing_runs_are_refused_even_with_the_flag(tmp_path, short):
    # Counted as failures the baseline's missing runs would be the candidate's gains: both releases pass every run
    # they have, so anything but a refusal would read as an improvement that never happened.
    runs = {"r1": 3, "r2": 5} if short == "every case" else {"r1": 3, "r2": 3}
    rows = [(r, f"c{i:03d}", k, 1) for r, n in runs.items() for i in range(60) for k in range(1, n + 1)
            if not (short == "one case" and (r, i, k) == ("r1", 0, 3))]
    path = _write(tmp_path, rows, "release,case_id,run,passed")
    result = run_cli("check", path, "--baseline", "r1", "--allow-incomplete-runs")
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert "of 'r1' have fewer runs than the" in result.output
    assert "the baseline's missing runs cannot be counted as failures" in result.output
    with pytest.raises(IncompleteRunsError, match="would read as the candidate's gains"):
        build_report(path, baseline="r1", allow_incomplete_runs=True)
