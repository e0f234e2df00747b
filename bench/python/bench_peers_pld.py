"""dpx's PLD accountant against Google's dp_accounting (PLD) and Microsoft's prv_accountant (PRV,
the accountant behind Opacus), in one process, on the headline cells of docs/performance.md.

    python3 -m venv --system-site-packages .venv-peers
    .venv-peers/bin/pip install dp-accounting==0.6.0 prv-accountant==0.2.0
    PYTHONPATH=build/release/python .venv-peers/bin/python bench/python/bench_peers_pld.py [--grid]

Speed: process CPU time (time.process_time) of building the accountant, composing and one
epsilon query, median of REPS repeats (after one warm-up run of each, which pays FFT planning
and imports). Accuracy: every column is an upper bound on the same epsilon; dpx's and the peers'
are printed side by side ("equal or better accuracy" = dpx's upper bound <= the peer's).
dp_accounting runs at value_discretization_interval 1e-4 (its default); prv_accountant at
eps_error 0.01 and delta_error delta / 1000 (Opacus' defaults) and, for a tighter comparison,
eps_error 1e-3 (its reported upper end is used).

--grid additionally prints the accuracy of dpx's default upper bound against dp_accounting's on
a grid of Gaussian, Laplace and Poisson-subsampled Gaussian cells (no timing).
"""

import argparse
import statistics
import sys
import time

import dp_accounting
from dp_accounting.pld import pld_privacy_accountant
from prv_accountant import PRVAccountant
from prv_accountant.privacy_random_variables import (
    GaussianMechanism,
    LaplaceMechanism,
    PoissonSubsampledGaussianMechanism,
)

from dpx import accounting as A

REPS = 5


def cpu(f, reps=REPS):
    f()  # warm-up
    ts, v = [], None
    for _ in range(reps):
        t0 = time.process_time()
        v = f()
        ts.append(time.process_time() - t0)
    return statistics.median(ts), v


def dpx_eps(kind, q, s, t, delta, **opts):
    a = A.PLDAccountant(**opts)
    if kind == "gaussian":
        ev = A.GaussianDpEvent(s) if q == 1.0 else A.PoissonSampledDpEvent(q, A.GaussianDpEvent(s))
    else:
        ev = A.LaplaceDpEvent(s)
    a.compose(ev, t)
    return a.get_epsilon(delta)


def dpa_eps(kind, q, s, t, delta, vdi=1e-4):
    a = pld_privacy_accountant.PLDAccountant(value_discretization_interval=vdi)
    if kind == "gaussian":
        ev = dp_accounting.GaussianDpEvent(s)
        if q < 1.0:
            ev = dp_accounting.PoissonSampledDpEvent(q, ev)
    else:
        ev = dp_accounting.LaplaceDpEvent(s)
    a.compose(ev, t)
    return a.get_epsilon(delta)


def prv_eps(kind, q, s, t, delta, eps_error=0.01):
    if kind == "gaussian":
        prv = GaussianMechanism(s) if q == 1.0 else PoissonSubsampledGaussianMechanism(q, s)
    else:
        prv = LaplaceMechanism(s)
    a = PRVAccountant(
        prvs=[prv], max_self_compositions=[t], eps_error=eps_error, delta_error=delta / 1000
    )
    return a.compute_epsilon(delta=delta, num_self_compositions=[t])[2]


SPEED_CELLS = [
    # (kind, q, sigma or b, T, delta)
    ("gaussian", 0.01, 1.0, 10_000, 1e-5),  # the headline cell
    ("gaussian", 0.001, 0.5, 1_000, 1e-5),
    ("gaussian", 0.001, 0.5, 10_000, 1e-5),
]


def speed():
    print("| cell (q, sigma, T, delta) | dpx eps / CPU | dp_accounting eps / CPU | ratio "
          "| prv (1e-2) eps / CPU | ratio | prv (1e-3) eps / CPU | ratio |")
    print("|---|---|---|---|---|---|---|---|")
    for kind, q, s, t, d in SPEED_CELLS:
        td, ed = cpu(lambda: dpx_eps(kind, q, s, t, d))
        tg, eg = cpu(lambda: dpa_eps(kind, q, s, t, d), reps=3)
        tp, ep = cpu(lambda: prv_eps(kind, q, s, t, d))
        tp3, ep3 = cpu(lambda: prv_eps(kind, q, s, t, d, 1e-3), reps=3)
        print(f"| {q}, {s}, {t}, {d} | {ed:.6f} / {td * 1e3:.1f} ms | {eg:.6f} / {tg * 1e3:.0f} ms"
              f" | {tg / td:.1f}x | {ep:.5f} / {tp * 1e3:.0f} ms | {tp / td:.1f}x"
              f" | {ep3:.6f} / {tp3 * 1e3:.0f} ms | {tp3 / td:.1f}x |")
        sys.stdout.flush()


GRID_DELTAS = (1e-5, 1e-8)


def grid_cells():
    for s in (0.5, 1.0, 2.0, 4.0):
        for q in (0.001, 0.01, 0.1):
            for t in (1, 100, 1000, 10_000):
                for d in GRID_DELTAS:
                    yield ("gaussian", q, s, t, d)
    for b in (0.5, 1.0, 3.0, 10.0):
        for t in (1, 10, 100, 1000):
            for d in GRID_DELTAS:
                yield ("laplace", 1.0, b, t, d)


def grid():
    worst, above, n = -1.0, 0, 0
    print("| kind | q | sigma/b | T | delta | dpx | dp_accounting | rel diff |")
    print("|---|---|---|---|---|---|---|---|")
    for kind, q, s, t, d in grid_cells():
        try:
            eg = dpa_eps(kind, q, s, t, d)
        except Exception as e:  # noqa: BLE001  (a peer failing on a cell is reported, not fatal)
            print(f"| {kind} | {q} | {s} | {t} | {d} | — | error: {e} | — |")
            continue
        ed = dpx_eps(kind, q, s, t, d)
        rel = (ed - eg) / eg if eg > 0 else ed - eg
        n += 1
        above += rel > 0
        worst = max(worst, rel)
        flag = " **above**" if rel > 0 else ""
        print(f"| {kind} | {q} | {s} | {t} | {d} | {ed:.9g} | {eg:.9g} | {rel:+.2e}{flag} |")
        sys.stdout.flush()
    print(f"\n{n} cells; dpx above dp_accounting in {above}; worst relative {worst:+.3e}")


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--grid", action="store_true")
    p.add_argument("--no-speed", action="store_true")
    a = p.parse_args()
    print(f"dp_accounting {dp_accounting.__version__ if hasattr(dp_accounting, '__version__') else '?'}")
    if not a.no_speed:
        speed()
    if a.grid:
        grid()
