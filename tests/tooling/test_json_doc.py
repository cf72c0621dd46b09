"""docs/json.md cannot drift from the JSON: every key of every object the reports hold is documented.

The doc's sections each open with a line "Where: `path`, ..." naming the objects they document; a key is
documented when it is the first cell of a table row, as `key`, in a section for its object. The test walks the
bundled examples' JSON and two small notes built here (errored cases; several metrics), so an object or a key
added to render/json_out.py without its line in the doc fails here.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import ROOT, run_cli

DOC = ROOT / "docs" / "json.md"
EXAMPLES = sorted(ROOT.glob("examples/*/report.json"))

# Objects whose keys are names from the user's data (columns, releases, packages), not the tool's: their keys are
# not listed in the doc, and the walk does not go inside them.
USER_NAMED = {"packages", "loading.options", "policy.prices", "policy.columns", "policy.guardrails", "policy.metrics",
              "candidates[].broken_cases[].metadata", "candidates[].broken_cases[].answers",
              "candidates[].fixed_cases[].metadata", "candidates[].fixed_cases[].answers",
              "candidates[].case_view.both_fail[].metadata", "candidates[].case_view.both_fail[].answers",
              "candidates[].case_view.errored[].metadata", "candidates[].case_view.errored[].answers",
              "several_metrics.candidates[].metrics"}
# Objects keyed by a name whose values all share one documented shape: the walk goes on as "path.*".
KEYED = {"candidates[].costs.guardrail_bounds", "several_metrics.candidates[].metrics"}
ROW_KEY = re.compile(r"^\| `([^`]+)` \|", re.MULTILINE)
WHERE = re.compile(r"^Where: ((?:`[^`]+`(?:,\s*)?)+)", re.MULTILINE)


def documented() -> dict[str, set[str]]:
    """Object path -> the keys the doc's sections for it list ("(root)" is the top level)."""
    out: dict[str, set[str]] = {}
    parts = WHERE.split(DOC.read_text(encoding="utf-8"))
    for where, body in zip(parts[1::2], parts[2::2]):
        keys = set(ROW_KEY.findall(body))
        for path in re.findall(r"`([^`]+)`", where):
            out.setdefault("" if path == "(root)" else path, set()).update(keys)
    return out


def objects(value, path: str, found: dict[str, set[str]]) -> None:
    """Every object's path (lists as "[]") -> the keys seen there, over the whole note."""
    if isinstance(value, list):
        for item in value:
            objects(item, path + "[]", found)
    if not isinstance(value, dict):
        return
    if path == "" and value.get("kind") == "several_metrics":
        path = "several_metrics"
    found.setdefault(path, set()).update(value)
    if path in USER_NAMED and path not in KEYED:
        return
    for key, item in value.items():
        if path == "several_metrics" and key == "metrics":
            for single in item.values():  # each metric's note is the single-metric shape
                objects(single, "", found)
            continue
        child = f"{path}.*" if path in KEYED else f"{path}.{key}" if path else key
        objects(item, child, found)


