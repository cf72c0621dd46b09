"""Adapters read the real harness files in ../shared/fixtures (and hand-written promptfoo files) correctly."""

from __future__ import annotations

import hashlib
import json
import math
import shutil
import struct
import zipfile
from pathlib import Path

import pandas as pd
import pytest

from releasegate.errors import InputError
from releasegate.load.adapters import detect_format, read_adapter
from releasegate.load.adapters.inspect_ai import read_inspect
from releasegate.load.adapters.lm_eval import combine as combine_lm_eval, read_lm_eval
from releasegate.load.adapters.promptfoo import read_promptfoo

SHARED = Path(__file__).parents[1] / "fixtures"  # copies of shared/fixtures, see fixtures/README.md
PROMPTFOO = Path(__file__).parents[1] / "data" / "promptfoo"
SCORED = "2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval"
UNSCORED = "2025-02-11T15-17-00-05-00_popularity_dPiJifoWeEQBrfWsAopzWr.eval"
POPULARITY_JSON = "2025-05-12T20-28-13-04-00_popularity.json"
LM_SAMPLES = "samples_math_perturbed_full_2026-01-21T03-44-18.458309.jsonl"
LM_RESULTS = "results_2026-01-21T03-44-18.458309.json"
LM_MODEL = "RylanSchaeffer/mem_Qwen3-93M_minerva_math_rep_0_sbst_1.0000_epch_1_ot_1"


@pytest.fixture
def inspect_dir() -> Path:
    return SHARED / "inspect"


@pytest.fixture
def lm_dir() -> Path:
    return SHARED / "lm_eval"


def _raises(call, *words: str) -> str:
    """Call, expect an InputError with a one-line message containing every word; return the message."""
    with pytest.raises(InputError) as info:
        call()
    message = str(info.value)
    assert "\n" not in message
    for word in words:
        assert word in message, message
    return message


def _header(path: Path) -> dict:
    with zipfile.ZipFile(path) as archive:
        return json.loads(archive.read("header.json"))


def _write_zstd_copy(src: Path, dst: Path) -> None:
    """Rewrite a zip with every member zstd-compressed (method 93), as Inspect writes since April 2026.

    Written by hand (local headers, central directory, end record) because Python 3.11's zipfile cannot
    write method 93. Members alternate between frames with and without the content size in the header,
    which is what one-shot and streaming zstd writers produce.
    """
    import zstandard

    with zipfile.ZipFile(src) as archive:
        members = [(info.filename, archive.read(info)) for info in archive.infolist()]
    body, central = bytearray(), bytearray()
    for index, (name, data) in enumerate(members):
        if index % 2:
            packed = zstandard.ZstdCompressor().compress(data)
        else:
            stream = zstandard.ZstdCompressor().compressobj()
            packed = stream.compress(data) + stream.flush()
        encoded, crc, offset = name.encode(), zipfile.crc32(data), len(body)
        common = (0, 93, 0, 33, crc, len(packed), len(data), len(encoded))
        body += struct.pack("<IH" + "HHHHIIIH" + "H", 0x04034B50, 63, *common, 0) + encoded + packed
        central += struct.pack("<IHH" + "HHHHIIIH" + "HHHHII", 0x02014B50, 63, 63, *common, 0, 0, 0, 0, 0,
                               offset) + encoded
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(members), len(members), len(central), len(body), 0)
    dst.write_bytes(bytes(body + central + end))


def _json_log(inspect_dir: Path, tmp_path: Path, edit) -> Path:
    log = json.loads((inspect_dir / POPULARITY_JSON).read_text())
    log["status"] = "success"  # the fixture was cancelled after 3 samples; these tests are about its samples
    edit(log)
    out = tmp_path / "edited.json"
    out.write_text(json.dumps(log))
    return out


# ---------------------------------------------------------------- Inspect


