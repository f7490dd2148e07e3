"""Special functions generated kernels call as `th.<name>` (re-exported by helpers.py): the
orthogonal polynomials, Bessel J/Y/K, Airy Ai, ndtri, the incomplete gamma functions and the
Hurwitz zeta. None has a libdevice function, so each is evaluated from its mathematics (power
series, asymptotic expansions, continued fractions, recurrences) in float64, a float32
argument widened and the result narrowed back. The same @triton.jit code runs on a GPU and,
as Python over numpy, under the Triton interpreter.
"""
from __future__ import annotations

import triton
import triton.language as tl

from .helpers import bernoulli_tail, erfc, erfinv, lgamma, log1p, pow

# (erfc, erfinv, lgamma, log1p, pow: the libdevice wrappers, or numpy/torch under the
# interpreter, looked up by the jit functions below through this module's globals)
__all__ = ["orth_poly", "spherical_j0", "bessel_jy", "bessel_k", "airy_ai", "ndtri", "igamma",
           "zeta", "erfc", "erfinv", "lgamma", "log1p", "pow"]

# (constants other than small integers and halves are made float64 with tl.full inside each
# function: a float literal is a float32 constant in Triton, 1e-8 off for pi)


@triton.jit
def orth_poly(x, n, kind: tl.constexpr):
    """P_n(x) for the integer part of n (eager truncates n to an integer; n < 0, NaN or too
    large for an int64 gives 0) by the three-term recurrence, looped to the largest n of the
    block with a mask per lane. kind: 0-3 Chebyshev T, U, V, W; 4 Hermite H (physicists'),
    5 Hermite He; 6 Laguerre L; 7 Legendre P; 8-11 the shifted Chebyshev T, U, V, W
    (x -> 2x - 1)."""
    if kind >= 8:   # 2x - 1 rounded to x's dtype, as eager's shifted argument
        y = (2.0 * x - 1.0).to(tl.float64) + tl.zeros_like(n).to(tl.float64)
    else:
        y = x.to(tl.float64) + tl.zeros_like(n).to(tl.float64)
    m = n.to(tl.float64) + tl.zeros_like(y)
    m = tl.where((m >= 0.0) & (m < 9.2e18), tl.floor(m), -1.0)
    one = tl.full([], 1.0, tl.float64)
    p0 = tl.zeros_like(y) + one
    if kind == 0 or kind == 5 or kind == 7 or kind == 8:
        p1 = y
    elif kind == 1 or kind == 4 or kind == 9:
        p1 = 2.0 * y
    elif kind == 2 or kind == 10:
        p1 = 2.0 * y - 1.0
    elif kind == 3 or kind == 11:
        p1 = 2.0 * y + 1.0
    else:
        p1 = 1.0 - y
    k = tl.full([], 1.0, tl.float64)
    while tl.max(tl.where(m > k, 1, 0)) > 0:   # P_(k+1) from P_k (p1) and P_(k-1) (p0)
        if kind == 4:
            nxt = 2.0 * y * p1 - 2.0 * k * p0
        elif kind == 5:
            nxt = y * p1 - k * p0
        elif kind == 6:
            nxt = ((2.0 * k + 1.0 - y) * p1 - k * p0) / (k + 1.0)
        elif kind == 7:
            nxt = ((2.0 * k + 1.0) * y * p1 - k * p0) / (k + 1.0)
        else:
            nxt = 2.0 * y * p1 - p0
        upd = m > k
        p0, p1 = tl.where(upd, p1, p0), tl.where(upd, nxt, p1)
        k = k + 1.0
    out = tl.where(m < 0.0, 0.0, tl.where(m == 0.0, 1.0, p1))
    return out.to(x.dtype)


@triton.jit
def spherical_j0(x):
    """sin(x) / x in float64: 1 at 0, 0 at +-inf."""
    y = x.to(tl.float64)
    out = tl.where(y == 0.0, 1.0, tl.sin(y) / y)
    out = tl.where(tl.abs(y) == float("inf"), 0.0, out)
    return out.to(x.dtype)


@triton.jit
def _hankel_pq(a, mu):
    """The Hankel expansions P and Q of J_nu, Y_nu for large a = |x| (mu = 4 nu^2): the terms
    c_k / a^k, c_k = prod_j (mu - (2j - 1)^2) / (k! 8^k), even k into P and odd into Q with
    alternating signs; 30 terms (from a = 15 the last is ~1e-12 of the first)."""
    t = tl.zeros_like(a) + 1.0
    p = t
    q = tl.zeros_like(a)
    for k in tl.static_range(1, 31):
        t = t * (mu - (2 * k - 1) * (2 * k - 1)) / (8 * k * a)
        if k % 4 == 1:
            q += t
        elif k % 4 == 2:
            p -= t
        elif k % 4 == 3:
            q -= t
        else:
            p += t
    return p, q