def _note(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> list[dict]:
    """A note with errored cases and latency, and a note of two metrics (a pass/fail and a score)."""
    out = tmp_path_factory.mktemp("json-doc")
    errored = ["release,case_id,category,passed,error,latency_ms"]
    metrics = ["release,case_id,category,correct,quality"]
    for release in ("r1", "r2"):
        for i in range(40):
            error = "TimeoutError" if (release, i) in {("r1", 1), ("r1", 2), ("r2", 5)} else ""
            passed = "" if error else int(i % 5 != 0 or (release == "r2" and i % 10 == 0))
            errored.append(f"{release},c{i:02d},{'AB'[i % 2]},{passed},{error},{100 + i}")
            quality = (i % 7) / 7 if release == "r1" else (i % 6) / 6
            metrics.append(f"{release},c{i:02d},{'AB'[i % 2]},{int(i % 5 != 0)},{quality}")
    (out / "errored.csv").write_text("\n".join(errored) + "\n")
    (out / "metrics.csv").write_text("\n".join(metrics) + "\n")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SOURCE_DATE_EPOCH", "1796000000")
        for args in (("errored.csv", "-o", "errored.json"),
                     ("metrics.csv", "--metric", "correct", "--metric", "quality", "-o", "metrics.json")):
            result = run_cli("report", args[0], "--baseline", "r1", *args[1:], cwd=out)
            assert result.exit_code == 0, result.output
    notes = [_note(out / "errored.json"), _note(out / "metrics.json")]
    assert notes[0]["candidates"][0]["errors"]["excluded"] == 3
    assert notes[1]["kind"] == "several_metrics"
    return notes


def _all_objects(notes: list[dict]) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for note in notes:
        objects(note, "", found)
    return found


def test_the_walk_reaches_every_section_the_doc_names(built):
    """The notes hold every optional section, so the check below covers them all (not a vacuous pass)."""
    found = _all_objects([_note(p) for p in EXAMPLES] + built)
    for path in ("candidates[].errors.cases[]", "candidates[].critical.tests[]", "candidates[].run_axis.majority",
                 "candidates[].clusters", "candidates[].churn", "candidates[].item_axis", "costs.releases[]",
                 "candidates[].costs.guardrail_bounds.*", "several_metrics.candidates[].metrics.*"):
        assert path in found, path


@pytest.mark.parametrize("which", ["examples", "built"])
def test_every_key_of_every_object_is_documented(which, built):
    notes = [_note(p) for p in EXAMPLES] if which == "examples" else built
    doc = documented()
    missing = []
    for path, keys in sorted(_all_objects(notes).items()):
        if path in USER_NAMED and path not in doc:
            continue
        if path not in doc:
            missing.append(f"no section of docs/json.md says 'Where: `{path or '(root)'}`'")
            continue
        missing += [f"`{k}` of {path or '(root)'}" for k in sorted(keys - doc[path])]
    assert not missing, "undocumented in docs/json.md: " + "; ".join(missing)


def test_the_check_fails_on_an_undocumented_key():
    found: dict[str, set[str]] = {}
    objects({"schema_version": "1.0", "brand_new_key": 1, "candidates": [{"name": "r2", "new_section": {}}]},
            "", found)
    doc = documented()
    assert "brand_new_key" not in doc[""] and "new_section" not in doc["candidates[]"]
    assert "candidates[].new_section" in found and "candidates[].new_section" not in doc


def test_the_code_points_to_sections_that_exist():
    """render/json_out.py names docs/json.md sections ("churn", "errors"): each is a heading of the doc."""
    headings = {line.lstrip("#").strip() for line in DOC.read_text(encoding="utf-8").splitlines()
                if line.startswith("#")}
    source = (ROOT / "src" / "releasegate" / "render" / "json_out.py").read_text(encoding="utf-8")
    pointers = re.findall(r'docs/json\.md, "([^"]+)"', source)
    assert pointers
    assert set(pointers) <= headings, set(pointers) - headings


def _asdict_shapes():
    """Objects json_out writes as dataclasses.asdict (or Policy.as_dict): whatever field the dataclass gains
    reaches the JSON, even in a shape none of the notes above holds (churn.fragile[], an adapter's inputs[])."""
    from releasegate.model import InputFile, Power
    from releasegate.model.churn import ChurnGroup, FragileComparison
    from releasegate.model.axes import RunRate
    from releasegate.model.sections import CriticalTest, ErroredCase
    from releasegate.policy import Policy
    from releasegate.stats.noninferiority_reach import NonInferiorityReach

    return {"inputs[]": InputFile, "policy": Policy, "candidates[].power": Power,
            "candidates[].critical.tests[]": CriticalTest, "candidates[].errors.cases[]": ErroredCase,
            "candidates[].churn.by_category[]": ChurnGroup, "candidates[].churn.fragile[]": FragileComparison,
            "candidates[].run_axis.per_run[]": RunRate, "candidates[].power.ni_reach": NonInferiorityReach}


def test_every_field_of_the_dataclasses_written_whole_is_documented():
    import dataclasses

    doc = documented()
    missing = [f"`{f.name}` of {path}" for path, shape in _asdict_shapes().items()
               for f in dataclasses.fields(shape) if f.name not in doc.get(path, set())]
    assert not missing, "undocumented in docs/json.md: " + "; ".join(missing)
