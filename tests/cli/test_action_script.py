"""The GitHub Action without a runner: scripts/action-check.sh run locally with fake GitHub files, and the
structure of action.yml and the example workflow."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

SCRIPT = ROOT / "scripts" / "action-check.sh"
ACTION = ROOT / "action.yml"
WORKFLOW = ROOT / "examples" / "github-actions" / "release-gate.yml"
MARKER = "<!-- releasegate -->"

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="bash is needed to run the action's script")


def _formats() -> str:
    """Every format whose renderer is in this tree (HTML and PDF arrive with their own module)."""
    formats = ["md", "json"]
    for name in ("html", "pdf"):
        if importlib.util.find_spec(f"releasegate.render.{name}") is not None:
            formats.append(name)
    return " ".join(formats)


def _outputs(path: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in path.read_text(encoding="utf-8").splitlines())


def run_action(tmp_path: Path, environment: dict[str, str] | None = None, **inputs: str) -> tuple[subprocess.CompletedProcess, dict[str, str], str]:
    """Run the script as action.yml does: inputs as RG_* variables, GitHub's files as fresh temporary files.
    The reports are Markdown only unless ``formats`` is given: a test of the verdict, the exit status or the
    summary does not need the HTML and PDF typeset (4 s a run); the DON'T SHIP test writes every format."""
    output, summary = tmp_path / "github_output", tmp_path / "step_summary"
    output.write_text("", encoding="utf-8")
    summary.write_text("", encoding="utf-8")
    env = {key: value for key, value in os.environ.items() if not key.startswith(("RG_", "GITHUB_"))}
    env.update({
        "GITHUB_OUTPUT": str(output),
        "GITHUB_STEP_SUMMARY": str(summary),
        "RELEASEGATE": f"{sys.executable} -m releasegate",
        "PYTHONPATH": str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""),
        "RG_FORMATS": "md",
    })
    env.update(environment or {})
    env.update({f"RG_{key.upper()}": value for key, value in inputs.items()})
    done = subprocess.run(["bash", str(SCRIPT)], check=False, cwd=tmp_path, env=env, capture_output=True, text=True)
    return done, _outputs(output), summary.read_text(encoding="utf-8")


@pytest.fixture
def inputs(example) -> dict[str, str]:
    return {"results": str(example["eval_results.csv"]), "cases": str(example["eval_cases.csv"]),
            "policy": str(example["releasegate.toml"])}


def test_dont_ship_fails_the_step_and_writes_every_output(tmp_path, inputs):
    done, outputs, summary = run_action(tmp_path, **inputs, formats=_formats())
    assert done.returncode == 1, done.stderr
    assert outputs["verdict"] == "dont_ship" and outputs["exit-code"] == "1"
    assert outputs["report-dir"] == "releasegate-report"
    for fmt in _formats().split():
        key = "markdown-path" if fmt == "md" else f"{fmt}-path"
        assert outputs[key] == f"releasegate-report/report.{fmt}"
        assert (tmp_path / outputs[key]).is_file()
    note = (tmp_path / outputs["markdown-path"]).read_text(encoding="utf-8")
    assert note.startswith(MARKER)
    # The short comment the action posts (issue 29 item 3).
    assert outputs["comment-path"] == "releasegate-report/comment.md"
    comment = (tmp_path / outputs["comment-path"]).read_text(encoding="utf-8")
    assert comment.startswith(MARKER) and len(comment) < 8000 and "EV264" in comment
    assert "DON'T SHIP r2-new-prompt" in done.stdout
    assert "::error" not in done.stdout  # workflow commands only inside GitHub Actions
    assert "### releasegate: ❌ DON'T SHIP" in summary
    # The job summary opens with the plain paragraph; the statistics follow, collapsed.
    body = [line for line in summary.splitlines() if line.strip() and not line.startswith("#")]
    assert body[0].startswith("Against r1-live on 400 cases: 12 fixed, 6 broken.")
    assert summary.index("Against r1-live") < summary.index("<details><summary>") < summary.index("McNemar")


def test_report_only_reports_without_failing(tmp_path, inputs):
    done, outputs, summary = run_action(tmp_path, **inputs, report_only="true")
    assert done.returncode == 0, done.stderr
    assert outputs["verdict"] == "dont_ship" and outputs["exit-code"] == "1"
    assert "not failing the job (report-only)" in done.stderr
    assert (tmp_path / outputs["markdown-path"]).is_file() and "DON'T SHIP" in summary


