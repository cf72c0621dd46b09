"""`releasegate history` refuses a note malformed where it reads it (a key missing, of another type, or an
impossible value): one line naming the file, the key and what it holds, exit 2, nothing written. Real notes of
every shape and of every 1.x schema are still read, and a note mutated at random is either refused so or drawn
without a traceback."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from conftest import ROOT, run_cli
from releasegate.audit.notes import KINDS, MAY_BE_ABSENT, READ_BY_HISTORY

GOLDEN = sorted(ROOT.glob("examples/*/report.json"))
BANK = ROOT / "examples" / "bank-assistant" / "report.json"
DELETE = object()


def _set(note: dict, path: str, value) -> dict:
    """The note with the value at ``path`` ("candidates.0.verdict") replaced, or deleted (``DELETE``)."""
    note = copy.deepcopy(note)
    *parents, last = path.split(".")
    where = note
    for key in parents:
        where = where[int(key)] if isinstance(where, list) else where[key]
    key = int(last) if isinstance(where, list) else last
    if value is DELETE:
        del where[key]
    else:
        where[key] = value
    return note


def _history(tmp_path: Path, *notes: Path):
    return run_cli("history", *notes, "-o", tmp_path / "h.md", "-o", tmp_path / "h.json")


# The red team's five, then keys of every kind history reads: rates, intervals, category lists, costs, latency, the
# critical tests, the policy; each with the key path the refusal names.
MALFORMED = [
    ("generated_at", DELETE, "generated_at is missing (expected an ISO 8601 time)"),
    ("releases", "x", 'releases is "x" (expected a list)'),
    ("n_cases", "abc", 'n_cases is "abc" (expected a whole number 0 or more)'),
    ("candidates.0.overall", "x", 'candidates[0].overall is "x" (expected an object)'),
    ("candidates.0.verdict", "MAYBE", 'candidates[0].verdict is "MAYBE" (expected one of "ship", "dont_ship"'),
    ("generated_at", "last tuesday", 'generated_at is "last tuesday" (expected an ISO 8601 time)'),
    ("outcome_kind", "ternary", 'outcome_kind is "ternary" (expected one of "binary", "continuous")'),
    ("baseline", 7, "baseline is 7 (expected a string)"),
    ("baseline", "r0-gone", 'baseline is "r0-gone", which is not among releases[].name'),
    ("releases.1", DELETE, 'candidates[0].name is "r2-new-prompt", which is not among releases[].name'),
    ("releases.1.rate.value", "0.93", 'releases[1].rate.value is "0.93" (expected a number or null'),
    ("releases.1.rate.value", 1.7, "releases[1].rate.value is 1.7 (expected a number or null (0..1 for pass/fail"),
    ("releases.1.rate.value", True, "releases[1].rate.value is true"),
    ("releases.1.rate.value", float("nan"), "releases[1].rate.value is NaN"),
    ("releases.1.rate.ci_low", "low", 'releases[1].rate.ci_low is "low"'),
    ("releases.0.rate.n", -1, "releases[0].rate.n is -1 (expected a whole number 0 or more)"),
    ("candidates.0.overall.diff", "+1.5", 'candidates[0].overall.diff is "+1.5" (expected a number or null)'),
    ("candidates.1.overall.ci_high", [0.1], "candidates[1].overall.ci_high is [0.1]"),
    ("candidates.0.categories", {"Fraud": 1}, 'candidates[0].categories is {"Fraud": 1} (expected a list)'),
    ("candidates.0.categories.0", "Fraud", 'candidates[0].categories[0] is "Fraud" (expected an object)'),
    ("candidates.0.categories.0.n", 2.5, "candidates[0].categories[0].n is 2.5 (expected a whole number 0 or more)"),
    ("candidates.0.categories.0.broke", "6", 'candidates[0].categories[0].broke is "6"'),
    ("candidates.0.categories.0.critical", "yes", 'candidates[0].categories[0].critical is "yes" (expected true or '
     "false)"),
    ("candidates.0.categories.0.p_adjusted", 3, "candidates[0].categories[0].p_adjusted is 3 (expected a p-value"),
    ("candidates.0.critical.tests", "x", 'candidates[0].critical.tests is "x" (expected a list)'),
    ("candidates.0.critical.tests.0.worse", "six", 'candidates[0].critical.tests[0].worse is "six"'),
    ("candidates.0.critical.tests.0.p_regression", None, "candidates[0].critical.tests[0].p_regression is null"),
    ("costs", [], "costs is [] (expected an object)"),
    ("costs.releases.1.cost_per_1k", "$1.69", 'costs.releases[1].cost_per_1k is "$1.69" (expected a number or '
     "null)"),
    ("costs.releases.1.latency_ms.p95", -4, "costs.releases[1].latency_ms.p95 is -4 (expected a number 0 or more"),
    ("costs.releases.1.latency_ms", "fast", 'costs.releases[1].latency_ms is "fast" (expected an object or null)'),
    ("costs.releases.1.latency_ms.p95", "2000ms", 'costs.releases[1].latency_ms.p95 is "2000ms"'),
    ("policy", [1, 2], "policy is [1, 2] (expected an object)"),
    ("tool.version", 1, "tool.version is 1 (expected a string)"),
]


@pytest.mark.parametrize("path,value,message", MALFORMED,
                         ids=[f"{p}={'deleted' if v is DELETE else repr(v)}"[:50] for p, v, _ in MALFORMED])
def test_a_malformed_note_is_refused_in_one_line_naming_the_key(tmp_path, path, value, message):
    note = tmp_path / "note.json"
    note.write_text(json.dumps(_set(json.loads(BANK.read_text()), path, value)))
    result = _history(tmp_path, note)
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert f"{note}: malformed note: {message}" in result.output, result.output
    assert not (tmp_path / "h.md").exists() and not (tmp_path / "h.json").exists()


def test_a_malformed_note_found_in_a_folder_is_refused_not_left_out(tmp_path):
    """A file that is not a note is listed as not read; a note malformed where history reads it is refused, since
    leaving it out would drop its releases' verdicts from the history unsaid."""
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.json").write_text(BANK.read_text())
    (tmp_path / "notes" / "b.json").write_text(json.dumps(_set(json.loads(BANK.read_text()),
                                                               "candidates.1.verdict", "MAYBE")))
    result = _history(tmp_path, tmp_path / "notes")
    assert result.exit_code == 2 and result.output.count("\n") == 1
    assert "b.json: malformed note: candidates[1].verdict is \"MAYBE\"" in result.output