@triton.jit
def bessel_jy(x, nu: tl.constexpr, second: tl.constexpr):
    """J_nu(x) (second False) or Y_nu(x) (second True), nu 0 or 1, in float64: the power
    series in -(x/2)^2 for |x| <= 15 (50 terms; the largest is ~1e5 at 15, so ~1e-11 is lost
    to cancellation), with Y's logarithmic part and harmonic-number terms, and the Hankel
    expansion beyond 15, the phase x - (2 nu + 1) pi / 4 taken as sums
    of cos x and sin x. J_0 is even, J_1 odd; Y is NaN below 0, -inf at 0; all are NaN at
    +-inf, as eager."""
    pi = tl.full([], 3.141592653589793, tl.float64)
    euler = tl.full([], 0.5772156649015329, tl.float64)
    one = tl.full([], 1.0, tl.float64)
    y = x.to(tl.float64)
    a = tl.abs(y)
    h = 0.5 * a
    q = -h * h
    # t_k = q^k / (k! (k + nu)!), hk = H_k, and for Y_1 the sum of psi(k+1) + psi(k+2)
    t = tl.zeros_like(a) + 1.0
    jser = t
    yser = tl.zeros_like(a)
    if second and nu == 1:
        yser = t * (1.0 - 2.0 * euler)   # psi(1) + psi(2) = 1 - 2 gamma
    hk = tl.zeros_like(a)
    for k in tl.static_range(1, 50):
        t = t * q / (k * (k + nu))
        jser += t
        hk += one / k
        if second:
            if nu == 0:
                yser += hk * t
            else:
                yser += (2.0 * hk + one / (k + 1) - 2.0 * euler) * t
    if nu == 1:
        jser = jser * h
    lg = tl.log(h) + euler
    if second:
        if nu == 0:
            small = (2.0 / pi) * (lg * jser - yser)
        else:
            small = (2.0 / pi) * (tl.log(h) * jser) - 2.0 / (pi * a) - h * yser / pi
    else:
        small = jser
    p, qq = _hankel_pq(a, 4.0 * nu * nu)
    c = tl.cos(a)
    s = tl.sin(a)
    r = tl.full([], 0.7071067811865476, tl.float64)
    if nu == 0:
        cchi = (c + s) * r
        schi = (s - c) * r
    else:
        cchi = (s - c) * r
        schi = -(s + c) * r
    amp = tl.sqrt(2.0 / (pi * a))
    if second:
        big = amp * (p * schi + qq * cchi)
    else:
        big = amp * (p * cchi - qq * schi)
    out = tl.where(a <= 15.0, small, big)
    out = tl.where(a == float("inf"), float("nan"), out)   # as eager (its phase is NaN there)
    if second:
        out = tl.where(y == 0.0, float("-inf"), tl.where(y < 0.0, float("nan"), out))
    elif nu == 1:
        out = tl.where(y < 0.0, -out, out)
    return out.to(x.dtype)


@triton.jit
def bessel_k(x, nu: tl.constexpr, scaled: tl.constexpr):
    """K_nu(x), nu 0 or 1 (times e^x if scaled), in float64: for x <= 10 the series of I_nu
    with the logarithm and harmonic-number terms (the cancellation costs under 1e-7
    relative at 10), beyond it sqrt(pi / 2x) e^-x sum c_k / x^k (24 terms; e^-2x, the
    expansion's own limit, is 2e-9 at 10). inf at 0, NaN below 0, 0 at inf."""
    pi = tl.full([], 3.141592653589793, tl.float64)
    euler = tl.full([], 0.5772156649015329, tl.float64)
    one = tl.full([], 1.0, tl.float64)
    y = x.to(tl.float64)
    h = 0.5 * y
    q = h * h
    t = tl.zeros_like(y) + 1.0
    iser = t
    hk = tl.zeros_like(y)
    if nu == 0:
        kser = tl.zeros_like(y)
    else:
        kser = t * (1.0 - 2.0 * euler)
    for k in tl.static_range(1, 45):
        t = t * q / (k * (k + nu))
        iser += t
        hk += one / k
        if nu == 0:
            kser += hk * t
        else:
            kser += (2.0 * hk + one / (k + 1) - 2.0 * euler) * t
    if nu == 0:
        small = kser - (tl.log(h) + euler) * iser
    else:
        small = 1.0 / y + tl.log(h) * (h * iser) - 0.5 * h * kser
    if scaled:
        small = small * tl.exp(y)
    mu = 4.0 * nu * nu
    c = tl.zeros_like(y) + 1.0
    ser = c
    for k in tl.static_range(1, 25):
        c = c * (mu - (2 * k - 1) * (2 * k - 1)) / (8 * k * y)
        ser += c
    big = tl.sqrt(pi / (2.0 * y)) * ser
    if not scaled:
        big = big * tl.exp(-y)
    out = tl.where(y <= 10.0, small, big)
    out = tl.where(y == float("inf"), 0.0, out)
    out = tl.where(y == 0.0, float("inf"), tl.where(y < 0.0, float("nan"), out))
    return out.to(x.dtype)


