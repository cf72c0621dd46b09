"""The outcome column of the tidy table as numbers: boolean-like pass/fail words, scores, and a score threshold.

Part of validation (:mod:`releasegate.validate`): each function takes one column (or the table and the policy)
and returns floats, or raises an InputError whose one line names the column and shows a few of its values.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd

from releasegate.errors import BadValueError, PolicyError
from releasegate.kinds import OutcomeKind
from releasegate.policy import Policy
from releasegate.validate import scan

TRUE_WORDS = {"1", "1.0", "true", "t", "pass", "passed", "yes", "y"}
FALSE_WORDS = {"0", "0.0", "false", "f", "fail", "failed", "no", "n"}
_COMMA_NUMBER = re.compile(r"^\s*[-+]?\d[\d.]*,\d")
# Beyond this a number overflows the statistics (squares, sums of a million of them) to infinity: it is refused
# rather than turned into "inf" in a report or a NaN in a test.
MAX_MAGNITUDE = 1e100


def examples(values: Iterable[Any], k: int = 3) -> str:
    shown = [repr(v) if isinstance(v, str) else str(v) for v in list(values)[:k]]
    return ", ".join(shown)


def _refuse_nested(series: pd.Series, name: str) -> None:
    """JSON objects or lists where a value is due (nested records): one line, not "unhashable type"."""
    if series.dtype != object:
        return
    nested = series[series.map(lambda v: isinstance(v, (dict, list)))]
    if len(nested):
        example = nested.iloc[0]
        shown = (f"an object with keys {', '.join(map(str, list(example)[:5]))}" if isinstance(example, dict)
                 else "a list")
        raise BadValueError(f"{name!r} holds JSON objects or lists, not values: {len(nested)} row(s), e.g. {shown}; "
                         "flatten the records so that the column holds one value per row")


def parse_passed(series: pd.Series) -> pd.Series:
    """Boolean-like values (0/1, true/false, pass/fail, yes/no; any case) to 1.0/0.0, missing to NaN."""
    _refuse_nested(series, "passed" if series.name is None else str(series.name))
    if series.dtype == bool:
        return series.astype(float)
    if series.dtype.kind in "iuf":
        values = series.astype(float)
        # Whole numbers are looked at as read (their least and largest); anything else as the floats made.
        if _zeros_and_ones(series.to_numpy() if isinstance(series.dtype, np.dtype) else values.to_numpy()):
            return values
        bad = values[values.notna() & ~values.isin([0.0, 1.0])]
        if len(bad):
            raise BadValueError(f"'passed' must be boolean-like (0/1, true/false, pass/fail, yes/no); found "
                             f"{bad.nunique()} other value(s): {examples(bad.unique())}")
        return values
    missing = series.isna()
    text = series.astype(str).str.strip().str.lower()
    missing |= text.isin(["", "nan", "none", "null", "na", "n/a"])
    out = pd.Series(np.nan, index=series.index)
    out[text.isin(TRUE_WORDS)] = 1.0
    out[text.isin(FALSE_WORDS)] = 0.0
    bad = series[out.isna() & ~missing]
    if len(bad):
        raise BadValueError(f"'passed' must be boolean-like (0/1, true/false, pass/fail, yes/no); found "
                         f"{bad.nunique()} other value(s): {examples(bad.unique())}")
    return out


def _zeros_and_ones(given: np.ndarray) -> bool:
    """Whether numbers are all 0, 1 or missing: for whole numbers their least and largest, else compared a slice
    at a time (three masks of every row were 60 MB at 2 x 10^7 rows); the values are named only when one is bad."""
    if given.dtype.kind in "iu":
        return given.size == 0 or (int(given.min()) >= 0 and int(given.max()) <= 1)
    return not scan.any_row(lambda part: ~((part == 0.0) | (part == 1.0) | np.isnan(part)), given)


def _within(numbers: np.ndarray, bound: float) -> bool:
    """Whether floats are all finite and within +-bound, missing ones aside: their least and largest (NaN skipped,
    no copy), the common case, before any mask of every row is made to name the values that are not."""
    if numbers.size == 0:
        return True
    low, high = float(np.fmin.reduce(numbers)), float(np.fmax.reduce(numbers))
    return math.isnan(low) or (-bound <= low and high <= bound and math.isfinite(low) and math.isfinite(high))


def parse_score(series: pd.Series, bound: float = MAX_MAGNITUDE) -> pd.Series:
    """Numbers to float; anything else is an error naming the column and the values.

    A comma inside a number ("1,234", "0,5") is refused, not guessed: it is a thousands separator in one
    locale and a decimal comma in another, and either guess silently changes a figure by a factor of 1000.
    Infinite values are refused too: no mean, interval or ratio survives them.
    """
    name = series.name if isinstance(series.name, str) else "score"
    _refuse_nested(series, name)
    if series.dtype.kind in "iuf":
        numbers = series.astype(float)
    else:
        numbers = pd.to_numeric(series, errors="coerce").astype(float)
        bad = series[numbers.isna() & series.notna() & (series.astype(str).str.strip() != "")]
        if len(bad):
            values = bad.astype(str)
            hint = ("; commas are not read as thousands separators or decimal commas: write 1234 or 0.5"
                    if values.str.match(_COMMA_NUMBER).any() else "")
            raise BadValueError(f"{name!r} must be numeric; found {bad.nunique()} other value(s): "
                             f"{examples(bad.unique())}{hint}")
    if _within(numbers.to_numpy(), bound):
        return numbers
    infinite = numbers[np.isinf(numbers)]
    if len(infinite):
        raise BadValueError(f"{name!r} must be finite; found {len(infinite)} infinite value(s), e.g. "
                         f"{examples(infinite.unique())}")
    huge = numbers[(numbers > bound) | (numbers < -bound)]  # no copy of the column's magnitudes
    if len(huge):
        raise BadValueError(f"{name!r} values must lie within +-{bound:g} (larger ones overflow the "
                         f"statistics); found {len(huge)}, e.g. {examples(huge.unique())}: rescale them")
    return numbers


def outcome_column(columns: Iterable[str], policy: Policy) -> str:
    """passed, unless the user named a score column: it wins over a passed column that merely happens to be there."""
    chose_score = "score" in policy.columns and "passed" not in policy.columns and "score" in columns
    return "passed" if "passed" in columns and not chose_score else "score"


def outcome(table: pd.DataFrame, policy: Policy) -> tuple[pd.Series, OutcomeKind]:
    """The table's outcome as floats and its kind: binary (0/1: pass/fail, 0/1 scores, or scores turned into
    pass/fail by ``pass_threshold``) or continuous (scores)."""
    if outcome_column(table.columns, policy) == "passed":
        _check_margin(policy, 1.0)
        return parse_passed(table["passed"]), OutcomeKind.BINARY
    score = parse_score(table["score"].rename("score"))
    if policy.score_range is not None:
        low, high = policy.score_range
        outside = score[(score < low) | (score > high)]
        if len(outside):
            raise BadValueError(f"{len(outside)} score(s) outside the declared range [{low:g}, {high:g}], e.g. "
                             f"{examples(outside.unique())}")
    else:
        _refuse_other_units(score, table["release"])
    if policy.pass_threshold is not None:
        _check_threshold(score, policy)
        _check_margin(policy, 1.0)
        return (score >= policy.pass_threshold).astype(float).where(score.notna()), OutcomeKind.BINARY
    finite = score.dropna()
    if len(finite) and finite.isin([0.0, 1.0]).all():
        _check_margin(policy, 1.0)
        return score, OutcomeKind.BINARY
    _refuse_lost_digits(finite)
    _check_margin(policy, float(finite.max() - finite.min()) if len(finite) else 0.0)
    return score, OutcomeKind.CONTINUOUS


def _refuse_other_units(score: pd.Series, release: pd.Series) -> None:
    """Refuse scores that look like two units with no score_range declared: one release's all within [0, 1],
    another's mostly above 1 (a fraction beside a percentage). Compared, the second would show a gain of the
    whole scale; a declared score_range says both are on one scale and lets them through."""
    known = score.notna()
    if not known.any() or bool((score[known] < 0).any()):
        return
    by_release = score[known].groupby(release[known].astype(str), observed=True)
    largest, middle = by_release.max(), by_release.median()
    fractions, above = largest[largest <= 1.0], middle[middle > 1.0]
    if len(fractions) and len(above):
        low, high = fractions.index[0], above.index[0]
        raise BadValueError(f"the scores of {low!r} all lie within [0, 1] (largest {largest[low]:g}) and those of "
                            f"{high!r} mostly above 1 (median {middle[high]:g}): other units, such as a fraction "
                            "and a percentage; write them in one unit, or declare score_range = [LOW, HIGH] in the "
                            "policy if they are on one scale")


def _check_margin(policy: Policy, spread: float) -> None:
    """Refuse a margin above 0 but below a billionth of the outcomes' range (1 for pass rates): no suite could
    show a candidate no worse by it, and the cases it would take are beyond any count."""
    if 0 < policy.margin < MIN_RELATIVE_SPREAD * spread:
        raise PolicyError(f"margin {policy.margin:g} is below a billionth of the outcomes' range ({spread:.3g}): no "
                          "suite could show a candidate no worse by it; set margin = 0 to turn the non-inferiority "
                          "rule off, or a margin in the outcomes' units")


# Scores whose spread is below this share of their magnitude differ only in digits a 64-bit float barely holds
# (about 16): the differences would be rounding, and the comparison would depend on the units chosen.
MIN_RELATIVE_SPREAD = 1e-9


def _refuse_lost_digits(scores: pd.Series) -> None:
    """Refuse scores that all agree in their first nine digits but not in all of them (1e12 + a small score):
    the analysis is the same in any units only where the differences are well above the floats' rounding."""
    if len(scores) < 2:
        return
    low, high = float(scores.min()), float(scores.max())
    magnitude = max(abs(low), abs(high))
    if 0 < high - low < MIN_RELATIVE_SPREAD * magnitude:
        raise BadValueError(f"'score' values span {high - low:.3g} at a magnitude of {magnitude:.3g}: they agree "
                            "in their first nine digits, and their differences are at the rounding of 64-bit floats;"
                            " subtract a constant from every score (e.g. the smallest) and compare again")


def _check_threshold(score: pd.Series, policy: Policy) -> None:
    """Refuse a pass_threshold that every score falls on one side of (50 on 0-1 scores; 0): pass/fail would then
    be the same on every release, and the comparison would SHIP on nothing."""
    threshold, known = policy.pass_threshold, score.dropna()
    ranges = [("the declared score_range", policy.score_range)] if policy.score_range else []
    ranges += [("the scores' range", (float(known.min()), float(known.max())))] if len(known) else []
    for name, (low, high) in ranges:
        if not low < threshold <= high:
            side = "passes" if threshold <= low else "fails"
            raise BadValueError(f"pass_threshold {threshold:g} is outside {name} [{low:g}, {high:g}]: every score "
                             f"{side} it, so pass/fail compares nothing; choose a threshold above {low:g} and at "
                             f"most {high:g}, or none to compare the scores themselves")
