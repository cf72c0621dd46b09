"""A harness's output folder named as one input: expand it into the results files it holds.

- An Inspect log directory: every ``.eval`` log in it, and every ``.json`` file that is an Inspect log. An
  eval-set directory (``eval-set.json`` and/or ``logs.json`` beside the logs) keeps, for each task of the set,
  the latest log that finished: ``inspect eval-retry`` and a rerun of ``eval_set`` leave the failed attempts
  beside the retried one, and reading both would count the task twice.
- An lm-eval ``output_path/<model>/`` folder: its ``samples_<task>_<date>.jsonl`` files (``--log_samples``);
  0.4.0/0.4.1 wrote ``<model>_<task>.jsonl`` beside ``results.json`` instead. An ``output_path`` holding
  one such folder per model is read whole too.
- Index files given alone (``logs.json``, ``eval-set.json``, lm-eval ``results*.json``) hold no per-case results:
  they are refused with a message naming what they are, instead of the tidy reader's guess.

NAME=dir names the release of every file inside, as NAME=path does for one file.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from releasegate.errors import FileError

INDEX_LIMIT = 32 * 1024 * 1024  # an index file is small; a larger "results.json" is read by the tidy reader
_LM_SAMPLES = re.compile(r"^samples_.+\.jsonl$")
_LM_RESULTS = re.compile(r"^results(_.+)?\.json$")


def expand_sources(sources: list[Any], task: str | None = None) -> list[Any]:
    """Each directory source becomes the sources of the files it holds; index files are refused. ``task``
    (``--task``) keeps the Inspect logs of that task only."""
    from releasegate.load.sources import Source

    expanded = []
    for source in sources:
        path = source.path
        if path.is_dir():
            expanded += [Source(p, source.release) for p in harness_files(path, task)]
        else:
            if path.is_file():
                refuse_index_file(path)
            expanded.append(source)
    return expanded


def harness_files(directory: Path, task: str | None = None) -> list[Path]:
    """The results files of a harness output directory, in a stable order; InputError when it holds none."""
    inspect_logs = _inspect_logs(directory)
    if not inspect_logs:
        inspect_logs = _child_log_folders(directory)
    if inspect_logs:
        return _of_task(directory, inspect_logs, task) if task is not None else inspect_logs
    lm_files = _lm_eval_samples(directory)
    if lm_files:
        return lm_files
    if any(_LM_RESULTS.match(p.name) and _lm_results_summary(p) for p in directory.iterdir() if p.is_file()):
        raise FileError(f"{directory}: the lm-eval output holds results_*.json but no samples files; "
                         "rerun lm_eval with --log_samples (per-case results are needed)")
    # An Inspect log directory or an lm-eval output folder would have been read whole: this is neither.
    raise FileError(f"{directory} is a directory; give the results file(s) inside it")


# Per-case tables a user may keep beside a harness's files (an export of the same logs, a hand-made CSV). A folder
# named as one input is read for its harness files only: reading these too could count a sample twice, and
# passing over them unsaid would leave a file the user gave out of the comparison without a word.
_TABLE_SUFFIXES = (".csv", ".tsv", ".parquet", ".jsonl")


def unread_tables(folder: Path, read: list[Path]) -> list[str]:
    """The tables in ``folder`` (or in a folder directly inside it) that were not read, relative to it, where
    ``read`` are the files its expansion read; empty when there are none."""
    taken = {p.resolve() for p in read}
    places = [folder, *sorted(p for p in folder.iterdir() if p.is_dir())]
    return [str(p.relative_to(folder)) for place in places for p in sorted(place.iterdir())
            if p.is_file() and p.suffix.lower() in _TABLE_SUFFIXES and p.resolve() not in taken]


def unread_note(folder: Path, left: list[str]) -> str:
    """The note naming the tables of :func:`unread_tables`."""
    from releasegate import fmt

    names = ", ".join(left[:3]) + (f" and {len(left) - 3:,} more" if len(left) > 3 else "")
    return (f"{folder}: read as a harness's output folder, for its harness files only; "
            f"{fmt.plural(len(left), 'table')} in it {'was' if len(left) == 1 else 'were'} not read ({names}): to "
            "compare a table, name it on its own, not beside the harness files it may repeat")


def refuse_index_file(path: Path) -> None:
    """Raise InputError when ``path`` is an index of a harness's output rather than per-case results."""
    name = path.name
    if name not in ("logs.json", "eval-set.json") and not _LM_RESULTS.match(name):
        return
    data = _small_json(path)
    if name == "eval-set.json" and isinstance(data, dict) and "eval_set_id" in data:
        raise FileError(f"{path}: this is an Inspect eval-set index, not a log: pass its directory "
                         f"({path.parent}) to read every log of the set")
    if name == "logs.json" and _is_log_index(data):
        raise FileError(f"{path}: this is an Inspect log-directory index (logs.json), not a log: pass its "
                         f"directory ({path.parent}) to read the logs it lists")
    if _LM_RESULTS.match(name) and _is_lm_results(data):
        raise FileError(f"{path}: this is an lm-eval results summary (aggregate scores only): pass the "
                         f"samples_*.jsonl files beside it (--log_samples), or its directory ({path.parent})")


def _of_task(directory: Path, logs: list[Path], task: str) -> list[Path]:
    """The logs of one task (an eval set of several tasks, issue 31 item 10)."""
    from releasegate.load.adapters.inspect_log import read_header

    tasks = {p: str(_spec(read_header(p)).get("task") or "") for p in logs}
    kept = [p for p in logs if tasks[p] == task]
    if not kept:
        raise FileError(f"{directory}: no log of task {task!r} (--task); tasks present: "
                         f"{', '.join(sorted(set(tasks.values())))}")
    return kept


