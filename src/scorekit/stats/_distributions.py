"""Tail probabilities and quantiles of the distributions the tests need, in plain Python.

The regularized incomplete beta function gives the Student t and binomial
tails; the error function gives the normal and chi-square (1 degree of
freedom) tails; :class:`statistics.NormalDist` gives normal quantiles.
"""

from __future__ import annotations

import math
from statistics import NormalDist

__all__ = [
    "binomial_cdf_half",
    "chi2_1_sf",
    "normal_quantile",
    "normal_tail",
    "normal_two_sided",
    "student_t_tail",
    "student_t_two_sided",
]

_LOG_2PI = math.log(2.0 * math.pi)
_TINY = 1e-300
_EPS = 1e-16

# Coefficients B_2k / (2k (2k - 1)) of Stirling's series for log Gamma.
_STIRLING = (
    1.0 / 12.0,
    -1.0 / 360.0,
    1.0 / 1260.0,
    -1.0 / 1680.0,
    1.0 / 1188.0,
    -691.0 / 360360.0,
    1.0 / 156.0,
    -3617.0 / 122400.0,
)


def _stirling_rest(x: float) -> float:
    """``log Gamma(x) - ((x - 1/2) log x - x + log(2 pi) / 2)``, for ``x > 0``."""
    if x < 10.0:
        return math.lgamma(x) - ((x - 0.5) * math.log(x) - x + 0.5 * _LOG_2PI)
    inv2 = 1.0 / (x * x)
    term = 1.0 / x
    total = 0.0
    for c in _STIRLING:
        total += c * term
        term *= inv2
    return total


def _log1pmx(u: float) -> float:
    """``log(1 + u) - u``, accurate for small ``|u|``."""
    if abs(u) > 0.25:
        return math.log1p(u) - u
    total = 0.0
    power = u * u
    k = 2
    while True:
        term = power / k
        total += -term if k % 2 == 0 else term
        if abs(term) <= _EPS * abs(total):
            return total
        power *= u
        k += 1


def _log_front(a: float, b: float, x: float, y: float, log_x: float, log_y: float) -> float:
    """``log(x**a * y**b / B(a, b))`` with ``y = 1 - x``, avoiding cancellation of large terms."""
    s = a + b
    # logs of the mode x0 = a / s and of y0 = b / s
    dx = log_x + math.log1p(b / a)
    dy = log_y + math.log1p(a / b)
    u, v = math.expm1(dx), math.expm1(dy)
    # Near the mode, a u + b v = s (x + y - 1) = 0: only the second-order parts remain.
    near = abs(u) <= 0.5 and abs(v) <= 0.5
    body = a * _log1pmx(u) + b * _log1pmx(v) if near else a * dx + b * dy
    rest = _stirling_rest(s) - _stirling_rest(a) - _stirling_rest(b)
    return body + 0.5 * (math.log(a) + math.log(b) - math.log(s) - _LOG_2PI) + rest


def _beta_fraction(a: float, b: float, x: float) -> tuple[float, bool]:
    """The continued fraction of the incomplete beta function (modified Lentz).

    Returns the fraction and whether it converged within the iteration limit.
    """
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = 1.0
    d = 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    limit = 200 + int(20.0 * math.sqrt(max(a, b)))
    for m in range(1, limit + 1):
        m2 = 2 * m
        for aa in (
            m * (b - m) * x / ((qam + m2) * (a + m2)),
            -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)),
        ):
            d = 1.0 + aa * d
            d = 1.0 / (d if abs(d) > _TINY else _TINY)
            c = 1.0 + aa / c
            c = c if abs(c) > _TINY else _TINY
            step = d * c
            h *= step
        if abs(step - 1.0) <= _EPS:
            return h, True
    return h, False


def _betainc(a: float, b: float, x: float, y: float, log_x: float, log_y: float) -> float:
    """Regularized incomplete beta ``I_x(a, b)``; ``y = 1 - x`` and both logs given precisely."""
    if x <= 0.0:
        return 0.0
    if y <= 0.0:
        return 1.0
    if x >= (a + 1.0) / (a + b + 2.0):
        return 1.0 - _lower(b, a, y, x, log_y, log_x)
    if a > 1000.0 and x > 0.5 and y < 2.0 * (b + 1.0) / (a + b + 2.0):
        # Near x = 1 the fraction in x cancels (1 - x * ...) and, with a large,
        # loses digits; the fraction in y = 1 - x does not, and still converges
        # this close to its own switch point. Its complement is precise while
        # the result is not small.
        fraction, converged = _beta_fraction(b, a, y)
        if converged:
            rest = 1.0 - math.exp(_log_front(b, a, y, x, log_y, log_x)) * fraction / b
            if rest >= 1e-4:
                return rest
    return _lower(a, b, x, y, log_x, log_y)


