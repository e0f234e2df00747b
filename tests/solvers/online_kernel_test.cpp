// Properties checked (dpx::solvers::online_kernel_regression):
//  * The O(t) lazily-scaled update matches a direct O(t^2) implementation (every coefficient
//    shrunk explicitly each step) in predictions and coefficients, for Gaussian (p = 1 fast path
//    and p = 2), polynomial and linear kernels.
//  * Schedules eta_t = (t + t0)^-theta, lambda_t = (t + t0)^-(1-theta); default t0 =
//    (kappa^2 + 1)^(1/theta); sensitivities C_t and D_t equal docs/theory/online-kernel.md's
//    formulas.
//  * Responses are clamped to [-M, M].
//  * research_grade per_query: one laplace_event{1/epsilon} per answer; function_release: one
//    gaussian_event{sqrt(2 log(2/delta))/epsilon} per release, values at every point (the
//    float-safe default: online_kernel_noise_test.cpp).
//  * Public input bound (linear, polynomial): a training x outside ||x|| <= input_bound is
//    projected onto the ball (the stored centre and the closed-form linear predictor match a
//    direct computation on x * min(1, B / ||x||)); a per_query point outside the ball is refused
//    naming x, one on the boundary is answered; release_function accepts any points; the
//    Gaussian kernel (kappa = 1 everywhere) neither projects nor refuses.
//  * Bad options rejected naming the field.
#include <gtest/gtest.h>

#include <cmath>
#include <variant>
#include <vector>

#include "dpx/core/error.hpp"
#include "dpx/core/rng.hpp"
#include "dpx/solvers/online_kernel.hpp"

