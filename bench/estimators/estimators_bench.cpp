// WinsorizedMean1D (S1 Algorithm 4) on n values against the baselines measured in the same
// process: the plain sample mean (one pass, the floor for any mean) and the three data passes
// alone (bin keys, clipped sum). Target (issue 7): n = 1e7 in < 0.2 s on one core.
//   ./estimators_bench --benchmark_filter=. --benchmark_min_time=0.5
#include <benchmark/benchmark.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "dpx/core/rng.hpp"
#include "dpx/estimators/central.hpp"

namespace {

std::vector<double> data(std::size_t n) {
  std::vector<double> x(n);
  auto g = dpx::rng::stream(1, 2, 3, dpx::rng::purpose::data);
  g.fill_uniform_open01(x);
  // Approximately N(0,1): sum of uniforms is enough for a timing benchmark.
  for (std::size_t i = 0; i + 1 < n; i += 2) {
    const double r = std::sqrt(-2.0 * std::log(x[i]));
    const double a = 2.0 * std::numbers::pi * x[i + 1];
    x[i] = r * std::cos(a);
    x[i + 1] = r * std::sin(a);
  }
  return x;
}

void BM_SampleMean(benchmark::State& s) {
  const auto x = data(static_cast<std::size_t>(s.range(0)));
  for (auto _ : s) {
    double a[4] = {0, 0, 0, 0};
    std::size_t i = 0;
    for (; i + 4 <= x.size(); i += 4)
      for (int l = 0; l < 4; ++l) a[l] += x[i + l];
    benchmark::DoNotOptimize((a[0] + a[1]) + (a[2] + a[3]));
  }
  s.SetItemsProcessed(s.iterations() * s.range(0));
}

void BM_WinsorizedMean1D(benchmark::State& s) {
  const std::size_t n = static_cast<std::size_t>(s.range(0));
  const auto x = data(n);
  auto g = dpx::rng::stream(4, 5, 6, dpx::rng::purpose::noise);
  const dpx::estimators::winsorized_mean_options o{
      1.0,
      1.0 / (double(n) * double(n)),
      dpx::estimators::interval_rule::paper(dpx::estimators::tau_subgaussian(1.0, n, 0.1))};
  for (auto _ : s) benchmark::DoNotOptimize(dpx::estimators::winsorized_mean(x, o, g).estimate);
  s.SetItemsProcessed(s.iterations() * s.range(0));
}

void BM_KeysPass(benchmark::State& s) {
  const auto x = data(static_cast<std::size_t>(s.range(0)));
  std::vector<std::int64_t> keys(x.size());
  for (auto _ : s) {
    dpx::estimators::detail::compute_keys(x, 8.0, keys, "bench", "x");
    benchmark::DoNotOptimize(keys.data());
  }
  s.SetItemsProcessed(s.iterations() * s.range(0));
}

void BM_ClipPass(benchmark::State& s) {
  const auto x = data(static_cast<std::size_t>(s.range(0)));
  for (auto _ : s) benchmark::DoNotOptimize(dpx::estimators::detail::clipped_sum(x, -3, 3).sum);
  s.SetItemsProcessed(s.iterations() * s.range(0));
}

}  // namespace

BENCHMARK(BM_SampleMean)->Arg(10'000'000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_KeysPass)->Arg(10'000'000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ClipPass)->Arg(10'000'000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_WinsorizedMean1D)
    ->Arg(1000)
    ->Arg(100'000)
    ->Arg(10'000'000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
