"""Read lm-evaluation-harness ``samples_<task>_<date>.jsonl`` (``--log_samples``) into the tidy table.

One row per doc_id: ``case_id`` is ``str(doc_id)``, and ``doc_hash`` is kept beside the content fingerprint
pairing compares (a document changed between the releases' runs is the pairing stage's to refuse or re-key).
``category`` is the task name. doc_id is a
position in the task's documents (``id_is_position``); ``content_hash`` is the fingerprint of the task and the
doc_hash (computed from the document as lm-eval computes it where the file has none).
The release defaults to the model named by the sibling ``results_<date>.json``.

Choices: when a doc appears under several filters (e.g. gsm8k's strict-match and flexible-extract),
the first filter in the file is used unless ``filter_name`` names another. The metric defaults to
the only one present, else ``acc``, else ``exact_match``. ``passed`` is given for 0/1 metrics:
accuracy-type names (acc, acc_norm, exact_match, ...) or boolean values; others give ``score`` only.
``metric`` and ``filter_name`` are one name for every file, or ``TASK=NAME`` pairs separated by commas
(``words_mc=acc_norm,words_gen=exact_match``) when the tasks read together differ; a task without a pair takes
its default. The metric and filter used, and the lm-eval version, are kept in ``df.attrs`` for the provenance.

lm-eval 0.4.0/0.4.1 wrote ``<model args>_<task>.jsonl`` (``pretrained__model-a_words_mc.jsonl``) holding one
pretty-printed JSON array, with no doc_hash, beside ``results.json``; the task is the results' task whose name
ends the file name.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pandas as pd

from releasegate.errors import InputError
from releasegate.load.adapters.fields import list_at, mapping_at
from releasegate.load.adapters.lm_eval_files import (harness_version, model_name, old_task_name, read_records,
                                                     read_summary, task_config)
from releasegate.load.fingerprint import CONTENT_COLUMN, KIND_COLUMN, POSITION_COLUMN, content_fingerprint
from releasegate.text import clip as _clip

NAN = float("nan")
LOWER = "lower is better (from lm-eval's higher_is_better)"
HIGHER = "higher is better (from lm-eval's higher_is_better)"
# Metrics lm-eval aggregates over the whole corpus, not as a mean of per-document values (their aggregation
# when the task's config does not name one): a per-document "perplexity" is a log-likelihood, a per-document
# "bleu" a (reference, prediction) pair. Any aggregation but "mean" is corpus-level.
CORPUS_AGGREGATIONS = {"perplexity": "perplexity", "word_perplexity": "weighted_perplexity",
                       "byte_perplexity": "weighted_perplexity", "bits_per_byte": "bits_per_byte",
                       "bleu": "bleu", "chrf": "chrf", "ter": "ter"}
BINARY_METRICS = frozenset({"acc", "acc_norm", "exact_match", "exact", "em", "mc1", "pass@1"})
_NAME = re.compile(r"^samples_(?P<task>.+)_(?P<date>\d{4}-\d{2}-\d{2}T[0-9.\-]+)$")
# Fields of a samples record that are not per-sample metrics (used when "metrics" is absent: lm-eval < 0.4.3).
_NOT_METRICS = frozenset({"doc_id", "doc", "target", "arguments", "resps", "filtered_resps", "filter",
                          "metrics", "doc_hash", "prompt_hash", "target_hash"})


def read_lm_eval(path: Path, *, release: str | None = None, metric: str | None = None,
                 filter_name: str | None = None) -> pd.DataFrame:
    """Read one samples file; ``df.attrs`` holds ``task``, ``metric``, ``filter``, ``filters``, ``model``."""
    path = Path(path)
    match = _NAME.match(path.stem)
    task = match["task"] if match else old_task_name(path)
    records = list(read_records(path))
    if not records:
        raise InputError(f"{path}: no records; an lm-evaluation-harness samples_*.jsonl file was expected")
    summary = read_summary(path, match["date"] if match else None)
    filter_name = choice_for_task(filter_name, task)
    metric = choice_for_task(metric, task)
    _name_unnamed_filters(path, records, task_config(summary, task))
    filters = list(dict.fromkeys(str(r.get("filter", "none")) for r in records))
    chosen_filter = filter_name if filter_name is not None else filters[0]
    if chosen_filter not in filters:
        raise InputError(f"{path}: no filter {chosen_filter!r}; filters present: {', '.join(filters)}")
    records = [r for r in records if str(r.get("filter", "none")) == chosen_filter]
    aggregations = _aggregations(task_config(summary, task))
    chosen_metric = _choose_metric(path, records, metric, aggregations, task)
    model = ""
    if not release:
        model = model_name(path, match["date"] if match else None)
        release = model
    rows = [_row(path, r, chosen_metric, task) for r in records]
    frame = pd.DataFrame(rows)
    dup = frame["case_id"][frame["case_id"].duplicated()].unique()
    if len(dup):
        raise InputError(f"{path}: doc_id repeated within filter {chosen_filter!r}: {', '.join(dup[:5])}")
    values = frame["score"].dropna()
    if chosen_metric in BINARY_METRICS and not values.isin((0.0, 1.0)).all():
        odd = frame.loc[frame["score"].notna() & ~frame["score"].isin((0.0, 1.0))]
        shown = ", ".join(f"doc_id {c}: {v:g}" for c, v in zip(odd["case_id"][:3], odd["score"][:3]))
        raise InputError(f"{path}: metric {chosen_metric!r} is an accuracy (0 or 1 per document), but "
                         f"{len(odd)} document(s) have other values ({shown}); the task's process_results is "
                         "wrong: fix it and rerun")
    binary = values.isin((0.0, 1.0)).all() and (chosen_metric in BINARY_METRICS or all(
        isinstance(r.get(chosen_metric), bool) for r in records if r.get(chosen_metric) is not None))
    zero_one = bool(values.isin((0.0, 1.0)).all())
    direction = _direction(summary, task, chosen_metric)
    if direction is False:  # lower is better: a pass is a 0, and a larger score is worse
        frame["score"] = 1.0 - frame["score"] if zero_one else -frame["score"]
    if binary:
        frame["passed"] = frame["score"]
    frame["release"] = release
    frame["category"] = task
    order = ["release", "case_id", "passed", "score", "category", CONTENT_COLUMN, POSITION_COLUMN, KIND_COLUMN, "doc_hash",
             "input", "target", "output"]
    frame = frame[[c for c in order if c in frame.columns and not (c in order[8:] and frame[c].isna().all())]]
    version = harness_version(path, match["date"] if match else None)
    frame.attrs.update(task=task, metric=chosen_metric, filter=chosen_filter, filters=filters,
                       model=model, source_format="lm-eval", harness="lm-eval" + (f" {version}" if version else ""),
                       release_key="NAME=" if model == "" else "the model in results*.json",
                       direction=None if direction is None else LOWER if direction is False else HIGHER,
                       n_shot=_n_shot(summary, task))
    if direction is False:
        reading = "a pass is a 0" if zero_one else "scores negated"
        frame.attrs["notes"] = (f"lm-eval metric {chosen_metric!r} of task {task}: {LOWER}; {reading}, so that "
                                "fixed and broke keep their meaning.",)
    return frame


def _n_shot(summary: dict[str, Any], task: str) -> str | None:
    """The task's few-shot count as the results file states it (``n-shot``, else its config's ``num_fewshot``):
    the same documents asked with other examples before them are other questions. None when not stated."""
    shots = summary.get("n-shot")
    value = shots.get(task) if isinstance(shots, dict) else None
    if value is None:
        value = task_config(summary, task).get("num_fewshot")
    return None if value is None or isinstance(value, (dict, list)) else str(value)


def choice_for_task(given: str | None, task: str) -> str | None:
    """``acc`` -> acc for every task; ``a=acc,b=exact_match`` -> the name paired with ``task`` (None: default)."""
    if given is None or "=" not in given:
        return given
    pairs = dict(part.strip().split("=", 1) for part in given.split(",") if "=" in part)
    return pairs.get(task) or None


def _aggregations(config: dict[str, Any]) -> dict[str, str]:
    """metric -> aggregation as the task's config names it (names lm-eval aggregates over the corpus otherwise)."""
    found = dict(CORPUS_AGGREGATIONS)
    for entry in list_at(config, "metric_list"):
        if isinstance(entry, dict) and isinstance(entry.get("metric"), str):
            found[entry["metric"]] = str(entry.get("aggregation") or "mean")
    return found


