// The Priestley–Chao oracles (experiments/s1_theory/s1_nonparametric) against values computed by
// hand (box kernel, n = 10) or by an independent dense computation (numpy: the n×n matrix
// φ^{|i−j|} and the Gaussian weights) at one cell each.
#include "s1_theory/s1_nonparametric.hpp"

#include <cmath>
#include <stdexcept>

#include <gtest/gtest.h>

namespace st = dpx::experiments::s1_theory;

namespace {

TEST(S1NonparametricTheory, BoxKernelCellByHand) {
  // n = 10, x_i = i/10, b = 0.25, x0 = 1/2, f = |x − 1/2|, φ = 0.5, ε = 1, γ = 0.1, box kernel.
  // |x_i − 1/2| ≤ 1/4 for i = 3..7: w_i = (1/2)/(10·0.25) = 0.2 (five weights).
  // bias = 0.2·(0.2 + 0.1 + 0 + 0.1 + 0.2) − 0 = 0.12, bias² = 0.0144;
  // wᵀΣw = 0.04·(5 + 2(4·0.5 + 3·0.25 + 2·0.125 + 0.0625)) = 0.04·11.125 = 0.445;
  // mse_np = 0.4594. σ²_max = 1.5/0.5 = 3; Lemma 4.9 (L_f = 1, ‖f‖_∞ = 1/2, μ₁ = ‖K‖_∞ = 1/2,
  // L_K = 1): τ = 0.25·(0.5 + 0.5) + (0.5 + 0.5 + √(2·3·0.5·ln 200))/0.25
  //   = 0.25 + (1 + √15.894952)/0.25 = 0.25 + 4.986847/0.25 = 20.197389;
  // b_L = 12τ/(nε) = 24.236866; MSE = 0.4594 + 2b_L² = 0.4594 + 1174.8514 = 1175.3108.
  st::pc_cell c;
  c.n = 10;
  c.phi = 0.5;
  c.epsilon = 1.0;
  c.kernel = "box";
  c.bandwidth = 0.25;
  const auto p = st::pc_oracle(c);
  EXPECT_DOUBLE_EQ(p.sigma2_max, 3.0);
  EXPECT_DOUBLE_EQ(p.bandwidth, 0.25);
  EXPECT_NEAR(p.mse_np, 0.4594, 1e-14);
  const double tau = 0.25 + (1.0 + std::sqrt(1.5 * std::log(200.0) * 2.0)) / 0.25;
  EXPECT_NEAR(p.tau, 20.197389, 1e-6);
  EXPECT_NEAR(p.tau, tau, 1e-13);
  EXPECT_NEAR(p.laplace_scale, 1.2 * tau, 1e-13);
  EXPECT_NEAR(p.mse, 0.4594 + 2.0 * 1.44 * tau * tau, 1e-10);
}

TEST(S1NonparametricTheory, GaussianKernelCellAgainstDenseComputation) {
  // n = 1000, φ = 0.5, ε = 1, vee, x0 = 1/2, Cor 4.11's bandwidth:
  // b = max((3/1000)^{1/3}, (√3/1000)^{1/2}) = max(0.1442250, 0.0416179) = 0.1442250;
  // τ (Lemma 4.9, ‖K‖_∞ = 1/√(2π), L_K = 1/√(2πe), μ₁ = √(2/π)) = 37.550756;
  // mse_np = bias² + wᵀΣw from numpy's dense 1000×1000 Σ = 0.019044680459238756;
  // b_L = 12τ/1000 = 0.4506091; MSE = mse_np + 2b_L² = 0.42514175.
  st::pc_cell c;
  c.n = 1000;
  c.phi = 0.5;
  c.epsilon = 1.0;
  const auto p = st::pc_oracle(c);
  EXPECT_NEAR(p.bandwidth, 0.14422495703074084, 1e-14);
  EXPECT_NEAR(p.tau, 37.55075589090129, 1e-10);
  EXPECT_NEAR(p.laplace_scale, 0.4506090706908155, 1e-12);
  EXPECT_NEAR(p.mse_np, 0.019044680459238756, 1e-13);
  EXPECT_NEAR(p.mse, 0.4251417496369195, 1e-11);
}

TEST(S1NonparametricTheory, FunctionsKernelsAndParameters) {
  const st::pc_function vee{"vee", -2.0}, bump{"bump", 1.0}, sine{"sine", 1.0};
  EXPECT_DOUBLE_EQ(vee(0.0), -1.0);
  EXPECT_DOUBLE_EQ(vee.lipschitz(), 2.0);
  EXPECT_DOUBLE_EQ(vee.sup_norm(), 1.0);
  EXPECT_DOUBLE_EQ(bump(0.5), 1.0);
  EXPECT_DOUBLE_EQ(bump.lipschitz(), 4.0);
  EXPECT_NEAR(sine(0.25), 1.0, 1e-15);
  const auto box = st::pc_kernel_named("box");
  EXPECT_DOUBLE_EQ(box(1.0), 0.5);
  EXPECT_DOUBLE_EQ(box(1.01), 0.0);
  EXPECT_NEAR(st::pc_kernel_named("gaussian")(0.0), 0.3989422804014327, 1e-16);
  EXPECT_THROW(st::pc_kernel_named("epanechnikov"), std::invalid_argument);
  st::pc_cell c;
  c.n = 100;
  c.epsilon = 0.0;
  EXPECT_THROW(st::pc_oracle(c), std::invalid_argument);
}

}  // namespace
