// Properties checked (the PUBLIC normaliser n_bar of noisy PGD and ISTDP under add/remove):
//  * add/remove without public_size is rejected (validate(), the solver and the calibration
//    functions), the message naming public_size and its value; replace-one does not need it.
//  * With public_size = 2n the noiseless released gradient (read off the first update, which is
//    exactly -g with step 1 from 0 and no penalty) is exactly half the clipped mean gradient;
//    under replace-one public_size is ignored (exactly the mean); with public_size = n the release
//    is exactly the mean (bit-identical to the pre-n_bar behaviour).
//  * Brute-force sensitivity: D (n = 5 rows whose clipped gradients point near -e1) and
//    D u {z} for 16 extreme z (clipped gradient G u_phi, ||u_phi|| = 1): the released gradients
//    differ in L2 by at most G / n_bar (attained), the solver's reported sensitivity and noise
//    scale are identical on D and D u {z} (the noise scale does not depend on the private n), and
//    the OLD normalisation (the plain mean over the rows at hand) exceeds the old claimed G / n:
//    its difference is up to 2G/(n + 1), so this test fails on the old code.
// All checks are deterministic (no noise is drawn in the compared releases).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <numbers>
#include <string>
#include <utility>
#include <vector>

#include "dpx/core/error.hpp"
#include "dpx/core/rng.hpp"
#include "dpx/losses/losses.hpp"
#include "dpx/prox/prox.hpp"
#include "dpx/solvers/istdp.hpp"
#include "dpx/solvers/pgd.hpp"
#include "test_util.hpp"

