"""Normal, Student t and chi-square (1 df) distribution functions of one float, in pure Python.

``scipy.special`` has them all (ndtr, ndtri, stdtr, stdtrit, chdtrc), but importing it costs 0.17-0.25 s
(with numpy 2.4 its array-API layer imports numpy.f2py), a fifth of the whole ``releasegate check``; the
statistics only ever ask for a handful of scalar values, which these functions give to within a few units in
the last place (the tests cross-check them against scipy). Same reason and style as
:mod:`releasegate.stats.binomial`.

Student t, following Numerical Recipes (Press et al. 2007, 3rd ed., section 6.4): with x = df / (df + t^2),
P(T < -|t|) = I_x(df/2, 1/2) / 2 (Abramowitz & Stegun 26.7.1 with 26.5.27), the regularized incomplete beta
function by its continued fraction (A&S 26.5.8) evaluated with the modified Lentz method, switching to
I_x(a, b) = 1 - I_{1-x}(b, a) on the side where the fraction converges fast. For df > 30 the tail instead
comes from DiDonato & Morris's (1992) expansion in log x, because 1 - x = t^2 / (df + t^2) loses its digits
when rounded next to 1 (the fraction there would lose about log10(df) digits). The prefactor
x^a (1 - x)^b / B(a, b) is formed in logarithms, with log B(a, 1/2) taken from Stirling's series for large a
where lgamma(a + 1/2) - lgamma(a) would cancel, so df up to 1e300 and tails down to 1e-300 keep their relative
precision (2e-13 at worst, against 40-digit mpmath). Any real df > 0 is allowed (Welch and Bell-McCaffrey give
fractional df); df = inf is the normal.
"""

from __future__ import annotations

import math
import sys
from statistics import NormalDist

from releasegate.stats.binomial import _stirlerr, chi2_1df_sf

__all__ = [
    "chi2_1df_sf",
    "normal_cdf",
    "normal_quantile",
    "normal_sf",
    "t_cdf",
    "t_quantile",
    "t_sf",
]

_SQRT_HALF = math.sqrt(0.5)
_LOG_SQRT_PI = 0.5 * math.log(math.pi)
_LN2 = math.log(2.0)
_STANDARD_NORMAL = NormalDist()
_TINY = 1e-300  # Lentz's guard against a zero denominator
_EPS = sys.float_info.epsilon
_DBL_MAX = sys.float_info.max
_LOG_DBL_MAX = math.log(_DBL_MAX)
# Measured over df from 0.03 to 1e15 and every t: the continued fraction takes at most 25 terms on the side it
# is used, the large-a expansion 9, the quantile 15 Newton steps (2 to 4 typically). The caps only turn an
# unforeseen non-convergence into an error instead of a hang.
_MAX_TERMS = 200
_MAX_EXPANSION_TERMS = 30
_MAX_NEWTON = 60


# ---------------------------------------------------------------------------------------------- normal


def normal_cdf(z: float) -> float:
    """Standard normal P(Z <= z) (scipy.special.ndtr), as 0.5 erfc(-z / sqrt 2), the formula of Cephes' ndtr.

    The tails come from erfc directly: relative error below 1e-13 down to 1e-308 (z = -37.5), where rounding
    z / sqrt 2 costs about z^2 ulps.
    """
    x = z * _SQRT_HALF
    if abs(x) < _SQRT_HALF:
        return 0.5 + 0.5 * math.erf(x)
    tail = 0.5 * math.erfc(abs(x))
    return 1.0 - tail if x > 0 else tail


def normal_sf(z: float) -> float:
    """Standard normal P(Z > z) = P(Z <= -z), by symmetry (exact)."""
    return normal_cdf(-z)


def normal_quantile(p: float) -> float:
    """Standard normal quantile: z with P(Z <= z) = p (scipy's ndtri); -inf at p = 0 and inf at p = 1.

    Wichura's algorithm AS 241 (Applied Statistics 37:477, 1988), accurate to about 1e-16 relative, as
    implemented by ``statistics.NormalDist.inv_cdf``. Raises ValueError outside [0, 1].
    """
    if math.isnan(p):
        return math.nan
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"probability must be in [0, 1], got {p!r}")
    if p == 0.0:
        return -math.inf
    if p == 1.0:
        return math.inf
    return _STANDARD_NORMAL.inv_cdf(p)


