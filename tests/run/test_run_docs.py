"""docs/run.md's minimal OpenAI-compatible example runs as written (issue 29 item 8): its two files, unchanged
but for the server's address (a stub on 127.0.0.1 instead of the reader's server on port 8000)."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

from conftest import run_cli
from run_support import StubServer, answer

ROOT = Path(__file__).resolve().parents[2]
SECTION = "## A minimal OpenAI-compatible run"


def _example() -> tuple[str, str]:
    text = (ROOT / "docs" / "run.md").read_text(encoding="utf-8")
    section = text[text.index(SECTION):]
    section = section[:section.index("\n## ", len(SECTION))]
    blocks = re.findall(r"```(\w*)\n(.*?)```", section, flags=re.S)
    config = next(body for lang, body in blocks if lang == "toml")
    cases = next(body for lang, body in blocks if lang == "" and body.startswith("case_id,"))
    return config, cases


def test_the_minimal_example_runs_as_written(tmp_path):
    config, cases = _example()
    references = {row["input"]: row["reference"] for row in csv.DictReader(io.StringIO(cases))}

    def server(number, body):
        question = body["messages"][-1]["content"]
        lower = "lower case" in body["messages"][0]["content"]
        word = references[question]
        return 200, {}, answer(word if lower else word.capitalize()), 0.0

    with StubServer(server) as stub:
        assert config.count("http://127.0.0.1:8000/v1") == 2
        (tmp_path / "run.toml").write_text(config.replace("http://127.0.0.1:8000/v1", stub.base_url))
        (tmp_path / "cases.csv").write_text(cases)
        done = run_cli("run", tmp_path / "run.toml")
        assert done.exit_code == 0, done.output
        assert stub.calls == 2 * 3 * 3 and "complete: 18 cells" in done.output
        assert {b["model"] for b in stub.bodies} == {"my-model"}
    check = run_cli("check", tmp_path / "store", "--baseline", "live")
    assert check.exit_code != 2, check.output
    assert "candidate" in check.output
