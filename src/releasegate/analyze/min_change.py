"""How far a score must move for its case to count as improved or worsened (issue 29 item 4).

A 0-1 ``faithfulness`` score listed 104 worsened cases, identical answers among them that dropped by 0.2 or
less: every move counted, however small. The case lists and the improved / worsened counts now count a case
only when its per-case difference exceeds ``min_change`` (policy-wide, per metric in ``[metrics.NAME]``, or
its flag); by default 1% of the score range: the declared ``score_range`` when there is one, else the
range observed over every release's scores of the metric (one tolerance for every candidate). The statistical
tests (paired t, sign flip, the clustered figures) read every difference; a critical category's sign test counts
the cases these lists count (analyze/critical.py). Pass/fail outcomes (0/1, or pass rates over runs) have no
tolerance: a change there is a whole pass.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from releasegate.errors import InputError
from releasegate.policy import Policy

DEFAULT_SHARE = 0.01  # of the score range


def default_min_change(scores: np.ndarray, score_range: tuple[float, float] | None) -> float:
    """1% of ``score_range`` (low, high), else of the finite ``scores``' observed range (0 when they are
    constant or absent: every move then counts)."""
    if score_range is not None:
        low, high = score_range
    else:
        finite = np.asarray(scores, dtype=np.float64)
        finite = finite[np.isfinite(finite)]
        if finite.size == 0:
            return 0.0
        low, high = float(finite.min()), float(finite.max())
    return DEFAULT_SHARE * (high - low)


def resolved(policy: Policy, scores: np.ndarray, scored: bool) -> Policy:
    """``policy`` with ``min_change`` set: its own when given; for scores (``scored``) the default from the
    scale; for pass/fail 0 (every change is a whole pass)."""
    if policy.min_change is not None:
        if scored:
            _refuse_beyond_range(float(policy.min_change), scores)
        return policy if scored else dataclasses.replace(policy, min_change=0.0)
    value = default_min_change(scores, policy.score_range) if scored else 0.0
    return dataclasses.replace(policy, min_change=value)


def _refuse_beyond_range(min_change: float, scores: np.ndarray) -> None:
    """A ``min_change`` at or beyond the whole range of the scores: no difference can exceed it, so no case
    would count as improved or worsened, the lists would say "0 worsened" beside a regression the tests show,
    and a critical category's sign test, which counts those cases, could never block."""
    finite = np.asarray(scores, dtype=np.float64)
    finite = finite[np.isfinite(finite)]
    if min_change <= 0 or finite.size == 0:
        return
    low, high = float(finite.min()), float(finite.max())
    if high - low <= min_change:
        raise InputError(f"min_change {min_change:g} is at least the whole range of the scores ({low:g} to "
                         f"{high:g}): no case could count as improved or worsened, and a critical category's sign "
                         f"test, which counts them, could never block; give a min_change below {high - low:g}")


def moved(d: np.ndarray, policy: Policy, rates: bool) -> tuple[np.ndarray, np.ndarray]:
    """The cases whose difference ``d`` (candidate - baseline) counts as up and as down: beyond
    ``policy.min_change`` for scores, any change for pass rates (``rates``)."""
    tolerance = 0.0 if rates or policy.min_change is None else float(policy.min_change)
    return d > tolerance, d < -tolerance