# ---------------------------------------------------------------------------------------------- Student t


def _check_df(df: float) -> None:
    if not df > 0.0:  # also rejects NaN
        raise ValueError(f"degrees of freedom must be positive, got {df!r}")


def _log_beta_half(a: float) -> float:
    """log B(a, 1/2), a > 0. Beyond a = 15, lgamma(a) - lgamma(a + 1/2) would lose up to 8 digits for large a;
    Stirling's form of the difference, log G(a + 1/2) - log G(a) = a log1p(1 / 2a) + log(a) / 2 - 1/2
    + delta(a + 1/2) - delta(a), keeps it to a few ulps (delta from :func:`releasegate.stats.binomial._stirlerr`).
    """
    if a < 15.0:
        return math.lgamma(a) + _LOG_SQRT_PI - math.lgamma(a + 0.5)
    ratio = a * math.log1p(0.5 / a) + 0.5 * math.log(a) - 0.5 + _stirlerr(a + 0.5) - _stirlerr(a)
    return _LOG_SQRT_PI - ratio


def _beta_continued_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of I_x(a, b) (A&S 26.5.8) by the modified Lentz method (NR 3rd ed. 5.2, 6.4).

    I_x(a, b) = x^a (1-x)^b / (a B(a, b)) times this; it converges quickly for x < (a + 1) / (a + b + 2).
    """
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = 1.0
    d = 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    for m in range(1, _MAX_TERMS + 1):
        m2 = 2 * m
        for num in (m * (b - m) * x / ((qam + m2) * (a + m2)),
                    -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > _TINY else _TINY)
            c = 1.0 + num / c
            c = c if abs(c) > _TINY else _TINY
            delta = c * d
            h *= delta
        if abs(delta - 1.0) <= _EPS:
            return h
    raise ArithmeticError(f"incomplete beta continued fraction did not converge (a={a}, b={b}, x={x})")


def _erfcx(x: float) -> float:
    """exp(x^2) erfc(x) for x >= 0; beyond x = 26, where erfc underflows, its asymptotic series (A&S 7.1.23),
    whose terms (2k - 1)!! / (2x^2)^k have fallen below 1e-16 by k = 6."""
    if x < 26.0:
        return math.exp(x * x) * math.erfc(x)
    w = 0.5 / (x * x)
    total, term, k = 1.0, 1.0, 0
    while abs(term) > _EPS * total:
        k += 1
        term *= -(2 * k - 1) * w
        total += term
    return total / (x * math.sqrt(math.pi))


def _half_beta_large_a(a: float, log_x: float) -> float:
    """log I_x(a, 1/2) for a >= 15 and x >= 0.7, by the asymptotic expansion of DiDonato & Morris (1992,
    ACM TOMS 18:360, section 9; TOMS 708's BGRAT) in incomplete gamma functions of order b = 1/2.

    With T = a - 1/4 and u = -T log x: I_x(a, b) = Gamma(a + b) / (Gamma(a) T^b) sum_n d_n J_n(u), where
    J_0 = Q(1/2, u) = erfc(sqrt u) and J_n follows from J_(n-1) by their recurrence. It takes log x, not x,
    so x = df / (df + t^2) close to 1 keeps the digits of t^2 / df that 1 - x would lose; the continued
    fraction there loses about log10(a) digits. Everything is scaled by exp(u) so that far tails do not
    underflow before the logarithm is taken.
    """
    b = 0.5
    big_t = a - 0.25
    u = -big_t * log_x
    rate = math.sqrt(u / math.pi)  # exp(u) u^b / Gamma(b)
    v = 0.25 / (big_t * big_t)
    t2 = 0.25 * log_x * log_x
    h = _erfcx(math.sqrt(u))  # exp(u) Q(1/2, u)
    total, power = h, 1.0
    c = [1.0]
    d = [1.0]
    for n in range(1, _MAX_EXPANSION_TERMS + 1):
        bp = b + 2.0 * (n - 1)
        h = (bp * (bp + 1.0) * h + (u + bp + 1.0) * power * rate) * v
        power *= t2
        c.append(c[-1] / ((2.0 * n) * (2.0 * n + 1.0)))
        d.append((b - 1.0) * c[n] + sum((b * i - n) * c[i] * d[n - i] for i in range(1, n)) / n)
        term = d[n] * h
        total += term
        if abs(term) <= _EPS * total:
            break
    else:
        raise ArithmeticError(f"incomplete beta expansion did not converge (a={a}, log x={log_x})")
    log_gamma_ratio = _LOG_SQRT_PI - _log_beta_half(a)  # log Gamma(a + 1/2) - log Gamma(a)
    return log_gamma_ratio - 0.5 * math.log(big_t) - u + math.log(total)


def _t_upper_tail(t: float, df: float) -> tuple[float, float, float]:
    """For t >= 0 and finite df: (P(T > t), log P(T > t), log(t f(t))), f the t density.

    t f(t) = x^a (1-x)^(1/2) / B(a, 1/2) with a = df/2 is the prefactor of the incomplete beta function, so the
    quantile's Newton step (on log P against log t) costs nothing extra. The log tail stays finite where
    P(T > t) underflows.
    """
    a = 0.5 * df
    u = t / math.sqrt(df)
    if u > 1e150:  # t^2 / df overflows; log1p(u^2) = 2 log u to double precision
        log_x, log_y, x, y = math.log(df) - 2.0 * math.log(t), -1.0 / u / u, 0.0, 1.0
    else:
        r = t * t / df
        log_x = -math.log1p(r)
        log_y = math.log(r) + log_x if r > 0.0 else -math.inf
        x, y = 1.0 / (1.0 + r), r / (1.0 + r)
    log_pref = a * log_x + 0.5 * log_y - _log_beta_half(a)
    if y > 1.5 / (a + 2.5):  # x < (a + 1) / (a + b + 2) with b = 1/2: the fraction in x converges
        if a >= 15.0 and y < 0.3:
            log_tail = _half_beta_large_a(a, log_x) - _LN2
        else:
            log_tail = log_pref + math.log(_beta_continued_fraction(a, 0.5, x) / (2.0 * a))
        return math.exp(log_tail), log_tail, log_pref
    # Near the centre: P(T > t) = (1 - I_y(1/2, a)) / 2 = 1/2 - prefactor * fraction, at least 0.04.
    tail = 0.5 - math.exp(log_pref) * _beta_continued_fraction(0.5, a, y)
    return tail, math.log(tail), log_pref


def t_cdf(t: float, df: float) -> float:
    """Student t P(T <= t) with df > 0 degrees of freedom (scipy.special.stdtr(df, t)); df = inf is the normal.

    Incomplete beta function by continued fraction (Numerical Recipes 3rd ed. section 6.4; A&S 26.7.1,
    26.5.8) or, for df > 30, DiDonato & Morris's (1992) expansion; both tails without cancellation. NaN t
    gives NaN; df <= 0 or NaN raises ValueError.
    """
    _check_df(df)
    if math.isnan(t):
        return math.nan
    if math.isinf(df):
        return normal_cdf(t)
    if math.isinf(t):
        return 1.0 if t > 0 else 0.0
    if t == 0.0:
        return 0.5
    tail = _t_upper_tail(abs(t), df)[0]
    return tail if t < 0 else 1.0 - tail


def t_sf(t: float, df: float) -> float:
    """Student t P(T > t) = P(T <= -t), by symmetry (exact); see :func:`t_cdf`."""
    return t_cdf(-t, df)


def _t_start(q: float, df: float) -> float:
    """A positive starting value for t with P(T > t) = q < 1/2.

    For df >= 1 and z^2 < df (z the normal quantile): Cornish-Fisher in z (A&S 26.7.5, four terms), positive
    there. Otherwise the root of the power tail's leading term, P(T > t) ~ df^(df/2 - 1) t^-df / B(df/2, 1/2):
    the density lies below its power law, so that term bounds P(T > t) from above and its root lies at or above
    the quantile.
    """
    z = -normal_quantile(q)
    if df >= 1.0 and z * z < df:
        z2 = z * z
        g1 = (z2 + 1.0) * z / 4.0
        g2 = ((5.0 * z2 + 16.0) * z2 + 3.0) * z / 96.0
        g3 = (((3.0 * z2 + 19.0) * z2 + 17.0) * z2 - 15.0) * z / 384.0
        g4 = ((((79.0 * z2 + 776.0) * z2 + 1482.0) * z2 - 1920.0) * z2 - 945.0) * z / 92160.0
        return z + (g1 + (g2 + (g3 + g4 / df) / df) / df) / df
    log_beta = _log_beta_half(0.5 * df)
    log_t = ((0.5 * df - 1.0) * math.log(df) - log_beta - math.log(q)) / df
    return math.exp(log_t) if log_t < _LOG_DBL_MAX else _DBL_MAX


def t_quantile(p: float, df: float) -> float:
    """Student t quantile: t with P(T <= t) = p, df > 0 (scipy.special.stdtrit(df, p)); +-inf at p = 1, 0.

    Closed forms for df = 1 (Cauchy) and df = 2; otherwise a Cornish-Fisher or power-tail start (A&S 26.7.5)
    polished by Newton's method on log P(T > t) against log t, which is concave (t f(t) / P(T > t) grows with
    t), so after the first step the iterates approach the root from above; it stops when a step changes t by no more than rounding or turns
    back. The smaller tail is solved and the sign restored, so both tails keep full relative precision; the
    result can overflow to +-inf only when df < 1 and p is within about 1e-300 of 0 or 1. df = inf gives the
    normal quantile. Raises ValueError for p outside [0, 1] or df <= 0.
    """
    _check_df(df)
    if math.isnan(p):
        return math.nan
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"probability must be in [0, 1], got {p!r}")
    if math.isinf(df):
        return normal_quantile(p)
    q = p if p < 0.5 else 1.0 - p  # exact for p >= 1/2 (Sterbenz)
    sign = -1.0 if p < 0.5 else 1.0
    if q == 0.5:
        return 0.0
    if q == 0.0:
        return sign * math.inf
    if df == 1.0:  # Cauchy: P(T > t) = atan(1/t) / pi
        return sign * (1.0 / math.tan(math.pi * q) if q < 0.25 else math.tan(math.pi * (0.5 - q)))
    if df == 2.0:  # P(T > t) = (1 - t / sqrt(2 + t^2)) / 2
        return sign * (1.0 - 2.0 * q) / math.sqrt(2.0 * q * (1.0 - q))
    return sign * _t_newton(q, df)


def _t_newton(q: float, df: float) -> float:
    """t > 0 with P(T > t) = q < 1/2, by Newton's method on log P(T > t) against log t."""
    log_q = math.log(q)
    t = _t_start(q, df)
    previous = math.nan
    for _ in range(_MAX_NEWTON):
        _, log_tail, log_tf = _t_upper_tail(t, df)
        # d log P(T > t) / d log t = -t f(t) / P(T > t); the step is in log t, applied as a factor so that t
        # keeps its full precision (log t itself has an ulp of 1e-13 near t = 1e300).
        step = (log_tail - log_q) * math.exp(log_tail - log_tf)
        if t == _DBL_MAX and step > 0.0:
            return math.inf  # the quantile lies beyond the largest float (df < 1 and q near 1e-300)
        t_next = min(t * math.exp(step), _DBL_MAX)
        if abs(step) <= 4.0 * _EPS:
            return t_next
        # Below 1e-9 the step is rounding noise once it turns back or stops shrinking quadratically.
        if abs(step) < 1e-9 and (step * previous < 0.0 or abs(step) > 0.5 * abs(previous)):
            return t_next
        t, previous = t_next, step
    raise ArithmeticError(f"t quantile did not converge (tail {q}, df {df})")
