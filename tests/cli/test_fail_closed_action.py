"""Issue 15, items 4 and 7: the GitHub Action passes paths as paths, never turns a crash green, and the example
workflow's comment says when the gate could not run (instead of leaving an earlier SHIP comment standing)."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from test_action_script import ACTION, MARKER, _load_yaml, run_action


def _rows(release: str, passed: int, n: int = 40) -> list[str]:
    return [f"{release},c{i:02d},{passed}" for i in range(n)]


def test_a_results_file_named_like_an_option_is_read_as_a_file(tmp_path):
    """On main the glob put `--candidate=r2.csv` on the command line as an option: only r2.csv was checked
    and the job was green, although the file itself holds r3, which broke every case."""
    header = "release,case_id,passed"
    (tmp_path / "base.csv").write_text("\n".join([header, *_rows("r1", 1), *_rows("r2.csv", 1)]) + "\n")
    (tmp_path / "--candidate=r2.csv").write_text("\n".join([header, *_rows("r3", 0)]) + "\n")
    done, outputs, _ = run_action(tmp_path, results="*.csv", baseline="r1", formats="md")
    assert done.returncode == 1, done.stderr
    assert outputs["verdict"] == "dont_ship"
    # r2.csv is r1 again on 40 cases: nothing shows it worse, and 40 cases cannot show it no worse either.
    assert "DON'T SHIP r3" in done.stdout and "NOT PROVEN r2.csv" in done.stdout


def test_a_crash_is_an_error_even_in_report_only_mode(tmp_path, example):
    """A Python traceback exits 1 like DON'T SHIP; report-only must not turn it green."""
    (tmp_path / "crash.sh").write_text("echo 'Traceback (most recent call last):' >&2\nexit 1\n")
    done, outputs, _ = run_action(tmp_path, {"RELEASEGATE": f"bash {tmp_path / 'crash.sh'}"},
                                        results=str(example["eval_results.csv"]), report_only="true")
    assert done.returncode == 2
    assert outputs["verdict"] == "error" and outputs["exit-code"] == "2"
    assert outputs["error"] == "releasegate check ended without a verdict (exit status 1); see the job log"
    assert outputs["markdown-path"] == ""


def test_bad_input_sets_the_error_output(tmp_path, example):
    done, outputs, _ = run_action(tmp_path, results=str(example["eval_results.csv"]), baseline="r0-missing")
    assert done.returncode == 2
    assert outputs["error"].startswith("releasegate: error[input]: unknown baseline 'r0-missing'")


NODE_HARNESS = """
const calls = [];
const github = {
  paginate: async () => JSON.parse(process.env.EXISTING_COMMENTS),
  rest: { issues: {
    listComments: null,
    updateComment: async (args) => calls.push(['update', args]),
    createComment: async (args) => calls.push(['create', args]),
  } },
};
const context = { repo: { owner: 'o', repo: 'r' }, issue: { number: 7 } };
(async () => {
%s
  console.log(JSON.stringify(calls));
})();
"""


def _comment_script() -> str:
    steps = _load_yaml(ACTION)["runs"]["steps"]  # the action posts the comment (issue 29 item 3)
    return next(s for s in steps if s.get("uses", "").startswith("actions/github-script@"))["with"]["script"]


def _post(tmp_path, **env) -> list:
    node = shutil.which("node") or pytest.skip("node is needed to run the comment script")
    (tmp_path / "comment.js").write_text(NODE_HARNESS % _comment_script(), encoding="utf-8")
    existing = [{"id": 41, "user": {"type": "Bot"}, "body": f"{MARKER}\n## Release note\n\nSHIP r2"}]
    done = subprocess.run([node, str(tmp_path / "comment.js")], capture_output=True, text=True, check=True,
                          env={"EXISTING_COMMENTS": json.dumps(existing), **env}, timeout=60)
    return json.loads(done.stdout)


def test_the_comment_replaces_an_old_ship_when_the_gate_could_not_run(tmp_path):
    why = "releasegate: error[input]: unknown baseline 'r0' @octocat ```x```"
    (call,) = _post(tmp_path, COMMENT_PATH="", GATE_VERDICT="error", GATE_ERROR=why)
    kind, args = call
    assert kind == "update" and args["comment_id"] == 41
    body = args["body"]
    assert body.startswith(f"{MARKER}\n## Release gate: could not run")
    assert f"````\n{why}\n````" in body  # fenced by more backticks than the reason holds


def test_the_comment_says_why_when_the_gate_step_gave_no_outputs(tmp_path):
    (call,) = _post(tmp_path, COMMENT_PATH="", GATE_VERDICT="", GATE_ERROR="")
    assert "the gate step failed before a verdict" in call[1]["body"]


def test_the_comment_posts_the_note_after_a_verdict(tmp_path):
    note = tmp_path / "report.md"
    note.write_text(f"{MARKER}\n## Release note\n\nDON'T SHIP r2\n", encoding="utf-8")
    (call,) = _post(tmp_path, COMMENT_PATH=str(note), GATE_VERDICT="dont_ship", GATE_ERROR="")
    assert call[1]["body"] == note.read_text(encoding="utf-8")
