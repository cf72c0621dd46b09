"""Every adapter gives pairing what it compares: each row's ``content_hash`` (the case's content as the harness
holds it) and ``id_is_position`` (the case id is a place in the dataset, not a name).

Expected fingerprints are computed here from each file's raw structure (the zip members, the JSON records), with
``content_fingerprint`` applied to the parts the pairing contract names; never from the adapter under test.
"""

from __future__ import annotations

import glob
import json
import zipfile
from pathlib import Path

import pandas as pd
import pytest

from releasegate.load import Source, load_results
from releasegate.load.adapters.inspect_ai import read_inspect
from releasegate.load.adapters.inspect_frame import read_samples_frame
from releasegate.load.adapters.lm_eval import read_lm_eval
from releasegate.load.adapters.openai_evals import read_openai_evals
from releasegate.load.adapters.promptfoo import read_promptfoo
from releasegate.load.fingerprint import CONTENT_COLUMN, PAIRING_COLUMNS, POSITION_COLUMN, content_fingerprint

FIXTURES = Path(__file__).parents[1] / "fixtures"
HARNESS = FIXTURES / "harness"
THIRD = HARNESS / "third"
INTEGER_IDS = FIXTURES / "inspect" / "2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval"


def _raw_samples(log: Path) -> list[dict]:
    with zipfile.ZipFile(log) as archive:
        return [json.loads(archive.read(n)) for n in archive.namelist() if n.startswith("samples/")]


def _by_case(frame: pd.DataFrame) -> dict[str, str]:
    pairs = frame.groupby("case_id")[CONTENT_COLUMN].unique()
    assert (pairs.map(len) == 1).all(), "every row of one case carries one fingerprint"
    return {case: values[0] for case, values in pairs.items()}


# ---------------------------------------------------------------- Inspect


def test_inspect_named_ids_carry_input_and_target_and_are_not_positions():
    log = sorted((THIRD / "inspect-0.3.130" / "reducer-mode").glob("*.eval"))[0]
    expected = {s["id"]: content_fingerprint(s["input"], s["target"]) for s in _raw_samples(log)}
    frame = read_inspect(log)
    assert _by_case(frame) == expected and len(expected) == 12
    assert not frame[POSITION_COLUMN].any()


def test_inspect_default_integer_ids_are_positions():
    raw = _raw_samples(INTEGER_IDS)
    assert all(isinstance(s["id"], int) for s in raw)
    frame = read_inspect(INTEGER_IDS)
    assert frame[POSITION_COLUMN].all()
    assert _by_case(frame) == {str(s["id"]): content_fingerprint(s["input"], s["target"]) for s in raw}


def test_inspect_choices_are_part_of_a_multiple_choice_sample():
    (raw,) = _raw_samples(FIXTURES / "inspect" / "mmlu-summary-choices.eval")
    frame = read_inspect(FIXTURES / "inspect" / "mmlu-summary-choices.eval")
    assert frame[CONTENT_COLUMN].iloc[0] == content_fingerprint(raw["input"], raw["target"], raw["choices"])
    assert frame[CONTENT_COLUMN].iloc[0] != content_fingerprint(raw["input"], raw["target"])


def test_inspect_eval_and_json_of_one_log_give_one_fingerprint():
    eval_zip = read_inspect(FIXTURES / "inspect" / "log_formats.eval")
    as_json = read_inspect(FIXTURES / "inspect" / "log_formats.json")
    assert eval_zip[CONTENT_COLUMN].tolist() == as_json[CONTENT_COLUMN].tolist()
    assert eval_zip[CONTENT_COLUMN].notna().all()


def test_inspect_versions_agree_on_the_same_samples():
    """0.3.285 writes zstd members and newer fields; the same dataset gives the same fingerprints."""
    old = read_inspect(sorted((THIRD / "inspect-0.3.130" / "reducer-mode").glob("*.eval"))[0])
    new = read_inspect(sorted((THIRD / "inspect-0.3.285" / "reducer-mode").glob("*.eval"))[0])
    assert _by_case(old) == _by_case(new)


