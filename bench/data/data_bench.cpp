// dpx::data benchmarks (issue 5 targets), each against a baseline in the same process:
//   * AR(1) with 1e8 values vs filling the same array with N(0,1) (dpx::data's bulk normal fill
//     and, when built with dpx::mechanisms, gaussian::fill): target ratio ≤ 3;
//   * circulant embedding (Toeplitz 0.9, fGn) with 1e7 values vs the same fills: target ≤ 3
//     (per sample_into call, allocating its workspace, and into a reused workspace);
//   * Toeplitz design matrix n = 20000, d = 500: target < 0.5 s.
// Run: data_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=false
#include <benchmark/benchmark.h>

#include <vector>

#include "dpx/data/data.hpp"
#ifdef DPX_DATA_BENCH_MECHANISMS
#include "dpx/mechanisms/gaussian.hpp"
#endif

using namespace dpx::data;

namespace {
std::vector<double>& buffer(std::size_t n) {
  static std::vector<double> b;
  if (b.size() != n) b.assign(n, 0.0);
  return b;
}
}  // namespace

static void BM_normal_fill(benchmark::State& st) {
  const auto n = static_cast<std::size_t>(st.range(0));
  auto& x = buffer(n);
  auto g = dpx::rng::stream(1, 1, 0, dpx::rng::purpose::data);
  for (auto _ : st) {
    fill_standard_normal(g, x);
    benchmark::DoNotOptimize(x.data());
  }
  st.SetItemsProcessed(st.iterations() * static_cast<long long>(n));
}

#ifdef DPX_DATA_BENCH_MECHANISMS
static void BM_mechanisms_gaussian_fill(benchmark::State& st) {
  const auto n = static_cast<std::size_t>(st.range(0));
  auto& x = buffer(n);
  auto g = dpx::rng::stream(1, 1, 0, dpx::rng::purpose::noise);
  const auto mech = dpx::mechanisms::gaussian::from_sigma(1.0);
  for (auto _ : st) {
    mech.fill(x, g);
    benchmark::DoNotOptimize(x.data());
  }
  st.SetItemsProcessed(st.iterations() * static_cast<long long>(n));
}
BENCHMARK(BM_mechanisms_gaussian_fill)
    ->Arg(10'000'000)
    ->Arg(100'000'000)
    ->Unit(benchmark::kMillisecond);
#endif

static void BM_ar1(benchmark::State& st) {
  const auto n = static_cast<std::size_t>(st.range(0));
  auto& x = buffer(n);
  auto g = dpx::rng::stream(1, 2, 0, dpx::rng::purpose::data);
  ar1 m({0.9, 0.0, 1.0});
  for (auto _ : st) {
    m.sample_into(x, g);
    benchmark::DoNotOptimize(x.data());
  }
  st.SetItemsProcessed(st.iterations() * static_cast<long long>(n));
}

static void BM_circulant_toeplitz(benchmark::State& st) {
  const auto n = static_cast<std::size_t>(st.range(0));
  auto& x = buffer(n);
  auto g = dpx::rng::stream(1, 3, 0, dpx::rng::purpose::data);
  toeplitz t(n, {0.9, 1.0, 0.0});
  st.counters["embedding"] = static_cast<double>(t.sampler().embedding_size());
  for (auto _ : st) {
    t.sampler().sample_into(x, g);
    benchmark::DoNotOptimize(x.data());
  }
  st.SetItemsProcessed(st.iterations() * static_cast<long long>(n));
}

static void BM_circulant_fgn(benchmark::State& st) {
  const auto n = static_cast<std::size_t>(st.range(0));
  auto& x = buffer(n);
  auto g = dpx::rng::stream(1, 4, 0, dpx::rng::purpose::data);
  fgn f(n, {0.75, 1.0, 0.0});
  for (auto _ : st) {
    f.sampler().sample_into(x, g);
    benchmark::DoNotOptimize(x.data());
  }
  st.SetItemsProcessed(st.iterations() * static_cast<long long>(n));
}

// The same draws into a reused workspace (no per-draw allocation and first touch of the M + 2
// doubles): the like-for-like comparison with the fills, which also write a reused buffer.
static void BM_circulant_toeplitz_workspace(benchmark::State& st) {
  const auto n = static_cast<std::size_t>(st.range(0));
  auto& x = buffer(n);
  auto g = dpx::rng::stream(1, 3, 0, dpx::rng::purpose::data);
  toeplitz t(n, {0.9, 1.0, 0.0});
  auto work = t.sampler().make_workspace();
  for (auto _ : st) {
    t.sampler().sample_into(x, g, work);
    benchmark::DoNotOptimize(x.data());
  }
  st.SetItemsProcessed(st.iterations() * static_cast<long long>(n));
}

static void BM_circulant_fgn_workspace(benchmark::State& st) {
  const auto n = static_cast<std::size_t>(st.range(0));
  auto& x = buffer(n);
  auto g = dpx::rng::stream(1, 4, 0, dpx::rng::purpose::data);
  fgn f(n, {0.75, 1.0, 0.0});
  auto work = f.sampler().make_workspace();
  for (auto _ : st) {
    f.sampler().sample_into(x, g, work);
    benchmark::DoNotOptimize(x.data());
  }
  st.SetItemsProcessed(st.iterations() * static_cast<long long>(n));
}

static void BM_toeplitz_design(benchmark::State& st) {
  erm_options o;
  o.n = static_cast<std::size_t>(st.range(0));
  o.d = static_cast<std::size_t>(st.range(1));
  o.k = 10;
  o.rho = 0.5;
  sparse_linear lin(o);
  auto g = dpx::rng::stream(1, 5, 0, dpx::rng::purpose::data);
  for (auto _ : st) {
    auto x = lin.features(o.n, g);
    benchmark::DoNotOptimize(x.data());
  }
  st.SetItemsProcessed(st.iterations() * static_cast<long long>(o.n * o.d));
}

BENCHMARK(BM_normal_fill)->Arg(10'000'000)->Arg(100'000'000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ar1)->Arg(100'000'000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_circulant_toeplitz)->Arg(10'000'000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_circulant_fgn)->Arg(10'000'000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_circulant_toeplitz_workspace)->Arg(10'000'000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_circulant_fgn_workspace)->Arg(10'000'000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_toeplitz_design)->Args({20000, 500})->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
