#!/usr/bin/env python3
"""Independent references for subsampled_pld_test.cpp (run once; prints the .inc tables).

Brute force on the ACTUAL mechanisms, not on dpx's dominating pairs: one record differs
(values +-1, so the replace-one sensitivity of the batch sum is 2), the other records take every
split c of +1 / -1 values, the batch (Poisson or fixed size without replacement) is enumerated
exactly (hypergeometric / binomial mixture), and noise (Gaussian sigma or Laplace b, absolute
scale) is added to the batch sum. For each dataset pair, both orders, the privacy loss
L = log p(x)/q(x) is bracketed on a fine grid of output cells (each cell's P-mass placed at the
largest / smallest loss over the cell, then rounded up / down to a loss grid of at most 1e-4): its
T-fold convolution (numpy FFT) gives delta_T(eps) from above and below
(delta = E_P[(1 - e^{eps - L})_+], monotone in the losses). Columns of the output: the
largest lower end and the largest upper end over all dataset pairs and orders.

Needs numpy only (math.erfc for the normal CDF). Takes a few minutes.
"""
import math

import numpy as np

H_LOSS = [1e-4]  # loss grid (set per case: fine enough for the case's loss range)
CELLS = 200_000


def normal_cdf(z):
    return 0.5 * np.vectorize(math.erfc)(-z / math.sqrt(2.0))


def laplace_cdf(z):
    return np.where(z < 0, 0.5 * np.exp(np.minimum(z, 0)), 1 - 0.5 * np.exp(-np.maximum(z, 0)))


def mixture(weights, centers, noise, scale, x):
    """Log-density and CDF of sum_i w_i Noise(c_i, scale) at the points x."""
    logs, cdf = [], np.zeros_like(x)
    for w, c in zip(weights, centers):
        if w <= 0:
            continue
        z = (x - c) / scale
        if noise == "gaussian":
            logs.append(math.log(w) - 0.5 * z * z)
            cdf += w * normal_cdf(z)
        else:
            logs.append(math.log(w) - np.abs(z))
            cdf += w * laplace_cdf(z)
    m = np.max(logs, axis=0)
    return m + np.log(np.sum([np.exp(l - m) for l in logs], axis=0)), cdf


def loss_buckets(P, Q, noise, scale):
    """Pessimistic and optimistic loss PMFs (index -> mass) of the pair P, Q = (weights, centers)."""
    centers = list(P[1]) + list(Q[1])
    width = (40.0 if noise == "gaussian" else 60.0) * scale
    lo, hi = min(centers) - width / 2, max(centers) + width / 2
    edges = np.unique(np.concatenate([np.linspace(lo, hi, CELLS + 1), np.array(centers, float)]))
    lp, cp = mixture(*P, noise, scale, edges)
    lq, _ = mixture(*Q, noise, scale, edges)
    mass = np.diff(cp)
    loss = lp - lq
    mid = 0.5 * (edges[:-1] + edges[1:])
    lpm, _ = mixture(*P, noise, scale, mid)
    lqm, _ = mixture(*Q, noise, scale, mid)
    lm = lpm - lqm
    up = np.maximum(np.maximum(loss[:-1], loss[1:]), lm)
    dn = np.minimum(np.minimum(loss[:-1], loss[1:]), lm)
    tail = cp[0] + (1 - cp[-1])
    out = []
    for vals, rnd in ((up, np.ceil), (dn, np.floor)):
        idx = rnd(vals / H_LOSS[0]).astype(np.int64)
        off = idx.min()
        pmf = np.bincount(idx - off, weights=mass)
        out.append((off, pmf))
    return out, tail


def compose(off, pmf, t):
    o, r = off, pmf
    for _ in range(t - 1):
        n = len(r) + len(pmf) - 1
        size = 1 << (n - 1).bit_length()
        r = np.fft.irfft(np.fft.rfft(r, size) * np.fft.rfft(pmf, size), size)[:n]
        r = np.maximum(r, 0)
        o = o + off
    return o, r


def delta_of(off, pmf, eps):
    l = (off + np.arange(len(pmf))) * H_LOSS[0]
    sel = l > eps
    return float(np.sum(pmf[sel] * -np.expm1(eps - l[sel])))


def brackets(P, Q, noise, scale, queries):
    """[(lo, hi)] of delta_T(eps) for each (T, eps) in queries."""
    (pess, opt), tail = loss_buckets(P, Q, noise, scale)
    out = []
    for t, eps in queries:
        hi = delta_of(*compose(*pess, t), eps) + t * tail
        lo = delta_of(*compose(*opt, t), eps)
        out.append((lo, hi))
    return out


