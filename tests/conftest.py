from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from releasegate.cli import main
from releasegate.demo import example_files

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).resolve().parent / "data"
EPOCH = "1796000000"  # SOURCE_DATE_EPOCH of every test: reports are reproducible
# No compiled templates kept in the user's cache by the suite (a test writes only below its tmp_path); the
# cache's own tests (tests/render/test_template_cache.py) name a directory of theirs. Set here, before any
# environment is made, so the commands the tests start as subprocesses inherit it.
os.environ["RELEASEGATE_TEMPLATE_CACHE"] = "0"


def stat_vectors() -> dict:
    """The reference values (tests/data/stat-vectors.json, a copy of shared/reference/stat-vectors.json:
    statsmodels, scipy and R computed independently), so that a clone alone runs every test."""
    return json.loads((DATA / "stat-vectors.json").read_text(encoding="utf-8"))


def build_report(results, cases: Path | None = None, policy: Path | None = None, *, command_line: str = "pytest",
                 **overrides):
    """The Report of one results file (or a list of files, ``NAME=path`` allowed) through the library's one
    pipeline, as the command line builds it: ``policy`` a TOML file, ``overrides`` policy keys (flags)."""
    from releasegate.load import Source, parse_source
    from releasegate.pipeline import run
    from releasegate.policy import load_policy_file, make_policy

    paths = results if isinstance(results, (list, tuple)) else [results]
    sources = [parse_source(p) if isinstance(p, str) else Source(Path(p)) for p in paths]
    values = load_policy_file(policy) if policy else {}
    return run(sources, make_policy(values, **overrides), cases=cases, command_line=command_line)


@pytest.fixture(autouse=True)
def _reproducible_time(monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)


@pytest.fixture(autouse=True)
def _charts_in_process(request, monkeypatch):
    """A command run in this process draws its charts here, not in a worker process: a worker costs about 1 s of
    CPU (its interpreter, altair, vl-convert's engine) where this process, its engine already started, draws in
    0.4 s, and the suite's two workers have no core to spare for it. The SVGs are the same bytes either way
    (tests/render/test_pdf_charts.py); the tests of the worker itself are marked ``chart_worker``, and every
    command a test runs as a subprocess still starts one."""
    if request.node.get_closest_marker("chart_worker") is None:
        from releasegate.render import chart_worker

        def no_worker() -> None:
            raise OSError("tests/conftest.py: charts drawn in process")

        monkeypatch.setattr(chart_worker, "ChartWorker", no_worker)


_SVG_OF_SPEC: dict[str, str] = {}


@pytest.fixture(autouse=True)
def _each_chart_drawn_once(monkeypatch):
    """vl-convert draws a spec it has drawn before in this test process from memory: it is a pure function of
    the spec (the SVGs are compared byte for byte elsewhere), and the suite drew the bundled example's few
    charts some 250 times at 0.1 s each. Every spec still goes through the engine the first time, a test that
    replaces ``vegalite_to_svg`` replaces this too, and vl_convert is not imported here (the import-cost tests
    watch what a command loads)."""
    vl_convert = sys.modules.get("vl_convert")
    if vl_convert is None:
        return
    draw = vl_convert.vegalite_to_svg

    def remembered(spec, **options):
        key = json.dumps([spec, options], sort_keys=True, default=repr)
        if key not in _SVG_OF_SPEC:
            _SVG_OF_SPEC[key] = draw(spec, **options)
        return _SVG_OF_SPEC[key]

    monkeypatch.setattr(vl_convert, "vegalite_to_svg", remembered)


@pytest.fixture
def example() -> dict[str, Path]:
    """The bundled bank-assistant example: eval_results.csv, eval_cases.csv, releasegate.toml."""
    return example_files()


def run_cli(*args: str, cwd: Path | None = None):
    runner = CliRunner()
    old = os.getcwd()
    try:
        if cwd:
            os.chdir(cwd)
        return runner.invoke(main, [str(a) for a in args], catch_exceptions=False)
    finally:
        os.chdir(old)