def test_a_several_metric_note_names_the_metric_in_the_key_path(tmp_path):
    from metrics_support import metric_args, three_metrics

    three_metrics(tmp_path)
    result = run_cli("report", "three.csv", "--baseline", "r1", *metric_args(), "-o", "m.json", cwd=tmp_path)
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "m.json").read_text())
    assert _history(tmp_path, tmp_path / "m.json").exit_code == 0
    metric = sorted(data["metrics"])[1]
    (tmp_path / "bad.json").write_text(json.dumps(_set(data, f"metrics.{metric}.n_cases", "abc")))
    result = _history(tmp_path, tmp_path / "bad.json")
    assert result.exit_code == 2 and f'malformed note: metrics.{metric}.n_cases is "abc"' in result.output
    # A metric whose note is not an object is refused, not left out of the history.
    (tmp_path / "bad.json").write_text(json.dumps(_set(data, f"metrics.{metric}", "x")))
    result = _history(tmp_path, tmp_path / "bad.json")
    assert result.exit_code == 2 and f'malformed note: metrics.{metric} is "x" (expected an object: that ' \
        "metric's note)" in result.output


@pytest.mark.parametrize("path", [*GOLDEN, *(p.with_suffix(".pdf") for p in GOLDEN)],
                         ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_bundled_example_note_is_read(tmp_path, path):
    result = _history(tmp_path, path)
    assert result.exit_code == 0, result.output


def test_a_note_without_costs_or_critical_categories_and_with_null_figures_is_read(tmp_path):
    """What json.md lets a note lack (costs, critical) or hold as null (a rate not measured, a latency without
    figures) is read, not refused."""
    note = json.loads(BANK.read_text())
    for path, value in (("costs", DELETE), ("candidates.0.critical", DELETE), ("releases.1.rate.ci_low", None),
                        ("candidates.0.overall.diff", None), ("candidates.0.categories.0.p_adjusted", None)):
        note = _set(note, path, value)
    (tmp_path / "n.json").write_text(json.dumps(note))
    assert _history(tmp_path, tmp_path / "n.json").exit_code == 0


def test_a_note_of_a_negative_cost_and_no_valid_latency_is_read(tmp_path):
    """A release's mean cost per case keeps the negative costs the data gives (a refund), and its latencies are
    all invalid: a real note, read as it is."""
    lines = ["release,case_id,passed,cost,latency_ms"]
    lines += [f"{r},c{i},{int(i % 4 != 0)},{-0.5 if r == 'b' else 0.01},{-5 if r == 'b' else 100}"
              for r in "ab" for i in range(30)]
    (tmp_path / "r.csv").write_text("\n".join(lines) + "\n")
    result = run_cli("report", "r.csv", "--baseline", "a", "--no-policy", "-o", "n.json", cwd=tmp_path)
    assert result.exit_code == 0, result.output
    costs = json.loads((tmp_path / "n.json").read_text())["costs"]["releases"]
    assert costs[1]["cost_per_1k"] < 0 and costs[1]["latency_ms"]["p95"] is None
    result = _history(tmp_path, tmp_path / "n.json")
    assert result.exit_code == 0, result.output


# What json.md says is absent in notes of older schemas: (schema, the keys it lacks).
OLDER = [("1.0", ("loading", "cases_file", "candidates.*.cases_listed", "candidates.*.errors.counted_as_failures")),
         ("1.1", ("cases_file", "candidates.*.cases_listed", "candidates.*.errors.counted_as_failures")),
         ("1.2", ("candidates.*.errors.counted_as_failures",))]


@pytest.mark.parametrize("version,absent", OLDER, ids=[v for v, _ in OLDER])
def test_a_note_of_an_older_schema_without_the_keys_it_did_not_write_is_read(tmp_path, version, absent):
    note = json.loads(BANK.read_text())
    note["schema_version"] = version
    for key in absent:
        first, _, rest = key.partition(".*.")
        for item in (note[first] if rest else [note]):
            *parents, last = (rest or first).split(".")
            for parent in parents:
                item = item.get(parent, {})
            item.pop(last, None)
    (tmp_path / "old.json").write_text(json.dumps(note))
    result = _history(tmp_path, tmp_path / "old.json")
    assert result.exit_code == 0, result.output


# docs/json.md's rows: (object path, key) -> (type, meaning).
ROW = re.compile(r"^\| `([^`]+)` \| ([^|]+) \| (.*) \|$", re.MULTILINE)
WHERE = re.compile(r"^Where: ((?:`[^`]+`(?:,\s*)?)+)", re.MULTILINE)
# The doc's type of each kind the check knows.
DOC_TYPES = {"text": "string", "time": "string", "verdict": "string", "outcome kind": "string", "count": "int",
             "flag": "bool", "object": "object", "object or null": "object or null", "list": "list",
             "number or null": "float or null", "amount or null": "float or null", "rate or null": "float or null",
             "p or null": "float or null", "p": "float"}


def _doc_rows() -> dict[tuple[str, str], tuple[str, str]]:
    parts = WHERE.split((ROOT / "docs" / "json.md").read_text(encoding="utf-8"))
    rows = {}
    for where, body in zip(parts[1::2], parts[2::2]):
        for path in re.findall(r"`([^`]+)`", where):
            for key, kind, meaning in ROW.findall(body):
                rows[("" if path == "(root)" else path, key)] = (kind.strip(), meaning)
    return rows


def test_the_keys_read_are_the_doc_s_with_its_types_nulls_and_absences():
    """Each key the check reads is documented with the type its kind is (null allowed exactly where the doc allows
    it), may be absent exactly where the doc says it may, and none is a key older schemas lack; a parent is checked
    before its keys."""
    rows, seen = _doc_rows(), set()
    assert set(DOC_TYPES) == set(KINDS)
    for path, kind in READ_BY_HISTORY:
        parent, _, key = path.rpartition(".")
        assert parent in seen or not parent, f"{path} is checked before {parent}"
        seen.add(path)
        doc_type, meaning = rows[(parent, key.removesuffix("[]"))]
        if key.endswith("[]"):
            assert doc_type == "list" and kind == "object", path
            continue
        assert doc_type == DOC_TYPES[kind], (path, doc_type, kind)
        assert (path in MAY_BE_ABSENT) == ("absent" in meaning), (path, meaning)
        assert "absent in notes of schema" not in meaning, path


def _paths(value, path: str = "") -> list[str]:
    """Every key and list item of a note, as "a.0.b"."""
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else []
    out = []
    for key, item in items:
        here = f"{path}.{key}" if path else str(key)
        out += [here, *_paths(item, here)]
    return out


def _generic(path: str) -> str:
    return re.sub(r"\.\d+", "[]", path)


@pytest.fixture(scope="module")
def bases(tmp_path_factory) -> list[dict]:
    """Real notes to mutate: the bank-assistant example (pass/fail, costs, critical categories) and a note of scores
    with latency."""
    folder = tmp_path_factory.mktemp("scores")
    lines = ["release,case_id,category,score,latency_ms"]
    for release, shift in (("r1", 0.0), ("r2", -0.03)):
        lines += [f"{release},c{i:02d},{'AB'[i % 2]},{round(0.5 + 0.04 * ((i * 7) % 10) + shift * (i % 3), 3)},"
                  f"{100 + i}" for i in range(40)]
    (folder / "s.csv").write_text("\n".join(lines) + "\n")
    result = run_cli("report", "s.csv", "--baseline", "r1", "--no-policy", "-o", "s.json", cwd=folder)
    assert result.exit_code == 0, result.output
    return [json.loads(BANK.read_text()), json.loads((folder / "s.json").read_text())]


READ_PATHS = {path for path, _ in READ_BY_HISTORY}
WRONG = st.one_of(st.just(DELETE), st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=True),
                  st.text(max_size=8), st.just("MAYBE"), st.just([]), st.just([1, "x"]), st.just({}),
                  st.just({"a": None}))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_note_mutated_at_random_is_refused_in_one_line_or_drawn(tmp_path, bases, data):
    """Whatever keys are replaced (by a value of another type, an impossible one, or nothing), history either
    refuses the note in one line with exit 2 or draws it: never a traceback (run_cli lets exceptions through)."""
    base = data.draw(st.sampled_from(bases))
    everywhere = _paths(base)
    read = [p for p in everywhere if _generic(p) in READ_PATHS or _generic(p).startswith("policy.")]
    note = base
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.one_of(st.sampled_from(read), st.sampled_from(everywhere)))
        if path in _paths(note):  # not under a key an earlier mutation replaced
            note = _set(note, path, data.draw(WRONG))
    (tmp_path / "mutated.json").write_text(json.dumps(note))
    (tmp_path / "same.json").write_text(json.dumps(base))  # a second note of the series: a flip, a policy change
    for output in ("h.md", "h.json"):
        (tmp_path / output).unlink(missing_ok=True)
    result = _history(tmp_path, tmp_path / "same.json", tmp_path / "mutated.json")
    event("refused" if result.exit_code == 2 else "drawn")
    if result.exit_code == 2:
        assert result.output.count("\n") == 1 and "mutated.json" in result.output, result.output
        assert not (tmp_path / "h.md").exists()
    else:
        assert result.exit_code == 0, result.output
        assert json.loads((tmp_path / "h.json").read_text())["notes"] >= 1


def test_the_session_end_check_names_a_written_note_history_would_refuse():
    """tests/conftest.py reads every note the tests wrote as history would, as it checks them against the schema."""
    from conftest import written_notes_history_refuses

    good = BANK.read_bytes()
    bad = json.dumps(_set(json.loads(good), "n_cases", -1)).encode()
    assert written_notes_history_refuses([("good.json", good)]) == []
    assert written_notes_history_refuses([("bad.json", bad)]) == [
        "bad.json: malformed note: n_cases is -1 (expected a whole number 0 or more)"]