def hyper(n_pop, succ, draws):
    """P(k successes) drawing `draws` of n_pop with `succ` successes, without replacement."""
    out = {}
    for k in range(0, draws + 1):
        if k > succ or draws - k > n_pop - succ:
            continue
        out[k] = math.comb(succ, k) * math.comb(n_pop - succ, draws - k) / math.comb(n_pop, draws)
    return out


def batch_law(records, m):
    """Fixed batch of m of the +-1 records without replacement: (weights, sums)."""
    n, plus = len(records), sum(1 for r in records if r > 0)
    w, c = [], []
    for k, p in hyper(n, plus, m).items():
        w.append(p)
        c.append(2 * k - m)
    return w, c


WOR_QUERIES = {"gaussian": ((1, 0.5), (2, 1.0), (3, 1.0)),
               "laplace": ((1, 0.05), (2, 0.1), (3, 0.1))}


def wor_cases():
    rows = []
    for noise, scale_abs in (("gaussian", 2.0), ("gaussian", 4.0), ("laplace", 4.0)):
        for n, m in ((6, 1), (10, 3)):
            for relation in ("replace_one", "add_remove"):
                queries = WOR_QUERIES[noise]
                H_LOSS[0] = 1e-4 if noise == "gaussian" else 2e-5
                lo_max = [0.0] * len(queries)
                hi_max = [0.0] * len(queries)
                for c in range(0, n):  # +1 values among the other n - 1 records
                    others = [1] * c + [-1] * (n - 1 - c)
                    A = batch_law([1] + others, m)
                    # replace-one: the record is -1 in D'; add/remove: D' lacks it (|D| = n)
                    B = batch_law(([-1] + others) if relation == "replace_one" else others, m)
                    for P, Q in ((A, B), (B, A)):
                        for i, (lo, hi) in enumerate(brackets(P, Q, noise, scale_abs, queries)):
                            lo_max[i], hi_max[i] = max(lo_max[i], lo), max(hi_max[i], hi)
                for i, (t, eps) in enumerate(queries):
                    rows.append((noise, relation, scale_abs / 2.0, m, n, t, eps, lo_max[i], hi_max[i]))
                    print("// " + repr(rows[-1]), flush=True)
    return rows


def laplace_cases():
    rows = []
    for b in (0.5, 1.0, 3.0):
        for q in (0.01, 0.1, 0.5):
            top = math.log1p(q * math.expm1(1.0 / b))  # largest single-step loss
            queries = ((1, 0.5 * top), (3, 1.2 * top))
            H_LOSS[0] = min(1e-4, top / 5000.0)
            P = ([1 - q, q], [0.0, 1.0])
            Q = ([1.0], [0.0])
            rem = brackets(P, Q, "laplace", b, queries)
            add = brackets(Q, P, "laplace", b, queries)
            for (t, eps), r, a in zip(queries, rem, add):
                rows.append((b, q, t, eps, r[0], r[1], a[0], a[1]))
                print("// " + repr(rows[-1]), flush=True)
    return rows


def laplace_composition_cases():
    """Plain Laplace, T = 2, 3: the optimistic end near the PLD's atoms (pld.cpp lower_dots)."""
    rows = []
    for b in (0.5, 1.0, 3.0):
        H_LOSS[0] = min(1e-4, (1.0 / b) / 5000)
        queries = [(t, frac * t / b) for t in (2, 3) for frac in (0.2, 0.5, 0.9)]
        for (t, eps), (lo, hi) in zip(queries, brackets(([1.0], [1.0]), ([1.0], [0.0]), "laplace", b, queries)):
            rows.append((b, t, eps, lo, hi))
            print("// " + repr(rows[-1]), flush=True)
    return rows


if __name__ == "__main__":
    print("// Poisson-subsampled Laplace: {b, q, T, eps, remove lo, remove hi, add lo, add hi}")
    for r in laplace_cases():
        print("{%r, %r, %d, %r, %.10g, %.10g, %.10g, %.10g}," % r)
    print("// Laplace composition: {b, T, eps, lo, hi}")
    for r in laplace_composition_cases():
        print("{%r, %d, %r, %.10g, %.10g}," % r)
    print("// Without replacement: {noise, relation, s, m, n, T, eps, lo, hi}")
    for r in wor_cases():
        print('{"%s", "%s", %r, %d, %d, %d, %r, %.10g, %.10g},' % r)
