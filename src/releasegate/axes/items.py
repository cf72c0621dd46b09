"""The item axis on the paired-mean path: "would other cases agree?", with the sign-flip test beside the t test.

The comparison that drives the verdict holds the paired t figures (or the clustered ones); this extra adds the
spread of the per-case differences, the improved / worsened / unchanged counts, the permutation p that assumes
nothing about the shape of the differences, and the rule by which a case counts as worsened, in words.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

from releasegate import fmt
from releasegate.policy import Policy
from releasegate.stats.continuous import paired_t_test, signflip_normal_test, signflip_test

EXACT_MAX = 20
# Above this many non-zero differences the Monte Carlo flips (cost: resamples x cases) are replaced by their
# normal limit, which agrees with them to within their own Monte Carlo error.
MONTE_CARLO_MAX = 2000


@dataclass(frozen=True)
class ItemAxis:
    """Per-case differences d = candidate - baseline (each case's mean over its runs)."""

    n: int
    mean_diff: float
    sd_diff: float
    se: float
    t: float
    df: int
    p_value: float
    p_one_sided: float
    ci_low: float
    ci_high: float
    signflip_p_value: float
    signflip_p_one_sided: float
    signflip_method: str
    improved: int
    worsened: int
    unchanged: int
    worsened_rule: str
    summary: str
    warnings: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def signflip(d: np.ndarray, policy: Policy) -> tuple[float, float, str]:
    """Two-sided and regression p of the sign-flip test, exact, Monte Carlo or normal by the number of
    non-zero differences, and the method in words."""
    m = int(np.count_nonzero(d))
    if m <= EXACT_MAX:
        r = signflip_test(d, exact_max_n=EXACT_MAX)
        method = f"exact, all {r.n_resamples:,} sign assignments"
    elif m <= MONTE_CARLO_MAX:
        r = signflip_test(d, n_resamples=policy.n_resamples, seed=policy.seed, exact_max_n=EXACT_MAX)
        method = f"Monte Carlo, {r.n_resamples:,} sign flips, seed {policy.seed}"
    else:
        r = signflip_normal_test(d)
        method = f"normal limit of the sign-flip distribution ({m:,} changed cases)"
    return r.pvalue, r.p_regression, method


def _worsened_rule(kind: str, runs: bool) -> str:
    if kind == "binary":
        return ("A case's outcome is its pass rate over its runs; it counts as worsened (listed under broken "
                "cases) when that rate is lower on the candidate, improved when higher. In a critical category "
                "one worsened case blocks the release.")
    over = " (its mean over runs)" if runs else ""
    return (f"A case counts as worsened (listed under broken cases) when its score{over} is lower on the "
            "candidate than on the baseline, by any amount, and improved when higher. In a critical category "
            "one worsened case blocks the release; set pass_threshold to judge cases pass/fail instead.")


def item_axis(d: np.ndarray, policy: Policy, kind: str, runs: bool = False, clustered: bool = False) -> ItemAxis:
    """The item-axis figures of one candidate from its per-case differences (paired t, sign flip, counts)."""
    t = paired_t_test(d, policy.confidence)
    sf_two, sf_one, sf_method = signflip(d, policy)
    improved, worsened = int(np.count_nonzero(d > 0)), int(np.count_nonzero(d < 0))
    unchanged = int(d.size) - improved - worsened
    agree = (sf_two < policy.alpha) == (t.pvalue < policy.alpha)
    independent = "Treating the cases as independent (the grouped figures follow), the" if clustered else "The"
    summary = (f"{improved:,} cases improved, {worsened:,} worsened and {unchanged:,} did not change. "
               f"{independent} sign-flip test, which assumes nothing about the shape of the differences, gives "
               f"{fmt.p_is(sf_two)} ({sf_method}); "
               + ("it agrees with the paired t test." if agree else
                  f"unlike the paired t test ({fmt.p_is(t.pvalue)}), so the outcome depends on a few large "
                  "differences: read the listed cases."))
    return ItemAxis(
        n=int(d.size), mean_diff=t.mean, sd_diff=t.sd, se=t.se, t=t.t, df=t.df, p_value=t.pvalue,
        p_one_sided=t.p_regression, ci_low=t.ci_low, ci_high=t.ci_high,
        signflip_p_value=sf_two, signflip_p_one_sided=sf_one, signflip_method=sf_method,
        improved=improved, worsened=worsened, unchanged=unchanged,
        worsened_rule=_worsened_rule(kind, runs), summary=summary,
    )
