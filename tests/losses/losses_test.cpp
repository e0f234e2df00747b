// Properties checked (dpx::losses):
//  * value() equals a direct per-row loop of the documented formulas (independent of BLAS).
//  * Gradients equal central finite differences (h = 1e-6, tolerance 1e-6 relative) for every
//    GLM kind, on random designs.
//  * clipped_gradient equals a direct loop that clips each per-example gradient to norm G; the
//    clipped fraction is right; with G huge it equals the plain gradient.
//  * clipped_gradient_sum over a batch equals the direct loop.
//  * Smoothness: lambda_max(X^T X / n) equals the closed-form eigenvalue of a 2x2 Gram matrix.
//  * 0/1 labels are mapped to -1/+1; bad input throws invalid_argument_error.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "dpx/core/error.hpp"
#include "dpx/core/rng.hpp"
#include "dpx/losses/losses.hpp"

namespace dpx::losses {
namespace {

struct problem {
  std::size_t n, d;
  std::vector<double> x, y;
  dataset_view view() const { return {x, y, n, d}; }
};

problem make_problem(std::size_t n, std::size_t d, bool classification, std::uint64_t seed) {
  auto g = rng::stream(seed, 0, 0, rng::purpose::data);
  problem p{n, d, std::vector<double>(n * d), std::vector<double>(n)};
  for (double& v : p.x) v = 2 * rng::uniform01(g) - 1;
  for (double& v : p.y)
    v = classification ? (rng::uniform01(g) < 0.5 ? -1.0 : 1.0) : 3 * rng::uniform01(g) - 1;
  return p;
}

double direct_f(glm_kind k, double z, double y, double par) {
  switch (k) {
    case glm_kind::least_squares:
      return 0.5 * (z - y) * (z - y);
    case glm_kind::logistic:
      return std::log(1 + std::exp(-y * z));
    case glm_kind::huber: {
      const double r = std::fabs(z - y);
      return r <= par ? 0.5 * r * r : par * r - 0.5 * par * par;
    }
    case glm_kind::smoothed_hinge: {
      const double m = y * z;
      return m >= 1 ? 0 : (m <= 1 - par ? 1 - m - par / 2 : (1 - m) * (1 - m) / (2 * par));
    }
  }
  return 0;
}

const glm_kind kinds[] = {
    glm_kind::least_squares, glm_kind::logistic, glm_kind::huber, glm_kind::smoothed_hinge};

TEST(Glm, ValueMatchesDirectLoop) {
  for (auto k : kinds) {
    const bool cls = k == glm_kind::logistic || k == glm_kind::smoothed_hinge;
    const auto p = make_problem(50, 7, cls, 1);
    const double par = 0.7;
    glm_loss loss(k, p.view(), par);
    std::vector<double> theta(7);
    for (std::size_t j = 0; j < 7; ++j) theta[j] = 0.3 * std::sin(1.0 + j);
    double s = 0;
    for (std::size_t i = 0; i < p.n; ++i) {
      double z = 0;
      for (std::size_t j = 0; j < p.d; ++j) z += p.x[i * p.d + j] * theta[j];
      s += direct_f(k, z, p.y[i], par);
    }
    EXPECT_NEAR(loss.value(theta), s / p.n, 1e-13) << to_string(k);
  }
}

TEST(Glm, GradientMatchesFiniteDifferences) {
  for (auto k : kinds) {
    const bool cls = k == glm_kind::logistic || k == glm_kind::smoothed_hinge;
    const auto p = make_problem(40, 6, cls, 2);
    glm_loss loss(k, p.view(), 0.5);
    std::vector<double> theta{0.4, -0.2, 0.9, 0.1, -0.7, 0.3}, grad(6);
    const double v = loss.value_and_gradient(theta, grad);
    EXPECT_NEAR(v, loss.value(theta), 1e-15);
    for (std::size_t j = 0; j < 6; ++j) {
      auto tp = theta, tm = theta;
      const double h = 1e-6;
      tp[j] += h;
      tm[j] -= h;
      const double fd = (loss.value(tp) - loss.value(tm)) / (2 * h);
      EXPECT_NEAR(grad[j], fd, 1e-6 * std::max(1.0, std::fabs(fd))) << to_string(k) << " j=" << j;
    }
  }
}

TEST(Glm, ClippedGradientMatchesDirectLoop) {
  const auto p = make_problem(60, 5, false, 3);
  glm_loss loss(glm_kind::least_squares, p.view());
  std::vector<double> theta{1, -1, 0.5, 2, 0}, grad(5), ex(5);
  const double G = 0.8;
  const double frac = loss.clipped_gradient(theta, G, grad);
  std::vector<double> ref(5, 0.0);
  int clipped = 0;
  for (std::size_t i = 0; i < p.n; ++i) {
    loss.example_gradient(theta, i, ex);
    double norm = 0;
    for (double v : ex) norm += v * v;
    norm = std::sqrt(norm);
    const double c = norm > G ? G / norm : 1.0;
    clipped += norm > G;
    for (std::size_t j = 0; j < 5; ++j) ref[j] += c * ex[j] / p.n;
  }
  for (std::size_t j = 0; j < 5; ++j) EXPECT_NEAR(grad[j], ref[j], 1e-14);
  EXPECT_DOUBLE_EQ(frac, clipped / 60.0);
  EXPECT_GT(clipped, 0);
  // Huge clip: the plain gradient.
  std::vector<double> plain(5);
  loss.value_and_gradient(theta, plain);
  EXPECT_EQ(loss.clipped_gradient(theta, 1e300, grad), 0.0);
  for (std::size_t j = 0; j < 5; ++j) EXPECT_NEAR(grad[j], plain[j], 1e-15);
  // Batch sum.
  const std::vector<std::size_t> batch{0, 5, 5, 59};
  std::vector<double> sum(5), refsum(5, 0.0);
  loss.clipped_gradient_sum(theta, batch, G, sum);
  for (std::size_t i : batch) {
    loss.example_gradient(theta, i, ex);
    double norm = 0;
    for (double v : ex) norm += v * v;
    const double c = std::sqrt(norm) > G ? G / std::sqrt(norm) : 1.0;
    for (std::size_t j = 0; j < 5; ++j) refsum[j] += c * ex[j];
  }
  for (std::size_t j = 0; j < 5; ++j) EXPECT_NEAR(sum[j], refsum[j], 1e-14);
}

TEST(Glm, SmoothnessClosedForm2x2) {
  // X^T X / n = [[a, b], [b, c]]; lambda_max = (a + c)/2 + sqrt(((a - c)/2)^2 + b^2).
  const auto p = make_problem(30, 2, false, 4);
  double a = 0, b = 0, c = 0;
  for (std::size_t i = 0; i < p.n; ++i) {
    a += p.x[2 * i] * p.x[2 * i] / p.n;
    b += p.x[2 * i] * p.x[2 * i + 1] / p.n;
    c += p.x[2 * i + 1] * p.x[2 * i + 1] / p.n;
  }
  const double lmax = (a + c) / 2 + std::sqrt((a - c) * (a - c) / 4 + b * b);
  EXPECT_NEAR(gram_lambda_max(p.view(), 1e-14), lmax, 1e-10);
  const std::vector<double> ones(30, 1.0);  // the loss keeps a view: y must outlive it
  glm_loss logistic(glm_kind::logistic, {p.x, ones, 30, 2});
  EXPECT_NEAR(logistic.smoothness(1e-14), 0.25 * lmax, 1e-10);
}

TEST(Glm, ZeroOneLabelsMapped) {
  auto p = make_problem(20, 3, true, 5);
  std::vector<double> y01(p.y);
  for (double& v : y01) v = v > 0 ? 1.0 : 0.0;
  glm_loss a(glm_kind::logistic, p.view());
  glm_loss b(glm_kind::logistic, {p.x, y01, 20, 3});
  const std::vector<double> theta{0.3, -0.5, 1.0};
  EXPECT_DOUBLE_EQ(a.value(theta), b.value(theta));
}

TEST(Glm, BadInput) {
  auto p = make_problem(10, 2, true, 6);
  EXPECT_THROW(glm_loss(glm_kind::least_squares, {p.x, p.y, 10, 3}), core::invalid_argument_error);
  auto bad = p;
  bad.x[3] = std::nan("");
  EXPECT_THROW(glm_loss(glm_kind::least_squares, bad.view()), core::invalid_argument_error);
  auto badlab = p;
  badlab.y[0] = 0.5;
  EXPECT_THROW(glm_loss(glm_kind::logistic, badlab.view()), core::invalid_argument_error);
  EXPECT_THROW(glm_loss(glm_kind::huber, p.view(), 0.0), core::invalid_argument_error);
  glm_loss ok(glm_kind::least_squares, p.view());
  std::vector<double> theta(3), g(2);
  EXPECT_THROW(ok.value(theta), core::invalid_argument_error);
  EXPECT_THROW(ok.clipped_gradient(std::vector<double>(2), -1.0, g), core::invalid_argument_error);
}

}  // namespace
}  // namespace dpx::losses