def _chat_log(tmp_path: Path, name: str, message_id: str, text: str, attachment: bool = False) -> Path:
    log = json.loads((FIXTURES / "inspect" / "log_formats.json").read_text())
    (sample,) = log["samples"]
    content = "attachment://abc123" if attachment else text
    sample["input"] = [{"id": message_id, "role": "system", "content": "Be brief.", "source": "input"},
                       {"id": message_id + "u", "role": "user", "content": [{"type": "text", "text": content}]}]
    sample["attachments"] = {"abc123": text} if attachment else {}
    path = tmp_path / name
    path.write_text(json.dumps(log))
    return path


def test_inspect_chat_input_ignores_message_ids_and_resolves_attachments(tmp_path):
    """Inspect draws message ids afresh each run and moves long texts into attachments: neither is content."""
    first = read_inspect(_chat_log(tmp_path, "a.json", "id-run-1", "What is 2+2?"))
    second = read_inspect(_chat_log(tmp_path, "b.json", "id-run-2", "What is 2+2?", attachment=True))
    other = read_inspect(_chat_log(tmp_path, "c.json", "id-run-1", "What is 3+3?"))
    assert first[CONTENT_COLUMN].iloc[0] == second[CONTENT_COLUMN].iloc[0]
    assert first[CONTENT_COLUMN].iloc[0] != other[CONTENT_COLUMN].iloc[0]


def test_inspect_reducer_path_keeps_each_samples_fingerprint():
    log = sorted((THIRD / "inspect-0.3.130" / "reducer-at_least_1").glob("*.eval"))[0]
    reduced = read_inspect(log)
    assert "run" not in reduced.columns
    assert _by_case(reduced) == {s["id"]: content_fingerprint(s["input"], s["target"]) for s in _raw_samples(log)}


def test_inspect_samples_export_fingerprints_its_input_and_target():
    for name in ("samples.csv", "samples.parquet"):
        path = THIRD / "inspect-0.3.285" / "samples-df" / name
        raw = pd.read_csv(path, dtype=str) if name.endswith(".csv") else pd.read_parquet(path)
        frame = read_samples_frame(path)
        assert frame[CONTENT_COLUMN].tolist() == [content_fingerprint(i, t) for i, t in zip(raw["input"],
                                                                                            raw["target"])]
        assert not frame[POSITION_COLUMN].any()  # ids q1..q12


# ---------------------------------------------------------------- OpenAI evals


EVALS = THIRD / "evals-3.0.1" / "base.jsonl"


def test_evals_sample_ids_are_positions_and_a_record_without_prompts_has_no_content():
    frame = read_openai_evals(EVALS)
    assert frame[POSITION_COLUMN].all()
    assert frame[CONTENT_COLUMN].isna().all()  # the scripted fn recorded no sampling events: no prompt


def test_evals_content_is_the_sampled_prompt_and_the_ideal(tmp_path):
    lines = EVALS.read_text().splitlines()
    matches = [json.loads(line) for line in lines if '"type": "match"' in line]
    prompts = {m["sample_id"]: [{"role": "user", "content": f"Say the word {m['data']['expected']}."}]
               for m in matches}
    sampling = [json.dumps({"run_id": m["run_id"], "event_id": 100 + n, "sample_id": m["sample_id"],
                            "type": "sampling", "data": {"prompt": prompts[m["sample_id"]], "sampled": ["x"]}})
                for n, m in enumerate(matches)]
    path = tmp_path / "with-sampling.jsonl"
    path.write_text("\n".join(lines + sampling) + "\n")
    frame = read_openai_evals(path)
    assert _by_case(frame) == {m["sample_id"]: content_fingerprint(prompts[m["sample_id"]], m["data"]["expected"])
                               for m in matches}
    assert frame.set_index("case_id").loc["words.dev.1", "input"] == "Say the word pear."


