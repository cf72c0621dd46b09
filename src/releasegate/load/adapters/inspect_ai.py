"""Read Inspect AI eval logs (``.eval`` zip with deflate or zstd members, or ``.json``) into the tidy table.

One row per (sample id, epoch). Score values map as Inspect's own ``value_to_float`` does: C -> 1,
I -> 0, P (partial) -> 0.5, N (no answer) -> 0, yes/true -> 1, no/false -> 0, numbers as they are.
``passed`` is 1 only for C (or yes/true): a partial answer is not a pass, so P gives passed 0 and
score 0.5. A scorer with plain numeric values gives ``score`` only (no ``passed`` column).

A log that did not finish (status error, cancelled or started) is refused: its missing samples are not
failures, and its present ones are a biased part of the set. A log without scores is refused too. Scorers are
named as Inspect names them in the log's results: a scorer with a dict value gives one score per key, named
by the key (``exact``), or ``scorer/key`` (``graded/exact``) when a key alone is ambiguous.

Each row carries the fingerprint of its sample's input, target and choices (``content_hash``) and whether its id
is one Inspect numbered itself (``id_is_position``: an integer id), for the pairing to compare.
"""

from __future__ import annotations

import math
import statistics
from pathlib import Path
from typing import Any

import pandas as pd

from releasegate.errors import InputError
from releasegate.load.adapters.fields import list_at, mapping_at, scalar_text
from releasegate.load.adapters import inspect_epochs as epochs
from releasegate.load.adapters import inspect_notes as notes
from releasegate.load.adapters.inspect_log import _load_log, _output_text, _text
from releasegate.load.fingerprint import CONTENT_COLUMN, KIND_COLUMN, POSITION_COLUMN
from releasegate.policy import CANONICAL_COLUMNS
from releasegate.text import clip as _clip

NAN = float("nan")
_LETTERS = {"C": (1.0, 1.0), "I": (0.0, 0.0), "P": (0.0, 0.5), "N": (0.0, 0.0)}
_WORDS = {"yes": 1.0, "true": 1.0, "no": 0.0, "false": 0.0}


def read_inspect(path: Path, *, release: str | None = None, scorer: str | None = None,
                 category_field: str | None = None, reducer: str | None = None,
                 task: str | None = None) -> pd.DataFrame:
    """Read one Inspect log into rows of (release, case_id, run, passed, score, ...).

    ``release`` defaults to the log's model (``eval.model``); ``scorer`` must name one scorer when the
    samples carry several; ``category_field`` names the sample metadata field holding the category;
    ``reducer`` the epochs reducer when the log has several (:mod:`.inspect_epochs`); ``task`` the task the log
    must be of (``--task``, which picks the logs of one task from a directory).
    ``df.attrs`` holds ``task``, ``model``, ``scorer``, ``reducer`` and ``source_format`` ("inspect").
    """
    path = Path(path)
    header, samples = _load_log(path)
    spec = mapping_at(header, "eval")
    if task is not None and str(spec.get("task") or "") != task:
        raise InputError(f"{path}: the log is of task {spec.get('task')!r}, not {task!r} (--task)")
    model = str(spec.get("model") or "")
    named = release
    release = release or model
    if not release:
        raise InputError(f"{path}: the log names no model (eval.model); give the release name (NAME=path)")
    _check_finished(path, header, len(samples), spec)
    chosen = _choose_scorer(path, samples, scorer)
    scorer_name = chosen.split("/", 1)[0] if chosen and chosen not in _plain(samples) else chosen
    reduced_by = epochs.choose_reducer(str(path), header, scorer_name or "", reducer)
    rows = []
    for sample in sorted(samples, key=_sample_order):
        try:
            rows.append(_row(sample, chosen, category_field))
        except (InputError, AttributeError, TypeError, ValueError) as exc:
            raise InputError(f"{path}: sample {sample.get('id')!s}: {exc}") from None
    if category_field:
        _check_categories(path, samples, rows, category_field)
    errored = notes.partly_errored(rows)
    if reduced_by:
        rows = _reduce(path, header, rows, chosen, scorer_name or "", reduced_by)
    frame = pd.DataFrame(rows)
    frame.insert(0, "release", release)
    frame["case_id"] = frame["case_id"].astype(str)
    if reduced_by:
        frame = frame.drop(columns="run")
    else:
        frame["run"] = frame["run"].astype("int64")
    frame = frame.drop(columns="_value")
    numeric = frame.pop("_numeric")
    if numeric.any():
        frame = frame.drop(columns="passed")  # a numeric scorer is not pass/fail
    for column in ("latency_ms", "input_tokens", "output_tokens", "input", "target", "output", "error"):
        if frame[column].isna().all():
            frame = frame.drop(columns=column)  # the log does not have it: no column beats a column of NaN
    packages = mapping_at(spec, "packages")
    version = packages.get("inspect_ai")
    frame.attrs.update(task=str(spec.get("task") or ""), model=model, scorer=_shown_name(samples, chosen) or "",
                       source_format="inspect", harness="inspect-ai" + (f" {version}" if version else ""),
                       release_key="NAME=" if named else "eval.model")
    if judged_by_model(scorer_name or ""):
        frame.attrs["judge"] = f"Inspect scorer {scorer_name}"
    name, count = str(spec.get("task") or ""), (spec.get("config") or {}).get("epochs")
    who = f"Inspect task {name} ({release})"
    said = [notes.reduced(who, count, reduced_by, errored) if reduced_by else None,
            notes.epoch_errors(who, count, errored, _accuracy(header, scorer_name or "", reduced_by))
            if errored else None, notes.other_tokens(who, model, samples, "input_tokens" in frame)]
    partial = notes.partial_credit(who, _shown_name(samples, chosen) or "", rows) if "passed" in frame else None
    frame.attrs.update({key: value for key, value in (
        ("reducer", reduced_by), ("notes", tuple(n for n in said if n)),
        ("passed_notes", (partial,) if partial else ()))  # said only where the pass/fail column is read
        if value})
    fields = sorted({k for s in samples for k in (s.get("metadata") or {})})
    frame.attrs.update({"metadata_fields": fields} if fields else {})  # named when a --category-col is not found
    if not category_field and "category" in frame:
        frame.attrs["category_note"] = notes.category_from_metadata(f"Inspect task {name}", rows)
    return frame


