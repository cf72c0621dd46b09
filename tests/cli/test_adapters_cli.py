"""Harness outputs through the whole command: `releasegate report base.eval cand.eval -o r.md` and friends."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

from conftest import run_cli

FIXTURES = Path(__file__).parents[1] / "fixtures"
SCORED = FIXTURES / "inspect" / "2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval"
UNSCORED = FIXTURES / "inspect" / "2025-02-11T15-17-00-05-00_popularity_dPiJifoWeEQBrfWsAopzWr.eval"
LM = FIXTURES / "lm_eval"
PROMPTFOO = Path(__file__).parents[1] / "data" / "promptfoo" / "results.json"


def _second_model_log(source: Path, target: Path, model: str, flip: set[str]) -> list[str]:
    """A copy of an Inspect log as if another model had run it: header model renamed, some scores flipped."""
    flipped = []
    with zipfile.ZipFile(source) as zin, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename in ("header.json", "_journal/start.json"):
                doc = json.loads(data)
                doc["eval"]["model"] = model
                data = json.dumps(doc).encode()
            elif info.filename.startswith("samples/"):
                doc = json.loads(data)
                if str(doc["id"]) in flip:
                    for score in doc["scores"].values():
                        score["value"] = "I" if score["value"] == "C" else "C"
                    flipped.append(str(doc["id"]))
                data = json.dumps(doc).encode()
            zout.writestr(info.filename, data)
    return flipped


def _outcomes(path: Path) -> dict[str, str]:
    with zipfile.ZipFile(path) as z:
        return {str(json.loads(z.read(n))["id"]): next(iter(json.loads(z.read(n))["scores"].values()))["value"]
                for n in z.namelist() if n.startswith("samples/")}


def test_inspect_logs_of_two_models(tmp_path):
    base = tmp_path / "base.eval"
    shutil.copy(SCORED, base)
    values = _outcomes(base)
    passing = sorted(k for k, v in values.items() if v == "C")
    failing = sorted(k for k, v in values.items() if v == "I")
    cand = tmp_path / "cand.eval"
    _second_model_log(SCORED, cand, "anthropic/claude-test", {passing[0], passing[1], *failing[:1]})
    md, js = tmp_path / "r.md", tmp_path / "r.json"
    result = run_cli("report", base, cand, "--baseline", "openai/gpt-4o-mini", "-o", md, "-o", js)
    assert result.exit_code in (0, 1, 3), result.output
    report = json.loads(js.read_text())
    overall = report["candidates"][0]["overall"]
    assert report["candidates"][0]["name"] == "anthropic/claude-test"
    assert (overall["broke"], overall["fixed"], overall["n"]) == (2, min(1, len(failing)), 10)
    assert [i["format"] for i in report["inputs"]] == ["inspect", "inspect"]
    assert "anthropic/claude-test" in md.read_text()


def test_inspect_unscored_log_is_refused_under_any_missing_policy(tmp_path):
    args = ["report", f"scored={SCORED}", f"unscored={UNSCORED}", "--baseline", "scored", "-o", tmp_path / "r.json"]
    for extra in ((), ("--missing", "fail")):  # an unscored log is not a log of failures
        result = run_cli(*args, *extra)
        assert result.exit_code == 2
        assert "holds no scores" in result.output and "inspect score" in result.output
        assert not (tmp_path / "r.json").exists()


def test_lm_eval_samples_of_two_models(tmp_path):
    samples = next(LM.glob("samples_*.jsonl"))
    results = next(LM.glob("results_*.json"))
    for name, model in (("a", "org/model-a"), ("b", "org/model-b")):
        folder = tmp_path / name
        folder.mkdir()
        doc = json.loads(results.read_text())
        doc["model_name"] = model
        (folder / results.name).write_text(json.dumps(doc))
        lines = samples.read_text().splitlines()
        if name == "b":
            # The candidate gets the first document right that the baseline got wrong, and vice versa.
            rows = [json.loads(line) for line in lines]
            for row in rows[:1]:
                row["exact_match"] = 1.0 - float(row["exact_match"])
            lines = [json.dumps(r) for r in rows]
        (folder / samples.name).write_text("\n".join(lines) + "\n")
    out = tmp_path / "r.json"
    result = run_cli("report", tmp_path / "a" / samples.name, tmp_path / "b" / samples.name,
                     "--baseline", "org/model-a", "--metric", "exact_match", "-o", out)
    assert result.exit_code in (0, 1, 3), result.output
    overall = json.loads(out.read_text())["candidates"][0]["overall"]
    assert overall["fixed"] + overall["broke"] == 1


def test_promptfoo_two_providers(tmp_path):
    out = tmp_path / "r.json"
    result = run_cli("report", PROMPTFOO, "--baseline", "gpt-4o-mini", "--missing", "drop", "--allow-missing",
                     "-o", out, "-o", tmp_path / "r.md")
    assert result.exit_code in (0, 1, 3), result.output
    report = json.loads(out.read_text())
    assert report["baseline"] == "gpt-4o-mini"
    assert [c["name"] for c in report["candidates"]] == ["openai:gpt-4.1-nano"]


def test_wrong_file_for_forced_format(tmp_path, example):
    result = run_cli("report", example["eval_results.csv"], "--format", "inspect", "--baseline", "r1-live",
                     "-o", tmp_path / "r.md")
    assert result.exit_code == 2
    line = result.output.strip()
    assert line.startswith("releasegate: error[") and "\n" not in line
    assert "inspect" in line.lower()
    assert not (tmp_path / "r.md").exists()
