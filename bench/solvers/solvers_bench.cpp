// Benchmarks of dpx::solvers (Google Benchmark), each against a baseline in the same process:
//  * StreamingRead: a plain sum over a buffer of n*d doubles (80 MB, larger than the caches):
//    this machine's streaming read bandwidth.
//  * GradientTwoGemv: one full gradient of least squares on the dense n = 20000, d = 500 problem
//    (X theta then X^T r: two passes over X), as one GIST/ISTDP iteration does. Counter
//    read_fraction = (2 * 8 n d / time) / streaming bandwidth.
//  * IstdpStrictIteration: one strict ISTDP update (clipped gradient, noise, prox).
//  * McpWorkingSetGist: nonprivate MCP (lambda 0.1, gamma 3) on that problem (columns scaled to
//    ||x_j||^2/n = 1, AR(1) column correlation 0.5, 20-sparse truth, noise sd 0.5); counter
//    rel_subopt = (F - F*) / F* with F* from plain GIST run to stationarity beforehand.
//  * OnlineKernel1e4: 10^4 steps of online kernel regression (Gaussian kernel on [0, 1]).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <numeric>
#include <vector>

#include "dpx/core/rng.hpp"
#include "dpx/losses/losses.hpp"
#include "dpx/prox/prox.hpp"
#include "dpx/solvers/solvers.hpp"

namespace {

constexpr std::size_t n = 20000, d = 500;

double std_normal(dpx::rng::philox4x32& g) {
  const double u1 = g.uniform_open01(), u2 = g.uniform_open01();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

struct problem {
  std::vector<double> x, y;
  problem() : x(n * d), y(n) {
    auto g = dpx::rng::stream(2026, 6, 0, dpx::rng::purpose::data);
    for (std::size_t i = 0; i < n; ++i) {
      double prev = std_normal(g);
      x[i * d] = prev;
      for (std::size_t j = 1; j < d; ++j) {
        prev = 0.5 * prev + std::sqrt(0.75) * std_normal(g);
        x[i * d + j] = prev;
      }
    }
    std::vector<double> ss(d, 0.0);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < d; ++j) ss[j] += x[i * d + j] * x[i * d + j];
    for (std::size_t j = 0; j < d; ++j) ss[j] = std::sqrt(double(n) / ss[j]);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < d; ++j) x[i * d + j] *= ss[j];
    std::vector<double> beta(d, 0.0);
    for (std::size_t k = 0; k < 20; ++k) beta[k * (d / 20)] = (k % 2 ? -1.0 : 1.0);
    for (std::size_t i = 0; i < n; ++i) {
      double z = 0;
      for (std::size_t j = 0; j < d; ++j) z += x[i * d + j] * beta[j];
      y[i] = z + 0.5 * std_normal(g);
    }
  }
};

const problem& the_problem() {
  static const problem p;
  return p;
}

double streaming_sum(const std::vector<double>& buf) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  const std::size_t m = buf.size() & ~std::size_t{3};
  for (std::size_t i = 0; i < m; i += 4) {
    s0 += buf[i];
    s1 += buf[i + 1];
    s2 += buf[i + 2];
    s3 += buf[i + 3];
  }
  return s0 + s1 + s2 + s3;
}

double cpu_seconds() { return double(std::clock()) / CLOCKS_PER_SEC; }

// Streaming read bandwidth (bytes per CPU second, median of 15 passes) over the design matrix
// itself. CPU time, not wall time: the machine is shared, and both sides of the ratio use it.
double streaming_bandwidth() {
  static const double bw = [] {
    const auto& x = the_problem().x;
    std::vector<double> t;
    for (int r = 0; r < 15; ++r) {
      const double t0 = cpu_seconds();
      benchmark::DoNotOptimize(streaming_sum(x));
      t.push_back(cpu_seconds() - t0);
    }
    std::sort(t.begin(), t.end());
    return 8.0 * double(n * d) / t[7];
  }();
  return bw;
}

void StreamingRead(benchmark::State& state) {
  const auto& x = the_problem().x;
  for (auto _ : state) benchmark::DoNotOptimize(streaming_sum(x));
  state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(8 * n * d));
  state.counters["bandwidth_GBps_cpu"] = streaming_bandwidth() / 1e9;
}
BENCHMARK(StreamingRead)->Unit(benchmark::kMillisecond);

