// dpx._dpx._bench: the C++ side of bench/python/bench_python.py. Each function times the plain
// C++ call (no Python in the loop) in this same build, so the benchmark's Python/C++ ratios
// compare like with like. Not part of the public API.
#include <chrono>
#include <vector>

#include "common.hpp"
#include "dpx/accounting/pld.hpp"
#include "dpx/mechanisms/gaussian.hpp"
#include "dpx/mechanisms/laplace.hpp"

namespace dpx::python {
namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

// Best-of-reps wall time of f() (seconds).
template <class F>
double best_of(int reps, F&& f) {
  double best = 1e300;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = clock_type::now();
    f();
    best = std::min(best, seconds_since(t0));
  }
  return best;
}

}  // namespace

void init_bench(py::module_& m) {
  m.def(
      "pld_dp_sgd_epsilon",
      [](double q, double sigma, std::int64_t steps, double delta, int reps) {
        double eps = 0, t = 0;
        {
          py::gil_scoped_release unlocked;  // no Python objects in this scope
          t = best_of(reps, [&] {
            accounting::pld_accountant a;
            a.compose(core::subsampled_gaussian_event{q, sigma}, steps);
            eps = a.epsilon(delta);
          });
        }
        return py::make_tuple(t, eps);
      },
      py::arg("q"),
      py::arg("sigma"),
      py::arg("steps"),
      py::arg("delta"),
      py::arg("reps"),
      "(best seconds, epsilon) of PLD compose + epsilon in C++.");
  m.def(
      "fill",
      [](const std::string& kind, std::size_t n, int reps) {
        py::gil_scoped_release unlocked;
        std::vector<double> buf(n);
        auto g = rng::stream(1, 0, 0, rng::purpose::noise);
        const auto lap = mechanisms::laplace::from_scale(1.0);
        const auto ga = mechanisms::gaussian::from_sigma(1.0);
        return best_of(reps, [&] {
          if (kind == "laplace")
            lap.fill(buf, g);
          else
            ga.fill(buf, g);
        });
      },
      py::arg("kind"),
      py::arg("n"),
      py::arg("reps"),
      "Best seconds of a C++ fill of n draws into a preallocated vector.");
  m.def(
      "scalar_release",
      [](std::size_t calls) {
        py::gil_scoped_release unlocked;
        auto g = rng::stream(1, 0, 0, rng::purpose::noise);
        const auto lap = mechanisms::laplace::from_scale(1.0);
        volatile double sink = 0;
        const auto t0 = clock_type::now();
        for (std::size_t i = 0; i < calls; ++i) sink = lap.release(1.0, g);
        (void)sink;
        return seconds_since(t0) / static_cast<double>(calls);
      },
      py::arg("calls"),
      "Seconds per scalar Laplace release in C++.");
}

}  // namespace dpx::python