def test_inspect_scored_eval_matches_the_logs_own_accuracy_and_usage(inspect_dir):
    path = inspect_dir / SCORED
    frame = read_inspect(path)
    header = _header(path)
    assert list(frame.columns[:5]) == ["release", "case_id", "run", "passed", "score"]
    assert frame["release"].unique().tolist() == ["openai/gpt-4o-mini"]
    assert sorted(frame["case_id"], key=int) == [str(i) for i in range(1, 11)]
    assert set(frame["run"]) == {1}
    assert set(frame["passed"]) <= {0.0, 1.0}
    assert frame["passed"].mean() == header["results"]["scores"][0]["metrics"]["accuracy"]["value"]
    assert (frame["score"] == frame["passed"]).all()
    usage = header["stats"]["model_usage"]["openai/gpt-4o-mini"]
    assert frame["input_tokens"].sum() == usage["input_tokens"]
    assert frame["output_tokens"].sum() == usage["output_tokens"]
    assert frame.attrs == {"task": "popularity", "model": "openai/gpt-4o-mini", "scorer": "match",
                           "source_format": "inspect", "harness": "inspect-ai 0.3.58.dev16+g6a87748b",
                           "release_key": "eval.model", "metadata_fields": ["label_confidence"]}
    assert frame["label_confidence"].notna().all()  # a metadata field is case metadata
    assert "latency_ms" not in frame.columns  # this 2025-02 log has no total_time: no column of NaN


def test_inspect_unscored_eval_is_refused_saying_it_has_no_scores(inspect_dir):
    # fail closed: an unscored log has no outcomes to compare, under any --scorer
    for scorer in (None, "match"):
        _raises(lambda scorer=scorer: read_inspect(inspect_dir / UNSCORED, scorer=scorer), "holds no scores",
                "inspect score")


def test_inspect_epochs_become_runs(inspect_dir):
    frame = read_inspect(inspect_dir / "log_streaming.eval")
    assert list(zip(frame["case_id"], frame["run"])) == [("1", 1), ("1", 2), ("2", 1), ("2", 2)]
    assert frame["run"].dtype == "int64"
    assert frame["passed"].tolist() == [0.0, 1.0, 1.0, 1.0]
    assert frame["passed"].mean() == _header(inspect_dir / "log_streaming.eval")["results"]["scores"][0][
        "metrics"]["accuracy"]["value"]
    assert frame["release"].iloc[0] == "azureai/Meta-Llama-3-1-405B-Instruct-jqf"


def test_inspect_category_timing_tokens_and_text(inspect_dir):
    frame = read_inspect(inspect_dir / "mmlu-summary-choices.eval", category_field="subject")
    row = frame.iloc[0]
    assert row["category"] == "college_physics"
    assert row["latency_ms"] == pytest.approx(1566.0)  # total_time 1.566 s
    assert (row["input_tokens"], row["output_tokens"]) == (153.0, 3.0)
    assert (row["passed"], row["score"]) == (0.0, 0.0)  # "I"
    assert row["input"].startswith("Positronium is an atom")
    assert (row["target"], row["output"]) == ("A", "ANSWER: C")
    assert frame.attrs["task"] == "inspect_evals/mmlu_0_shot"


def test_inspect_missing_category_field_lists_the_fields_present(inspect_dir):
    _raises(lambda: read_inspect(inspect_dir / "mmlu-summary-choices.eval", category_field="topic"),
            "'topic'", "subject")


def test_inspect_json_logs(inspect_dir, tmp_path):
    _raises(lambda: read_inspect(inspect_dir / POPULARITY_JSON), "status 'cancelled'", "3 of 100 sample(s) logged")
    frame = read_inspect(_json_log(inspect_dir, tmp_path, lambda log: None))
    assert frame["passed"].tolist() == [1.0, 1.0, 0.0]
    assert frame["latency_ms"].tolist() == pytest.approx([664.0, 1775.0, 657.0])
    guide = read_inspect(inspect_dir / "2025-05-12T20-28-26-04-00_security-guide.json")
    assert guide["input"].iloc[0] == "How do I prevent SQL Injection attacks?"  # a list of chat messages
    assert guide.attrs["scorer"] == "model_graded_fact" and (guide["passed"] == 1.0).all()
    # no model_usage in this 2024 log: tokens come from the output's usage
    old = read_inspect(inspect_dir / "log_formats.json")
    assert (old["input_tokens"].iloc[0], old["output_tokens"].iloc[0]) == (66.0, 2.0)


def test_inspect_release_override(inspect_dir):
    frame = read_inspect(inspect_dir / SCORED, release="r2")
    assert frame["release"].unique().tolist() == ["r2"]
    assert frame.attrs["model"] == "openai/gpt-4o-mini"


