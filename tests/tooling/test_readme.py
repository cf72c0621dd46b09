"""The README stays a front page: what it is, the two commands, usage, the policy, links (issue 29 item 8)."""

from __future__ import annotations

import re

from conftest import ROOT

README = ROOT / "README.md"


def test_the_readme_has_at_most_200_lines():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 200, f"README.md has {len(lines)} lines; move detail to docs/ or bench/RESULTS.md"


def test_the_readme_gives_the_two_commands_the_ci_runs():
    text = README.read_text(encoding="utf-8")
    assert re.search(r"^make demo\b", text, re.MULTILINE)
    assert re.search(r"^make test\b", text, re.MULTILINE)
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^demo:", makefile, re.MULTILINE) and re.search(r"^test:", makefile, re.MULTILINE)
    assert "make test" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_the_benchmark_internals_live_in_bench_results():
    text = README.read_text(encoding="utf-8")
    assert "os._exit" not in text and "GIL" not in text
    results = (ROOT / "bench" / "RESULTS.md").read_text(encoding="utf-8")
    assert "<!-- internals:start -->" in results and "os._exit" in results