def _spec(header: Any) -> dict[str, Any]:
    spec = header.get("eval") if isinstance(header, dict) else None
    return spec if isinstance(spec, dict) else {}


def _child_log_folders(directory: Path) -> list[Path]:
    """A folder of Inspect log folders (logs/base/, logs/cand/), read when each child is one release: every log
    of a child names one model. A child of several models is refused, saying how to name its logs."""
    from releasegate.load.adapters.inspect_log import read_header

    found: list[Path] = []
    for child in sorted(p for p in directory.iterdir() if p.is_dir()):
        logs = _inspect_logs(child)
        models = sorted({str(_spec(read_header(p)).get("model") or "") for p in logs})
        if len(models) > 1:
            raise FileError(f"{child}: holds logs of {len(models)} models ({', '.join(models[:3])}); a folder of "
                             "log folders is read when each folder in it is one release: pass the folders whose logs "
                             f"are one model, or name each log (NAME=path)")
        found += logs
    return found


def _inspect_logs(directory: Path) -> list[Path]:
    from releasegate.load.adapters import detect_format

    files = sorted(p for p in directory.iterdir() if p.is_file())
    logs = [p for p in files if p.suffix == ".eval"]
    logs += [p for p in files if p.suffix == ".json" and p.name not in ("logs.json", "eval-set.json")
             and detect_format(p) == "inspect"]
    index = directory / "logs.json"
    headers = _small_json(index) if index.is_file() else None
    if not logs:
        if _is_log_index(headers):
            raise FileError(f"{directory}: logs.json lists logs that are not in the directory "
                             f"({', '.join(sorted(headers)[:3])})")
        return []
    if not _is_log_index(headers):
        return _finished_retries(sorted(logs))
    eval_set = _small_json(directory / "eval-set.json") if (directory / "eval-set.json").is_file() else None
    return _latest_per_task(directory, logs, headers, eval_set)


def _latest_per_task(directory: Path, logs: list[Path], headers: dict[str, Any], eval_set: Any) -> list[Path]:
    """Of the logs of one task (task_id, else task and model), the latest that succeeded, else the latest."""
    known = {p.name: p for p in logs}
    groups: dict[tuple[Any, ...], list[tuple[str, Path, str]]] = {}
    for name, header in headers.items():
        if name not in known:
            continue  # logs.json may still list a log that was deleted by hand
        spec = header.get("eval") if isinstance(header.get("eval"), dict) else {}
        key = (spec.get("task_id"),) if spec.get("task_id") else (spec.get("task"), spec.get("model"))
        groups.setdefault(key, []).append((str(header.get("status") or ""), known.pop(name),
                                           str(spec.get("created") or "")))
    tasks = eval_set.get("tasks") if isinstance(eval_set, dict) and isinstance(eval_set.get("tasks"), list) else []
    listed = {t.get("task_id") for t in tasks if isinstance(t, dict)}
    missing = sorted(str(t) for t in listed - {k[0] for k in groups if len(k) == 1} if t)
    if missing:
        raise FileError(f"{directory}: the eval-set lists task(s) with no log in the directory "
                         f"({', '.join(missing[:3])}); the set is incomplete: rerun eval_set to finish it")
    chosen = [max(group, key=lambda g: (g[0] == "success", g[2], g[1].name))[1] for group in groups.values()]
    return sorted(chosen + list(known.values()))  # logs not in the index are read as they are


def _finished_retries(logs: list[Path]) -> list[Path]:
    """A plain log directory: a log that stopped (status error, cancelled) beside the log `inspect eval-retry`
    wrote from it (the same task_id) gives way to the retry once that finished, as in an eval set. A task with
    no finished log keeps its logs, which the reader then refuses with what to do."""
    if len(logs) < 2:
        return logs
    from releasegate.load.adapters.inspect_log import read_header

    groups: dict[str, list[tuple[str, str, Path]]] = {}
    kept = []
    for path in logs:
        header = read_header(path)
        spec = _spec(header)
        if not spec.get("task_id"):
            kept.append(path)
            continue
        groups.setdefault(str(spec["task_id"]), []).append((str(header.get("status") or ""),
                                                            str(spec.get("created") or ""), path))
    for group in groups.values():
        finished = [g[2] for g in group if g[0] in ("success", "")]
        kept += finished or [g[2] for g in group]
    return sorted(kept)


def _lm_eval_samples(directory: Path) -> list[Path]:
    files = sorted(p for p in directory.iterdir() if p.is_file())
    samples = [p for p in files if _LM_SAMPLES.match(p.name)]
    if not samples and (directory / "results.json").is_file() and _lm_results_summary(directory / "results.json"):
        samples = [p for p in files if p.suffix == ".jsonl"]  # 0.4.0/0.4.1: <model>_<task>.jsonl
    if samples:
        return samples
    found = []
    for sub in sorted(p for p in directory.iterdir() if p.is_dir()):
        found += _lm_eval_samples(sub)  # output_path/ holding one folder per model
    return found


def _lm_results_summary(path: Path) -> bool:
    return _is_lm_results(_small_json(path))


def _is_lm_results(data: Any) -> bool:
    return (isinstance(data, dict) and isinstance(data.get("results"), dict)
            and bool(set(data) & {"configs", "versions", "n-shot"}) and "evalId" not in data)


def _is_log_index(data: Any) -> bool:
    return (isinstance(data, dict) and bool(data)
            and all(isinstance(v, dict) and isinstance(v.get("eval"), dict) for v in data.values()))


def _small_json(path: Path) -> Any:
    """The parsed JSON of a small file, or None when it is large, unreadable or not JSON."""
    try:
        if path.stat().st_size > INDEX_LIMIT:
            return None
        return json.loads(path.read_bytes())
    except (OSError, ValueError, RecursionError):
        return None