def _direction(summary: dict[str, Any], task: str, metric: str) -> bool | None:
    """lm-eval's higher_is_better of the task's metric (True, False), or None when the summary does not say."""
    table = mapping_at(summary, "higher_is_better")
    value = (table.get(task) or {}).get(metric) if isinstance(table.get(task), dict) else None
    return value if isinstance(value, bool) else None


def _name_unnamed_filters(path: Path, records: list[dict[str, Any]], config: dict[str, Any]) -> None:
    """lm-eval before 0.4.7 wrote no ``filter`` key: a task of several filters lists every document once per
    filter, in the order of the config's filter_list (strict-match rows, then flexible-extract). Name them so."""
    if any("filter" in r for r in records):
        return
    ids = [r.get("doc_id") for r in records]
    distinct = len(set(map(str, ids)))
    if distinct == len(ids):
        return
    names = [str(f.get("name")) for f in list_at(config, "filter_list") if isinstance(f, dict) and f.get("name")]
    blocks = [ids[i * distinct:(i + 1) * distinct] for i in range(len(names))]
    if len(names) < 2 or len(ids) != distinct * len(names) or any(b != blocks[0] for b in blocks) \
            or len(set(map(str, blocks[0]))) != distinct:
        raise InputError(f"{path}: doc_id repeated and the records name no filter (lm-eval before 0.4.7), and the "
                         "results_*.json beside them does not list filters that account for the repeats; keep "
                         "the results file of the same run beside the samples")
    for number, record in enumerate(records):
        record["filter"] = names[number // distinct]


def _metric_names(records: list[dict[str, Any]]) -> list[str]:
    names: dict[str, None] = {}
    for record in records:
        listed = record.get("metrics")
        if isinstance(listed, list):
            names.update(dict.fromkeys(str(m) for m in listed))
        else:
            # a corpus metric's per-document value is a list (bleu's [reference, prediction])
            names.update(dict.fromkeys(k for k, v in record.items() if k not in _NOT_METRICS
                                       and isinstance(v, (int, float, bool, list))))
    return list(names)


def _choose_metric(path: Path, records: list[dict[str, Any]], metric: str | None, aggregations: dict[str, str],
                   task: str) -> str:
    names = _metric_names(records)
    per_document = [n for n in names if aggregations.get(n, "mean") == "mean"]
    if metric is not None:
        if metric in per_document:
            return metric
        if metric in names:
            raise InputError(f"{path}: lm-eval metric {metric!r} of task {task} is corpus-level (aggregation "
                             f"{aggregations[metric]}): it has no per-document value to compare case by case; "
                             f"per-document metrics: {_listed(per_document)}")
        raise InputError(f"{path}: no metric {metric!r}; metrics present: {', '.join(names) or 'none'}")
    for default in ([names[0]] if len(names) == 1 else []) + ["acc", "exact_match"]:
        if default in per_document:
            return default
    if not per_document and names:
        raise InputError(f"{path}: the lm-eval metrics of task {task} ({', '.join(names)}) are corpus-level: none "
                         "has a per-document value to compare case by case")
    raise InputError(f"{path}: {len(names)} metrics present ({', '.join(names) or 'none'}); choose one with --metric"
                     + (f" (corpus-level, not per document: {', '.join(sorted(set(names) - set(per_document)))})"
                        if len(per_document) < len(names) else ""))


def _listed(names: list[str]) -> str:
    return ", ".join(names) + f" (--metric {names[0]})" if names else "none"


def _row(path: Path, record: dict[str, Any], metric: str, task: str) -> dict[str, Any]:
    value = record.get(metric)
    if value is None:
        score = NAN
    elif isinstance(value, (bool, int, float)):
        score = float(value)
    else:  # corpus metrics (bleu, f1 over a set) log a per-sample tuple, not a score
        raise InputError(f"{path}: metric {metric!r} has no per-sample number (doc_id {record['doc_id']}: "
                         f"{str(value)[:40]}); choose a per-sample metric with --metric")
    doc_hash = record.get("doc_hash") or _doc_hash(record.get("doc"))
    return {"case_id": str(record["doc_id"]), "score": score, "doc_hash": record.get("doc_hash"),
            # doc_id is the document's place in the task's split: pairing goes by the document's own hash
            CONTENT_COLUMN: None if doc_hash is None else content_fingerprint(task, doc_hash), POSITION_COLUMN: True,
            KIND_COLUMN: "lm-eval",
            "input": _clip(_first_argument(record.get("arguments"))),
            "target": _clip(_target(record.get("target"))),
            "output": _clip(_first_text(record.get("filtered_resps")))}


def _doc_hash(doc: Any) -> str | None:
    """lm-eval's own doc_hash of a document (the sha256 of its JSON, indented by 2, as lm-eval 0.4.2 and later
    write it), for the files written before it was logged; None without a document."""
    if doc is None:
        return None
    text = json.dumps(doc, indent=2, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _first_argument(arguments: Any) -> str | None:
    # lm-eval >= 0.4.3: {"gen_args_0": {"arg_0": context, "arg_1": ...}}; before: [[context, ...], ...]
    if isinstance(arguments, dict) and arguments:
        first = next(iter(arguments.values()))
        return first.get("arg_0") if isinstance(first, dict) and isinstance(first.get("arg_0"), str) else None
    return _first_text(arguments)


def _first_text(value: Any) -> str | None:
    while isinstance(value, list) and value:
        value = value[0]
    return value if isinstance(value, str) else None


def _target(value: Any) -> str | None:
    if isinstance(value, list):
        return " | ".join(str(v) for v in value)
    return None if value is None else str(value)


read = read_lm_eval


def combine(frames: list[pd.DataFrame]) -> None:
    """Tasks read together give one kind of outcome (:func:`one_outcome_kind`); with several tasks, lm-eval numbers documents from 0 in each, so a case becomes
    "task/doc_id"."""
    one_outcome_kind(frames)
    tasks = {f.attrs.get("task") for f in frames}
    if len(tasks) > 1:
        for frame in frames:
            frame["case_id"] = frame.attrs["task"] + "/" + frame["case_id"].astype(str)


def one_outcome_kind(frames: list[pd.DataFrame]) -> None:
    """Tasks read together are all pass/fail or all scores, each from its own metric. A task whose metric is 0 or
    1 on every document without being named like an accuracy (``correct``; ``wrong`` turned round) is pass/fail,
    as it reads alone, beside a task of ``acc``: its rows get ``passed`` too, rather than being read as missing
    outcomes (which ``missing = "fail"`` would turn into failures). A task of other scores beside a pass/fail
    task is refused: one gate compares one kind of outcome."""
    if not any("passed" in f.columns for f in frames):
        return
    by_task: dict[str, list[pd.DataFrame]] = {}
    for frame in frames:
        by_task.setdefault(str(frame.attrs.get("task", "")), []).append(frame)
    scored = []
    for task, group in by_task.items():
        if all("passed" in f.columns for f in group):
            continue
        values = pd.concat([f["score"] for f in group]).dropna()
        if not values.isin((0.0, 1.0)).all():
            scored.append(task)
            continue
        for frame in group:
            if "passed" not in frame.columns:
                frame.insert(int(frame.columns.get_loc("score")), "passed", frame["score"])
    if scored:
        passing = sorted(t for t in by_task if t not in scored)
        named = [f"{t} ({by_task[t][0].attrs.get('metric')})" for t in (*scored, *passing)]
        raise InputError(f"lm-eval tasks of two kinds read together: {', '.join(named[:len(scored)])} scored "
                         f"(values other than 0 and 1) beside {', '.join(named[len(scored):])} pass/fail; one gate "
                         f"compares one kind of outcome: read each kind in its own run (name the "
                         f"samples_{scored[0]}_*.jsonl files alone), or choose a 0/1 metric for {scored[0]} "
                         f"(--metric {scored[0]}=METRIC)")
