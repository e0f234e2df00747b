// Process CPU time (CLOCK_PROCESS_CPUTIME_ID) of the PLD accountant on the ledger of the
// performance target in docs/performance.md: 10^4 events over 100 distinct Poisson-subsampled
// Gaussians (q = 0.01, sigma = 1 + 0.01 i, i < 100, cycled), composed one by one, then one
// epsilon(1e-5) query at the default options. The first repetition includes the FFTW planning of
// the process (as a single query does). Usage: pld_distinct_cpu [repetitions, default 3].
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "dpx/accounting/pld.hpp"

namespace acc = dpx::accounting;
namespace core = dpx::core;

namespace {
double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}
}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 3;
  std::vector<core::privacy_event> kinds;
  for (int i = 0; i < 100; ++i)
    kinds.emplace_back(core::subsampled_gaussian_event{0.01, 1.0 + 0.01 * i});
  for (int r = 0; r < reps; ++r) {
    const double t0 = cpu_seconds();
    acc::pld_accountant a;
    for (int i = 0; i < 10000; ++i) a.compose(kinds[static_cast<std::size_t>(i) % kinds.size()]);
    const double eps = a.epsilon(1e-5);
    const double t1 = cpu_seconds();
    std::printf("repetition %d: %.3f s CPU, epsilon = %.17g\n", r, t1 - t0, eps);
  }
  return 0;
}