def _accuracy(header: dict[str, Any], scorer_name: str, reducer: str | None) -> float | None:
    """Inspect's own accuracy of the scorer under the reducer, from the log's results (None when absent)."""
    results = mapping_at(header, "results")
    for score in list_at(results, "scores"):
        if not isinstance(score, dict) or scorer_name not in (score.get("scorer"), score.get("name")):
            continue
        if (score.get("reducer") or epochs.MEAN) != (reducer or epochs.MEAN):
            continue
        value = mapping_at(mapping_at(score, "metrics"), "accuracy").get("value")
        return float(value) if isinstance(value, (int, float)) else None
    return None


# Inspect's model-graded scorers (inspect_ai.scorer): a model grades each answer (issue 35: an LLM judge).
MODEL_GRADED = ("model_graded_qa", "model_graded_fact")


def judged_by_model(scorer: str) -> bool:
    """The scorer is one of Inspect's model-graded ones (its registry name may carry a package prefix)."""
    return scorer.rsplit("/", 1)[-1] in MODEL_GRADED


def _reduce(path: Path, header: dict[str, Any], rows: list[dict[str, Any]], key: str | None, scorer_name: str,
            reducer: str) -> list[dict[str, Any]]:
    """One row per sample: Inspect's reduced value (stored in the log, else reduced here as Inspect does); an
    epoch that errored leaves the sample errored. Texts come from its first epoch; latency is the median over the
    epochs, tokens their sum (the calls behind the one outcome)."""
    stored = epochs.stored_reductions(header, scorer_name, reducer)
    by_case: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_case.setdefault(str(row["case_id"]), []).append(row)
    reduced = []
    for case, group in by_case.items():
        first = dict(group[0])
        if stored is not None:
            if case not in stored:
                raise InputError(f"{path}: the log's {reducer} reductions of {scorer_name!r} have no sample {case}")
            value = stored[case]
        else:
            value = epochs.reduce_epochs([r["_value"] for r in group if r["_value"] is not None], reducer)
        if isinstance(value, dict) and key and "/" in key:
            value = value.get(key.split("/", 1)[1])
        errors = [r["error"] for r in group if r["error"]]
        passed, score, numeric = _convert(None if isinstance(value, float) and math.isnan(value) else value)
        first.update(passed=NAN if errors else passed, score=NAN if errors else score, _numeric=numeric,
                     error=errors[0] if errors else None, _value=value)
        latency = [r["latency_ms"] for r in group if not math.isnan(r["latency_ms"])]
        first["latency_ms"] = statistics.median(latency) if latency else NAN
        for column in ("input_tokens", "output_tokens"):
            counts = [r[column] for r in group if not math.isnan(r[column])]
            first[column] = float(sum(counts)) if counts else NAN
        reduced.append(first)
    return reduced