def plain_note(tmp_path: Path, rows: list[str], *args: str) -> str:
    """The plain-text note (each verdict's paragraph) of the CSV ``rows`` (header first), reported with ``args``."""
    path, out = tmp_path / "results.csv", tmp_path / "note.txt"
    path.write_text("\n".join(rows) + "\n")
    result = run_cli("report", path, *args, "-o", out)
    assert result.exit_code == 0, result.output
    return out.read_text()


@pytest.fixture
def example_report(example):
    """The bundled example's Report, as `releasegate demo` makes it."""
    return build_report(example["eval_results.csv"], example["eval_cases.csv"], example["releasegate.toml"])


@pytest.fixture
def example_json(tmp_path, example) -> dict:
    out = tmp_path / "r.json"
    result = run_cli("report", example["eval_results.csv"], "--cases", example["eval_cases.csv"],
                     "--policy", example["releasegate.toml"], "-o", out)
    assert result.exit_code == 0, result.output
    return json.loads(out.read_text())


# Every JSON note the tests write through the library's writer (render/atomic.py) is checked against the published
# schema when the session ends: tests/audit/test_schema.py checks each shape on purpose, this catches a shape only
# some other test makes. Notes above 2 MB (the large-input tests) are left out to keep the check short.
_WRITTEN_NOTES: dict[int, tuple[str, bytes]] = {}
_NOTE_LIMIT = 2_000_000


@pytest.fixture(autouse=True, scope="session")
def _written_notes_meet_the_schema():
    from releasegate.render import atomic

    original = atomic.write_files_atomically

    def recording(contents):
        original(contents)
        for path, data in contents:
            if str(path).endswith(".json") and data[:40].startswith(b'{\n  "schema_version"') \
                    and len(data) <= _NOTE_LIMIT:
                _WRITTEN_NOTES.setdefault(hash(data), (str(path), data))

    atomic.write_files_atomically = recording
    yield
    atomic.write_files_atomically = original
    failures = written_note_errors(_WRITTEN_NOTES.values())
    if failures:
        places = sorted({re.sub(r"\[\d+\]", "[]", f.split(": ")[1]) for f in failures})
        pytest.fail(f"{len(failures)} errors in the {len(_WRITTEN_NOTES)} notes the tests wrote against "
                    f"docs/schema/note.schema.json, at {', '.join(places)}; first: " + "; ".join(failures[:3]),
                    pytrace=False)
    unread = written_notes_history_refuses(_WRITTEN_NOTES.values())
    if unread:
        pytest.fail(f"`releasegate history` refuses {len(unread)} of the {len(_WRITTEN_NOTES)} notes the tests "
                    "wrote; first: " + "; ".join(unread[:3]), pytrace=False)


def written_notes_history_refuses(notes) -> list[str]:
    """The refusal of each note (path, bytes) that `history` would not read (audit/notes.py check_read_keys)."""
    from releasegate.audit.notes import Note, check_read_keys
    from releasegate.errors import InputError

    refusals = []
    for path, data in notes:
        try:
            check_read_keys(Note(Path(path), json.loads(data), "", "json"))
        except InputError as exc:
            refusals.append(str(exc))
    return refusals


def written_note_errors(notes) -> list[str]:
    """Every error of each note (path, bytes) that does not meet the schema: "path: $.json.path: message"."""
    from jsonschema import Draft202012Validator

    validator = Draft202012Validator(json.loads((ROOT / "docs" / "schema" / "note.schema.json").read_text()))
    failures = []
    for path, data in notes:
        for error in validator.iter_errors(json.loads(data)):
            # An "any of" (a value or null) names the inner error that was closest.
            error = min(error.context, key=lambda e: len(e.message)) if error.context else error
            failures.append(f"{path}: {error.json_path}: {error.message[:200]}")
    return failures