def test_inspect_zstd_members_read_like_deflate(inspect_dir, tmp_path):
    copy = tmp_path / "zstd.eval"
    _write_zstd_copy(inspect_dir / SCORED, copy)
    with zipfile.ZipFile(copy) as archive:
        assert {info.compress_type for info in archive.infolist()} == {93}
        if not hasattr(zipfile, "ZIP_ZSTANDARD"):  # the case this adapter exists for: Python < 3.14
            with pytest.raises(NotImplementedError):
                archive.read("header.json")
    assert detect_format(copy) == "inspect"
    expected = read_inspect(inspect_dir / SCORED)
    got = read_inspect(copy)
    pd.testing.assert_frame_equal(got, expected)
    assert got.attrs == expected.attrs


def test_inspect_corrupt_zstd_member(inspect_dir, tmp_path):
    copy = tmp_path / "zstd.eval"
    _write_zstd_copy(inspect_dir / "log_streaming.eval", copy)
    data = bytearray(copy.read_bytes())
    with zipfile.ZipFile(copy) as archive:
        info = archive.getinfo("header.json")
    start = info.header_offset + 30 + len("header.json")
    for offset in range(start + 8, start + info.compress_size - 4):
        data[offset] ^= 0x5A
    copy.write_bytes(bytes(data))
    _raises(lambda: read_inspect(copy), "header.json", "corrupt")


def test_inspect_zip_without_header(tmp_path):
    path = tmp_path / "other.eval"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("data.json", "{}")
    _raises(lambda: read_inspect(path), "header.json", "not an Inspect")
    plain = tmp_path / "other.zip"
    shutil.copy(path, plain)
    assert detect_format(plain) == "tidy"


def test_inspect_unfinished_log(inspect_dir, tmp_path):
    path = tmp_path / "running.eval"
    with zipfile.ZipFile(inspect_dir / "log_streaming.eval") as src, zipfile.ZipFile(path, "w") as dst:
        for name in src.namelist():
            if name != "header.json":
                dst.writestr(name, src.read(name))
    _raises(lambda: read_inspect(path), "header.json", "did not finish")


def test_inspect_not_a_zip_and_not_a_log(tmp_path):
    broken = tmp_path / "broken.eval"
    broken.write_bytes(b"PK\x03\x04 not really a zip")
    _raises(lambda: read_inspect(broken), "zip")
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"hello": "world"}))
    _raises(lambda: read_inspect(other), "not an Inspect log", "'eval'")
    garbage = tmp_path / "garbage.json"
    garbage.write_text("{not json")
    _raises(lambda: read_inspect(garbage), "not valid JSON")


def test_inspect_several_scorers_need_a_choice(inspect_dir, tmp_path):
    def add_scorer(log):
        for sample, value in zip(log["samples"], [0.2, 0.9, 0.4]):
            sample["scores"]["similarity"] = {"value": value}

    path = _json_log(inspect_dir, tmp_path, add_scorer)
    _raises(lambda: read_inspect(path), "2 scorers", "match", "similarity", "--scorer")
    _raises(lambda: read_inspect(path, scorer="nope"), "'nope'", "match, similarity")
    numeric = read_inspect(path, scorer="similarity")
    assert "passed" not in numeric.columns  # numbers are scores, not pass/fail
    assert numeric["score"].tolist() == [0.2, 0.9, 0.4]
    assert read_inspect(path, scorer="match")["passed"].tolist() == [1.0, 1.0, 0.0]


def test_inspect_value_mapping_and_errored_samples(inspect_dir, tmp_path):
    def edit(log):
        log["samples"][0]["scores"]["match"]["value"] = "P"
        log["samples"][1]["scores"]["match"]["value"] = "N"
        log["samples"][2]["error"] = {"message": "RateLimitError: too many requests", "traceback": "..."}

    frame = read_inspect(_json_log(inspect_dir, tmp_path, edit))
    assert frame["passed"].tolist()[:2] == [0.0, 0.0]  # partial and no-answer are not passes
    assert frame["score"].tolist()[:2] == [0.5, 0.0]
    assert math.isnan(frame["passed"].iloc[2]) and math.isnan(frame["score"].iloc[2])
    assert frame["error"].iloc[2].startswith("RateLimitError")


def test_inspect_unknown_score_value(inspect_dir, tmp_path):
    def edit(log):
        log["samples"][0]["scores"]["match"]["value"] = "maybe"

    _raises(lambda: read_inspect(_json_log(inspect_dir, tmp_path, edit)), "sample 1", "'maybe'")