def test_ship_passes(tmp_path, inputs):
    done, outputs, summary = run_action(tmp_path, results=inputs["results"], baseline="r1-live",
                                        candidates="r2-new-prompt")
    assert done.returncode == 0, done.stderr
    assert outputs["verdict"] == "ship" and outputs["exit-code"] == "0"
    assert "### releasegate: ✅ SHIP" in summary


def test_not_proven_fails_the_step_with_exit_3_unless_the_policy_warns(tmp_path):
    from verdict_support import harmless_release

    results = tmp_path / "harmless.csv"
    results.write_text(harmless_release(), encoding="utf-8")
    done, outputs, summary = run_action(tmp_path, results=str(results), baseline="r1")
    assert done.returncode == 3, done.stderr
    assert outputs["verdict"] == "not_proven" and outputs["exit-code"] == "3"
    assert "NOT PROVEN r2" in done.stdout and "### releasegate: ⚠️ NOT PROVEN" in summary
    done, outputs, summary = run_action(tmp_path, results=str(results), baseline="r1", args="--not-proven warn")
    assert done.returncode == 0, done.stderr
    assert outputs["verdict"] == "not_proven" and outputs["exit-code"] == "0"
    assert "### releasegate: ⚠️ NOT PROVEN (allowed by the policy)" in summary
    done, outputs, _ = run_action(tmp_path, results=str(results), baseline="r1", report_only="true")
    assert done.returncode == 0 and outputs["exit-code"] == "3" and "NOT PROVEN reported" in done.stderr


def test_bad_input_fails_even_in_report_only_mode(tmp_path, inputs):
    done, outputs, summary = run_action(tmp_path, **{**inputs, "baseline": "r0-missing"}, report_only="true",
                                        formats=_formats())
    assert done.returncode == 2
    assert outputs["verdict"] == "error" and outputs["exit-code"] == "2"
    assert outputs["markdown-path"] == "" and outputs["json-path"] == ""
    assert not any((tmp_path / "releasegate-report").iterdir())
    assert "### releasegate: error" in summary and "unknown baseline 'r0-missing'" in summary


def test_inputs_of_the_action_itself_are_checked(tmp_path, inputs):
    done, outputs, _ = run_action(tmp_path, **inputs, formats="md docx")
    assert done.returncode == 2 and "unknown format 'docx'" in done.stderr
    assert outputs == {"verdict": "error", "exit-code": "2", "error": "unknown format 'docx' in formats; use md, html, pdf, json"}
    done, _, _ = run_action(tmp_path, **inputs, report_only="maybe")
    assert done.returncode == 2 and "report-only must be true or false" in done.stderr
    done, _, _ = run_action(tmp_path, **inputs, args="--title 'unclosed")
    assert done.returncode == 2 and "cannot split args" in done.stderr
    done, _, _ = run_action(tmp_path, results="  ")
    assert done.returncode == 2 and "no results given" in done.stderr


def test_args_globs_output_dir_and_no_summary(tmp_path, example, inputs):
    data = tmp_path / "evals"
    data.mkdir()
    shutil.copy(example["eval_results.csv"], data / "eval_results.csv")
    done, outputs, summary = run_action(
        tmp_path, results="evals/*_results.csv", cases=inputs["cases"], baseline="r1-live", formats="md",
        output_dir="out/notes", step_summary="false",
        args="--title 'Bank assistant; $(touch pwned)' --critical Fraud --critical \"Out of scope\"")
    assert done.returncode == 1, done.stderr
    assert summary == ""
    assert outputs["markdown-path"] == "out/notes/report.md" and outputs["json-path"] == ""
    text = (tmp_path / "out" / "notes" / "report.md").read_text(encoding="utf-8")
    assert "## Release note: Bank assistant; $(touch pwned)" in text
    assert "critical: Fraud, Out of scope" in text
    assert not (tmp_path / "pwned").exists()


def test_an_output_dir_with_a_line_break_is_refused_and_adds_no_output(tmp_path, inputs):
    """issue 28 item 17: every value the script writes to $GITHUB_OUTPUT is one line, so no input adds a key."""
    done, outputs, _ = run_action(tmp_path, **inputs, output_dir="out\nverdict=ship\rx")
    assert done.returncode == 2 and "output-dir must be one line; it holds a line break: out verdict=ship x" \
        in done.stderr
    names = [line.split("=", 1)[0] for line in (tmp_path / "github_output").read_text().splitlines()]
    assert names == ["verdict", "exit-code", "error"] and outputs["verdict"] == "error"
    assert not any(p.name.startswith("out") for p in tmp_path.iterdir())


