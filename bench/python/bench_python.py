"""Python-binding benchmark: ratios against the C++ calls (timed in C++ in the same build) and
numpy, measured in one run.

    PYTHONPATH=build/release/python /usr/bin/python3 bench/python/bench_python.py

Reports (targets of the Python package):
  1. PLD get_epsilon for the DP-SGD headline (q = 0.01, sigma = 1, T = 1e4, delta = 1e-5):
     Python time / C++ time (target <= 1.2);
  2. 1e7 Laplace / Gaussian draws into a numpy array: C++ fill time / Python time (target
     >= 0.9; Python fill(out) into an existing array, and sample(size) which also allocates),
     and numpy Generator.laplace / standard_normal time / dpx time (target >= 2);
  3. per-call overhead of a scalar release: Python per call - C++ per call (target < 1 us).
Timings are best-of-N wall times. numpy's baseline runs in a child process with
OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE unset (they only tune BLAS; numpy's RNG does not use it).
"""

import json
import os
import subprocess
import sys
import time

import numpy as np

import dpx
from dpx import _dpx
from dpx import accounting as A
from dpx import mechanisms as M

N = 10_000_000
REPS = 9


def best(f, reps=REPS):
    t = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        t = min(t, time.perf_counter() - t0)
    return t


def paired(py_f, cpp_f, reps=REPS):
    """Best-of-reps of a Python call and of its C++ counterpart, interleaved so that both see
    the same machine load (cpp_f returns its own C++-timed seconds)."""
    t_py = t_cpp = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        py_f()
        t_py = min(t_py, time.perf_counter() - t0)
        t_cpp = min(t_cpp, cpp_f())
    return t_py, t_cpp


def numpy_baseline():
    code = (
        "import json, time, numpy as np\n"
        f"N, R = {N}, {REPS}\n"
        "g = np.random.default_rng(1)\n"
        "def best(f):\n"
        "    t = float('inf')\n"
        "    for _ in range(R):\n"
        "        t0 = time.perf_counter(); f(); t = min(t, time.perf_counter() - t0)\n"
        "    return t\n"
        "print(json.dumps({'laplace': best(lambda: g.laplace(size=N)),\n"
        "                  'normal': best(lambda: g.standard_normal(size=N))}))\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    return json.loads(out.stdout)


def main():
    rows = []
    # 1. accounting
    ev = A.PoissonSampledDpEvent(0.01, A.GaussianDpEvent(1.0))
    eps_py = []

    def py_pld():
        eps_py.append(A.PLDAccountant().compose(ev, 10_000).get_epsilon(1e-5))

    eps_cpp = []

    def cpp_pld():
        t, e = _dpx._bench.pld_dp_sgd_epsilon(0.01, 1.0, 10_000, 1e-5, 1)
        eps_cpp.append(e)
        return t

    t_py, t_cpp = paired(py_pld, cpp_pld)
    assert eps_py[-1] == eps_cpp[-1]  # the same number, bit for bit
    rows.append(("PLD get_epsilon, DP-SGD headline", t_py, t_cpp, t_py / t_cpp, "py/C++ <= 1.2"))

    # 2. bulk fills
    base = numpy_baseline()
    g = dpx.Philox(1)
    # fill(out) reuses an array dpx allocated (64-byte aligned; a plain np.empty array is only
    # 16-byte aligned, which costs the SIMD kernels ~10%).
    out = M.Laplace.from_scale(1.0).sample(g, N)
    for kind, mech, np_key in (("laplace", M.Laplace.from_scale(1.0), "laplace"),
                               ("gaussian", M.Gaussian.from_sigma(1.0), "normal")):
        t_fill, t_c = paired(lambda: mech.fill(out, g), lambda: _dpx._bench.fill(kind, N, 1))
        t_sample = best(lambda: mech.sample(g, N))
        rows.append((f"{kind} 1e7 fill(out)", t_fill, t_c, t_c / t_fill, "C++/py >= 0.9"))
        rows.append((f"{kind} 1e7 sample(size) (allocates)", t_sample, t_c, t_c / t_sample, "C++/py"))
        rows.append((f"{kind} 1e7 vs numpy {np_key}", t_sample, base[np_key], base[np_key] / t_sample,
                     "numpy/dpx >= 2"))

    # 3. scalar overhead
    lap = M.Laplace.from_scale(1.0)
    rel = lap.release
    calls = 1_000_000

    def loop():
        for _ in range(calls):
            rel(1.0, g)

    def empty_loop():
        for _ in range(calls):
            pass

    t_loop = best(loop, 3) / calls
    t_empty = best(empty_loop, 3) / calls
    t_c = _dpx._bench.scalar_release(calls)
    per_call = t_loop - t_empty
    rows.append(("scalar release per call (loop-corrected)", per_call, t_c, (per_call - t_c) * 1e6,
                 "overhead us < 1"))

    print(f"{'benchmark':44s} {'python s':>11s} {'C++/numpy s':>12s} {'ratio':>8s}  target")
    for name, a, b, r, target in rows:
        print(f"{name:44s} {a:11.4g} {b:12.4g} {r:8.3f}  {target}")


if __name__ == "__main__":
    main()