def _check_finished(path: Path, header: dict[str, Any], n_samples: int, spec: dict[str, Any]) -> None:
    """A log that stopped early is refused: its results are not the eval's (fail closed)."""
    status = header.get("status")
    if status in (None, "success"):  # logs before 0.3 have no status
        # A finished log counts its samples (x epochs, errored ones too); a file holding another number of them
        # lost or gained a sample since Inspect wrote it, and a lost one would be read as a case never run.
        results = mapping_at(header, "results")
        total = results.get("total_samples")
        # Inspect's early stopping skips the samples (or epochs) it names, which are then never run: such a log
        # holds that many records fewer, and the cases not run are named by the pairing like any case not run.
        stopped = mapping_at(results, "early_stopping").get("early_stops")
        skipped = len(stopped) if isinstance(stopped, list) else 0
        if type(total) is int and n_samples not in (total, total - skipped):
            raise InputError(f"{path}: the log holds {n_samples} sample record(s) where its results count {total} "
                             "(samples x epochs" + (f", {skipped} of them stopped early" if skipped else "")
                             + "): the file was damaged or edited since Inspect wrote it; pass the log as Inspect "
                             "wrote it")
        return
    dataset = mapping_at(spec, "dataset")
    config = mapping_at(spec, "config")
    planned = dataset.get("samples")
    epochs = config.get("epochs") or 1
    of = f" of {planned * epochs}" if isinstance(planned, int) and isinstance(epochs, int) else ""
    error = mapping_at(header, "error")
    # The whole message on one line: cut, "Max retries exceeded" read "Max retries e".
    why = f" ({' '.join(str(error.get('message')).split())})" if error.get("message") else ""
    raise InputError(f"{path}: the Inspect log stopped with status {status!r}{why}, {n_samples}{of} sample(s) logged; "
                     "its results are incomplete: finish it with `inspect eval-retry` and pass the new log")


def _score_values(sample: dict[str, Any]) -> dict[str, Any]:
    """Scorer name -> value; a scorer with a dict value gives one entry per key ("name/key")."""
    values: dict[str, Any] = {}
    scores = sample.get("scores")
    for name, score in (scores if isinstance(scores, dict) else {}).items():
        value = score.get("value") if isinstance(score, dict) else score
        if isinstance(value, dict):
            values.update({f"{name}/{key}": item for key, item in value.items()})
        else:
            values[name] = value
    return values


def _scorer_names(samples: list[dict[str, Any]]) -> dict[str, str]:
    """Inspect's name of each score -> the key into ``_score_values`` ("exact" -> "graded/exact")."""
    keys = list(dict.fromkeys(name for s in samples for name in _score_values(s)))
    short = [k.split("/", 1)[1] if "/" in k and k not in _plain(samples) else k for k in keys]
    return {(name if short.count(name) == 1 else key): key for name, key in zip(short, keys)}


def _plain(samples: list[dict[str, Any]]) -> set[str]:
    """Scorer names whose value is not a dict (a "/" in such a name is the scorer's own)."""
    return {name for s in samples for name, score in (s.get("scores") or {}).items()
            if not isinstance(score.get("value") if isinstance(score, dict) else score, dict)}


def _shown_name(samples: list[dict[str, Any]], key: str | None) -> str | None:
    return next((name for name, k in _scorer_names(samples).items() if k == key), key)


def _choose_scorer(path: Path, samples: list[dict[str, Any]], scorer: str | None) -> str | None:
    names = _scorer_names(samples)
    if not names:
        raise InputError(f"{path}: the Inspect log holds no scores (the task has no scorer, or it ran with "
                         "--no-score); score it with `inspect score` and pass the scored log")
    if scorer is not None:
        if scorer in names or scorer in names.values():  # Inspect's name, or scorer/key
            return names.get(scorer, scorer)
        raise InputError(f"{path}: no scorer {scorer!r}; available scorers: {', '.join(names)}")
    if len(names) > 1:
        raise InputError(f"{path}: the samples carry {len(names)} scorers ({', '.join(names)}); "
                         "choose one with --scorer")
    return next(iter(names.values()))