@triton.jit
def airy_ai(x):
    """Ai(x) in float64: the Maclaurin series Ai(0) f(x) + Ai'(0) g(x) for -7 <= x <= 6
    (f, g ~ e^zeta, zeta = 2/3 |x|^1.5, so at most ~1e-9 relative is lost to cancellation
    there; 30 terms each), beyond them the asymptotic expansions in 1/zeta with the
    coefficients u_k (20 terms; their own error is near e^-2 zeta): e^-zeta / (2 sqrt(pi)
    x^1/4) sum (-1)^k u_k / zeta^k above 6, the sine and cosine form below -7."""
    pi = tl.full([], 3.141592653589793, tl.float64)
    y = x.to(tl.float64)
    x3 = y * y * y
    f = tl.zeros_like(y) + 1.0
    g = y
    tf = f
    tg = g
    for k in tl.static_range(1, 31):
        tf = tf * x3 / ((3 * k - 1) * (3 * k))
        tg = tg * x3 / ((3 * k) * (3 * k + 1))
        f += tf
        g += tg
    small = (tl.full([], 0.3550280538878172, tl.float64) * f
             - tl.full([], 0.2588194037928068, tl.float64) * g)
    a = tl.abs(y)
    sa = tl.sqrt(a)
    zeta = a * sa * 2.0 / 3.0
    u = tl.zeros_like(y) + 1.0
    pos = u        # sum (-1)^k u_k / zeta^k
    pe = u         # sum (-1)^k u_2k / zeta^2k
    po = tl.zeros_like(y)   # sum (-1)^k u_(2k+1) / zeta^(2k+1)
    for k in tl.static_range(1, 21):
        u = u * ((6 * k - 5) * (6 * k - 3) * (6 * k - 1)) / ((2 * k - 1) * 216 * k) / zeta
        if k % 2 == 1:
            pos -= u
        else:
            pos += u
        if k % 4 == 1:
            po += u
        elif k % 4 == 2:
            pe -= u
        elif k % 4 == 3:
            po -= u
        else:
            pe += u
    root = tl.sqrt(sa)   # |x|^1/4
    right = tl.exp(-zeta) * pos / (2.0 * tl.sqrt(pi) * root)
    # sin(zeta + pi/4) and cos(zeta + pi/4) from sin and cos of zeta
    s = tl.sin(zeta)
    c = tl.cos(zeta)
    r = tl.full([], 0.7071067811865476, tl.float64)
    left = ((s + c) * r * pe - (c - s) * r * po) / (tl.sqrt(pi) * root)
    out = tl.where(y > 6.0, right, tl.where(y < -7.0, left, small))
    # NaN at +-inf as eager, and where eager's float32 zeta overflows (its phase is NaN)
    out = tl.where(a == float("inf"), float("nan"), out)
    if x.dtype == tl.float32:
        out = tl.where((y < 0.0) & (zeta > 3.4028234663852886e38), float("nan"), out)
    return out.to(x.dtype)


@triton.jit
def ndtri(p):
    """The standard normal quantile in float64: -sqrt(2) t with erfc(t) = 2 min(p, 1 - p)
    (the sign flipped above 1/2), t from erfinv (or sqrt(-log 2p) in the far tail, where
    2p - 1 rounds to -1), then Newton steps on log erfc(t) - log 2p, which stay accurate in
    the tail. -inf at 0, inf at 1, NaN outside [0, 1]."""
    pi = tl.full([], 3.141592653589793, tl.float64)
    one = tl.full([], 1.0, tl.float64)
    y = p.to(tl.float64)
    lo = tl.where(y > 0.5, 1.0 - y, y)
    two = 2.0 * lo
    target = tl.log(tl.maximum(two, tl.full([], 1e-300, tl.float64)))
    t = tl.where(lo < 1e-8, tl.sqrt(-target), -erfinv(two - 1.0))
    for _i in tl.static_range(6):
        e = erfc(t)
        step = (tl.log(e) - target) * e / (-2.0 / tl.sqrt(pi) * tl.exp(-t * t))
        t = tl.where(two > 0.0, t - step, t)
    z = -tl.sqrt(2.0 * one) * t
    out = tl.where(y > 0.5, -z, z)
    out = tl.where(y == 0.0, float("-inf"), tl.where(y == 1.0, float("inf"), out))
    out = tl.where((y < 0.0) | (y > 1.0), float("nan"), out)
    return out.to(p.dtype)


