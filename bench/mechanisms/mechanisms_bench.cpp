// Samples per second of every dpx::mechanisms sampler, scalar and vector fill, against the std
// baselines in the same process (items/s = samples/s):
//   BM_std_normal:  std::normal_distribution<double> over std::mt19937_64
//   BM_std_laplace: inverse CDF over std::uniform_real_distribution<double> + std::log
// Targets (issue 3): research-grade Laplace/Gaussian fill >= 4x the matching std baseline;
// float-safe Laplace/Gaussian >= 1x; discrete Gaussian sigma = 10 >= 2e6 samples/s; stable
// histogram over 1e7 values <= 0.5 s. Run: mechanisms_bench --benchmark_min_time=0.2
// The noise kernels run in the best instruction-set variant the CPU supports (AVX-512F here);
// the *_avx2 rows force the AVX2 variant for comparison. BM_release_*: the cost of the release
// generator (the CSPRNG rng::os_random against an OS-keyed Philox) per float-safe Laplace draw.
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <benchmark/benchmark.h>

#include "dpx/core/rng.hpp"
#include "dpx/mechanisms/detail/kernels.hpp"
#include "dpx/mechanisms/mechanisms.hpp"

namespace {

using namespace dpx;
using namespace dpx::mechanisms;
constexpr std::size_t block = 4096;

rng::philox4x32 engine() { return rng::stream(42, 0, 0, rng::purpose::noise); }

void BM_std_normal(benchmark::State& s) {
  std::mt19937_64 mt(42);
  std::normal_distribution<double> nd(0.0, 1.0);
  std::vector<double> out(block);
  for (auto _ : s) {
    for (double& x : out) x = nd(mt);
    benchmark::DoNotOptimize(out.data());
  }
  s.SetItemsProcessed(static_cast<std::int64_t>(s.iterations() * block));
}
BENCHMARK(BM_std_normal);

void BM_std_laplace(benchmark::State& s) {
  std::mt19937_64 mt(42);
  std::uniform_real_distribution<double> ud(0.0, 1.0);
  std::vector<double> out(block);
  for (auto _ : s) {
    for (double& x : out) {
      const double u = ud(mt);
      x = u < 0.5 ? std::log(2.0 * u) : -std::log(2.0 - 2.0 * u);
    }
    benchmark::DoNotOptimize(out.data());
  }
  s.SetItemsProcessed(static_cast<std::int64_t>(s.iterations() * block));
}
BENCHMARK(BM_std_laplace);

void BM_philox_uniform_fill(benchmark::State& s) {
  auto g = engine();
  std::vector<double> out(block);
  for (auto _ : s) {
    g.fill_uniform_open01(out);
    benchmark::DoNotOptimize(out.data());
  }
  s.SetItemsProcessed(static_cast<std::int64_t>(s.iterations() * block));
}
BENCHMARK(BM_philox_uniform_fill);

// The random words the research-grade fills consume: two 32-bit words per sample.
void BM_philox_words_fill(benchmark::State& s) {
  auto g = engine();
  std::vector<std::uint32_t> out(2 * block);
  for (auto _ : s) {
    g.fill(out);
    benchmark::DoNotOptimize(out.data());
  }
  s.SetItemsProcessed(static_cast<std::int64_t>(s.iterations() * block));
}
BENCHMARK(BM_philox_words_fill);

template <class M, class G>
void scalar_bench(benchmark::State& s, const M& m, G& g) {
  std::vector<double> out(block);
  for (auto _ : s) {
    for (double& x : out) x = m.sample(g);
    benchmark::DoNotOptimize(out.data());
  }
  s.SetItemsProcessed(static_cast<std::int64_t>(s.iterations() * block));
}
template <class M, class G>
void fill_bench(benchmark::State& s, const M& m, G& g) {
  std::vector<double> out(block);
  for (auto _ : s) {
    m.fill(out, g);
    benchmark::DoNotOptimize(out.data());
  }
  s.SetItemsProcessed(static_cast<std::int64_t>(s.iterations() * block));
}
// The same on the experiments' Philox stream.
template <class M>
void scalar_bench(benchmark::State& s, const M& m) {
  auto g = engine();
  scalar_bench(s, m, g);
}
template <class M>
void fill_bench(benchmark::State& s, const M& m) {
  auto g = engine();
  fill_bench(s, m, g);
}
template <class M>
void privatize_bench(benchmark::State& s, const M& m) {
  auto g = engine();
  std::vector<double> out(block, 0.5);
  for (auto _ : s) {
    m.privatize(out, g);
    benchmark::DoNotOptimize(out.data());
    for (double& x : out) x = 0.5;
  }
  s.SetItemsProcessed(static_cast<std::int64_t>(s.iterations() * block));
}
template <class M>
void int_fill_bench(benchmark::State& s, const M& m) {
  auto g = engine();
  std::vector<std::int64_t> out(block);
  for (auto _ : s) {
    m.fill(out, g);
    benchmark::DoNotOptimize(out.data());
  }
  s.SetItemsProcessed(static_cast<std::int64_t>(s.iterations() * block));
}
template <class M>
void int_scalar_bench(benchmark::State& s, const M& m) {
  auto g = engine();
  std::vector<std::int64_t> out(block);
  for (auto _ : s) {
    for (auto& x : out) x = m.sample(g);
    benchmark::DoNotOptimize(out.data());
  }
  s.SetItemsProcessed(static_cast<std::int64_t>(s.iterations() * block));
}

void BM_laplace_scalar(benchmark::State& s) { scalar_bench(s, laplace::from_scale(1.0)); }
void BM_laplace_fill(benchmark::State& s) { fill_bench(s, laplace::from_scale(1.0)); }
void BM_laplace_privatize(benchmark::State& s) { privatize_bench(s, laplace::from_scale(1.0)); }
void BM_gaussian_scalar(benchmark::State& s) { scalar_bench(s, gaussian::from_sigma(1.0)); }
void BM_gaussian_fill(benchmark::State& s) { fill_bench(s, gaussian::from_sigma(1.0)); }
void BM_gaussian_privatize(benchmark::State& s) { privatize_bench(s, gaussian::from_sigma(1.0)); }
void BM_float_safe_laplace_scalar(benchmark::State& s) {
  scalar_bench(s, float_safe_laplace::calibrate(1.0, 1.0));
}
void BM_float_safe_laplace_fill(benchmark::State& s) {
  fill_bench(s, float_safe_laplace::calibrate(1.0, 1.0));
}
void BM_float_safe_laplace_privatize(benchmark::State& s) {
  privatize_bench(s, float_safe_laplace::calibrate(1.0, 1.0));
}
void BM_float_safe_gaussian_scalar(benchmark::State& s) {
  scalar_bench(s, float_safe_gaussian::from_sigma(1.0));
}
void BM_float_safe_gaussian_fill(benchmark::State& s) {
  fill_bench(s, float_safe_gaussian::from_sigma(1.0));
}
void BM_float_safe_gaussian_privatize(benchmark::State& s) {
  privatize_bench(s, float_safe_gaussian::from_sigma(1.0));
}
// The rounded Gaussian (Karney's exact normal, exact rounding): the float-safe DP-SGD noise.
void BM_rounded_gaussian_privatize(benchmark::State& s) {
  privatize_bench(s, rounded_gaussian::from_sigma(1.0));
}
void BM_discrete_laplace_scale10_fill(benchmark::State& s) {
  int_fill_bench(s, discrete_laplace::from_scale(10.0));
}
void BM_discrete_laplace_scale10_scalar(benchmark::State& s) {
  int_scalar_bench(s, discrete_laplace::from_scale(10.0));
}
void BM_discrete_gaussian_sigma10_scalar(benchmark::State& s) {
  int_scalar_bench(s, discrete_gaussian::from_sigma(10.0));
}
void BM_discrete_gaussian_sigma10_fill(benchmark::State& s) {
  int_fill_bench(s, discrete_gaussian::from_sigma(10.0));
}
// The same fills with the AVX2 variant of the kernels forced (what a CPU without AVX-512 runs;
// on this CPU the default is the best variant it supports, see detail::kernel_isa).
template <class M>
void fill_bench_avx2(benchmark::State& s, const M& m) {
  detail::set_kernel_isa(detail::kernel_isa::avx2);
  fill_bench(s, m);
  detail::set_kernel_isa(detail::best_kernel_isa());
}
void BM_laplace_fill_avx2(benchmark::State& s) { fill_bench_avx2(s, laplace::from_scale(1.0)); }
void BM_gaussian_fill_avx2(benchmark::State& s) { fill_bench_avx2(s, gaussian::from_sigma(1.0)); }
void BM_float_safe_laplace_fill_avx2(benchmark::State& s) {
  fill_bench_avx2(s, float_safe_laplace::calibrate(1.0, 1.0));
}
void BM_float_safe_gaussian_fill_avx2(benchmark::State& s) {
  fill_bench_avx2(s, float_safe_gaussian::from_sigma(1.0));
}

BENCHMARK(BM_laplace_scalar);
BENCHMARK(BM_laplace_fill);
BENCHMARK(BM_laplace_privatize);
BENCHMARK(BM_gaussian_scalar);
BENCHMARK(BM_gaussian_fill);
BENCHMARK(BM_gaussian_privatize);
BENCHMARK(BM_float_safe_laplace_scalar);
BENCHMARK(BM_float_safe_laplace_fill);
BENCHMARK(BM_float_safe_laplace_privatize);
BENCHMARK(BM_float_safe_gaussian_scalar);
BENCHMARK(BM_float_safe_gaussian_fill);
BENCHMARK(BM_float_safe_gaussian_privatize);
BENCHMARK(BM_rounded_gaussian_privatize);
BENCHMARK(BM_laplace_fill_avx2);
BENCHMARK(BM_gaussian_fill_avx2);
BENCHMARK(BM_float_safe_laplace_fill_avx2);
BENCHMARK(BM_float_safe_gaussian_fill_avx2);
BENCHMARK(BM_discrete_laplace_scale10_fill);
BENCHMARK(BM_discrete_laplace_scale10_scalar);
BENCHMARK(BM_discrete_gaussian_sigma10_scalar);
BENCHMARK(BM_discrete_gaussian_sigma10_fill);

void BM_randomized_response_k10(benchmark::State& s) {
  const auto rr = randomized_response::calibrate(1.0, 10);
  auto g = engine();
  std::int64_t acc = 0;
  for (auto _ : s) {
    for (std::size_t i = 0; i < block; ++i) acc += rr.randomize(3, g);
    benchmark::DoNotOptimize(acc);
  }
  s.SetItemsProcessed(static_cast<std::int64_t>(s.iterations() * block));
}
BENCHMARK(BM_randomized_response_k10);

// Vector form: privatize() over a block of categories (validation pass + one draw each).
void BM_randomized_response_k10_privatize(benchmark::State& s) {
  const auto rr = randomized_response::calibrate(1.0, 10);
  auto g = engine();
  std::vector<std::int64_t> xs(block);
  for (auto _ : s) {
    s.PauseTiming();
    for (std::size_t i = 0; i < block; ++i) xs[i] = static_cast<std::int64_t>(i % 10);
    s.ResumeTiming();
    rr.privatize(xs, g);
    benchmark::DoNotOptimize(xs.data());
  }
  s.SetItemsProcessed(static_cast<std::int64_t>(s.iterations() * block));
}
BENCHMARK(BM_randomized_response_k10_privatize);

void BM_exponential_mechanism_1000(benchmark::State& s) {
  const auto em = exponential_mechanism::calibrate(1.0, 1.0);
  std::vector<double> u(1000);
  for (std::size_t i = 0; i < u.size(); ++i) u[i] = std::sin(static_cast<double>(i));
  auto g = engine();
  for (auto _ : s) benchmark::DoNotOptimize(em.select(u, g));
  s.SetItemsProcessed(static_cast<std::int64_t>(s.iterations()));
}
BENCHMARK(BM_exponential_mechanism_1000);

// Stable histogram over 1e7 standard normal values, bins of width 0.05 (~240 occupied bins).
void BM_stable_histogram_1e7(benchmark::State& s) {
  std::vector<double> x(10000000);
  auto d = rng::stream(7, 0, 0, rng::purpose::data);
  gaussian::from_sigma(1.0).fill(x, d);
  const auto sh = stable_histogram::calibrate(1.0, 1e-6, histogram_noise::laplace);
  auto g = engine();
  for (auto _ : s) {
    auto h = sh.release(x, bin_grid{0.05, 0.0}, g);
    benchmark::DoNotOptimize(h.values.data());
  }
  s.SetItemsProcessed(static_cast<std::int64_t>(s.iterations() * x.size()));
}
BENCHMARK(BM_stable_histogram_1e7)->Unit(benchmark::kMillisecond)->Iterations(3);

// Many occupied bins: 1e7 N(0,1) values, width 1e-6 (~7.6e6 occupied bins; the key range
// ~1.1e7 <= 4n + 1024, so dense counting), i.e. one noise draw and threshold test per record.
void BM_stable_histogram_1e7_many_bins(benchmark::State& s) {
  std::vector<double> x(10000000);
  auto d = rng::stream(7, 0, 0, rng::purpose::data);
  gaussian::from_sigma(1.0).fill(x, d);
  const auto sh = stable_histogram::calibrate(1.0, 1e-6, histogram_noise::laplace);
  auto g = engine();
  std::size_t occupied = 0;
  for (auto _ : s) {
    auto h = sh.release(x, bin_grid{1e-6, 0.0}, g);
    occupied = h.occupied;
    benchmark::DoNotOptimize(h.values.data());
  }
  s.counters["occupied"] = static_cast<double>(occupied);
  s.SetItemsProcessed(static_cast<std::int64_t>(s.iterations() * x.size()));
}
BENCHMARK(BM_stable_histogram_1e7_many_bins)->Unit(benchmark::kMillisecond)->Iterations(3);

// Sparse keys: the same values scaled by 1e4 (key range ~1e11 > 4n + 1024), so the counting
// falls back to a sort of the 1e7 keys; ~1e7 occupied bins.
void BM_stable_histogram_1e7_sparse_keys(benchmark::State& s) {
  std::vector<double> x(10000000);
  auto d = rng::stream(7, 0, 0, rng::purpose::data);
  gaussian::from_sigma(1e4).fill(x, d);
  const auto sh = stable_histogram::calibrate(1.0, 1e-6, histogram_noise::laplace);
  auto g = engine();
  std::size_t occupied = 0;
  for (auto _ : s) {
    auto h = sh.release(x, bin_grid{1e-6, 0.0}, g);
    occupied = h.occupied;
    benchmark::DoNotOptimize(h.values.data());
  }
  s.counters["occupied"] = static_cast<double>(occupied);
  s.SetItemsProcessed(static_cast<std::int64_t>(s.iterations() * x.size()));
}
BENCHMARK(BM_stable_histogram_1e7_sparse_keys)->Unit(benchmark::kMillisecond)->Iterations(3);

// The release generator: float-safe Laplace (epsilon = 1, sensitivity 1: the default grid)
// drawn from the CSPRNG rng::os_random, against the Philox engine keyed once from the operating
// system that releases used before (a key drawn from os_random here; same engine, same cost).
// Scalar draws (one release at a time, as dpx mean does) and fills of 4096 (a histogram's counts,
// a gradient's coordinates). docs/performance.md, "Core: the release generator".
rng::philox4x32 os_keyed_philox() {
  rng::os_random os;
  return rng::stream(os(), 0, 0, rng::purpose::noise);
}
void BM_release_float_safe_laplace_scalar_os_keyed_philox(benchmark::State& s) {
  auto g = os_keyed_philox();
  scalar_bench(s, float_safe_laplace::calibrate(1.0, 1.0), g);
}
void BM_release_float_safe_laplace_scalar_os_random(benchmark::State& s) {
  rng::os_random g;
  scalar_bench(s, float_safe_laplace::calibrate(1.0, 1.0), g);
}
void BM_release_float_safe_laplace_fill_os_keyed_philox(benchmark::State& s) {
  auto g = os_keyed_philox();
  fill_bench(s, float_safe_laplace::calibrate(1.0, 1.0), g);
}
void BM_release_float_safe_laplace_fill_os_random(benchmark::State& s) {
  rng::os_random g;
  fill_bench(s, float_safe_laplace::calibrate(1.0, 1.0), g);
}
// Raw 64-bit words (the generator alone).
void BM_release_words_os_random(benchmark::State& s) {
  rng::os_random g;
  std::vector<std::uint64_t> out(block);
  for (auto _ : s) {
    for (auto& x : out) x = g();
    benchmark::DoNotOptimize(out.data());
  }
  s.SetItemsProcessed(static_cast<std::int64_t>(s.iterations() * block));
}
BENCHMARK(BM_release_float_safe_laplace_scalar_os_keyed_philox);
BENCHMARK(BM_release_float_safe_laplace_scalar_os_random);
BENCHMARK(BM_release_float_safe_laplace_fill_os_keyed_philox);
BENCHMARK(BM_release_float_safe_laplace_fill_os_random);
BENCHMARK(BM_release_words_os_random);

}  // namespace

BENCHMARK_MAIN();
