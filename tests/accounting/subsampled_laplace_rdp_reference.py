#!/usr/bin/env python3
"""Exact Renyi divergences of the Poisson-subsampled Laplace pair, by direct quadrature.

Writes subsampled_laplace_rdp_reference.inc (rows {b, q, alpha, remove, add}) for
subsampled_pld_test.cpp. P = (1-q) Lap(0, b) + q Lap(1, b), Q = Lap(0, b); with r = P/Q,
  remove: D_alpha(P || Q) = log E_Q[r^alpha] / (alpha - 1),
  add:    D_alpha(Q || P) = log E_Q[r^(1-alpha)] / (alpha - 1).
r is constant below 0 (1 - q + q e^{-1/b}, Q-mass 1/2) and above 1 (1 - q + q e^{1/b}, Q-mass
e^{-1/b}/2) and 1 - q + q e^{(2x-1)/b} on (0, 1) (Q-density e^{-x/b}/(2b)), so each is two
atoms plus a smooth one-dimensional integral, evaluated with mpmath at 40 digits. This is the
definition of the divergence, independent of every RDP formula in dpx.
"""
import mpmath as mp

mp.mp.dps = 40


def divergence(alpha, q, b, direction):
    k = alpha if direction == "remove" else 1 - alpha
    q, b = mp.mpf(q), mp.mpf(b)
    below = mp.mpf(1) / 2 * ((1 - q) + q * mp.e ** (-1 / b)) ** k
    above = mp.e ** (-1 / b) / 2 * ((1 - q) + q * mp.e ** (1 / b)) ** k
    mid = mp.quad(lambda x: mp.e ** (-x / b) / (2 * b) * ((1 - q) + q * mp.e ** ((2 * x - 1) / b)) ** k,
                  [0, 0.25, 0.5, 0.75, 1])
    return mp.log(below + mid + above) / (alpha - 1)


def main():
    rows = []
    for b in ("0.5", "1", "3"):
        for q in ("0.001", "0.01", "0.1", "0.5"):
            for alpha in (2, 3, 4, 5, 8, 16, 32):
                rows.append("{%s, %s, %d, %s, %s}," % (b, q, alpha,
                            mp.nstr(divergence(alpha, q, b, "remove"), 17),
                            mp.nstr(divergence(alpha, q, b, "add"), 17)))
    with open("subsampled_laplace_rdp_reference.inc", "w") as f:
        f.write("// Poisson-subsampled Laplace {b, q, alpha, D_alpha(P||Q), D_alpha(Q||P)}: exact, by\n"
                "// quadrature of the definition (tests/accounting/subsampled_laplace_rdp_reference.py).\n")
        f.write("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
