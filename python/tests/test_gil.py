"""Long calls release the GIL: another Python thread runs Python code while the call is in
progress. No wall-clock threshold: the switch interval is raised so far that the calling thread
never hands the GIL over on its own; the other thread can then only run while the calling thread
is blocked, i.e. inside a call that released the GIL (or after the calls, when it joins). The
other thread records whether it ran while the `in_call` flag was set; with the release removed
from a binding (py::gil_scoped_release) this test fails deterministically."""

import sys
import threading

import numpy as np
import pytest

import dpx
import dpx.accounting as A

RNG = np.random.default_rng(0)
X = RNG.normal(size=(20000, 10))
Y = X @ np.linspace(-1, 1, 10) + RNG.normal(size=20000)

LONG_CALLS = {
    "solvers.gist": lambda: dpx.solvers.gist(X, Y, tol=0.0, stationarity_tol=0.0,
                                             max_iterations=500, trace=False),
    "solvers.dp_sgd": lambda: dpx.solvers.dp_sgd(X, Y, dpx.Philox(1), iterations=2000,
                                                 sampling_rate=0.05, trace=False),
    "solvers.output_perturbation": lambda: dpx.solvers.output_perturbation(
        X, Y, dpx.Philox(1), regularization=1e-3, relative_tolerance=1e-9,
        noise_kind="research_grade"),
    "accounting.account_gaussian": lambda: A.account_gaussian(1.0, 10000, 1e-5, sampling_rate=0.01),
    "accounting.PLDAccountant": lambda: A.PLDAccountant()
    .compose(A.PoissonSampledGaussianDpEvent(0.01, 1.0), 10000)
    .get_epsilon(1e-5),
}


def other_thread_ran_during(call, attempts=10, work=1000):
    """Runs call() up to `attempts` times in this thread; returns how many Python loop steps the
    other thread made while a call was in progress (0: it never ran during one)."""
    state = {"in_call": False, "stop": False, "steps": 0}
    started = threading.Event()

    def other():
        started.wait()
        while not state["stop"]:
            if state["in_call"]:
                # Python work while this thread is inside call(): the GIL was released.
                while state["in_call"] and state["steps"] < work:
                    state["steps"] += 1
                return

    t = threading.Thread(target=other)
    t.start()
    old = sys.getswitchinterval()
    sys.setswitchinterval(100.0)  # the caller never yields the GIL by itself (test-only)
    try:
        for _ in range(attempts):
            state["in_call"] = True
            started.set()
            call()
            state["in_call"] = False
            if state["steps"]:
                break
    finally:
        state["in_call"] = False
        state["stop"] = True
        sys.setswitchinterval(old)
        t.join()
    return state["steps"]


@pytest.mark.parametrize("name", sorted(LONG_CALLS))
def test_long_call_releases_the_gil(name):
    assert other_thread_ran_during(LONG_CALLS[name]) == 1000, (
        f"{name}: the other thread never ran during the call (GIL held)")


def test_negative_control_python_busy_loop_holds_the_gil():
    # A pure-Python busy loop never blocks, so the other thread cannot run during it: the
    # detector reports 0 (it can fail).
    def busy():
        s = 0
        for i in range(200000):
            s += i
        return s

    assert other_thread_ran_during(busy, attempts=3) == 0