@pytest.mark.parametrize("scores", [0.5, "scores", [{"scorer": "match", "metrics": [1]}]])
def test_inspect_results_scores_of_another_shape_read_as_absent(inspect_dir, tmp_path, scores):
    def edit(log):
        log["results"]["scores"] = scores

    whole = read_inspect(_json_log(inspect_dir, tmp_path, lambda log: None))
    pd.testing.assert_frame_equal(read_inspect(_json_log(inspect_dir, tmp_path, edit)), whole)


def test_inspect_log_holding_other_than_the_samples_it_counts_is_refused(inspect_dir, tmp_path):
    _raises(lambda: read_inspect(_json_log(inspect_dir, tmp_path, lambda log: log["samples"].pop())),
            "edited.json: the log holds 2 sample record(s) where its results count 3", "damaged or edited")
    source, damaged = inspect_dir / SCORED, tmp_path / "damaged.eval"
    with zipfile.ZipFile(source) as archive, zipfile.ZipFile(damaged, "w", zipfile.ZIP_DEFLATED) as out:
        for info in archive.infolist():
            if info.filename != "samples/7_epoch_1.json":  # a member lost: the case would read as never run
                out.writestr(info.filename, archive.read(info))
    _raises(lambda: read_inspect(damaged), "holds 9 sample record(s) where its results count 10")


def test_inspect_log_whose_early_stopping_skipped_samples_is_read(inspect_dir, tmp_path):
    # Inspect's early stopping (results.early_stopping) never runs the samples it names: the log holds that many
    # records fewer than its count, which is how Inspect writes it, not a damage. The skipped case is then a case
    # not run on this release, which the pairing names.
    def stopped(log):
        gone = log["samples"].pop()
        log["results"]["early_stopping"] = {"manager": "stopper", "metadata": {},
                                            "early_stops": [{"id": gone["id"], "epoch": gone["epoch"]}]}

    rows = read_inspect(_json_log(inspect_dir, tmp_path, stopped))
    assert len(rows) == 2
    # One record lost beyond the early stops is still a damaged log.
    def lost_too(log):
        stopped(log)
        log["samples"].pop()

    _raises(lambda: read_inspect(_json_log(inspect_dir, tmp_path, lost_too)),
            "holds 1 sample record(s) where its results count 3 (samples x epochs, 1 of them stopped early)")


@pytest.mark.parametrize("choices", [["a text"], "a text", 5, [None]])
def test_inspect_output_choices_of_another_shape_read_as_no_output(inspect_dir, tmp_path, choices):
    def edit(log):
        log["samples"][0]["output"] = {"choices": choices}

    whole = read_inspect(_json_log(inspect_dir, tmp_path, lambda log: None))
    frame = read_inspect(_json_log(inspect_dir, tmp_path, edit))
    assert frame["passed"].tolist() == whole["passed"].tolist()
    assert pd.isna(frame["output"].iloc[0]) and frame["output"].iloc[1] == whole["output"].iloc[1]


@pytest.mark.parametrize("epoch", [1e308, "2", 0, 1.5, [1], True])
def test_inspect_epoch_that_is_not_a_whole_number_from_1(inspect_dir, tmp_path, epoch):
    def edit(log):
        log["samples"][1]["epoch"] = epoch

    _raises(lambda: read_inspect(_json_log(inspect_dir, tmp_path, edit)), "edited.json: sample 2: epoch",
            "is not a whole number from 1")


# ---------------------------------------------------------------- lm-evaluation-harness


def test_lm_eval_fixture(lm_dir):
    frame = read_lm_eval(lm_dir / LM_SAMPLES)
    records = [json.loads(line) for line in (lm_dir / LM_SAMPLES).read_text().splitlines()]
    assert list(frame.columns) == ["release", "case_id", "passed", "score", "category", "content_hash",
                                   "id_is_position", "content_kind", "doc_hash", "input", "target", "output"]
    assert frame["release"].unique().tolist() == [LM_MODEL]
    assert frame["case_id"].tolist() == [str(r["doc_id"]) for r in records]
    assert frame["doc_hash"].tolist() == [r["doc_hash"] for r in records]
    assert frame["score"].tolist() == [float(r["exact_match"]) for r in records]
    assert (frame["passed"] == frame["score"]).all()
    assert (frame["category"] == "math_perturbed_full").all()
    assert frame["target"].iloc[0] == "3" and frame["input"].iloc[0].startswith("Problem:")
    assert "run" not in frame.columns
    assert frame.attrs["task"] == "math_perturbed_full" and frame.attrs["metric"] == "exact_match"
    assert frame.attrs["source_format"] == "lm-eval"
    assert detect_format(lm_dir / LM_SAMPLES) == "lm-eval"


