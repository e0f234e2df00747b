#!/usr/bin/env python3
"""Exact RDP of the Poisson-subsampled Gaussian at tiny and subnormal sampling rates.

Writes rdp_tiny_q_reference.inc (rows {q, sigma, alpha, rdp}) for rdp_test.cpp. With
mu0 = N(0, s^2) and x(z) = exp((2z - 1) / (2 s^2)) - 1 (the likelihood ratio of N(1, s^2) to
mu0, minus one), the order-alpha Renyi divergence of (1-q) mu0 + q N(1, s^2) from mu0 is
  log(A) / (alpha - 1),  A = E_mu0[(1 + q x)^alpha]                       [MTZ19, Sec 3]
(the direction that dominates for this pair, [MTZ19, Thm 5]). Since E_mu0[x] = 0,
  A - 1 = E_mu0[(1 + u)^alpha - 1 - alpha u],  u = q x,
whose integrand is >= 0 and O(u^2): it is evaluated as the binomial series sum_{k>=2} C(alpha, k)
u^k where |u| < 1e-3 and directly elsewhere, so no first-order cancellation (A - 1 can be 1e-600
while alpha q is 1e-323) loses digits. The expectation is a quadrature (mpmath, 40 digits) split
at 0 (mu0's centre), at z0 (u = 1) and at alpha (the tail's peak, where mu0 (q x)^alpha is largest),
each +- 30 s. This is the definition of the divergence, independent of dpx's series in erfc.
"""
import mpmath as mp

mp.mp.dps = 40


def rdp(q, s, alpha):
    q, s, a = mp.mpf(q), mp.mpf(s), mp.mpf(alpha)
    inv = 1 / (2 * s * s)
    coef = [mp.binomial(a, k) for k in range(2, 24)]

    def g(u):  # (1 + u)^a - 1 - a u
        if abs(u) < mp.mpf("1e-3"):
            return mp.fsum(c * u ** k for k, c in enumerate(coef, 2))
        return mp.power(1 + u, a) - 1 - a * u

    def f(z):
        return mp.npdf(z, 0, s) * g(q * mp.expm1((2 * z - 1) * inv))

    z0 = s * s * (mp.log1p(-q) - mp.log(q)) + mp.mpf(1) / 2
    pts = {-mp.inf, mp.inf}
    for c in (mp.mpf(0), z0, a):
        for k in (-30, -5, -1, 0, 1, 5, 30):
            pts.add(c + k * s)
    excess = mp.quad(f, sorted(pts))
    return mp.log1p(excess) / (a - 1)


def main():
    rows = []
    for q in ("4.9406564584124654e-324", "1e-310", "1e-300"):
        for s in ("1e-5", "1e-3", "0.0026", "0.1", "1"):
            for alpha in ("1.05", "2", "2.5", "10.5", "64", "100.5"):
                v = rdp(q, s, alpha)
                # below 1e-300 (1e-647 at sigma = 1): 0, within the test's absolute tolerance
                text = mp.nstr(v, 17, min_fixed=0, max_fixed=0) if v > mp.mpf("1e-300") else "0"
                rows.append(f"{{{q}, {s}, {alpha}, {text}}},")
    with open(__file__.replace(".py", ".inc"), "w") as out:
        out.write("// Poisson-subsampled Gaussian {q, sigma, alpha, RDP}: exact, by quadrature of the\n"
                  "// definition (tests/accounting/rdp_tiny_q_reference.py).\n")
        out.write("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
