// Driver `istdp_privacy_utility`: privacy-utility trade-off of ISTDP (Yuan & Peng 2023;
// docs/theory/istdp.md) against the other private sparse solvers and nonprivate GIST, on the
// sparse linear and logistic designs of dpx::data (erm.hpp).
//
// Data (keyed on design, n, n_test, d, k, rho, signal, noise_sd): rows N(0, Toeplitz rho) scaled
// onto the unit sphere (||x_i|| = 1, so L_s <= 1 for least squares and <= 1/4 for logistic: the
// PUBLIC smoothness bound), k-sparse truth with entries +-signal on a random support; linear
// y = x^T beta + noise_sd z; logistic P(y = 1) = 1 / (1 + exp(-x^T beta)). A test split of n_test
// rows from the same model.
//
// Problem: min L(theta) + sum_j MCP(theta_j; lambda, gamma) (L1 with the same lambda for
// noisy_pgd_l1). Every private method clips per-example gradients to G = 1 and is calibrated to
// (epsilon, delta) under ADD/REMOVE neighbours (DP-SGD's relation), so the methods are compared at
// the same guarantee. Under add/remove the dataset size is private, so every method divides its
// clipped gradient sum by a PUBLIC normaliser: the design's n (a public experiment parameter) for
// ISTDP and noisy PGD (public_size = n: release (sum of clipped gradients) / n, sensitivity G/n)
// and q n for DP-SGD (expected_batch_size). On the design's own data these equal the plain means,
// bit for bit.
//   istdp_published_paper   ISTDP as published (Algorithm 1: exact-gradient BB step and exact-
//                           objective line search; NOT private beyond the gradient releases:
//                           docs/theory/istdp.md, the leak), Theorem 3.3 calibration (advanced
//                           composition)
//   istdp_published_tight   the same, tight calibration (exact Gaussian composition)
//   istdp_strict_paper      ISTDP strict (private by construction), Theorem 3.3 calibration
//   istdp_strict_tight      ISTDP strict, tight calibration
//   noisy_pgd_l1            DP proximal gradient with L1 (noisy PGD, Gaussian, tight; last iterate,
//                           step 1 / L_s)
//   dp_sgd                  proximal DP-SGD (Poisson rate q, MCP prox, step 1 / L_s, last iterate),
//                           noise multiplier calibrated with RDP (dpx::accounting)
//   gist                    nonprivate working-set GIST with MCP (the reference; epsilon ignored)
// ISTDP: T = `iterations` (T - 1 releases), alpha in [1e-3, 1/L_s] for strict and [1e-3, 10/L_s]
// for as_published (its line search may use larger steps); theta^0 = 0.01 e_1, theta^1 = 0.
// Metrics:
//   est_error     ||theta - beta||_2
//   precision, recall, f1   support recovery of {j : theta_j != 0} against supp(beta)
//   test_loss     unpenalised loss on the test split (least squares (1/(2m)) sum r^2; logistic)
//   objective_gap F(theta) - F(theta_gist) on the training data (F with the method's own penalty
//                 for noisy_pgd_l1 would differ: it is always evaluated with MCP)
//   sigma         noise sd per gradient coordinate (for DP-SGD: on the averaged batch gradient,
//                 sigma G / (q n))
//   selected      |{j : theta_j != 0}|
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "dpx/accounting/calibration.hpp"
#include "dpx/core/error.hpp"
#include "dpx/core/rng.hpp"
#include "dpx/data/erm.hpp"
#include "dpx/harness/driver.hpp"
#include "dpx/losses/losses.hpp"
#include "dpx/prox/prox.hpp"
#include "dpx/solvers/solvers.hpp"