@triton.jit
def igamma(a, x, upper: tl.constexpr):
    """The regularized incomplete gamma P(a, x) (or Q = 1 - P if upper) in float64: the series
    x^a e^-x / Gamma(a + 1) sum x^k / ((a+1)...(a+k)) where x < a + 1, else the continued
    fraction of Q (modified Lentz), each looped until every lane has converged (at most 2000
    turns); for a > 200 and x within 30% of a, where the loops would be long (~10 sqrt(a)
    turns), Temme's uniform asymptotic expansion (two terms: ~1e-8 relative at a = 250,
    better above; checked against mpmath up to a = 1e6). Edges as eager: NaN for a < 0 or x < 0 (and a = x = 0 or a = x = inf),
    P = 1 at a = 0 or x = inf, P = 0 at x = 0 or a = inf."""
    pi = tl.full([], 3.141592653589793, tl.float64)
    one = tl.full([], 1.0, tl.float64)
    aa = a.to(tl.float64) + tl.zeros_like(x).to(tl.float64)
    xx = x.to(tl.float64) + tl.zeros_like(aa)
    good = (aa > 0.0) & (xx > 0.0) & (aa < float("inf")) & (xx < float("inf"))
    av = tl.where(good, aa, 1.0)
    xv = tl.where(good, xx, 1.0)
    use_series = xv < av + 1.0
    logpre = av * tl.log(xv) - xv - lgamma(av)
    # series: sum of terms x^k / ((a+1)...(a+k)), times x^a e^-x / Gamma(a+1)
    term = tl.zeros_like(av) + 1.0
    total = term
    den = av
    # continued fraction: b_0 = x + 1 - a, then a_i = i (a - i), b_i = b_(i-1) + 2
    tiny = tl.full([], 1e-300, tl.float64)
    b = xv + 1.0 - av
    c = tl.zeros_like(av) + 1.0 / tiny
    d = 1.0 / tl.where(tl.abs(b) < tiny, tiny, b)
    h = d
    i = tl.full([], 0.0, tl.float64)
    # a > 200 and x within 30% of a, where either loop would take ~10 sqrt(a) turns: Temme's
    # uniform expansion instead (below), and these lanes leave the loop at once
    mu = (xv - av) / av
    temme = (av > 200.0) & (tl.abs(mu) < 0.3)
    live = tl.where(good & ~temme, 1, 0)
    while (tl.max(live) > 0) & (i < 2000.0):
        i = i + 1.0
        den = den + 1.0
        term = term * xv / den
        total = total + term
        an = -i * (i - av)
        b = b + 2.0
        d = an * d + b
        d = 1.0 / tl.where(tl.abs(d) < tiny, tiny, d)
        c = b + an / c
        c = tl.where(tl.abs(c) < tiny, tiny, c)
        delta = c * d
        h = h * delta
        done = tl.where(use_series, tl.abs(term) <= tl.abs(total) * 1e-17,
                        tl.abs(delta - 1.0) <= 1e-16)
        live = tl.where(done, 0, live)
    p_series = tl.exp(logpre - tl.log(av)) * total   # Gamma(a + 1) = a Gamma(a)
    q_cf = tl.exp(logpre) * h
    # Temme: Q = erfc(eta sqrt(a/2)) / 2 + e^(-a eta^2/2) / sqrt(2 pi a) (c0 + c1/a), with
    # eta^2 / 2 = mu - log(1 + mu) (eta of mu's sign), c0 and c1 in closed form, or by their
    # Taylor series in eta for |mu| < 0.1, where the closed forms cancel
    mu_t = tl.where(temme & (mu != 0.0), mu, 0.5)
    eta = tl.sqrt(2.0 * (mu_t - log1p(mu_t)))
    eta = tl.where(mu_t < 0.0, -eta, eta)
    m3 = mu_t * mu_t * mu_t
    c0 = 1.0 / mu_t - 1.0 / eta
    c1 = 1.0 / (eta * eta * eta) - 1.0 / m3 - 1.0 / (mu_t * mu_t) - 1.0 / (12.0 * mu_t)
    e = tl.where(mu == 0.0, 0.0, eta)
    near = tl.abs(mu) < 0.1
    c0 = tl.where(near, -one / 3 + e / 12 - e * e * 2 / 135 + e * e * e / 864, c0)
    c1 = tl.where(near, -one / 540 - e / 288, c1)
    ea = e * tl.sqrt(0.5 * av)
    rem = tl.exp(-ea * ea) / tl.sqrt(2.0 * pi * av) * (c0 + c1 / av)
    if upper:
        out = tl.where(use_series, 1.0 - p_series, q_cf)
        out = tl.where(temme, 0.5 * erfc(ea) + rem, out)
        out = tl.where((aa == 0.0) | (xx == float("inf")), 0.0, out)
        out = tl.where((xx == 0.0) | (aa == float("inf")), 1.0, out)
    else:
        out = tl.where(use_series, p_series, 1.0 - q_cf)
        out = tl.where(temme, 0.5 * erfc(-ea) - rem, out)
        out = tl.where((aa == 0.0) | (xx == float("inf")), 1.0, out)
        out = tl.where((xx == 0.0) | (aa == float("inf")), 0.0, out)
    bad = (aa < 0.0) | (xx < 0.0) | ((aa == 0.0) & (xx == 0.0)) | (aa != aa) | (xx != xx)
    bad = bad | ((aa == float("inf")) & (xx == float("inf")))
    out = tl.where(bad, float("nan"), out)
    return out.to(a.dtype)


