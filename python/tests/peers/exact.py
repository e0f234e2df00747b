"""Exact (ε, δ) curves in mpmath, independent of dpx and of the peers.

* Gaussian mechanism, T-fold: the composition of T Gaussians of noise multiplier σ is one
  Gaussian with μ = √T / σ, whose exact curve is
  δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (Balle & Wang 2018, Thm 8; Dong, Roth & Su 2022,
  Cor 2.13). ε(δ) is its inverse, found by bisection at 50 digits (no overflow at ε > 709).
* Laplace mechanism, one release: the privacy loss of Lap(0, b) against Lap(1, b) is ε0 = 1/b
  with probability 1/2 and has density (1/4)e^{−ε0/2}e^{ℓ/2} on (−ε0, ε0), so
  δ(ε) = 1 − e^{(ε − ε0)/2} on [0, ε0] and ε(δ) = ε0 + 2 log(1 − δ).
* Randomized response (k-ary, parameter ε_rr), T-fold: the worst pair of inputs x ≠ x' gives
  the loss +ε_rr (output x), −ε_rr (output x') or 0, with probabilities e^ε_rr/(e^ε_rr + k − 1),
  1/(e^ε_rr + k − 1), (k − 2)/(e^ε_rr + k − 1); the T-fold loss is a finite distribution and
  ε(δ) follows from the hockey-stick divergence of a discrete pair, solved exactly between
  atoms.
* Laplace mechanism, T-fold (T <= 10): the loss of one release under P = Lap(1, b) is +ε0 with
  probability 1/2, −ε0 with probability e^{−ε0}/2, and otherwise has density κe^{ℓ/2} on
  (−ε0, ε0), κ = e^{−ε0/2}/4. The n-fold convolution of κe^{ℓ/2}1{|ℓ| < ε0} is κ^n e^{s/2} times
  the n-fold convolution of the indicator, (2ε0)^{n−1} IH_n((s + nε0)/(2ε0)) with IH_n the
  Irwin–Hall density; δ(ε) is then a finite multinomial sum over (#up atoms, #down atoms,
  #continuous) of closed-form integrals of e^{±ε0 x}(x − k)^{n−1}, evaluated at 60 digits
  (the alternating Irwin–Hall sum cancels ~30 digits at T = 10 near the pure bound).
"""

from __future__ import annotations

import mpmath as mp

mp.mp.dps = 50


def _phi(x):
    return mp.ncdf(x)


def _bisect(above, lo, hi, steps=200, digits=30):
    """The upper end of [lo, hi] after bisecting on a predicate true below the root and false
    above it (``above(x)``: δ(x) still above the target), to ``digits`` relative digits."""
    for _ in range(steps):
        mid = (lo + hi) / 2
        if above(mid):
            lo = mid
        else:
            hi = mid
        if hi - lo <= mp.mpf(10) ** -digits * hi:
            break
    return hi


def gaussian_delta(epsilon, mu):
    """Exact δ(ε) of the Gaussian mechanism with μ = Δ/σ (Balle & Wang 2018, Thm 8)."""
    e = mp.mpf(epsilon)
    m = mp.mpf(mu)
    return _phi(-e / m + m / 2) - mp.exp(e) * _phi(-e / m - m / 2)


def gaussian_epsilon(delta, sigma, count=1):
    """Exact ε(δ) of ``count`` compositions of the Gaussian mechanism with noise multiplier σ."""
    mu = mp.sqrt(count) / mp.mpf(sigma)
    d = mp.mpf(delta)
    if gaussian_delta(0, mu) <= d:
        return 0.0
    lo, hi = mp.mpf(0), mu * mu / 2 + mu * mp.sqrt(2 * mp.log(1 / d)) + 10
    while gaussian_delta(hi, mu) > d:
        hi *= 2
    return float(_bisect(lambda x: gaussian_delta(x, mu) > d, lo, hi))


def laplace_epsilon(delta, scale):
    """Exact ε(δ) of one Laplace release with scale b per unit L1 sensitivity."""
    e0 = 1 / mp.mpf(scale)
    return float(max(mp.mpf(0), e0 + 2 * mp.log(1 - mp.mpf(delta))))


def discrete_pair_epsilon(losses, masses, delta):
    """Exact ε(δ) of a pair given by its privacy-loss distribution under P (finite support).

    δ(ε) = Σ_{ℓ > ε} P(ℓ)(1 − e^{ε − ℓ}) is continuous, decreasing and, between consecutive
    atoms, of the form A − e^ε B; the interval that contains δ gives ε = log((A − δ)/B).
    """
    d = mp.mpf(delta)
    pairs = sorted(zip(losses, masses), key=lambda t: -t[0])
    a = mp.mpf(0)  # P(L > ℓ_j)
    b = mp.mpf(0)  # E_P[e^{−L}; L > ℓ_j] = Q(L > ℓ_j)
    for j, (l, p) in enumerate(pairs):
        a += p
        b += p * mp.exp(-l)
        nxt = pairs[j + 1][0] if j + 1 < len(pairs) else None
        if nxt is None:
            break
        # δ at ε = nxt (the curve on [nxt, l]) is a − e^{nxt} b.
        if a - mp.exp(nxt) * b >= d:
            eps = mp.log((a - d) / b)
            return float(max(eps, mp.mpf(0)))
    return 0.0


