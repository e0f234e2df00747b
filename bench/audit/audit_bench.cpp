// Cost and reach of dpx::audit (issue 8 targets): 10^6 Laplace trials per side audited in < 1 s
// on one core; with 10^6 trials per side a correct Laplace mechanism at eps = 1 should reach a
// lower bound >= 0.8. Baseline in the same process: BM_laplace_sampling_only (the 2 x 10^6
// vector-path draws the audit consumes), so audit overhead = BM_audit_laplace - baseline.
// Every named audit at 10^6 trials per side (10^5 for all but the cheap scalar mechanisms: the
// histograms, the estimators and their stages, selections, vector mechanisms, the attacks) reports
// the bound it reached as the counter `eps_lb` and the claim it is checked against as `claimed`
// (confidence 0.95; the estimators' claim is the mean stage's share, audits.hpp). Run: audit_bench
// --benchmark_min_time=0.1
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "dpx/audit/audit.hpp"
#include "dpx/core/rng.hpp"
#include "dpx/mechanisms/laplace.hpp"

namespace {

using namespace dpx;

void BM_laplace_sampling_only(benchmark::State& s) {
  const auto n = static_cast<std::size_t>(s.range(0));
  const auto lap = mechanisms::laplace::calibrate(1.0, 1.0);
  auto g = rng::stream(1, 0, 0, rng::purpose::audit);
  for (auto _ : s) {
    const auto p = audit::laplace_pair(lap, n, g);
    benchmark::DoNotOptimize(p.s0[0].data());
  }
  s.SetItemsProcessed(static_cast<std::int64_t>(s.iterations()) * s.range(0));
}
BENCHMARK(BM_laplace_sampling_only)->Arg(1000000)->Unit(benchmark::kMillisecond);

void BM_audit_laplace(benchmark::State& s) {
  const auto n = static_cast<std::size_t>(s.range(0));
  const auto lap = mechanisms::laplace::calibrate(1.0, 1.0);
  auto g = rng::stream(1, 0, 0, rng::purpose::audit);
  double lb = 0;
  for (auto _ : s) {
    const auto p = audit::laplace_pair(lap, n, g);
    lb = audit::audit_samples(p.s0, p.s1, {}).epsilon_lower_bound;
  }
  s.counters["eps_lb"] = lb;
  s.SetItemsProcessed(static_cast<std::int64_t>(s.iterations()) * s.range(0));
}
BENCHMARK(BM_audit_laplace)->Arg(100000)->Arg(1000000)->Unit(benchmark::kMillisecond);

void BM_named_audit(benchmark::State& s, std::string name, bool broken, std::size_t trials) {
  audit::mechanism_audit_spec spec;
  spec.mechanism = name;
  spec.broken = broken;
  double lb = 0, claimed = 0;
  for (auto _ : s) {
    auto g = rng::stream(2, 0, 0, rng::purpose::audit);
    const auto r = audit::audit_mechanism(spec, trials, {}, g);
    lb = r.audit.epsilon_lower_bound;
    claimed = r.claimed_epsilon;
  }
  s.counters["eps_lb"] = lb;
  s.counters["claimed"] = claimed;
  s.counters["trials"] = static_cast<double>(trials);
}

void BM_solver_audit(benchmark::State& s, std::string name, std::size_t trials) {
  audit::solver_audit_spec spec;
  spec.solver = name;
  double lb = 0, claimed = 0;
  for (auto _ : s) {
    auto g = rng::stream(3, 0, 0, rng::purpose::audit);
    const auto r = audit::audit_solver(spec, trials, {}, g);
    lb = r.audit.epsilon_lower_bound;
    claimed = r.claimed_epsilon;
  }
  s.counters["eps_lb"] = lb;
  s.counters["claimed"] = claimed;
  s.counters["trials"] = static_cast<double>(trials);
}

const bool registered = [] {
  for (const auto& m : audit::mechanism_names()) {
    // 10^6 trials only for the cheap scalar mechanisms; every other pair (histograms, the
    // estimators and their stages, selections, vector mechanisms, the attacks) at 10^5.
    const bool fast = m == "laplace" || m == "gaussian" || m == "discrete_laplace" ||
                      m == "discrete_gaussian" || m == "randomized_response" ||
                      m == "local_histogram" || m == "float_safe_gaussian";
    const bool slow = !fast;
    const std::size_t trials = slow ? 100000 : 1000000;
    for (bool broken : {false, true}) {
      if (broken && m.find("mironov") != std::string::npos) continue;
      benchmark::RegisterBenchmark(("BM_named_audit/" + m + (broken ? "/broken" : "")).c_str(),
                                   BM_named_audit,
                                   m,
                                   broken,
                                   trials)
          ->Unit(benchmark::kMillisecond)
          ->Iterations(1);
    }
  }
  for (const auto& m : audit::solver_names())
    benchmark::RegisterBenchmark(("BM_solver_audit/" + m).c_str(), BM_solver_audit, m, 10000)
        ->Unit(benchmark::kMillisecond)
        ->Iterations(1);
  return true;
}();

}  // namespace
BENCHMARK_MAIN();
