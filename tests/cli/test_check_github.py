"""`releasegate check` in GitHub Actions: the job summary, -o reports, the comment size limit, lean imports."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pandas as pd

from conftest import ROOT, run_cli
from releasegate.render.markdown import GITHUB_COMMENT_LIMIT

MARKER = "<!-- releasegate -->"


def _args(example) -> list:
    return [example["eval_results.csv"], "--cases", example["eval_cases.csv"], "--policy", example["releasegate.toml"]]


def test_step_summary_appended_when_set(tmp_path, example, monkeypatch):
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = run_cli("check", *_args(example))
    assert result.exit_code == 1
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("earlier step\n")  # appended, never overwritten
    assert "### releasegate: ❌ DON'T SHIP · bank-assistant" in text
    assert "| ❌ **DON'T SHIP** | r2-new-prompt | it broke 6 of 45 passing Fraud cases" in text
    assert "| `critical_broken` | **fired**: it broke 6 of 45" in text
    assert "### Broken cases" not in text  # the summary is the verdict and the rules only
    # Without the example policy (no critical categories, no latency guardrail) r2 ships under Holm; --no-policy, as the
    # policy beside the results would otherwise be found.
    result = run_cli("check", example["eval_results.csv"], "--cases", example["eval_cases.csv"],
                     "--baseline", "r1-live", "--candidate", "r2-new-prompt", "--no-policy", "--correction", "holm")
    assert result.exit_code == 0  # without a policy's title, the title is the data's: the results file's name
    assert "### releasegate: ✅ SHIP · eval\\_results" in summary.read_text(encoding="utf-8")


def test_no_step_summary_flag_and_unwritable_summary(tmp_path, example, monkeypatch):
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert run_cli("check", *_args(example), "--no-step-summary").exit_code == 1
    assert not summary.exists()
    # A summary that cannot be written is a warning; the verdict's exit status stands.
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "missing-dir" / "summary.md"))
    result = run_cli("check", *_args(example))
    assert result.exit_code == 1
    assert "warning: cannot append to $GITHUB_STEP_SUMMARY" in result.output


def test_a_step_summary_naming_an_input_is_not_appended_to(tmp_path, monkeypatch):
    results = tmp_path / "r.csv"
    results.write_text("release,case_id,passed\nr1,c1,1\nr1,c2,0\nr2,c1,1\nr2,c2,1\n", encoding="utf-8")
    before = results.read_bytes()
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(results))
    result = run_cli("check", results, "--baseline", "r1", "--no-policy")
    assert result.exit_code in (0, 3)  # the verdict's exit status stands
    assert "warning: not appended to $GITHUB_STEP_SUMMARY: output" in result.output
    assert results.read_bytes() == before


def test_check_writes_reports_and_keeps_exit_codes(tmp_path, example):
    md, js = tmp_path / "comment.md", tmp_path / "note.json"
    result = run_cli("check", *_args(example), "-o", md, "-o", js)
    assert result.exit_code == 1
    assert result.output.startswith("DON'T SHIP r2-new-prompt")
    report_md = tmp_path / "report.md"
    assert run_cli("report", *_args(example), "-o", report_md).exit_code == 0
    assert md.read_text(encoding="utf-8") == report_md.read_text(encoding="utf-8")
    assert md.read_text(encoding="utf-8").startswith(MARKER + "\n## Release note: bank-assistant")
    assert json.loads(js.read_text(encoding="utf-8"))["candidates"][0]["verdict"] == "dont_ship"
    # Bad output paths are refused before any work, with status 2 and nothing written.
    result = run_cli("check", *_args(example), "-o", tmp_path / "note.docx")
    assert result.exit_code == 2 and "cannot tell the output format" in result.output
    result = run_cli("check", *_args(example), "-o", tmp_path / "no-such-dir" / "c.md")
    assert result.exit_code == 2 and not (tmp_path / "no-such-dir").exists()


def test_comment_stays_under_githubs_limit(tmp_path):
    # 3,000 cases with long inputs, 900 of them broken: the full listing would be several MB.
    rows = []
    for k in range(3000):
        text = f"case {k} " + "long input | with `code` <and> markup " * 40
        rows.append({"release": "live", "case_id": f"c{k:04d}", "passed": 1, "category": f"cat{k % 60}",
                     "input": text})
        rows.append({"release": "next", "case_id": f"c{k:04d}", "passed": int(k % 10 >= 3), "category": f"cat{k % 60}",
                     "input": text})
    results = tmp_path / "results.csv"
    pd.DataFrame(rows).to_csv(results, index=False)
    comment = tmp_path / "comment.md"
    result = run_cli("check", results, "--baseline", "live", "-o", comment)
    assert result.exit_code == 1
    text = comment.read_text(encoding="utf-8")
    assert len(text) <= GITHUB_COMMENT_LIMIT
    assert text.startswith(MARKER) and "DON'T SHIP" in text.split("### Summary")[0]
    assert "more broken cases cut to keep this comment under GitHub's size limit" in text


def _modules_loaded_by_check(example, env_extra: dict[str, str]) -> tuple[int, list[str]]:
    code = (
        "import sys\n"
        "from releasegate.cli import main\n"
        "try:\n"
        f"    main({[str(a) for a in ['check', *_args(example)]]!r})\n"
        "except SystemExit as exc:\n"
        "    status = exc.code\n"
        "print(status, ' '.join(m for m in ('jinja2', 'scipy.stats', 'weasyprint', 'altair') if m in sys.modules))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", "")}
    env.pop("GITHUB_STEP_SUMMARY", None)
    env.update(env_extra)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    status, _, modules = out.strip().splitlines()[-1].partition(" ")
    return int(status), modules.split()


def test_check_imports_jinja_only_for_a_summary(tmp_path, example):
    status, modules = _modules_loaded_by_check(example, {})
    assert status == 1 and modules == []
    summary = tmp_path / "summary.md"
    status, modules = _modules_loaded_by_check(example, {"GITHUB_STEP_SUMMARY": str(summary)})
    assert status == 1 and modules == ["jinja2"]
    assert "DON'T SHIP" in summary.read_text(encoding="utf-8")

