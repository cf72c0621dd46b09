"""The verdict does not depend on the units of the scores: the same scores times any factor from 1e-300 to
1e100, plus any offset the floats hold, give the same verdict, the same fixed and broke counts, and the same
p-values; scales the arithmetic cannot hold (beyond 1e100, or scores agreeing in their first nine digits) are
refused in one line. A difference at the level of rounding is relative to the scores' magnitude, never to a fixed
unit: with a fixed 1e-12 the same regression was DON'T SHIP at 1e-10 and SHIP, "rule out any loss", at 1e-12."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import releasegate
from releasegate.errors import BadValueError

SETTINGS = settings(max_examples=40, derandomize=True, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow])


def _scores(shift: float) -> tuple[np.ndarray, np.ndarray]:
    """200 cases scored in [0, 1]; the candidate moves each by ``shift`` of the range, with noise."""
    rng = np.random.default_rng(7)
    base = rng.uniform(0, 1, 200)
    return base, np.clip(base + shift + rng.normal(0, 0.05, 200), 0, 1)


def _frame(base: np.ndarray, cand: np.ndarray, factor: float, offset: float) -> pd.DataFrame:
    ids = [f"c{i}" for i in range(base.size)]
    return pd.DataFrame({"release": ["r1"] * base.size + ["r2"] * base.size, "case_id": ids + ids,
                         "score": np.concatenate([base, cand]) * factor + offset})


def _seen(shift: float, factor: float, offset: float = 0.0):
    comparison = releasegate.compare(_frame(*_scores(shift), factor, offset), baseline="r1", margin=0)
    verdict = comparison.verdicts[0]
    overall = comparison.analysis.candidates[0].overall
    return verdict.decision, overall.fixed, overall.broke, round(overall.p_one_sided, 9)


REFERENCE = {shift: _seen(shift, 1.0) for shift in (-0.1, 0.0)}


def test_the_reference_verdicts():
    assert REFERENCE[-0.1][0] is releasegate.model.Decision.DONT_SHIP
    assert REFERENCE[0.0][0] is releasegate.model.Decision.SHIP


@SETTINGS
@given(exponent=st.floats(-300, 300), mantissa=st.floats(1, 10), offset=st.floats(-1e6, 1e6),
       shift=st.sampled_from((-0.1, 0.0)))
@example(exponent=-12, mantissa=1, offset=0, shift=-0.1)  # the SHIP on a regression
@example(exponent=-300, mantissa=1, offset=0, shift=-0.1)
@example(exponent=99, mantissa=9.9, offset=0, shift=-0.1)
def test_any_unit_gives_the_same_verdict_or_a_refusal(exponent, mantissa, offset, shift):
    factor = mantissa * 10.0 ** exponent
    try:
        seen = _seen(shift, factor, offset * factor)
    except BadValueError as refused:
        assert "1e+100" in str(refused) or "first nine digits" in str(refused), str(refused)
        return
    expected = REFERENCE[shift]
    assert seen[:3] == expected[:3], (factor, seen, expected)
    assert seen[3] == pytest.approx(expected[3], rel=1e-6, abs=1e-12)


@pytest.mark.parametrize("factor,offset", [(1e101, 0.0), (1.0, 1e12), (1e-200, 1e-185)])
def test_scales_the_floats_cannot_hold_are_refused_in_one_line(factor, offset):
    with pytest.raises(BadValueError) as refused:
        _seen(-0.1, factor, offset)
    assert "\n" not in str(refused.value)


def test_a_margin_in_the_same_units_gives_the_same_verdict():
    base, cand = _scores(-0.01)
    verdicts = set()
    for factor in (1.0, 1e-3, 1e-12, 1e-300):
        comparison = releasegate.compare(_frame(base, cand, factor, 0.0), baseline="r1", margin=0.05 * factor)
        verdicts.add(comparison.verdicts[0].decision)
    assert len(verdicts) == 1, verdicts