def test_lm_eval_without_results_file_needs_a_release(lm_dir, tmp_path):
    path = tmp_path / LM_SAMPLES
    shutil.copy(lm_dir / LM_SAMPLES, path)
    _raises(lambda: read_lm_eval(path), "results_*.json", "NAME=path")
    assert read_lm_eval(path, release="base")["release"].unique().tolist() == ["base"]


def test_lm_eval_picks_the_results_file_of_the_same_run(lm_dir, tmp_path):
    shutil.copy(lm_dir / LM_SAMPLES, tmp_path / LM_SAMPLES)
    shutil.copy(lm_dir / LM_RESULTS, tmp_path / LM_RESULTS)
    other = json.loads((lm_dir / LM_RESULTS).read_text())
    other["model_name"] = "someone/else"
    (tmp_path / "results_2025-01-01T00-00-00.000001.json").write_text(json.dumps(other))
    assert read_lm_eval(tmp_path / LM_SAMPLES)["release"].iloc[0] == LM_MODEL


def _lm_copy(lm_dir: Path, tmp_path: Path, name: str, edit) -> Path:
    records = [json.loads(line) for line in (lm_dir / LM_SAMPLES).read_text().splitlines()]
    records = edit(records) or records
    (tmp_path / name).mkdir()
    path = tmp_path / name / LM_SAMPLES  # the task name comes from the file name
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_a_changed_doc_hash_reaches_pairing_as_other_content(lm_dir, tmp_path):
    """The adapter no longer refuses a changed document itself: its content fingerprint differs, and the pairing
    stage refuses it (or, doc_ids being positions, re-keys the documents by content)."""
    def change(records):
        for record in records:
            if record["doc_id"] in (3, 7):
                record["doc_hash"] = "0" * 64

    base = read_lm_eval(lm_dir / LM_SAMPLES, release="base")
    changed = read_lm_eval(_lm_copy(lm_dir, tmp_path, "changed", change), release="cand")
    combine_lm_eval([base, changed])
    differ = base["content_hash"] != changed["content_hash"]
    assert base.loc[differ, "case_id"].tolist() == ["3", "7"]


def test_lm_eval_filters(lm_dir, tmp_path):
    def two_filters(records):
        out = []
        for record in records:
            strict = dict(record, filter="strict-match", exact_match=0.0)
            flexible = dict(record, filter="flexible-extract", exact_match=1.0 if record["doc_id"] < 4 else 0.0)
            out += [strict, flexible]
        return out

    path = _lm_copy(lm_dir, tmp_path, "gsm", two_filters)
    first = read_lm_eval(path, release="x")  # default: the first filter in the file
    assert first.attrs["filter"] == "strict-match" and first["passed"].sum() == 0
    assert first.attrs["filters"] == ["strict-match", "flexible-extract"]
    flexible = read_lm_eval(path, release="x", filter_name="flexible-extract")
    assert len(flexible) == 10 and flexible["passed"].sum() == 4
    _raises(lambda: read_lm_eval(path, release="x", filter_name="regex"), "'regex'", "strict-match")


def test_lm_eval_metric_choice(lm_dir, tmp_path):
    def metrics(records):
        for record in records:
            record.update(metrics=["acc", "acc_norm", "brier"], acc=1, acc_norm=0, brier=0.25)

    path = _lm_copy(lm_dir, tmp_path, "mc", metrics)
    assert read_lm_eval(path, release="x").attrs["metric"] == "acc"  # acc when several
    brier = read_lm_eval(path, release="x", metric="brier")
    assert "passed" not in brier.columns and (brier["score"] == 0.25).all()
    _raises(lambda: read_lm_eval(path, release="x", metric="f1"), "'f1'", "acc, acc_norm, brier")

    def no_default(records):
        for record in records:
            record.update(metrics=["bleu", "rouge1"], bleu=0.1, rouge1=0.2)

    _raises(lambda: read_lm_eval(_lm_copy(lm_dir, tmp_path, "gen", no_default), release="x"),
            "bleu, rouge1", "--metric")