namespace dpx::experiments::istdp_privacy_utility {
namespace {

using harness::cell_context;
using harness::metrics;

metrics run(const cell_context& ctx) {
  const char* fn = "istdp_privacy_utility";
  const auto& p = ctx.params;
  const std::string design = p.get_string("design"), method = p.get_string("method");
  const double eps = p.get_double("epsilon"), delta = p.get_double("delta");
  const double lambda = p.get_double("lambda"), gamma = p.get_double("gamma");
  const std::int64_t T = p.get_int("iterations");
  const bool linear = design == "linear";
  if (!linear && design != "logistic")
    core::throw_invalid(fn, "design", design, "must be linear or logistic");

  data::erm_options eo;
  eo.n = static_cast<std::size_t>(p.get_int("n"));
  eo.n_test = static_cast<std::size_t>(p.get_int("n_test"));
  eo.d = static_cast<std::size_t>(p.get_int("d"));
  eo.k = static_cast<std::size_t>(p.get_int("k"));
  eo.rho = p.get_double("rho");
  eo.signal = p.get_double("signal");
  eo.noise_sd = p.get_double("noise_sd");
  eo.scaling = data::row_scaling::normalize;
  auto g = ctx.stream(rng::purpose::data);
  const data::erm_sample s =
      linear ? data::sparse_linear(eo).sample(g) : data::sparse_logistic(eo).sample(g);
  const std::size_t n = eo.n, d = eo.d, m = eo.n_test;
  const auto kind = linear ? losses::glm_kind::least_squares : losses::glm_kind::logistic;
  const losses::glm_loss loss(
      kind, {std::span<const double>(s.x_train.data(), n * d), {s.y_train.data(), n}, n, d});
  const losses::glm_loss test(
      kind, {std::span<const double>(s.x_test.data(), m * d), {s.y_test.data(), m}, m, d});
  const double ls = linear ? 1.0 : 0.25;  // public smoothness bound for ||x|| <= 1
  const prox::mcp pen(lambda, gamma);
  const std::vector<double> zero(d, 0.0);

  solvers::gist_options go;
  go.trace.enabled = false;
  const auto ref = solvers::gist_working_set(loss, pen, zero, go);
  const double f_ref = ref.objective;

  const double clip = 1.0;
  auto noise = ctx.stream(rng::purpose::noise);
  std::vector<double> theta;
  double sigma = 0;
  if (method == "gist") {
    theta = ref.x;
  } else if (method.rfind("istdp_", 0) == 0) {
    solvers::istdp_options o;
    o.noise_kind = mechanisms::noise_kind::research_grade;  // the papers' mechanisms
    o.iterations = T;
    o.variant = method.find("published") != std::string::npos ? solvers::istdp_variant::as_published
                                                              : solvers::istdp_variant::strict;
    o.calibration = method.ends_with("paper") ? solvers::noise_calibration::paper
                                              : solvers::noise_calibration::tight;
    if (!method.ends_with("paper") && !method.ends_with("tight"))
      core::throw_invalid(fn, "method", method, "unknown ISTDP configuration");
    o.sensitivity = solvers::sensitivity_mode::clipping;
    o.clip_norm = clip;
    o.relation = core::neighbouring::add_remove;
    o.public_size = n;  // public design size
    o.epsilon = eps;
    o.delta = delta;
    o.public_smoothness = ls;
    o.alpha_min = 1e-3;
    o.alpha_max = o.variant == solvers::istdp_variant::strict ? 1.0 / ls : 10.0 / ls;
    o.trace.enabled = false;
    std::vector<double> th0(d, 0.0);
    th0[0] = 0.01;
    const auto r = solvers::istdp(loss, pen, th0, zero, o, noise);
    theta = r.x;
    sigma = r.noise_scale;
  } else if (method == "noisy_pgd_l1") {
    solvers::pgd_options o;
    o.noise_kind = mechanisms::noise_kind::research_grade;  // the papers' mechanisms
    o.iterations = T;
    o.step_size = 1.0 / ls;
    o.output = solvers::iterate_output::last;
    o.noise = solvers::pgd_noise::gaussian;
    o.calibration = solvers::noise_calibration::tight;
    o.clip_norm = clip;
    o.relation = core::neighbouring::add_remove;
    o.public_size = n;  // public design size
    o.epsilon = eps;
    o.delta = delta;
    o.trace.enabled = false;
    const auto r = solvers::pgd(loss, prox::l1_norm(lambda), zero, o, noise);
    theta = r.x;
    sigma = r.noise_scale;
  } else if (method == "dp_sgd") {
    solvers::dp_sgd_options o;
    o.noise_kind = mechanisms::noise_kind::research_grade;  // the papers' mechanisms
    o.iterations = p.get_int("sgd_steps");
    o.sampling_rate = p.get_double("sampling_rate");
    o.step_size = 1.0 / ls;
    o.clip_norm = clip;
    o.noise_multiplier = accounting::calibrate_gaussian(
        accounting::gaussian_calibration::rdp, eps, delta, o.iterations, o.sampling_rate);
    o.output = solvers::iterate_output::last;
    o.expected_batch_size = o.sampling_rate * double(n);  // public: q times the design size
    o.trace.enabled = false;
    const auto r = solvers::dp_sgd(loss, pen, zero, o, noise);
    theta = r.x;
    sigma = o.noise_multiplier * clip / (o.sampling_rate * double(n));
  } else {
    core::throw_invalid(fn, "method", method, "unknown method");
  }
  if (!solvers::detail::all_finite(theta)) throw std::runtime_error("non-finite estimate");

  const auto sr = solvers::support_metrics(theta, s.support);
  double err = 0;
  for (std::size_t j = 0; j < d; ++j) err += (theta[j] - s.beta(j)) * (theta[j] - s.beta(j));
  return {{"est_error", std::sqrt(err)},
          {"precision", sr.precision},
          {"recall", sr.recall},
          {"f1", sr.f1},
          {"test_loss", test.value(theta)},
          {"objective_gap", loss.value(theta) + pen.value(theta) - f_ref},
          {"sigma", sigma},
          {"selected", double(sr.selected)}};
}

harness::driver make_driver() {
  harness::driver d;
  d.name = "istdp_privacy_utility";
  d.version = "1";
  d.description = "ISTDP vs noisy PGD (L1), DP-SGD and GIST: utility against epsilon";
  d.params = {
      {"design",
       "linear or logistic (dpx::data sparse designs)",
       std::nullopt,
       harness::one_of({"linear", "logistic"})},
      {"method",
       "istdp_{published,strict}_{paper,tight}, noisy_pgd_l1, dp_sgd, gist",
       std::nullopt},
      {"epsilon", "privacy budget (add/remove)", std::nullopt, harness::positive()},
      {"delta", "privacy delta", harness::param_value{1e-5}, harness::open_unit_interval()},
      {"n",
       "training rows",
       harness::param_value{std::int64_t{5000}},
       harness::integer_at_least(1)},
      {"n_test",
       "test rows",
       harness::param_value{std::int64_t{2000}},
       harness::integer_at_least(1)},
      {"d", "features", harness::param_value{std::int64_t{20}}, harness::integer_at_least(1)},
      {"k",
       "nonzeros of the truth",
       harness::param_value{std::int64_t{4}},
       harness::integer_at_least(1)},
      {"rho", "Toeplitz feature correlation", harness::param_value{0.3}},
      {"signal", "|beta_j| on the support", harness::param_value{5.0}},
      {"noise_sd", "response noise sd (linear)", harness::param_value{0.5}},
      {"lambda", "MCP / L1 level", harness::param_value{0.01}},
      {"gamma", "MCP concavity", harness::param_value{3.0}},
      {"iterations",
       "T of ISTDP / noisy PGD",
       harness::param_value{std::int64_t{200}},
       harness::integer_at_least(1)},
      {"sgd_steps",
       "DP-SGD steps",
       harness::param_value{std::int64_t{1000}},
       harness::integer_at_least(1)},
      {"sampling_rate", "DP-SGD Poisson rate q", harness::param_value{0.05}},
  };
  d.data_keys = {"design", "n", "n_test", "d", "k", "rho", "signal", "noise_sd"};
  d.metric_names = {
      "est_error", "precision", "recall", "f1", "test_loss", "objective_gap", "sigma", "selected"};
  d.run = run;
  return d;
}

const harness::driver_registrar registrar{make_driver()};

}  // namespace
}  // namespace dpx::experiments::istdp_privacy_utility
