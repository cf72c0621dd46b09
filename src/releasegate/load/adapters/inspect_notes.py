"""What the Inspect adapter tells the reader about its reading of a log, one note each, where the reading is not
Inspect's own figure or needs a choice the reader can change: samples errored in some of their epochs, partial
credit read by a pass/fail gate, other models' tokens (a grader's) kept apart from the release's, and the
category taken from the samples' metadata.

Split from :mod:`.inspect_ai`, which reads the rows these are computed from.
"""

from __future__ import annotations

import math
from typing import Any


def count_noun(count: int, singular: str, plural: str | None = None) -> str:
    return f"{count} {singular if count == 1 else plural or singular + 's'}"


def _ids(cases: list[str]) -> str:
    return ", ".join(cases[:5]) + (f" and {len(cases) - 5} more" if len(cases) > 5 else "")


def partly_errored(rows: list[dict[str, Any]]) -> list[str]:
    """The samples (ids, in order) errored in some of their epochs but not all: Inspect reduces them over the
    epochs that ran; here they are errored cases, on either reducer path."""
    epochs: dict[str, list[bool]] = {}
    for row in rows:
        epochs.setdefault(str(row["case_id"]), []).append(bool(row["error"]))
    return [case for case, errored in epochs.items() if any(errored) and not all(errored)]


def epoch_errors(who: str, epochs: Any, cases: list[str], accuracy: float | None) -> str:
    one = len(cases) == 1
    inspect = f", so its accuracy ({accuracy:.4g}) counts {'it' if one else 'them'}" if accuracy is not None else ""
    return (f"{who}: {count_noun(len(cases), 'sample')} errored in some of {'its' if one else 'their'} {epochs} "
            f"epochs ({_ids(cases)}): {'it is an errored case' if one else 'each is an errored case'} here, left "
            "out of the comparison and listed with the errors, whether the epochs are runs (mean) or reduced; "
            f"Inspect reduces {'it' if one else 'them'} over the epochs that ran{inspect}.")


def reduced(who: str, epochs: Any, reducer: str, errored: list[str]) -> str:
    own = ("Inspect's own figures" if not errored else
           "Inspect's own values for the samples every epoch of which ran")
    return (f"{who}: the {epochs} epochs of each sample reduced by {reducer}, as Inspect reduces "
            f"them (one outcome per sample, {own}).")


def partial_credit(who: str, scorer: str, rows: list[dict[str, Any]]) -> str | None:
    """A note when a pass/fail gate reads P (partial credit) grades: as fails, where Inspect counts 0.5."""
    partial = sum(1 for r in rows if isinstance(r["_value"], str) and r["_value"].strip().upper() == "P"
                  and not r["error"])
    if not partial:
        return None
    return (f"{who}: {partial} of {len(rows)} answers graded P (partial credit) by {scorer}; this "
            "pass/fail gate reads a P as a fail, where Inspect's accuracy counts it 0.5: to gate on Inspect's "
            "values give --score-col score (and --pass-threshold 0.5 to pass a P).")


def other_tokens(who: str, model: str, samples: list[dict[str, Any]], own_known: bool) -> str | None:
    """A note naming the tokens of the models other than the release's (a grader's), kept apart."""
    totals: dict[str, list[float]] = {}
    for sample in samples:
        for name, counts in (sample.get("_other_tokens") or {}).items():
            total = totals.setdefault(name, [0.0, 0.0])
            for index, value in enumerate(counts):
                total[index] += 0.0 if math.isnan(value) else value
    if not totals:
        return None
    listed = "; ".join(f"{name}: {int(i):,} input, {int(o):,} output" for name, (i, o) in totals.items())
    if not own_known:
        return (f"{who}: the samples used several models ({listed}) and none is the release's "
                f"({model}): the release's tokens are not known, so no token figure is read from this log.")
    return (f"{who}: tokens of other models in the samples ({listed}; a grader's or a tool's) are "
            "kept apart: the token figures are the release's own.")


def category_from_metadata(who: str, rows: list[dict[str, Any]]) -> str | None:
    """A note when the category is each sample's metadata field ``category`` (no flag named it)."""
    values = [r.get("category") for r in rows]
    if all(v is None for v in values):
        return None
    found = sorted({str(v) for v in values if v is not None})
    lacking = sum(1 for v in values if v is None)
    return (f"{who}: the category is each sample's metadata field 'category' "
            f"({count_noun(len(found), 'category', 'categories')}"
            + (f"; {lacking} row(s) without it are '(none)'" if lacking else "") + ").")
