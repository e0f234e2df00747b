// Generator throughput: dpx's Philox4x32-10 (scalar calls and SIMD bulk fills) against the
// std baseline std::mt19937_64 + std::uniform_real_distribution<double>, in the same process.
// Target (issue 2): bulk uniform doubles >= 1.5x the std baseline per core.
// Short fills (the noise of one gradient step in small d: 8 or 16 words) against the same words
// drawn one call at a time: target, the fill is no slower than the scalar calls.
//   build/bench/bin/core_bench --benchmark_min_time=0.5
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "dpx/core/rng.hpp"

namespace {

constexpr std::size_t kN = 1 << 16;  // 512 KiB of doubles: stays in L2, measures the generator

void BM_std_mt19937_64_uniform_real(benchmark::State& state) {
  std::mt19937_64 g(42);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<double> out(kN);
  for (auto _ : state) {
    for (auto& x : out) x = u(g);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kN));
}
BENCHMARK(BM_std_mt19937_64_uniform_real);

void BM_philox_uniform01_scalar(benchmark::State& state) {
  auto g = dpx::rng::stream(1, 2, 3, dpx::rng::purpose::noise);
  std::vector<double> out(kN);
  for (auto _ : state) {
    for (auto& x : out) x = g.uniform01();
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kN));
}
BENCHMARK(BM_philox_uniform01_scalar);

void BM_philox_fill_uniform01(benchmark::State& state) {
  auto g = dpx::rng::stream(1, 2, 3, dpx::rng::purpose::noise);
  std::vector<double> out(kN);
  for (auto _ : state) {
    g.fill_uniform01(out);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kN));
}
BENCHMARK(BM_philox_fill_uniform01);

// The same bulk fill pinned to each compiled path (what a CPU without AVX-512 or AVX2 gets).
void philox_fill_uniform01_on(benchmark::State& state, dpx::rng::detail::simd_path p) {
  if (!dpx::rng::detail::simd_path_available(p)) {
    state.SkipWithError("this CPU lacks the path");
    return;
  }
  dpx::rng::detail::set_simd_path(p);
  auto g = dpx::rng::stream(1, 2, 3, dpx::rng::purpose::noise);
  std::vector<double> out(kN);
  for (auto _ : state) {
    g.fill_uniform01(out);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  dpx::rng::detail::set_simd_path(dpx::rng::detail::simd_path::automatic);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kN));
}
BENCHMARK_CAPTURE(philox_fill_uniform01_on, avx2_path, dpx::rng::detail::simd_path::avx2);
BENCHMARK_CAPTURE(philox_fill_uniform01_on, baseline_path, dpx::rng::detail::simd_path::baseline);

void BM_philox_fill_u32(benchmark::State& state) {
  auto g = dpx::rng::stream(1, 2, 3, dpx::rng::purpose::noise);
  std::vector<std::uint32_t> out(2 * kN);
  for (auto _ : state) {
    g.fill(out);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * 2 * kN));
}
BENCHMARK(BM_philox_fill_u32);

void BM_std_mt19937_64_raw(benchmark::State& state) {
  std::mt19937_64 g(42);
  std::vector<std::uint64_t> out(kN);
  for (auto _ : state) {
    for (auto& x : out) x = g();
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kN));
}
BENCHMARK(BM_std_mt19937_64_raw);

// Words per draw as in gaussian::privatize for d = 4 and d = 8 (2 words per coordinate).
void BM_philox_short_fill_u32(benchmark::State& state) {
  auto g = dpx::rng::stream(1, 2, 3, dpx::rng::purpose::noise);
  std::vector<std::uint32_t> out(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    g.fill(out);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_philox_short_fill_u32)->Arg(8)->Arg(16);

void BM_philox_short_scalar_u32(benchmark::State& state) {
  auto g = dpx::rng::stream(1, 2, 3, dpx::rng::purpose::noise);
  std::vector<std::uint32_t> out(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    for (auto& x : out) x = g();
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_philox_short_scalar_u32)->Arg(8)->Arg(16);

}  // namespace

BENCHMARK_MAIN();