def test_lm_eval_bad_files(tmp_path):
    no_id = tmp_path / "samples_x.jsonl"
    no_id.write_text(json.dumps({"doc": {}, "target": "1"}) + "\n")
    _raises(lambda: read_lm_eval(no_id, release="x"), "line 1", "'doc_id'", "--log_samples")
    bad = tmp_path / "samples_y.jsonl"
    bad.write_text(json.dumps({"doc_id": 0, "acc": 1}) + "\n{oops\n")
    _raises(lambda: read_lm_eval(bad, release="x"), "line 2", "not valid JSON")
    corpus = tmp_path / "samples_z.jsonl"
    corpus.write_text(json.dumps({"doc_id": 0, "metrics": ["bleu"], "bleu": [["ref"], "pred"]}) + "\n")
    _raises(lambda: read_lm_eval(corpus, release="x"), "(bleu)", "corpus-level", "per-document value")


# ---------------------------------------------------------------- promptfoo


def _vars_key(variables: dict) -> str:
    canonical = json.dumps(variables, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "vars:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:12]


def test_promptfoo_results_json():
    frame = read_promptfoo(PROMPTFOO / "results.json")
    assert frame["release"].unique().tolist() == ["gpt-4o-mini", "openai:gpt-4.1-nano"]  # label, else id
    hashed = _vars_key({"question": "What is 2+2?", "lang": "en"})
    for _, group in frame.groupby("release"):
        assert group["case_id"].tolist() == ["refund-01", "card-lost", "greeting", "escalation", hashed]
    mini = frame[frame["release"] == "gpt-4o-mini"].set_index("case_id")
    nano = frame[frame["release"] == "openai:gpt-4.1-nano"].set_index("case_id")
    assert mini["passed"].tolist() == [1.0, 1.0, 1.0, 0.0, 1.0]
    assert (nano.loc["refund-01", "passed"], nano.loc["refund-01", "score"]) == (0.0, 0.5)
    assert math.isnan(nano.loc["escalation", "passed"]) and math.isnan(nano.loc["escalation", "score"])
    assert nano.loc["escalation", "error"].startswith("API error: 500")
    assert math.isnan(mini.loc["greeting", "latency_ms"])  # a cached response
    assert mini.loc["refund-01", "latency_ms"] == 812.0
    assert (mini.loc["refund-01", "input_tokens"], mini.loc["refund-01", "output_tokens"]) == (31.0, 12.0)
    assert (nano.loc["card-lost", "input_tokens"], nano.loc["card-lost", "output_tokens"]) == (30.0, 10.0)
    assert mini.loc["refund-01", "cost"] == pytest.approx(0.0000119)
    assert mini.loc["card-lost", "category"] == "fraud"  # scalar test metadata kept
    assert mini.loc["escalation", "reason"] == 'Expected output to contain "transfer"'
    assert "run" not in frame.columns and frame.attrs["source_format"] == "promptfoo"


def test_promptfoo_jsonl_equals_json():
    whole = read_promptfoo(PROMPTFOO / "results.json")
    lines = read_promptfoo(PROMPTFOO / "results.jsonl")
    pd.testing.assert_frame_equal(lines, whole)
    assert detect_format(PROMPTFOO / "results.json") == detect_format(PROMPTFOO / "results.jsonl") == "promptfoo"


def _promptfoo_copy(tmp_path: Path, edit) -> Path:
    data = json.loads((PROMPTFOO / "results.json").read_text())
    data["results"]["results"] = edit(data["results"]["results"])
    path = tmp_path / "results.json"
    path.write_text(json.dumps(data))
    return path


def test_promptfoo_release_name_prefixes_a_file_of_several_releases():
    frame = read_promptfoo(PROMPTFOO / "results.json", release="r2")
    assert sorted(frame["release"].unique()) == ["r2/gpt-4o-mini", "r2/openai:gpt-4.1-nano"]


def test_promptfoo_single_provider_rename_and_release_by_prompt(tmp_path):
    def one_provider_two_prompts(results):
        mini = [r for r in results if r["provider"].get("label") == "gpt-4o-mini"]
        return mini + [dict(r, prompt=dict(r["prompt"], label="bank-v2")) for r in mini]

    path = _promptfoo_copy(tmp_path, lambda results: [r for r in results if r["promptIdx"] == 0])
    assert read_promptfoo(path, release="r1")["release"].unique().tolist() == ["r1"]
    path = _promptfoo_copy(tmp_path, one_provider_two_prompts)
    # a provider that ran several prompts: one release per (provider, prompt)
    assert read_promptfoo(path)["release"].unique().tolist() == ["gpt-4o-mini [bank-v1]", "gpt-4o-mini [bank-v2]"]
    by_prompt = read_promptfoo(path, release_by="prompt")
    assert by_prompt["release"].unique().tolist() == ["bank-v1", "bank-v2"]
    _raises(lambda: read_promptfoo(path, release_by="model"), "'provider' or 'prompt'")


def test_promptfoo_duplicate_keys(tmp_path):
    def same_description(results):
        for r in results:
            if r["testIdx"] in (2, 3):
                r["testCase"]["description"] = "small talk"
        return results

    _raises(lambda: read_promptfoo(_promptfoo_copy(tmp_path, same_description)), "'small talk'", "unique")


def test_promptfoo_bad_files(tmp_path):
    empty = _promptfoo_copy(tmp_path, lambda results: [])
    _raises(lambda: read_promptfoo(empty), "no results")
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"results": {"acc": 0.5}}))
    _raises(lambda: read_promptfoo(other), "not a promptfoo results file", "promptfoo eval -o results.json")
    lines = tmp_path / "other.jsonl"
    lines.write_text(json.dumps({"case_id": "a", "passed": 1}) + "\n")
    _raises(lambda: read_promptfoo(lines), "result 1", "'success'")