namespace dpx::solvers {
namespace {

double direct_kernel(const kernel& k, const double* a, const double* b, std::size_t p) {
  double s = 0;
  if (k.kind == kernel_kind::gaussian) {
    for (std::size_t i = 0; i < p; ++i) s += (a[i] - b[i]) * (a[i] - b[i]);
    return std::exp(-s / (2 * k.bandwidth * k.bandwidth));
  }
  for (std::size_t i = 0; i < p; ++i) s += a[i] * b[i];
  return k.kind == kernel_kind::linear ? s : std::pow(s + k.offset, k.degree);
}

TEST(OnlineKernel, LazyScaleMatchesDirectQuadraticImplementation) {
  struct cfg {
    kernel k;
    std::size_t p;
  };
  kernel poly{kernel_kind::polynomial, 1.0, 3, 0.5};
  for (const auto& c : {cfg{kernel{kernel_kind::gaussian, 0.3}, 1},
                        cfg{kernel{kernel_kind::gaussian, 0.5}, 2},
                        cfg{poly, 2},
                        cfg{kernel{kernel_kind::linear}, 3}}) {
    online_kernel_options o;
    o.theta = 0.6;
    o.input_bound = 1.0;
    o.output_bound = 2.0;  // |y| < 1.1: no clamping here
    online_kernel_regression f(c.k, c.p, o);
    auto g = rng::stream(6, 0, 0, rng::purpose::data);
    std::vector<double> centres, coef;
    const double t0 = f.t0();
    for (int t = 0; t < 300; ++t) {
      std::vector<double> x(c.p);
      for (auto& v : x) v = (g.uniform01() - 0.5) / std::sqrt(double(c.p));
      const double y = std::sin(3 * x[0]) + 0.1 * (g.uniform01() - 0.5);
      double pred = 0;
      for (std::size_t i = 0; i < coef.size(); ++i)
        pred += coef[i] * direct_kernel(c.k, centres.data() + i * c.p, x.data(), c.p);
      const double eta = std::pow(t + t0, -0.6), lam = std::pow(t + t0, -0.4);
      for (auto& a : coef) a *= 1 - eta * lam;
      coef.push_back(-eta * (pred - y));
      centres.insert(centres.end(), x.begin(), x.end());
      EXPECT_NEAR(f.predict(x), pred, 1e-12 * (1 + std::fabs(pred)));
      f.update(x, y);
    }
    const auto got = f.coefficients();
    ASSERT_EQ(got.size(), coef.size());
    for (std::size_t i = 0; i < coef.size(); ++i) EXPECT_NEAR(got[i], coef[i], 1e-12);
    EXPECT_EQ(f.centres(), centres);
  }
}

TEST(OnlineKernel, ScheduleDefaultsAndSensitivities) {
  online_kernel_options o;
  o.theta = 0.75;
  o.output_bound = 2.0;
  online_kernel_regression f(kernel{kernel_kind::gaussian, 0.2}, 1, o);
  EXPECT_DOUBLE_EQ(f.t0(), std::pow(2.0, 1 / 0.75));
  EXPECT_DOUBLE_EQ(f.kappa(), 1.0);
  EXPECT_EQ(f.sup_sensitivity(), 0.0);
  const std::vector<double> x{0.3};
  for (int t = 0; t < 5; ++t) f.update(x, 0.5);
  const double t0 = f.t0();
  EXPECT_DOUBLE_EQ(f.eta(3), std::pow(3 + t0, -0.75));
  EXPECT_DOUBLE_EQ(f.lambda(3), std::pow(3 + t0, -0.25));
  EXPECT_DOUBLE_EQ(f.sup_sensitivity(), 2 * 1 * 2 * 2.0 / std::pow(4 + t0, 0.5));
  EXPECT_DOUBLE_EQ(f.rkhs_sensitivity(),
                   2 * std::pow(4 + t0, -0.75) * (2.0 / std::pow(4 + t0, -0.25) + 2.0));
  // clamping: y = 10 with M = 2 acts as y = 2
  online_kernel_regression a(kernel{}, 1, o), b(kernel{}, 1, o);
  a.update(x, 10.0);
  b.update(x, 2.0);
  EXPECT_EQ(a.predict(x), b.predict(x));
}

// kappa != 1 (linear kernel, input bound 2: kappa = 2), where kappa^2 + 1 = 5 and kappa + 1 = 3
// differ: t0 = (kappa^2 + 1)^(1/theta) (the Lemma 2 step condition t0^theta >= kappa^2 + 1) and
// the sensitivities of eq. (17) with kappa^2 (Nie & Wang 2017 print kappa), from the closed forms.
TEST(OnlineKernel, ScheduleAndSensitivitiesAtKappaTwo) {
  online_kernel_options o;
  o.theta = 0.75;
  o.output_bound = 1.5;
  o.input_bound = 2.0;
  online_kernel_regression f(kernel{kernel_kind::linear}, 1, o);
  const double kappa = 2.0, m = 1.5, t0 = std::pow(kappa * kappa + 1, 1 / 0.75);
  EXPECT_DOUBLE_EQ(f.kappa(), kappa);
  EXPECT_DOUBLE_EQ(f.t0(), t0);
  const std::vector<double> x{0.7};
  for (int t = 0; t < 5; ++t) f.update(x, 0.5);
  // After t = 5 updates (the bounds use step t - 1 = 4): C = 2 kappa^2 (kappa^2 + 1) M / (4 +
  // t0)^(2 theta - 1), D = 2 eta_4 kappa (kappa^2 M / lambda_4 + M), eta_t = (t + t0)^-theta,
  // lambda_t = (t + t0)^-(1 - theta).
  EXPECT_DOUBLE_EQ(f.sup_sensitivity(),
                   2 * kappa * kappa * (kappa * kappa + 1) * m / std::pow(4 + t0, 0.5));
  EXPECT_DOUBLE_EQ(
      f.rkhs_sensitivity(),
      2 * std::pow(4 + t0, -0.75) * kappa * (kappa * kappa * m / std::pow(4 + t0, -0.25) + m));
  // A t0 below the condition is refused, naming t0.
  online_kernel_options bad = o;
  bad.t0 = std::pow(kappa + 1, 1 / 0.75);  // (kappa + 1)^(1/theta): valid only if kappa = 1
  try {
    online_kernel_regression g(kernel{kernel_kind::linear}, 1, bad);
    ADD_FAILURE() << "t0 below (kappa^2 + 1)^(1/theta) accepted";
  } catch (const core::invalid_argument_error& e) {
    EXPECT_EQ(e.parameter(), "t0");
  }
}

TEST(OnlineKernel, PrivateReleasesEmitEvents) {
  online_kernel_options o;
  o.noise_kind = mechanisms::noise_kind::research_grade;  // the default: online_kernel_noise_test
  o.privacy = kernel_privacy::per_query;
  o.target = core::epsilon_delta{0.5, 0.0};  // per_query spends no delta
  online_kernel_regression f(kernel{}, 1, o);
  auto g = rng::stream(2, 0, 0, rng::purpose::noise);
  const std::vector<double> x{0.1};
  EXPECT_EQ(f.predict_private(x, g), 0.0);  // f_0 = 0 is data-independent: no release
  EXPECT_TRUE(f.privacy_events().empty());
  f.update(x, 0.4);
  for (int i = 0; i < 3; ++i) f.predict_private(x, g);
  ASSERT_EQ(f.privacy_events().size(), 3u);
  EXPECT_DOUBLE_EQ(std::get<core::laplace_event>(f.privacy_events()[0]).noise_multiplier, 2.0);
  std::vector<double> pts{0.0, 0.5, 1.0};
  EXPECT_THROW(f.release_function(pts, g), core::invalid_argument_error);

  o.privacy = kernel_privacy::function_release;
  o.target->delta = 1e-5;
  online_kernel_regression h(kernel{}, 1, o);
  h.update(x, 0.4);
  const auto v = h.release_function(pts, g);
  ASSERT_EQ(v.size(), 3u);
  ASSERT_EQ(h.privacy_events().size(), 1u);
  EXPECT_DOUBLE_EQ(std::get<core::gaussian_event>(h.privacy_events()[0]).noise_multiplier,
                   std::sqrt(2 * std::log(2 / 1e-5)) / 0.5);
  EXPECT_THROW(h.predict_private(x, g), core::invalid_argument_error);
}

TEST(OnlineKernel, InputBoundProjectsTrainingPointsAndRefusesOutsideQueries) {
  online_kernel_options o;
  o.privacy = kernel_privacy::per_query;
  o.target = core::epsilon_delta{
      1.0, 1e-5};  // per_query spends epsilon only (function_release below: both)
  o.input_bound = 2.0;
  const kernel poly{kernel_kind::polynomial, 1.0, 2, 1.0};
  for (const kernel& k : {kernel{kernel_kind::linear}, poly}) {
    online_kernel_regression f(k, 2, o);
    const std::vector<double> far{3.0, 4.0}, inside{0.6, -0.8};
    f.update(far, 0.5);     // ||x|| = 5 > 2: projected to (1.2, 1.6)
    f.update(inside, 0.3);  // inside: kept as given
    const std::vector<double> want{1.2, 1.6, 0.6, -0.8};
    ASSERT_EQ(f.centres().size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(f.centres()[i], want[i], 1e-15);
    if (k.kind == kernel_kind::linear) {
      // Closed form on the projected inputs: w_1 = eta_0 y_1 x~_1; w_2 = (1 - eta_1 lambda_1)
      // w_1 - eta_1 (w_1 . x_2 - y_2) x_2.
      const double e0 = f.eta(0), e1 = f.eta(1), l1 = f.lambda(1);
      const double w1[2] = {e0 * 0.5 * 1.2, e0 * 0.5 * 1.6};
      const double r = w1[0] * 0.6 - w1[1] * 0.8 - 0.3;
      const double w2[2] = {(1 - e1 * l1) * w1[0] - e1 * r * 0.6,
                            (1 - e1 * l1) * w1[1] + e1 * r * 0.8};
      const std::vector<double> q{1.0, 0.5};
      EXPECT_NEAR(f.predict(q), w2[0] * 1.0 + w2[1] * 0.5, 1e-14);
    }
    auto g = rng::stream(3, 0, 0, rng::purpose::noise);
    const std::vector<double> boundary{1.2, -1.6}, outside{1.2, 1.61};
    EXPECT_NO_THROW(f.predict_private(boundary, g));
    try {
      f.predict_private(outside, g);
      ADD_FAILURE() << "a query point outside the input bound was answered";
    } catch (const core::invalid_argument_error& e) {
      EXPECT_EQ(e.parameter(), "x");
    }
    EXPECT_EQ(f.privacy_events().size(), 1u);  // the refused query released nothing
    online_kernel_options fo = o;
    fo.privacy = kernel_privacy::function_release;
    online_kernel_regression h(k, 2, fo);
    h.update(far, 0.5);
    const std::vector<double> pts{10.0, -7.0, 0.1, 0.2};
    EXPECT_EQ(h.release_function(pts, g).size(), 2u);
  }
  // Gaussian kernel: kappa = 1 on all of R^p, the bound is not used.
  online_kernel_regression f(kernel{}, 2, o);
  const std::vector<double> far{3.0, 4.0};
  f.update(far, 0.5);
  EXPECT_EQ(f.centres(), far);
  auto g = rng::stream(4, 0, 0, rng::purpose::noise);
  EXPECT_NO_THROW(f.predict_private(far, g));
}

// Nie & Wang (2017), Lemma 2: with t0^theta >= kappa^2 + 1 every iterate satisfies
// ||f_t||_K <= kappa M / lambda_t. ||f_t||_K^2 = sum_ij c_i c_j K(x_i, x_j) is computed here from
// the coefficients and centres with the test's own kernel (direct_kernel), at every t. The data
// are adversarial for the bound: responses far outside [-M, M] (the solver's clamp is what keeps
// |y| <= M) and, for the linear kernel, inputs of norm 5 > input_bound (the projection is what
// keeps K(x, x) <= kappa^2, and with it eta_t (kappa^2 + lambda_t) <= 1). Without either, the
// norm exceeds the bound within these 150 steps (a repeated point with |y| = 10 drives ||f_t||
// towards 10 / (1 + lambda_t) > kappa M / lambda_t = (t + t0)^{1 - theta}).
TEST(OnlineKernel, IterateNormWithinLemma2BoundOnEveryIterate) {
  struct cfg {
    kernel k;
    std::size_t p;
    double theta;
    bool repeated;  // one input repeated (the norm's worst case) or random inputs
  };
  const kernel poly{kernel_kind::polynomial, 1.0, 2, 1.0};
  const double M = 1.0;
  for (const auto& c : {cfg{kernel{kernel_kind::gaussian, 0.3}, 1, 0.6, true},
                        cfg{kernel{kernel_kind::gaussian, 0.3}, 1, 0.75, false},
                        cfg{kernel{kernel_kind::gaussian, 0.5}, 2, 0.9, true},
                        cfg{kernel{kernel_kind::linear}, 2, 0.75, true},
                        cfg{kernel{kernel_kind::linear}, 2, 0.6, false},
                        cfg{poly, 2, 0.75, false}}) {
    online_kernel_options o;
    o.theta = c.theta;
    o.output_bound = M;
    o.input_bound = 1.0;
    online_kernel_regression f(c.k, c.p, o);
    // sup sqrt(K(x, x)) over ||x|| <= 1: 1 (Gaussian), 1 (linear), (1 + 1)^(2/2) = 2 (poly).
    const double kappa = c.k.kind == kernel_kind::polynomial ? 2.0 : 1.0;
    ASSERT_DOUBLE_EQ(f.kappa(), kappa);
    ASSERT_GE(std::pow(f.t0(), c.theta), kappa * kappa + 1 - 1e-12);  // the lemma's condition
    auto g = rng::stream(28, 0, 0, rng::purpose::data);
    std::vector<double> x(c.p);
    for (int t = 1; t <= 150; ++t) {
      if (t == 1 || !c.repeated)
        for (auto& v : x)
          v = c.k.kind == kernel_kind::gaussian ? 2 * g.uniform01() - 1
                                                : 5 * (2 * g.uniform01() - 1);
      if (c.k.kind != kernel_kind::gaussian) {  // norm 5: outside the input bound 1
        double nx = 0;
        for (double v : x) nx += v * v;
        for (auto& v : x) v *= 5 / std::sqrt(nx);
      }
      const double y = c.repeated ? 10.0 : (g.uniform01() < 0.5 ? -10.0 : 10.0);
      f.update(x, y);
      ASSERT_EQ(f.steps(), t);
      const auto coef = f.coefficients();
      const auto& ctr = f.centres();
      double norm2 = 0;
      for (std::size_t i = 0; i < coef.size(); ++i)
        for (std::size_t j = 0; j < coef.size(); ++j)
          norm2 += coef[i] * coef[j] *
                   direct_kernel(c.k, ctr.data() + i * c.p, ctr.data() + j * c.p, c.p);
      const double bound = kappa * M / f.lambda(t);
      ASSERT_LE(std::sqrt(std::max(norm2, 0.0)), bound * (1 + 1e-9))
          << "t = " << t << ", theta = " << c.theta << ", kernel " << to_string(c.k.kind);
    }
  }
}

TEST(OnlineKernelOptions, BadFieldsNamed) {
  const auto check = [](online_kernel_options o, kernel k, const std::string& field) {
    try {
      online_kernel_regression f(k, 1, o);
      ADD_FAILURE() << field;
    } catch (const core::invalid_argument_error& e) {
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
    }
  };
  online_kernel_options o;
  o.theta = 0.5;
  check(o, kernel{}, "theta");
  o = {};
  o.t0 = 1.1;  // 1.1^0.75 < 2
  check(o, kernel{}, "t0");
  o = {};
  o.output_bound = 0;
  check(o, kernel{}, "output_bound");
  o = {};
  o.privacy = kernel_privacy::function_release;
  o.target = core::epsilon_delta{1.0, 2.0};
  check(o, kernel{}, "delta");
  // A private mode needs a target; privacy none refuses one (it would be silently ignored).
  o = {};
  o.privacy = kernel_privacy::per_query;
  check(o, kernel{}, "epsilon");
  o = {};
  o.target = core::epsilon_delta{1.0, 1e-5};
  check(o, kernel{}, "privacy");
  // function_release uses HRW's classical constant sqrt(2 log(2/delta))/epsilon: epsilon <= 1.
  o = {};
  o.privacy = kernel_privacy::function_release;
  o.target = core::epsilon_delta{1.5, 1e-5};
  check(o, kernel{}, "epsilon");
  o.target->epsilon = 1.0;  // the boundary is allowed
  EXPECT_NO_THROW(online_kernel_regression(kernel{}, 1, o));
  o.privacy = kernel_privacy::per_query;  // per-query Laplace has no such restriction
  o.target->epsilon = 5.0;
  EXPECT_NO_THROW(online_kernel_regression(kernel{}, 1, o));
  check({}, kernel{kernel_kind::gaussian, -1.0}, "bandwidth");
}

}  // namespace
}  // namespace dpx::solvers
