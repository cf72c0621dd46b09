"""The JSON Schema of the note (docs/schema/note.schema.json) is generated from docs/json.md, is current, and every
note meets it: the golden notes and notes of every shape built here (several metrics and a critical metric,
clusters, runs and scores, costs, errors, churn, harness inputs, gold labels). Every object the doc describes allows no
other key, so a key the code writes without its row in the doc fails here too."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from conftest import ROOT, run_cli

SPEC = importlib.util.spec_from_file_location("note_schema", ROOT / "scripts" / "note_schema.py")
note_schema = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(note_schema)

SCHEMA = json.loads((ROOT / "docs" / "schema" / "note.schema.json").read_text(encoding="utf-8"))
FIXTURES = ROOT / "tests" / "fixtures"


def _errors(note: dict) -> list[str]:
    validator = Draft202012Validator(SCHEMA)
    return [f"{e.json_path}: {e.message}" for e in sorted(validator.iter_errors(note), key=lambda e: e.json_path)]


def test_the_schema_is_generated_from_the_doc_and_current():
    text = note_schema.current()
    for target in note_schema.TARGETS:
        assert target.read_text(encoding="utf-8") == text, (
            f"{target.relative_to(ROOT)} is stale: run PYTHONPATH=src python scripts/note_schema.py")


def test_the_schema_is_a_draft_2020_12_schema_shipped_in_the_package():
    Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    from releasegate.audit.notes import note_schema as shipped

    assert shipped() == SCHEMA


def test_the_generator_knows_the_user_named_objects_the_doc_test_knows():
    from tooling.test_json_doc import KEYED, USER_NAMED

    assert note_schema.USER_NAMED == USER_NAMED - KEYED
    assert note_schema.KEYED == KEYED


@pytest.mark.parametrize("path", sorted(ROOT.glob("examples/*/report.json")), ids=lambda p: p.parent.name)
def test_every_golden_note_meets_the_schema(path):
    assert _errors(json.loads(path.read_text(encoding="utf-8"))) == []


def _csv(path: Path, header: str, rows) -> Path:
    path.write_text(header + "\n" + "\n".join(",".join(map(str, r)) for r in rows) + "\n")
    return path


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, dict]:
    """Notes of every shape, written by the command line."""
    from metrics_support import metric_args, three_metrics

    out = tmp_path_factory.mktemp("schema-notes")
    runs = []  # scores, 24 clusters of 3 cases, 3 runs, latency and tokens: item, run and cluster axes, costs
    for release, shift in (("r1", 0.0), ("r2", -0.02)):
        for c in range(24):
            for q in range(3):
                for run in range(3):
                    score = round(0.5 + 0.3 * ((c * 7 + q * 3 + run) % 5) / 5 + shift * (c % 3), 4)
                    runs.append((release, f"p{c:02d}-q{q}", f"p{c:02d}", run, "AB"[c % 2], score,
                                 200 + 10 * q + run, 100 + q, 40 + run))
    _csv(out / "runs.csv", "release,case_id,cluster,run,category,score,latency_ms,input_tokens,output_tokens", runs)
    errored = [(r, f"c{i:02d}", "AB"[i % 2], "" if (r, i) in {("r1", 1), ("r2", 5)} else
                int(i % 5 != 0 or (r == "r2" and i % 10 == 0)), "Timeout" if (r, i) in {("r1", 1), ("r2", 5)} else "",
                100 + i) for r in ("r1", "r2") for i in range(40)]
    _csv(out / "errored.csv", "release,case_id,category,passed,error,latency_ms", errored)
    churn = [(r, f"c{i:03d}", "AB"[i % 2], int(i % 10 != 0 if r != "again" else i % 9 != 0))
             for r in ("live", "again", "cand") for i in range(200)]
    _csv(out / "churn.csv", "release,case_id,category,passed", churn)
    three_metrics(out)
    judged = [(r, f"c{i:03d}", int(i % 5 != 0 or (r == "r2" and i % 10 == 0))) for r in ("r1", "r2") for i in range(120)]
    _csv(out / "judged.csv", "release,case_id,passed", judged)
    _csv(out / "gold.csv", "release,case_id,label", [(r, c, p if int(c[1:]) % 12 else 1 - p)
                                                    for r, c, p in judged if int(c[1:]) % 2 == 0])
    (out / "critical.toml").write_text('baseline = "r1"\n[metrics.safe]\ncritical = true\n')
    base, cand = out / "base.eval", out / "cand.eval"
    shutil.copy(FIXTURES / "inspect" / "2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval", base)
    from cli.test_adapters_cli import _outcomes, _second_model_log

    passing = sorted(k for k, v in _outcomes(base).items() if v == "C")
    _second_model_log(base, cand, "anthropic/claude-test", set(passing[:2]))
    commands = {
        "runs": ("runs.csv", "--baseline", "r1", "--cluster-col", "cluster", "--no-policy"),
        "errored": ("errored.csv", "--baseline", "r1", "--no-policy"),
        "churn": ("churn.csv", "--baseline", "live", "--baseline-rerun", "again", "--critical", "A", "--no-policy"),
        "metrics": ("three.csv", *metric_args(), "--policy", "critical.toml"),
        "inspect": (base, cand, "--baseline", "openai/gpt-4o-mini", "--no-policy"),
        "judge": ("judged.csv", "--baseline", "r1", "--gold", "gold.csv", "--no-policy"),
    }
    notes = {}
    for name, args in commands.items():
        result = run_cli("report", *args, "-o", f"{name}.json", cwd=out)
        assert result.exit_code == 0, (name, result.output)
        notes[name] = json.loads((out / f"{name}.json").read_text(encoding="utf-8"))
    return notes


def test_the_built_notes_hold_every_optional_section(built):
    """Not a vacuous pass: the sections the schema describes are in the notes validated below."""
    sections = {k for note in built.values() for c in note.get("candidates", []) for k in c}
    single = [n for n in built.values() if "kind" not in n]
    sections |= {k for n in built["metrics"]["metrics"].values() for c in n["candidates"] for k in c}
    assert {"clusters", "run_axis", "item_axis", "costs", "errors", "churn", "critical", "case_view",
            "judge"} <= sections
    assert built["metrics"]["kind"] == "several_metrics"
    assert "overall" in built["metrics"]["metrics"]["safe"]["candidates"][0]["critical"]  # a critical metric
    assert built["inspect"]["inputs"][0]["harness"].startswith("inspect")
    assert all("costs" in n for n in single if n is built["runs"])


@pytest.mark.parametrize("name", ["runs", "errored", "churn", "metrics", "inspect", "judge"])
def test_every_built_note_meets_the_schema(built, name):
    assert _errors(built[name]) == []


def test_the_schema_refuses_what_is_not_a_note(built):
    note = json.loads(json.dumps(built["errored"]))
    note["brand_new_key"] = 1
    note["candidates"][0]["verdict"] = 1
    del note["candidates"][0]["overall"]
    note["candidates"][0]["categories"][0]["undocumented"] = True
    note["schema_version"] = "2.0"
    errors = _errors(note)
    assert any("brand_new_key" in e for e in errors)
    assert any(e.startswith("$.candidates[0].verdict") and "not of type 'string'" in e for e in errors)
    assert any("'overall' is a required property" in e for e in errors)
    assert any(e.startswith("$.candidates[0].categories[0]") and "undocumented" in e for e in errors)
    assert any(e.startswith("$.schema_version") for e in errors)
    several = json.loads(json.dumps(built["metrics"]))
    several["metrics"]["correct"]["candidates"][0]["overall"]["fixed"] = "12"
    assert any("metrics.correct" in e and "fixed" in e for e in _errors(several))


def test_the_generator_refuses_a_type_it_cannot_read():
    text = "Where: `(root)`\n\n| key | type | meaning |\n|---|---|---|\n| `x` | number-ish | a figure |\n"
    with pytest.raises(SystemExit, match="a type this script cannot read"):
        note_schema.build(text, "1.1")


def test_the_session_check_of_written_notes_can_fail(built):
    """conftest.py checks every note the tests write; its check names a note that does not meet the schema."""
    from conftest import written_note_errors

    good = json.dumps(built["errored"], indent=2).encode()
    bad = json.dumps({**built["errored"], "verdicts": []}, indent=2).encode()
    assert written_note_errors([("good.json", good)]) == []
    assert written_note_errors([("bad.json", bad)])[0].startswith("bad.json: $: Additional properties")