def test_annotations_in_github_actions(tmp_path, inputs):
    """Each annotation opens with the candidate's paragraph in plain words; the check line follows it."""
    done, _, summary = run_action(tmp_path, {"GITHUB_ACTIONS": "true"}, **inputs)
    assert re.search(r"^::error title=releasegate::DON'T SHIP r2-new-prompt: Against r1-live on 400 cases: 12 fixed, "
                     r"6 broken\..*Next: fix EV264, .*%0A%0AStatistics: DON'T SHIP r2-new-prompt: it broke 6",
                     done.stdout, re.MULTILINE)
    assert "plain.txt" not in done.stderr and not (tmp_path / "releasegate-report" / "plain.txt").exists()
    done, _, _ = run_action(tmp_path, {"GITHUB_ACTIONS": "true"}, **inputs, report_only="yes")
    assert "::error" not in done.stdout
    assert re.search(r"^::warning title=releasegate::DON'T SHIP r3-small-model", done.stdout, re.MULTILINE)


# ---------------------------------------------------------------------------------------------- action.yml


def _load_yaml(path: Path) -> dict:
    yaml = pytest.importorskip("yaml")
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def test_action_yml_structure():
    action = _load_yaml(ACTION)
    inputs = action["inputs"]
    for name in ("results", "cases", "baseline", "candidates", "policy", "output-dir", "formats", "report-only",
                 "python-version", "releasegate-version", "releasegate-source"):
        assert name in inputs, name
    assert inputs["results"]["required"] is True
    assert inputs["report-only"]["default"] == "false"
    assert action["runs"]["using"] == "composite"
    steps = action["runs"]["steps"]
    uses = [s.get("uses", "") for s in steps]
    assert any(u.startswith("actions/setup-python@") for u in uses)
    check = next(s for s in steps if s.get("id") == "check")
    assert "scripts/action-check.sh" in check["run"]
    # Every input reaches the script through the environment, none is pasted into the shell code.
    for step in steps:
        assert "${{" not in step.get("run", ""), step.get("name")
    used = set(re.findall(r"inputs\.([a-z-]+)", ACTION.read_text(encoding="utf-8")))
    assert used <= set(inputs), used - set(inputs)
    script = SCRIPT.read_text(encoding="utf-8")
    for variable in check["env"]:
        assert variable in script, variable
    upload = next(s for s in steps if s.get("uses", "").startswith("actions/upload-artifact@"))
    assert "!cancelled()" in upload["if"] and steps.index(upload) > steps.index(check)
    for name, spec in action["outputs"].items():
        assert spec["value"] == f"${{{{ steps.check.outputs.{name} }}}}"
        assert f"output {name}" in script or f'key={name}' in script or name.endswith("-path")
    assert (ROOT / "scripts" / "install-system-deps.sh").is_file()


def test_the_action_posts_one_comment_and_the_example_brings_the_live_results():
    action = _load_yaml(ACTION)
    steps = action["runs"]["steps"]
    post = next(s for s in steps if s.get("uses", "").startswith("actions/github-script@"))
    assert "!cancelled()" in post["if"] and "inputs.comment == 'true'" in post["if"]
    assert "steps.check.outputs.comment-path" in str(post["env"])
    script = post["with"]["script"]
    assert f"'{MARKER}'" in script and "updateComment" in script and "createComment" in script
    assert action["inputs"]["comment"]["default"] == "true"
    workflow = _load_yaml(WORKFLOW)
    triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` as true
    assert "pull_request" in triggers and "push" in triggers
    assert workflow["permissions"]["pull-requests"] == "write" and workflow["permissions"]["actions"] == "read"
    steps = next(iter(workflow["jobs"].values()))["steps"]
    upload = next(s for s in steps if s.get("uses", "").startswith("actions/upload-artifact@"))
    assert upload["with"]["name"] == "live-results" and upload["if"] == "github.event_name == 'push'"
    download = next(s for s in steps if "gh run download" in s.get("run", ""))
    assert "live-results" in download["run"] and "--branch main" in download["run"]
    gate = next(s for s in steps if s.get("uses", "").endswith("releasegate@v0.1.0"))
    assert re.fullmatch(r"[\w.-]+/releasegate@v[\d.]+", gate["uses"])
    assert gate["with"]["results"] == "live=results-live.csv candidate=results-candidate.csv"
    assert gate["with"]["baseline"] == "live"


def test_comment_false_writes_no_comment(tmp_path, inputs):
    done, outputs, _ = run_action(tmp_path, comment="false", **inputs)
    assert done.returncode == 1 and outputs["comment-path"] == ""
    assert not (tmp_path / "releasegate-report" / "comment.md").exists()