def _convert(value: Any) -> tuple[float, float, bool]:
    """(passed, score, is_numeric) for one Inspect score value."""
    if value is None:
        return NAN, NAN, False
    if isinstance(value, bool):
        return float(value), float(value), False
    if isinstance(value, (int, float)):
        return NAN, float(value), True
    if isinstance(value, str):
        text = value.strip()
        if text.upper() in _LETTERS:
            return (*_LETTERS[text.upper()], False)
        if text.lower() in _WORDS:
            return _WORDS[text.lower()], _WORDS[text.lower()], False
        try:
            return NAN, float(text), True
        except ValueError:
            pass
    raise InputError(f"Inspect score value {str(value)[:40]!r} is not C/I/P/N, yes/no, true/false or a number")


def _sample_order(sample: dict[str, Any]) -> tuple[Any, ...]:
    # Inspect's own order: integer ids numerically, then string ids, then epoch.
    case = sample.get("id")
    epoch = sample.get("epoch")
    return (0, case, "") if isinstance(case, int) else (1, 0, str(case)), epoch if isinstance(epoch, int) else 0


def _row(sample: dict[str, Any], scorer: str | None, category_field: str | None) -> dict[str, Any]:
    if sample.get("id") is None:
        raise InputError("the sample has no id")
    error = sample.get("error")
    value = _score_values(sample).get(scorer) if scorer else None
    passed, score, numeric = _convert(value)
    if error:  # an errored sample has no trustworthy outcome; --missing decides later
        passed = score = NAN
    attachments = sample.get("attachments") or {}
    seconds = sample.get("total_time", sample.get("working_time"))
    input_tokens, output_tokens = sample["_tokens"]
    case = sample.get("id")
    # Inspect numbers the samples of a dataset without ids 1..N: such an id is a position, not a name.
    position = isinstance(case, int) and not isinstance(case, bool)
    row = {"case_id": case, "run": _epoch(sample.get("epoch")), "passed": passed, "score": score,
           "_numeric": numeric, "_value": value, CONTENT_COLUMN: sample.get("_content"), POSITION_COLUMN: position,
           KIND_COLUMN: sample.get("_content_kind")}
    if category_field:
        category = (sample.get("metadata") or {}).get(category_field)
        row["category"] = None if category is None else scalar_text(category)  # JSON's true, not True
    row.update(latency_ms=float(seconds) * 1000.0 if seconds is not None else NAN,
               input_tokens=input_tokens, output_tokens=output_tokens,
               input=_clip(_text(sample.get("input"), attachments)),
               target=_clip(_text(sample.get("target"), attachments, sep=" | ")),
               output=_clip(_output_text(sample.get("output"), attachments)),
               error=_clip(error.get("message") if isinstance(error, dict) else error) if error else None)
    # The samples' scalar metadata fields are case metadata (a "category" field is the category, and
    # --category-col names any of them); fields named like the table's own columns are left out.
    for key, item in (sample.get("metadata") or {}).items():
        if key not in row and key not in _RESERVED and not key.startswith("_") and \
                isinstance(item, (str, int, float, bool)):
            row[key] = item
    return row


def _epoch(value: Any) -> int:
    """A sample's epoch: a whole number from 1 (1 when the log has none, as before epochs were logged)."""
    if value is None:
        return 1
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 1 <= value <= 2**31 \
            or value != int(value):
        raise InputError(f"epoch {_clip(str(value), 40)!r} is not a whole number from 1")
    return int(value)


_RESERVED = frozenset(c for c in CANONICAL_COLUMNS if c != "category") | {"doc_hash", "metric"}


def _check_categories(path: Path, samples: list[dict[str, Any]], rows: list[dict[str, Any]], field: str) -> None:
    missing = [str(r["case_id"]) for r in rows if r["category"] is None]
    if missing:
        keys = sorted({k for s in samples for k in (s.get("metadata") or {})})
        raise InputError(f"{path}: sample metadata has no {field!r} for {len(missing)} sample(s), e.g. "
                         f"{', '.join(missing[:3])}; metadata fields present: {', '.join(keys) or 'none'}")


read = read_inspect


def combine(frames: list[pd.DataFrame]) -> None:
    """Logs of different tasks are not the same cases; comparing them would pair unrelated items."""
    tasks = {f.attrs.get("task") for f in frames if f.attrs.get("task")}
    if len(tasks) > 1:
        raise InputError(f"the Inspect logs are of different tasks ({', '.join(sorted(tasks))}); compare logs of one "
                         f"task: pick it with --task {sorted(tasks)[0]}")