# ---------------------------------------------------------------- promptfoo


@pytest.mark.parametrize("name", ["single.json", "repeat3.json", "errors.json"])
def test_promptfoo_content_is_the_tests_vars_and_assertions(name):
    path = THIRD / "promptfoo-0.123.1" / name
    results = json.loads(path.read_text())["results"]["results"]
    expected = {content_fingerprint(r["testCase"]["vars"], [[a["type"], a.get("value")]
                                                            for a in r["testCase"].get("assert", [])])
                for r in results}
    frame = read_promptfoo(path)
    assert set(frame[CONTENT_COLUMN]) == expected
    assert frame.groupby("case_id")[CONTENT_COLUMN].nunique().eq(1).all()
    assert not frame[POSITION_COLUMN].any()


def test_promptfoo_results_version_2_and_3_give_one_fingerprint_per_test():
    old = read_promptfoo(HARNESS / "promptfoo-0.55.0" / "grid.json")
    new = read_promptfoo(HARNESS / "promptfoo-0.123.1" / "grid.json")
    lines = read_promptfoo(HARNESS / "promptfoo-0.123.1" / "grid.jsonl")
    assert _by_case(old) == _by_case(new) == _by_case(lines)
    assert len(set(_by_case(new).values())) == len(_by_case(new))


# ---------------------------------------------------------------- lm-evaluation-harness


def test_lm_eval_content_is_the_task_and_its_doc_hash_and_doc_ids_are_positions():
    (path,) = glob.glob(str(HARNESS / "lm-eval-0.4.13" / "model-a" / "samples_words_gen_*.jsonl"))
    records = [json.loads(line) for line in Path(path).read_text().splitlines()]
    frame = read_lm_eval(Path(path))
    assert frame[POSITION_COLUMN].all()
    expected = {str(r["doc_id"]): content_fingerprint("words_gen", r["doc_hash"]) for r in records}
    assert _by_case(frame) == expected


def test_lm_eval_before_doc_hash_gets_the_hash_lm_eval_would_have_written():
    """lm-eval 0.4.1 logged no doc_hash: the document's own hash stands in, so 0.4.1 and 0.4.13 files of the same
    documents carry the same fingerprints."""
    (old,) = glob.glob(str(HARNESS / "lm-eval-0.4.1" / "model-a" / "*words_mc*.jsonl"))
    (new,) = glob.glob(str(HARNESS / "lm-eval-0.4.13" / "model-a" / "samples_words_mc_*.jsonl"))
    assert "doc_hash" not in Path(old).read_text()
    assert _by_case(read_lm_eval(Path(old))) == _by_case(read_lm_eval(Path(new)))


def test_lm_eval_the_same_document_in_two_tasks_is_two_cases():
    frames = [read_lm_eval(Path(p)) for p in sorted(glob.glob(str(HARNESS / "lm-eval-0.4.13" / "model-a" /
                                                                  "samples_*.jsonl")))]
    hashes = [set(f[CONTENT_COLUMN]) for f in frames]
    assert not hashes[0] & hashes[1]


# ---------------------------------------------------------------- every adapter


@pytest.mark.parametrize("path", [
    INTEGER_IDS, EVALS, THIRD / "promptfoo-0.123.1" / "single.json",
    next((HARNESS / "lm-eval-0.4.13" / "model-a").glob("samples_words_mc_*.jsonl")),
    THIRD / "inspect-0.3.285" / "samples-df" / "samples.csv",
], ids=lambda p: p.parent.name + "/" + p.name[:20])
def test_every_adapter_gives_both_columns_and_they_are_never_case_metadata(path):
    loaded = load_results([Source(path, "base")])
    assert set(PAIRING_COLUMNS) <= set(loaded.table.columns)
    assert loaded.table[POSITION_COLUMN].map(type).eq(bool).all()
    assert not set(PAIRING_COLUMNS) & set(loaded.metadata_columns)
