"""The registry of harness adapters: one row per harness, read by load, the command line and the API.

A row names the harness, the module that reads it (imported only when a file of that format is read), the
options its reader takes (each with its command-line flag), how its files are recognised from their first
record, and the check run over all the files of that format together. Adding a harness is one module plus one
row here. This module imports no pandas: the CLI builds its options from it at start-up.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from releasegate.errors import InputError
from releasegate.load.adapters.sniff import detect_format as _detect

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class AdapterOption:
    """A keyword option of one adapter's reader, and the command-line flag that sets it."""

    name: str
    flag: str
    help: str
    choices: tuple[str, ...] = ()
    # --metric is also the general, repeatable option naming the outcomes to gate on (tidy columns); with
    # lm-eval files it keeps the adapter's meaning, one of its metrics.
    repeatable: bool = False


@dataclass(frozen=True)
class Adapter:
    """One harness: ``module`` defines ``read(path, *, release=None, **options) -> DataFrame`` and may define
    ``combine(frames) -> None``, which checks (and may adjust) every frame of this format read in one run."""

    name: str
    title: str
    module: str
    options: tuple[AdapterOption, ...]
    sniff: Callable[[set[str], dict[str, set[str]]], bool]
    # A table's columns (CSV, TSV, Parquet) that say the file is this harness's export, not a tidy table.
    columns: Callable[[set[str]], bool] | None = None

    def load(self) -> Any:
        return importlib.import_module(self.module)

    @property
    def option_names(self) -> tuple[str, ...]:
        return tuple(o.name for o in self.options)


def _inspect(top: set[str], nested: dict[str, set[str]]) -> bool:
    return "eval" in top and bool(top & {"samples", "results", "status", "plan"})


def _promptfoo(top: set[str], nested: dict[str, set[str]]) -> bool:
    summary = "results" in top and ("evalId" in top or {"version", "results"} <= nested.get("results", set()))
    return summary or ("success" in top and bool(top & {"testIdx", "provider"}))


_LM_EVAL_041 = frozenset({"doc_id", "doc", "arguments", "resps", "filtered_resps"})  # no doc_hash before 0.4.2


def _lm_eval(top: set[str], nested: dict[str, set[str]]) -> bool:
    return {"doc_id", "doc_hash"} <= top or _LM_EVAL_041 <= top


def _openai_evals(top: set[str], nested: dict[str, set[str]]) -> bool:
    spec = {"completion_fns", "eval_name"} <= nested.get("spec", set())
    return spec or {"run_id", "event_id", "sample_id", "type", "data"} <= top


def _inspect_samples(columns: set[str]) -> bool:
    return {"sample_id", "eval_id", "id", "epoch"} <= columns and any(c.startswith("score_") for c in columns)


_SCORER = AdapterOption("scorer", "--scorer", "Inspect: the scorer to use when a log has several.")
_CATEGORY_FIELD = AdapterOption("category_field", "--category-field",
                                "Inspect: the sample metadata field holding the category.")
ADAPTERS: dict[str, Adapter] = {a.name: a for a in (
    Adapter("inspect", "Inspect AI", "releasegate.load.adapters.inspect_ai", (
        _SCORER,
        _CATEGORY_FIELD,
        AdapterOption("reducer", "--reducer", "Inspect: the epochs reducer to apply when a log has several "
                      "(mean keeps each epoch as a run)."),
        AdapterOption("task", "--task", "Inspect: read the logs of this task only (an eval set of several tasks)."),
    ), _inspect),
    Adapter("promptfoo", "promptfoo", "releasegate.load.adapters.promptfoo", (
        AdapterOption("release_by", "--release-by", "promptfoo: one release per provider (default) or per prompt.",
                      ("provider", "prompt")),
    ), _promptfoo),
    Adapter("lm-eval", "lm-evaluation-harness", "releasegate.load.adapters.lm_eval", (
        AdapterOption("metric", "--metric", "An outcome to gate on, repeatable: a column of a tidy file (pass/fail "
                      "or score), an Inspect scorer, a promptfoo named metric; lm-eval: a metric (acc, "
                      "exact_match,strict-match: a metric under a filter), or TASK=METRIC,...", repeatable=True),
        AdapterOption("filter_name", "--filter",
                      "lm-eval: the filter to use when samples have several, or TASK=FILTER,..."),
    ), _lm_eval),
    Adapter("openai-evals", "OpenAI evals", "releasegate.load.adapters.openai_evals", (), _openai_evals),
    Adapter("inspect-samples", "Inspect samples_df export", "releasegate.load.adapters.inspect_frame",
            (_SCORER, _CATEGORY_FIELD), lambda top, nested: False, _inspect_samples),
)}
# The values of --format: "auto" detects the format from the file's content.
FORMATS = ("auto", "tidy", *ADAPTERS)
# One flag per option name (--scorer is Inspect's, for its logs and its samples_df exports alike).
OPTIONS: tuple[AdapterOption, ...] = tuple({o.name: o for a in ADAPTERS.values() for o in a.options}.values())


def detect_format(path: Path) -> str:
    """The adapter name for the file's content ("inspect", "lm-eval", "promptfoo", "openai-evals"), or "tidy"."""
    return _detect(Path(path), ((a.name, a.sniff) for a in ADAPTERS.values()), "inspect",
                   [(a.name, a.columns) for a in ADAPTERS.values() if a.columns])


def formats_taking(option: str) -> list[str]:
    return [a.name for a in ADAPTERS.values() if option in a.option_names]


def read_with(fmt: str, path: Path, release: str | None, options: dict[str, Any]) -> pd.DataFrame:
    """Read one file with the adapter named ``fmt``; ``options`` holds only the options given (not None) that
    this adapter takes."""
    if fmt not in ADAPTERS:
        raise InputError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
    return ADAPTERS[fmt].load().read(Path(path), release=release, **options)


def read_adapter(path: Path, fmt: str | None = None, **options: Any) -> pd.DataFrame:
    """Read a harness file with its adapter; ``options`` left as None are ignored. An option the format does
    not take (e.g. ``metric`` for an Inspect log) is an InputError, since the user expected it to matter."""
    path = Path(path)
    fmt = fmt or detect_format(path)
    if fmt == "tidy":
        raise InputError(f"{path}: not an Inspect, lm-eval, promptfoo or OpenAI evals file; read it as a tidy table")
    if fmt not in ADAPTERS:
        raise InputError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
    given = {key: value for key, value in options.items() if value is not None}
    release = given.pop("release", None)
    taken = ADAPTERS[fmt].option_names
    unused = sorted(set(given) - set(taken))
    if unused:
        raise InputError(f"{path}: option(s) {', '.join(unused)} do not apply to {fmt} files "
                         f"(they take release, {', '.join(taken)})")
    return read_with(fmt, path, release, given)


def combine(fmt: str, frames: list[Any]) -> None:
    """Run the format's check over every frame of that format read in one run (same task, same documents)."""
    module = ADAPTERS[fmt].load()
    if frames and hasattr(module, "combine"):
        module.combine(frames)
