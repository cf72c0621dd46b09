"""The item axis on the paired-mean path: "would other cases agree?", with the sign-flip test beside the t test.

The comparison that drives the verdict holds the paired t figures (or the clustered ones); this section adds the
spread of the per-case differences, the improved / worsened / unchanged counts, and the permutation p that
assumes nothing about the shape of the differences. Numbers and flags only (wording.sections reads them).
"""

from __future__ import annotations

import numpy as np

from releasegate.analyze.min_change import moved
from releasegate.kinds import OutcomeKind
from releasegate.model.axes import ItemAxis
from releasegate.policy import Policy
from releasegate.stats.continuous import paired_t_test, signflip_normal_test, signflip_test

EXACT_MAX = 20
# Above this many non-zero differences the Monte Carlo flips (cost: resamples x cases) are replaced by their
# normal limit, which agrees with them to within their own Monte Carlo error.
MONTE_CARLO_MAX = 2000


def signflip(d: np.ndarray, policy: Policy) -> tuple[float, float, str, int]:
    """Two-sided and regression p of the sign-flip test, exact, Monte Carlo or normal by the number of
    non-zero differences; with the kind of test used and its number of sign assignments."""
    m = int(np.count_nonzero(d))
    if m <= EXACT_MAX:
        r = signflip_test(d, exact_max_n=EXACT_MAX)
        kind = "exact"
    elif m <= MONTE_CARLO_MAX:
        r = signflip_test(d, n_resamples=policy.n_resamples, seed=policy.seed, exact_max_n=EXACT_MAX)
        kind = "monte_carlo"
    else:
        r = signflip_normal_test(d)
        return r.p_two_sided, r.p_regression, "normal", 0
    return r.p_two_sided, r.p_regression, kind, r.n_resamples


def item_axis(d: np.ndarray, policy: Policy, kind: OutcomeKind, runs: bool = False, clustered: bool = False) -> ItemAxis:
    """The item-axis figures of one candidate from its per-case differences (paired t, sign flip, counts)."""
    t = paired_t_test(d, policy.confidence)
    sf_two, sf_one, sf_kind, sf_resamples = signflip(d, policy)
    up, down = moved(d, policy, kind != OutcomeKind.CONTINUOUS)  # scores: beyond min_change; the tests read all
    improved, worsened = int(np.count_nonzero(up)), int(np.count_nonzero(down))
    return ItemAxis(
        n=int(d.size), mean_diff=t.mean, sd_diff=t.sd, se=t.se, t=t.t, df=t.df, p_value=t.p_two_sided,
        p_one_sided=t.p_regression, ci_low=t.low, ci_high=t.high,
        signflip_p_value=sf_two, signflip_p_one_sided=sf_one, signflip_kind=sf_kind,
        signflip_resamples=sf_resamples, signflip_changed=int(np.count_nonzero(d)),
        improved=improved, worsened=worsened, unchanged=int(d.size) - improved - worsened,
        outcome_kind=kind, runs=runs, clustered=clustered,
        min_change=0.0 if kind != OutcomeKind.CONTINUOUS else float(policy.min_change or 0.0),
    )