@triton.jit
def _hurwitz(sv, w):
    """sum_k (w + k)^-s for w > 0, s > 1 (float64): the terms summed while w + k < 15 or
    w + k < s / 2 (a loop until every lane is past it, or 10000 turns; beyond that every
    term underflows), then the Euler-Maclaurin tail there (seven Bernoulli terms)."""
    acc = tl.zeros_like(w)
    i = tl.full([], 0.0, tl.float64)
    while (tl.max(tl.where((w < 15.0) | (w < 0.5 * sv), 1, 0)) > 0) & (i < 10000.0):
        small = (w < 15.0) | (w < 0.5 * sv)
        acc = tl.where(small, acc + pow(w, -sv), acc)
        w = tl.where(small, w + 1.0, w)
        i = i + 1.0
    inv = 1.0 / w
    r = inv * inv
    pn = pow(w, 1.0 - sv)                      # w^(1-s)
    tail = pn / (sv - 1.0) + 0.5 * pn * inv
    return acc + bernoulli_tail(tail, sv, pn, r)


@triton.jit
def zeta(s, q):
    """The Hurwitz zeta sum_k (q + k)^-s for s > 1, in float64 (_hurwitz). Below 0 (an
    integer s) the terms at negative q + k are summed in closed form: with f = q - floor(q),
    zeta(s, q) = zeta(s, f) + (-1)^s (zeta(s, 1 - f) - zeta(s, 1 - q)), so no lane steps
    through |q| terms (only when some lane of the block is negative). Edges as eager: inf at
    s = 1, NaN for s < 1, at s = inf and at q = inf; for q <= 0 inf at the integers (-inf
    too) and NaN unless s is an integer."""
    ss = s.to(tl.float64) + tl.zeros_like(q).to(tl.float64)
    q0 = q.to(tl.float64) + tl.zeros_like(ss)
    ok = (ss > 1.0) & (q0 == q0) & (ss < float("inf")) & (tl.abs(q0) < float("inf"))
    sv = tl.where(ok, ss, 2.0)
    neg = ok & (q0 < 0.0)
    f = q0 - tl.floor(q0)
    out = _hurwitz(sv, tl.where(neg, f, tl.where(ok, q0, 20.0)))
    if tl.max(tl.where(neg, 1, 0)) > 0:
        sign = tl.where(tl.floor(0.5 * sv) * 2.0 == sv, 1.0, -1.0)
        part = (_hurwitz(sv, tl.where(neg, 1.0 - f, 20.0))
                - _hurwitz(sv, tl.where(neg, 1.0 - q0, 20.0)))
        out = tl.where(neg, out + sign * part, out)
    out = tl.where((q0 == float("inf")) | (ss == float("inf")), float("nan"), out)
    out = tl.where((q0 <= 0.0) & (q0 == tl.floor(q0)), float("inf"), out)
    out = tl.where((q0 < 0.0) & (q0 != tl.floor(q0)) & (ss != tl.floor(ss)), float("nan"), out)
    out = tl.where(ss == 1.0, float("inf"), tl.where((ss < 1.0) | (ss != ss) | (q0 != q0),
                                                       float("nan"), out))
    return out.to(s.dtype)