def _lower(a: float, b: float, x: float, y: float, log_x: float, log_y: float) -> float:
    """``I_x(a, b)`` straight from the continued fraction in ``x``."""
    fraction = _beta_fraction(a, b, x)[0]
    return math.exp(_log_front(a, b, x, y, log_x, log_y)) * fraction / a


def student_t_two_sided(t: float, df: float) -> float:
    """Two-sided tail ``P(|T| >= |t|)`` of Student's t with ``df`` degrees of freedom.

    Examples
    --------
    >>> round(student_t_two_sided(2.0, 10), 12)
    0.073388034771
    >>> student_t_two_sided(0.0, 3)
    1.0
    """
    if math.isnan(t):
        return math.nan
    if math.isinf(t):
        return 0.0
    if t == 0.0:
        return 1.0
    # r = t^2 / df, in logs so that huge t does not overflow
    log_r = 2.0 * math.log(abs(t)) - math.log(df)
    log1p_r = log_r + math.log1p(math.exp(-log_r)) if log_r > 0 else math.log1p(math.exp(log_r))
    log_x = -log1p_r
    log_y = log_r - log1p_r
    return _betainc(0.5 * df, 0.5, math.exp(log_x), math.exp(log_y), log_x, log_y)


def student_t_tail(t: float, df: float) -> float:
    """Upper tail ``P(T >= t)`` of Student's t with ``df`` degrees of freedom.

    Half the two-sided tail for ``t > 0`` (so as precise far in the tail), one
    minus it below; ``P(T <= t)`` is ``student_t_tail(-t, df)``.

    Examples
    --------
    >>> round(student_t_tail(2.0, 10), 12)
    0.036694017386
    >>> student_t_tail(0.0, 3), student_t_tail(-math.inf, 3)
    (0.5, 1.0)
    """
    if math.isnan(t):
        return math.nan
    half = 0.5 * student_t_two_sided(t, df)
    return half if t > 0.0 else 1.0 - half


def student_t_quantile(q: float, df: float) -> float:
    """The ``q`` quantile of Student's t with ``df`` degrees of freedom, for ``0.5 <= q < 1``.

    Found by bisection on :func:`student_t_two_sided` to the last bits of a float.

    Examples
    --------
    >>> round(student_t_quantile(0.975, 10), 10)   # scipy.stats.t.ppf(0.975, 10)
    2.2281388520
    >>> student_t_quantile(0.5, 4)
    0.0
    """
    if q == 0.5:
        return 0.0
    target = 2.0 * (1.0 - q)
    low, high = 0.0, 1.0
    while student_t_two_sided(high, df) > target:
        low, high = high, 2.0 * high
    for _ in range(200):
        middle = 0.5 * (low + high)
        if middle in (low, high):
            break
        if student_t_two_sided(middle, df) > target:
            low = middle
        else:
            high = middle
    return 0.5 * (low + high)


def binomial_cdf_half(k: int, n: int) -> float:
    """``P(X <= k)`` for ``X ~ Binomial(n, 1/2)``.

    Exact (integer arithmetic, one rounding) up to ``n = 10000``; above, the
    incomplete beta function ``I_{1/2}(n - k, k + 1)``.

    Examples
    --------
    >>> binomial_cdf_half(1, 3)
    0.5
    >>> binomial_cdf_half(0, 10) == 2.0**-10
    True
    """
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    if n <= 10000:
        term = 1
        total = 1
        for i in range(k):
            term = term * (n - i) // (i + 1)
            total += term
        return total / (1 << n)
    half = -math.log(2.0)
    return _betainc(float(n - k), float(k + 1), 0.5, 0.5, half, half)


def chi2_1_sf(statistic: float) -> float:
    """Upper tail of the chi-square distribution with one degree of freedom.

    Examples
    --------
    >>> round(chi2_1_sf(3.841458820694124), 12)
    0.05
    """
    if statistic <= 0.0:
        return 1.0
    return math.erfc(math.sqrt(0.5 * statistic))


def normal_two_sided(z: float) -> float:
    """Two-sided tail ``P(|Z| >= |z|)`` of the standard normal distribution.

    Examples
    --------
    >>> round(normal_two_sided(1.959963984540054), 12)
    0.05
    """
    if math.isnan(z):
        return math.nan
    return math.erfc(abs(z) / math.sqrt(2.0))


def normal_tail(z: float) -> float:
    """Upper tail ``P(Z >= z)`` of the standard normal distribution.

    Examples
    --------
    >>> round(normal_tail(1.6448536269514722), 12)
    0.05
    >>> normal_tail(-math.inf)
    1.0
    """
    return 0.5 * math.erfc(z / math.sqrt(2.0))


def normal_quantile(p: float) -> float:
    """The standard normal quantile at probability ``p`` in (0, 1).

    Examples
    --------
    >>> round(normal_quantile(0.975), 12)
    1.959963984540
    """
    return NormalDist().inv_cdf(p)
