"""McNemar's test for paired pass/fail outcomes, as an exact binomial test on the discordant pairs."""

from __future__ import annotations

import math
from dataclasses import dataclass

from releasegate.stats.binomial import (
    binom_half_cdf,
    binom_half_pmf,
    binom_half_sf_inclusive,
    chi2_1df_sf,
)


@dataclass(frozen=True)
class McNemarResult:
    """McNemar test on fixed (baseline fail, candidate pass) and broke (baseline pass, candidate fail).

    ``p_two_sided`` is the exact two-sided p (= scipy.stats.binomtest(fixed, fixed + broke, 0.5).pvalue);
    ``p_regression`` the exact one-sided p of "the candidate is worse", P(X >= broke), X ~ Bin(n_d, 1/2).
    ``midp_two_sided`` and ``midp_regression`` are their mid-p forms. ``degenerate`` is True when there are no
    discordant pairs: every p is then 1.
    """

    fixed: int
    broke: int
    n_discordant: int
    p_two_sided: float
    midp_two_sided: float
    p_regression: float
    midp_regression: float
    chi2_p: float
    chi2_cc_p: float
    degenerate: bool


def mcnemar_test(fixed: int, broke: int) -> McNemarResult:
    """Exact, mid-p and asymptotic McNemar tests (Fagerland, Lydersen & Laake 2013, BMC Med Res Methodol 13:91).

    - exact two-sided: min(1, 2 P(X <= min(b, c))), X ~ Bin(b + c, 1/2);
    - mid-p two-sided: exact - P(X = b) when b != c, 1 - P(X = b)/2 when b == c (Fagerland's definition);
    - one-sided regression: P(X >= broke) and its mid-p P(X > broke) + P(X = broke)/2;
    - chi2 (b - c)^2/n_d and the continuity-corrected max(|b - c| - 1, 0)^2/n_d (R's convention), 1 df.
    No discordant pairs: every p is 1 and the result is flagged (libraries disagree there; statsmodels'
    corrected chi2 even gives p = 0).
    """
    if fixed < 0 or broke < 0:
        raise ValueError("fixed and broke are counts and cannot be negative")
    fixed, broke = int(fixed), int(broke)
    n = fixed + broke
    if n == 0:
        return McNemarResult(fixed, broke, 0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, True)
    k = min(fixed, broke)
    exact = min(1.0, 2.0 * binom_half_cdf(k, n))
    pmf_broke = binom_half_pmf(broke, n)
    midp = 1.0 - pmf_broke / 2.0 if fixed == broke else max(0.0, exact - pmf_broke)
    p_reg = binom_half_sf_inclusive(broke, n)
    midp_reg = binom_half_sf_inclusive(broke + 1, n) + pmf_broke / 2.0
    stat = (broke - fixed) ** 2 / n
    stat_cc = max(abs(broke - fixed) - 1, 0) ** 2 / n
    return McNemarResult(
        fixed=fixed,
        broke=broke,
        n_discordant=n,
        p_two_sided=exact,
        midp_two_sided=min(1.0, midp),
        p_regression=min(1.0, p_reg),
        midp_regression=min(1.0, midp_reg),
        chi2_p=chi2_1df_sf(stat),
        chi2_cc_p=chi2_1df_sf(stat_cc),
        degenerate=False,
    )


def smallest_regression_p(n_discordant: int, midp: bool = False) -> float:
    """The smallest one-sided p any split of n_discordant pairs can give: 2^-n (exact), 2^-(n+1) (mid-p)."""
    return 2.0 ** -(n_discordant + (1 if midp else 0)) if n_discordant > 0 else 1.0


def discordant_needed(alpha: float, multiplier: float, midp: bool = False) -> int:
    """Fewest discordant pairs for which all of them going one way reaches multiplier * p < alpha."""
    if alpha <= 0:
        raise ValueError("alpha must be positive")
    # 2^-(n + m) * multiplier < alpha  <=>  n > log2(multiplier / alpha) - m
    n = math.floor(math.log2(multiplier / alpha)) + 1 - (1 if midp else 0)
    return max(n, 1)
