"""promptfoo's judge flag follows the metric read (issue 35, noticed): a named score (namedScores, --metric NAME)
is a judge's verdict only when a model-graded assertion names it as its metric; the pass/fail (success) holds every
assertion, so it is a judge's when any assertion is model-graded. Before, the file's flag was every metric's."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_cli

from releasegate.load.adapters.promptfoo import read_promptfoo

DATA = Path(__file__).resolve().parents[1] / "data" / "promptfoo" / "results.json"


def _two_metrics(tmp_path: Path) -> Path:
    """The bundled promptfoo file with two named scores per result: ``correctness`` from an llm-rubric
    assertion and ``brevity`` from a javascript one."""
    doc = json.loads(DATA.read_text())
    for k, result in enumerate(doc["results"]["results"]):
        rubric = {"type": "llm-rubric", "value": "mentions 30 days", "metric": "correctness"}
        script = {"type": "javascript", "value": "output.length < 400", "metric": "brevity"}
        result["testCase"]["assert"] = [rubric, script]
        if not isinstance(result.get("gradingResult"), dict):
            continue  # an errored result: nothing graded
        correct, short = float(k % 3 != 0), float(k % 4 != 1)
        result["namedScores"] = {"correctness": correct, "brevity": short}
        result["gradingResult"]["namedScores"] = dict(result["namedScores"])
        result["gradingResult"]["componentResults"] = [
            {"pass": bool(correct), "score": correct, "reason": "", "assertion": rubric},
            {"pass": bool(short), "score": short, "reason": "", "assertion": script}]
    path = tmp_path / "results.json"
    path.write_text(json.dumps(doc))
    return path


def test_the_adapter_names_the_judged_metrics(tmp_path):
    frame = read_promptfoo(_two_metrics(tmp_path))
    assert frame.attrs["judge"] == "promptfoo llm-rubric"
    assert frame.attrs["judge_metrics"] == {"correctness": "promptfoo llm-rubric"}


def _judge_lines(path, *metrics, tmp_path):
    out = tmp_path / "note.json"
    args = [x for m in metrics for x in ("--metric", m)]
    result = run_cli("report", path, "--baseline", "gpt-4o-mini", "--missing", "drop", "--allow-missing", *args,
                     "-o", out)
    assert result.exit_code == 0, result.output
    gate = run_cli("check", path, "--baseline", "gpt-4o-mini", "--missing", "drop", "--allow-missing", *args)
    return json.loads(out.read_text()), gate.output


def test_a_non_judge_named_score_is_not_called_a_judge(tmp_path):
    path = _two_metrics(tmp_path)
    note, gate = _judge_lines(path, "brevity", tmp_path=tmp_path)
    assert "judge_metric" not in note and "uncalibrated judge" not in gate
    assert all(not f.get("judge") for f in note["inputs"])
    note, gate = _judge_lines(path, "correctness", tmp_path=tmp_path)
    assert note["judge_metric"]["judges"] == ["promptfoo llm-rubric"] and "uncalibrated judge:" in gate


def test_several_metrics_say_it_per_metric(tmp_path):
    out = tmp_path / "note.json"
    result = run_cli("report", _two_metrics(tmp_path), "--baseline", "gpt-4o-mini", "--missing", "drop",
                     "--allow-missing", "--metric", "brevity", "--metric", "correctness", "-o", out)
    assert result.exit_code == 0, result.output
    sections = json.loads(out.read_text())["metrics"]
    assert "judge_metric" not in sections["brevity"]
    assert [f.get("judge") for f in sections["brevity"]["inputs"]] == [None]
    assert sections["correctness"]["judge_metric"]["judges"] == ["promptfoo llm-rubric"]
    assert [f.get("judge") for f in sections["correctness"]["inputs"]] == ["promptfoo llm-rubric"]


def test_without_a_metric_the_pass_fail_is_the_judges(tmp_path):
    note, gate = _judge_lines(_two_metrics(tmp_path), tmp_path=tmp_path)
    assert note["judge_metric"]["judges"] == ["promptfoo llm-rubric"] and "uncalibrated judge:" in gate