def randomized_response_epsilon(delta, epsilon_rr, categories=2, count=1):
    """Exact ε(δ) of ``count`` releases of k-ary randomized response with parameter ε_rr."""
    e = mp.mpf(epsilon_rr)
    k = int(categories)
    z = mp.exp(e) + k - 1
    p_up, p_down, p_zero = mp.exp(e) / z, 1 / z, mp.mpf(k - 2) / z
    masses = {}
    t = int(count)
    for n_up in range(t + 1):
        for n_down in [t - n_up] if k == 2 else range(t - n_up + 1):
            n_zero = t - n_up - n_down
            w = mp.factorial(t) / (mp.factorial(n_up) * mp.factorial(n_down) * mp.factorial(n_zero))
            m = w * p_up**n_up * p_down**n_down * p_zero**n_zero
            masses[n_up - n_down] = masses.get(n_up - n_down, mp.mpf(0)) + m
    losses = [n * e for n in masses]
    return discrete_pair_epsilon(losses, list(masses.values()), delta)


def gaussian_sigma(epsilon, delta):
    """Exact smallest noise multiplier σ with δ(ε; μ = 1/σ) ≤ δ (bisection at 50 digits)."""
    e, d = mp.mpf(epsilon), mp.mpf(delta)
    lo, hi = mp.mpf("1e-6"), mp.mpf(1)
    while gaussian_delta(e, 1 / hi) > d:
        hi *= 2
    return _bisect(lambda x: gaussian_delta(e, 1 / x) > d, lo, hi)


def _ih_exp_integral(n, beta, x0):
    """∫_{x0}^{n} IH_n(x) e^{βx} dx, IH_n(x) = Σ_k (−1)^k C(n,k) (x − k)_+^{n−1} / (n−1)!."""
    m = n - 1
    x0 = min(max(mp.mpf(x0), mp.mpf(0)), mp.mpf(n))
    total = mp.mpf(0)
    for k in range(n + 1):
        lo = max(x0, mp.mpf(k))
        if lo >= n:
            continue

        def anti(x, k=k):  # an antiderivative of (x − k)^m e^{βx}
            y = x - k
            return mp.exp(beta * x) * mp.fsum(
                (-1) ** j * mp.factorial(m) / mp.factorial(m - j) * y ** (m - j) / beta ** (j + 1)
                for j in range(m + 1)
            )

        total += (-1) ** k * mp.binomial(n, k) * (anti(mp.mpf(n)) - anti(lo))
    return total / mp.factorial(m)


def laplace_delta(epsilon, scale, count):
    """Exact δ(ε) of ``count`` releases of the Laplace mechanism of scale b (sensitivity 1)."""
    with mp.workdps(60):
        e0 = 1 / mp.mpf(scale)
        eps = mp.mpf(epsilon)
        a, c, kappa = mp.mpf(1) / 2, mp.exp(-e0) / 2, mp.exp(-e0 / 2) / 4
        t = int(count)
        delta = mp.mpf(0)
        for u in range(t + 1):
            for d in range(t - u + 1):
                n = t - u - d
                w = mp.factorial(t) / (mp.factorial(u) * mp.factorial(d) * mp.factorial(n))
                w *= a**u * c**d * kappa**n
                ep = eps - (u - d) * e0  # ε minus the atoms' shift
                if n == 0:
                    if ep < 0:
                        delta += w * (1 - mp.exp(ep))
                    continue
                x0 = (ep + n * e0) / (2 * e0)
                if x0 >= n:
                    continue
                up = mp.exp(-n * e0 / 2) * _ih_exp_integral(n, e0, x0)
                down = mp.exp(ep + n * e0 / 2) * _ih_exp_integral(n, -e0, x0)
                delta += w * (2 * e0) ** n * (up - down)
        return delta


def laplace_composed_epsilon(delta, scale, count):
    """Exact ε(δ) of ``count`` <= 10 Laplace releases (bisection on ``laplace_delta``)."""
    if count > 10:
        raise ValueError("count: the alternating Irwin-Hall sum needs more digits beyond 10")
    d = mp.mpf(delta)
    lo, hi = mp.mpf(0), mp.mpf(count) / mp.mpf(scale)
    if laplace_delta(lo, scale, count) <= d:
        return 0.0
    return float(_bisect(lambda x: laplace_delta(x, scale, count) > d, lo, hi, 120, 25))
