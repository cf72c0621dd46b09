"""Inspect's epochs reducer: the one outcome per sample that Inspect's own figures are computed from.

A task run with ``epochs=Epochs(3, "at_least_1")`` scores every sample three times and reduces the three scores
to one before its metrics: Inspect's accuracy is the mean of the reduced values (0.75), not of the epochs
(0.694), and a sample that passes once in three passes. Reading the epochs as runs would compare another
quantity than the one the eval reports, and list as broken a sample that passes on both sides under the reducer
(issue 31, item 2). So:

- the mean reducer (Inspect's default) keeps every epoch as a run: releasegate's plan reduces runs to their
  mean itself, and the run axis stays;
- any other reducer gives one row per sample with Inspect's reduced value, read from the log's reductions
  (``reductions.json`` in a .eval, ``reductions`` in a JSON log), where Inspect stored what it computed;
- a log without reductions is reduced here as Inspect's ``_reducer/reducer.py`` does for mean, median, mode,
  max, at_least_K and pass_at_K (value_to_float: C 1, P 0.5, I and N 0, yes/true 1, no/false 0);
- several reducers of one scorer need ``--reducer NAME``; the reducer used is named in the provenance.
"""

from __future__ import annotations

import math
import re
import statistics
from collections import Counter
from typing import Any

from releasegate.errors import InputError
from releasegate.load.adapters.fields import list_at, mapping_at

MEAN = "mean"
_AT_LEAST = re.compile(r"^at_least_(\d+)$")
_PASS_AT = re.compile(r"^pass_at_(\d+)$")
_LETTERS = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}
_WORDS = {"yes": 1.0, "true": 1.0, "no": 0.0, "false": 0.0}


def reducers_of(header: dict[str, Any], scorer_name: str) -> list[str]:
    """The reducers Inspect applied to ``scorer_name``'s epochs (results.scores, else eval.config), [] for none."""
    results = mapping_at(header, "results")
    found = [str(s.get("reducer")) for s in list_at(results, "scores")
             if isinstance(s, dict) and s.get("scorer") == scorer_name and s.get("reducer")]
    if found:
        return list(dict.fromkeys(found))
    spec = mapping_at(header, "eval")
    config = mapping_at(spec, "config")
    listed = config.get("epochs_reducer")
    return [str(r) for r in listed] if isinstance(listed, list) else [str(listed)] if listed else []


def choose_reducer(where: str, header: dict[str, Any], scorer_name: str, given: str | None) -> str | None:
    """The reducer to apply (None: keep the epochs as runs, Inspect's mean); InputError on an ambiguous log."""
    spec = mapping_at(header, "eval")
    config = mapping_at(spec, "config")
    epochs = config.get("epochs")
    reducers = reducers_of(header, scorer_name)
    if given is not None:
        if given in reducers or (given == MEAN and not reducers):
            return None if given == MEAN else given
        raise InputError(f"{where}: no epochs reducer {given!r} for scorer {scorer_name!r}; the log reduces with: "
                         f"{', '.join(reducers) or 'mean (the default)'}")
    if not isinstance(epochs, int) or epochs <= 1 or not reducers or reducers == [MEAN]:
        return None
    if len(reducers) > 1:
        raise InputError(f"{where}: scorer {scorer_name!r} is reduced over epochs by {len(reducers)} reducers "
                         f"({', '.join(reducers)}); choose one with --reducer (mean keeps each epoch as a run)")
    return reducers[0]


def stored_reductions(header: dict[str, Any], scorer_name: str, reducer: str) -> dict[str, Any] | None:
    """sample id (as text) -> Inspect's reduced value for (scorer, reducer), or None when the log has none."""
    for entry in list_at(header, "reductions"):
        if not isinstance(entry, dict) or entry.get("scorer") != scorer_name:
            continue
        if (entry.get("reducer") or MEAN) != reducer:
            continue
        return {str(s.get("sample_id")): s.get("value") for s in list_at(entry, "samples") if isinstance(s, dict)}
    return None


def value_to_float(value: Any) -> float:
    """Inspect's value_to_float: numbers as they are, C/I/P/N, yes/no/true/false; anything else is refused."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        text = value.strip()
        if text.upper() in _LETTERS:
            return _LETTERS[text.upper()]
        if text.lower() in _WORDS:
            return _WORDS[text.lower()]
        try:
            return float(text)
        except ValueError:
            pass
    raise InputError(f"Inspect score value {str(value)[:40]!r} is not C/I/P/N, yes/no, true/false or a number")


def reduce_epochs(values: list[Any], reducer: str) -> Any:
    """One sample's epoch values reduced as Inspect's built-in reducer of that name does (scalar values)."""
    if not values:
        return math.nan
    if reducer == "mode":
        return Counter(values).most_common(1)[0][0]
    if reducer == "max":  # the value itself (C, not 1.0), the largest by value_to_float
        return max(values, key=value_to_float)
    numbers = [value_to_float(v) for v in values]
    if reducer == MEAN:
        return statistics.mean(numbers)
    if reducer == "median":
        return statistics.median(numbers)
    at_least = _AT_LEAST.match(reducer)
    if at_least:
        return 1 if sum(1 for n in numbers if n >= 1.0) >= int(at_least[1]) else 0
    pass_at = _PASS_AT.match(reducer)
    if pass_at:
        k, total = int(pass_at[1]), len(numbers)
        correct = sum(1 for n in numbers if n >= 1.0)
        if total < k:
            return math.nan
        if total - correct < k:
            return 1.0
        product = 1.0
        for i in range(total - correct + 1, total + 1):
            product *= 1.0 - k / i  # Chen et al. 2021's unbiased estimator, as Inspect computes it
        return 1.0 - product
    raise InputError(f"Inspect epochs reducer {reducer!r} is not in the log's reductions and is not one releasegate "
                     "can apply itself (mean, median, mode, max, at_least_K, pass_at_K); rerun with a recent Inspect")