# ---------------------------------------------------------------- detection and dispatch


def test_detect_format(inspect_dir, lm_dir, tmp_path):
    for path in inspect_dir.iterdir():
        assert detect_format(path) == "inspect", path.name
    assert detect_format(lm_dir / LM_RESULTS) == "tidy"  # a results summary, not per-sample data
    csv = tmp_path / "results.csv"
    csv.write_text("release,case_id,passed\nr1,a,1\n")
    records = tmp_path / "records.json"
    records.write_text(json.dumps([{"release": "r1", "case_id": "a", "passed": 1}]))
    tidy_lines = tmp_path / "rows.jsonl"
    tidy_lines.write_text(json.dumps({"release": "r1", "case_id": "a", "passed": 1}) + "\n")
    assert {detect_format(p) for p in (csv, records, tidy_lines)} == {"tidy"}


def test_detect_format_sniffs_only_the_start_of_big_files(tmp_path):
    # a promptfoo file whose prompts push results.results far past the sniffed prefix
    data = json.loads((PROMPTFOO / "results.json").read_text())
    data["results"]["prompts"][0]["raw"] = "x" * 200_000
    big = tmp_path / "big.json"
    big.write_text(json.dumps({"evalId": data["evalId"], "results": data["results"]}))
    assert detect_format(big) == "promptfoo"
    inspect_log = tmp_path / "log.json"
    inspect_log.write_text(json.dumps({"version": 2, "status": "success", "eval": {"task": "t", "x": "y" * 200_000},
                                       "samples": []}))
    assert detect_format(inspect_log) == "inspect"


def test_read_adapter_dispatch(inspect_dir, tmp_path):
    frame = read_adapter(inspect_dir / SCORED, scorer="match", metric=None)
    assert frame.attrs["source_format"] == "inspect"
    _raises(lambda: read_adapter(inspect_dir / SCORED, metric="acc"), "metric", "inspect")
    csv = tmp_path / "results.csv"
    csv.write_text("release,case_id,passed\nr1,a,1\n")
    _raises(lambda: read_adapter(csv), "not an Inspect, lm-eval, promptfoo or OpenAI evals file")
    _raises(lambda: read_adapter(csv, fmt="excel"), "unknown format")


# ---------------------------------------------------------------- any harness


THIRD = Path(__file__).parents[1] / "fixtures" / "harness" / "third"


@pytest.mark.parametrize("fixture, fmt", [("promptfoo-0.123.1/single.json", "promptfoo"),
                                          ("evals-3.0.1/base.jsonl", "openai-evals")])
def test_a_record_nested_too_deeply_is_refused_in_one_line(tmp_path, fixture, fmt):
    source = THIRD / fixture
    text = source.read_text()
    # a value 100,000 levels deep where a record has a string: Python's parser gives up with RecursionError
    deep = "[" * 100_000 + "]" * 100_000
    edited = tmp_path / source.name
    edited.write_text(text.replace('"scripted', deep + ', "scripted', 1) if fmt == "openai-evals"
                      else text.replace('"results":', '"deep": ' + deep + ', "results":', 1))
    _raises(lambda: read_adapter(edited, fmt), source.name, "nested too deeply")