void GradientTwoGemv(benchmark::State& state) {
  const auto& p = the_problem();
  const dpx::losses::glm_loss loss(dpx::losses::glm_kind::least_squares, {p.x, p.y, n, d});
  std::vector<double> theta(d, 0.01), grad(d);
  const double t0 = cpu_seconds();
  for (auto _ : state) benchmark::DoNotOptimize(loss.value_and_gradient(theta, grad));
  const double cpu = cpu_seconds() - t0;
  state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(2 * 8 * n * d));
  state.counters["read_fraction"] =
      double(state.iterations()) * 2.0 * 8.0 * double(n * d) / cpu / streaming_bandwidth();
}
BENCHMARK(GradientTwoGemv)->Unit(benchmark::kMillisecond);

void IstdpStrictIteration(benchmark::State& state) {
  const auto& p = the_problem();
  const dpx::losses::glm_loss loss(dpx::losses::glm_kind::least_squares, {p.x, p.y, n, d});
  dpx::solvers::istdp_options o;
  o.noise_kind = dpx::mechanisms::noise_kind::research_grade;  // the papers' mechanisms
  o.iterations = 2;
  o.public_smoothness = 1.0;
  o.trace.enabled = false;
  o.trace.record_objective = false;
  const std::vector<double> th(d, 0.0);
  auto g = dpx::rng::stream(1, 0, 0, dpx::rng::purpose::noise);
  loss.max_row_norm();  // row norms cached once, as in a real run
  const double t0 = cpu_seconds();
  for (auto _ : state)
    benchmark::DoNotOptimize(dpx::solvers::istdp(loss, dpx::prox::mcp(0.1, 3.0), th, o, g));
  const double cpu = cpu_seconds() - t0;
  state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(2 * 8 * n * d));
  state.counters["read_fraction"] =
      double(state.iterations()) * 2.0 * 8.0 * double(n * d) / cpu / streaming_bandwidth();
}
BENCHMARK(IstdpStrictIteration)->Unit(benchmark::kMillisecond);

double reference_objective() {
  static const double f = [] {
    const auto& p = the_problem();
    const dpx::losses::glm_loss loss(dpx::losses::glm_kind::least_squares, {p.x, p.y, n, d});
    dpx::solvers::gist_options o;
    o.tol = 1e-15;
    o.stationarity_tol = 1e-12;
    o.trace.enabled = false;
    const auto r =
        dpx::solvers::gist(loss, dpx::prox::mcp(0.1, 3.0), std::vector<double>(d, 0.0), o);
    return r.objective;
  }();
  return f;
}

void McpWorkingSetGist(benchmark::State& state) {
  const auto& p = the_problem();
  const dpx::losses::glm_loss loss(dpx::losses::glm_kind::least_squares, {p.x, p.y, n, d});
  const double f_star = reference_objective();
  dpx::solvers::gist_options o;
  o.trace.enabled = false;
  double f = 0, iters = 0;
  for (auto _ : state) {
    const auto r = dpx::solvers::gist_working_set(
        loss, dpx::prox::mcp(0.1, 3.0), std::vector<double>(d, 0.0), o);
    f = r.objective;
    iters = double(r.iterations);
  }
  state.counters["rel_subopt"] = (f - f_star) / f_star;
  state.counters["inner_iterations"] = iters;
}
BENCHMARK(McpWorkingSetGist)->Unit(benchmark::kMillisecond)->MinTime(2.0);

void McpPlainGist(benchmark::State& state) {
  const auto& p = the_problem();
  const dpx::losses::glm_loss loss(dpx::losses::glm_kind::least_squares, {p.x, p.y, n, d});
  const double f_star = reference_objective();
  dpx::solvers::gist_options o;
  o.trace.enabled = false;
  double f = 0, iters = 0;
  for (auto _ : state) {
    const auto r =
        dpx::solvers::gist(loss, dpx::prox::mcp(0.1, 3.0), std::vector<double>(d, 0.0), o);
    f = r.objective;
    iters = double(r.iterations);
  }
  state.counters["rel_subopt"] = (f - f_star) / f_star;
  state.counters["iterations"] = iters;
}
BENCHMARK(McpPlainGist)->Unit(benchmark::kMillisecond)->Iterations(1);

void OnlineKernel1e4(benchmark::State& state) {
  for (auto _ : state) {
    dpx::solvers::online_kernel_regression f(
        dpx::solvers::kernel{dpx::solvers::kernel_kind::gaussian, 0.2}, 1, {});
    auto g = dpx::rng::stream(3, 0, 0, dpx::rng::purpose::data);
    double x[1];
    for (int t = 0; t < 10000; ++t) {
      x[0] = g.uniform01();
      f.update(x, std::sin(6.0 * x[0]) * 0.8 + 0.1 * (g.uniform01() - 0.5));
    }
    benchmark::DoNotOptimize(f.predict(x));
  }
}
BENCHMARK(OnlineKernel1e4)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
