"""The overall comparison the rules read when the outcomes are a judge's verdicts and gold labels correct them
(issue 35 item 3, policy ``judge_correction = "ppi"``, the default with gold labels).

The judge's own comparison (McNemar or the paired mean on its verdicts) tests the judged difference, which is
the true one shrunk by Youden's J and moved by any difference of the judge's error rates between the releases
(docs/judge.md); the PPI++ paired difference (stats/ppi.py) estimates the true difference without either bias.
:func:`corrected_comparison` puts it in the overall comparison's place: its interval at the policy's
confidence, its one-sided p and its (1 - 2 alpha) non-inferiority interval from the same standard error
(stats.ppi.ppi_difference_test), each release's corrected rate, and ``trials`` None (a continuous member of
the error budget, analyze/budget.py). The case counts (fixed, broke, ...) stay the judge's, as the case lists
are. A corrected figure that is undefined (too few gold labels) or degenerate (standard error 0, or gold labels
that show no error of the judge's: stats.ppi.shows_no_judge_error) gives a comparison whose p and bounds are
NaN: the overall rule reads no regression from it, the non-inferiority rule cannot show the candidate no worse,
and the judge gate says NOT PROVEN (decide/rules/judge.py), so nothing reads as SHIP from a figure that does
not exist.

The categories and critical categories keep the judge's own tests (docs/judge.md says why).
"""

from __future__ import annotations

import math
from dataclasses import replace

from releasegate.model import Comparison, Power, Rate
from releasegate.model.judge import CORRECTED_METHOD, CORRECTED_POWER_METHOD, CorrectedFigures
from releasegate.policy import Policy
from releasegate.stats.power import minimum_detectable_difference
from releasegate.stats.ppi import PPIEstimate


def _rate(estimate: PPIEstimate, n: int) -> Rate:
    return Rate(n, estimate.estimate, estimate.low, estimate.high)


def corrected_comparison(judged: Comparison, corrected: CorrectedFigures) -> Comparison:
    """The overall comparison of the corrected figures, in ``judged``'s place (module docstring)."""
    d, test = corrected.difference, corrected.test
    usable = test.defined
    nan = math.nan
    return replace(
        judged,
        baseline=_rate(corrected.baseline, judged.n),
        candidate=_rate(corrected.candidate, judged.n),
        diff=d.estimate,
        ci_low=d.low if usable else nan,
        ci_high=d.high if usable else nan,
        ni_low=test.ni_low,
        ni_high=test.ni_high,
        p_value=test.p_two_sided,
        p_midp=nan,
        p_one_sided=test.p_regression,
        p_adjusted=nan,
        p_value_adjusted=nan,
        method=CORRECTED_METHOD,
        degenerate=False,
        powerless=False,
        discordant_needed=None,
        trials=None,
    )


def corrected_power(corrected: CorrectedFigures, policy: Policy, level: float) -> Power:
    """The corrected test's minimum detectable drop at ``level`` (the level the error budget leaves it):
    (z_{1 - level} + z_power) se, the normal formula on the corrected standard error; NaN (nothing detectable)
    when the corrected figure is undefined."""
    d = corrected.difference
    n = d.n_cases
    if not corrected.test.defined or n < 1:
        return Power(math.nan, math.nan, 1.0, policy.power, policy.alpha, level, CORRECTED_POWER_METHOD, "undefined")
    sd = d.se * math.sqrt(n)  # the spread of one case's term, so that sd / sqrt(n) is the estimate's se
    result = minimum_detectable_difference(sd, n, level, policy.power, True, 1.0)
    return Power(result.mde, sd, 1.0, policy.power, policy.alpha, level, CORRECTED_POWER_METHOD, "")