namespace dpx::solvers {
namespace {

constexpr double kClip = 1.0;

pgd_options pgd_noiseless(core::neighbouring rel, std::size_t public_size) {
  pgd_options o;
  o.noise_kind = mechanisms::noise_kind::research_grade;  // the papers' mechanisms
  o.iterations = 1;
  o.step_size = 1.0;
  o.output = iterate_output::last;
  o.noise = pgd_noise::none;
  o.clip_norm = kClip;
  o.relation = rel;
  o.public_size = public_size;
  o.trace.enabled = false;
  return o;
}

istdp_options istdp_noiseless(core::neighbouring rel, std::size_t public_size) {
  istdp_options o;
  o.noise_kind = mechanisms::noise_kind::research_grade;  // the papers' mechanisms
  o.variant = istdp_variant::strict;
  o.iterations = 2;  // one release, one update at alpha_max
  o.public_smoothness = 1.0;
  o.alpha_max = 1.0;
  o.alpha_min = 1e-3;
  o.sensitivity = sensitivity_mode::clipping;
  o.clip_norm = kClip;
  o.relation = rel;
  o.public_size = public_size;
  o.calibration = noise_calibration::fixed;
  o.target.reset();  // fixed spends sigma, not a target
  o.sigma = 0.0;
  o.trace.enabled = false;
  return o;
}

// The first released (noiseless) gradient: the first update from 0 with step 1 and no penalty is
// 0 - 1 * g = -g exactly.
std::vector<double> pgd_release(const losses::glm_loss& loss, const pgd_options& o) {
  auto g = rng::stream(1, 0, 0, rng::purpose::noise);
  const std::vector<double> zero(loss.dimension(), 0.0);
  auto r = pgd(loss, prox::zero_penalty{}, zero, o, g);
  for (double& v : r.x) v = -v;
  return r.x;
}
std::vector<double> istdp_release(const losses::glm_loss& loss, const istdp_options& o) {
  auto g = rng::stream(1, 0, 0, rng::purpose::noise);
  const std::vector<double> zero(loss.dimension(), 0.0);
  auto r = istdp(loss, prox::zero_penalty{}, zero, o, g);
  for (double& v : r.x) v = -v;
  return r.x;
}

double l2_distance(const std::vector<double>& a, const std::vector<double>& b) {
  return std::sqrt(detail::squared_distance(a, b));
}

void expect_names_public_size(const std::function<void()>& f) {
  try {
    f();
    ADD_FAILURE() << "add/remove without public_size accepted";
  } catch (const core::invalid_argument_error& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find("public_size"), std::string::npos) << w;
    EXPECT_NE(w.find("= 0"), std::string::npos) << w;
  }
}

TEST(PublicNormaliser, AddRemoveWithoutPublicSizeThrowsNamingIt) {
  const auto s = testing::make_design(20, 3, 2, 0.0, 0.5, 5);
  const losses::glm_loss loss(losses::glm_kind::least_squares, {s.x, s.y, 20, 3});
  const std::vector<double> zero(3, 0.0);
  auto g = rng::stream(2, 0, 0, rng::purpose::noise);

  pgd_options p = pgd_noiseless(core::neighbouring::add_remove, 0);
  p.noise = pgd_noise::gaussian;
  p.calibration = noise_calibration::tight;
  p.target = core::epsilon_delta{1.0, 1e-5};
  expect_names_public_size([&] { p.validate(); });
  expect_names_public_size([&] { (void)pgd(loss, prox::zero_penalty{}, zero, p, g); });
  expect_names_public_size([&] { (void)pgd_calibrate(p, 20, 3); });
  p.relation = core::neighbouring::replace_one;  // n is public: no normaliser needed
  EXPECT_NO_THROW(p.validate());
  EXPECT_DOUBLE_EQ(pgd_calibrate(p, 20, 3).sensitivity, 2 * kClip / 20);

  istdp_options o = istdp_noiseless(core::neighbouring::add_remove, 0);
  o.calibration = noise_calibration::tight;
  o.target = core::epsilon_delta{1.0, 1e-5};
  expect_names_public_size([&] { o.validate(); });
  expect_names_public_size([&] { (void)istdp(loss, prox::zero_penalty{}, zero, o, g); });
  expect_names_public_size([&] { (void)istdp_sensitivity(o, 20); });
  o.relation = core::neighbouring::replace_one;
  EXPECT_NO_THROW(o.validate());
  // gradient_bound: 2U is a ball diameter, no n involved, so no normaliser is needed.
  o.relation = core::neighbouring::add_remove;
  o.sensitivity = sensitivity_mode::gradient_bound;
  o.gradient_bound = 2.0;
  EXPECT_NO_THROW(o.validate());
  EXPECT_EQ(istdp_sensitivity(o, 20), 4.0);
}

TEST(PublicNormaliser, TwiceNHalvesTheReleasedGradientAndReplaceOneIgnoresIt) {
  const std::size_t n = 40, d = 3;
  const auto s = testing::make_design(n, d, 2, 0.2, 1.0, 6);
  const losses::glm_loss loss(losses::glm_kind::least_squares, {s.x, s.y, n, d});
  const double clip = 0.7;
  // Independent clipped mean at theta = 0: per-example gradient -y_i x_i, clipped to `clip`.
  std::vector<double> mean(d, 0.0);
  int clipped = 0;
  for (std::size_t i = 0; i < n; ++i) {
    double nrm = 0;
    for (std::size_t j = 0; j < d; ++j) nrm += std::pow(s.y[i] * s.x[i * d + j], 2);
    nrm = std::sqrt(nrm);
    const double c = nrm > clip ? clip / nrm : 1.0;
    clipped += nrm > clip;
    for (std::size_t j = 0; j < d; ++j) mean[j] -= c * s.y[i] * s.x[i * d + j] / double(n);
  }
  ASSERT_GT(clipped, 5);  // clipping is exercised
  std::vector<double> lib_mean(d);
  loss.clipped_gradient(std::vector<double>(d, 0.0), clip, lib_mean);

  auto p_half = pgd_noiseless(core::neighbouring::add_remove, 2 * n);
  auto i_half = istdp_noiseless(core::neighbouring::add_remove, 2 * n);
  p_half.clip_norm = i_half.clip_norm = clip;
  const auto gp = pgd_release(loss, p_half), gi = istdp_release(loss, i_half);
  for (std::size_t j = 0; j < d; ++j) {
    EXPECT_EQ(gp[j], 0.5 * lib_mean[j]);  // n / n_bar = 0.5 exactly
    EXPECT_EQ(gi[j], 0.5 * lib_mean[j]);
    EXPECT_NEAR(gp[j], 0.5 * mean[j], 1e-14);
  }
  // n_bar = n: the plain mean, bit for bit; replace-one ignores n_bar.
  for (auto [rel, nbar] : {std::pair{core::neighbouring::add_remove, n},
                           std::pair{core::neighbouring::replace_one, 2 * n}}) {
    auto p = pgd_noiseless(rel, nbar);
    auto o = istdp_noiseless(rel, nbar);
    p.clip_norm = o.clip_norm = clip;
    const auto a = pgd_release(loss, p), b = istdp_release(loss, o);
    for (std::size_t j = 0; j < d; ++j) {
      EXPECT_EQ(a[j], lib_mean[j]);
      EXPECT_EQ(b[j], lib_mean[j]);
    }
  }
}

// D: n = 5 unit rows x_i = (cos a_i, sin a_i), a_i in {0, +-0.1, +-0.2}, y_i = 5, so at theta = 0
// the least-squares gradient -y_i x_i is clipped to -G x_i. z: x = u_phi (16 directions), y = -50:
// clipped gradient +G u_phi, the extreme addition.
struct neighbours {
  std::vector<double> x, y;
  std::size_t rows;
};
neighbours make_d(bool with_z, double phi) {
  neighbours v{{}, {}, 0};
  for (double a : {0.0, 0.1, -0.1, 0.2, -0.2}) {
    v.x.insert(v.x.end(), {std::cos(a), std::sin(a)});
    v.y.push_back(5.0);
  }
  if (with_z) {
    v.x.insert(v.x.end(), {std::cos(phi), std::sin(phi)});
    v.y.push_back(-50.0);
  }
  v.rows = v.y.size();
  return v;
}

TEST(PublicNormaliser, BruteForceAddRemoveSensitivityWithinGOverNbar) {
  const std::size_t n = 5, nbar = 5, d = 2;  // n_bar: the public size of D
  const auto base = make_d(false, 0);
  const losses::glm_loss ld(losses::glm_kind::least_squares, {base.x, base.y, n, d});
  const auto p_opt = pgd_noiseless(core::neighbouring::add_remove, nbar);
  const auto i_opt = istdp_noiseless(core::neighbouring::add_remove, nbar);
  const auto pd = pgd_release(ld, p_opt), id = istdp_release(ld, i_opt);
  std::vector<double> old_d(d);
  ld.clipped_gradient(std::vector<double>(d, 0.0), kClip, old_d);

  // Calibrated (noisy) options: the sensitivity and sigma the solvers report and use.
  auto p_noisy = p_opt;
  p_noisy.noise = pgd_noise::gaussian;
  p_noisy.calibration = noise_calibration::tight;
  p_noisy.target = core::epsilon_delta{1.0, 1e-5};
  auto i_noisy = i_opt;
  i_noisy.calibration = noise_calibration::tight;
  i_noisy.target = core::epsilon_delta{1.0, 1e-5};
  auto g = rng::stream(3, 0, 0, rng::purpose::noise);
  const std::vector<double> zero(d, 0.0);
  const auto rp_d = pgd(ld, prox::zero_penalty{}, zero, p_noisy, g);
  const auto ri_d = istdp(ld, prox::zero_penalty{}, zero, i_noisy, g);
  EXPECT_DOUBLE_EQ(rp_d.sensitivity, kClip / nbar);
  EXPECT_DOUBLE_EQ(ri_d.sensitivity, kClip / nbar);
  EXPECT_NE(rp_d.guarantee.find("n_bar = 5"), std::string::npos) << rp_d.guarantee;
  EXPECT_NE(ri_d.guarantee.find("n_bar = 5"), std::string::npos) << ri_d.guarantee;

  double max_new = 0, max_old = 0;
  for (int k = 0; k < 16; ++k) {
    const double phi = 2 * std::numbers::pi * k / 16;
    const auto nb = make_d(true, phi);
    const losses::glm_loss lz(losses::glm_kind::least_squares, {nb.x, nb.y, nb.rows, d});
    const auto pz = pgd_release(lz, p_opt), iz = istdp_release(lz, i_opt);
    const double dp = l2_distance(pd, pz), di = l2_distance(id, iz);
    // The sum changes by exactly the clipped g_z = G u_phi: the bound G / n_bar is attained.
    EXPECT_LE(dp, kClip / nbar * (1 + 1e-12)) << phi;
    EXPECT_LE(di, kClip / nbar * (1 + 1e-12)) << phi;
    EXPECT_NEAR(dp, kClip / nbar, 1e-12);
    EXPECT_NEAR(di, kClip / nbar, 1e-12);
    max_new = std::fmax(max_new, std::fmax(dp, di));
    // Reported sensitivity and noise scale do not depend on the private row count.
    const auto rp_z = pgd(lz, prox::zero_penalty{}, zero, p_noisy, g);
    const auto ri_z = istdp(lz, prox::zero_penalty{}, zero, i_noisy, g);
    EXPECT_EQ(rp_z.sensitivity, rp_d.sensitivity);
    EXPECT_EQ(rp_z.noise_scale, rp_d.noise_scale);
    EXPECT_EQ(ri_z.sensitivity, ri_d.sensitivity);
    EXPECT_EQ(ri_z.noise_scale, ri_d.noise_scale);
    EXPECT_LE(dp, rp_z.sensitivity * (1 + 1e-12));
    // The OLD release: the plain mean over the rows at hand.
    std::vector<double> old_z(d);
    lz.clipped_gradient(zero, kClip, old_z);
    max_old = std::fmax(max_old, l2_distance(old_d, old_z));
  }
  EXPECT_LE(max_new, kClip / nbar * (1 + 1e-12));
  // Power: the mean's add/remove difference reaches ~2G/(n+1) (z opposite to D's gradients),
  // above the old claimed G/n, so the old code (Delta = G/n with the mean) fails this test.
  EXPECT_GT(max_old, 1.5 * kClip / n);
  EXPECT_LE(max_old, 2 * kClip / (n + 1) * (1 + 1e-12));
}

}  // namespace
}  // namespace dpx::solvers
