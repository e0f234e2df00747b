#pragma once
/// \file
/// Oracles of the private Priestley–Chao experiment (dd_nonparametric) from a cell's INPUTS:
/// Roth & Avella-Medina 2025 Def 4.7–4.8, Lemma 4.9 (radius, as printed), Cor 4.11 (bandwidth,
/// unit constants), Lemma D.14 (box kernel, L_K := 1). Own kernels, test functions and exact
/// non-private MSE of the fixed design x_i = i/n with AR(1) noise — deliberately independent of
/// dpx::estimators and dpx::data. Formulas: docs/theory/dependent-data.md §11.

#include <cstddef>
#include <string>

namespace dpx::experiments::s1_theory {

/// Kernel constants: ‖K‖_∞, L_K, μ₁(K) = ∫|s|K(s)ds. "gaussian" (1/√(2π), 1/√(2πe), √(2/π));
/// "box" K = ½1{|u| ≤ 1} (1/2, 1 by Lemma D.14's convention, 1/2).
struct pc_kernel {
  double sup = 0, lipschitz = 0, mu1 = 0;
  bool box = false;
  double operator()(double u) const;
};
pc_kernel pc_kernel_named(const std::string& kernel);

/// The test functions of the design (a·|x − 1/2|, a·sin(2πx), a·max(0, 1 − 4|x − 1/2|)) with
/// their public constants L_f and ‖f‖_∞ on [0, 1].
struct pc_function {
  std::string shape;
  double amplitude = 1;
  double operator()(double x) const;
  double lipschitz() const;
  double sup_norm() const;
};

/// Inputs of one dd_nonparametric cell. bandwidth 0 = Cor 4.11's.
struct pc_cell {
  std::size_t n = 0;
  double phi = 0;  ///< AR(1) coefficient of the unit-variance noise
  std::string function = "vee";
  double amplitude = 1;
  double x0 = 0.5;
  double epsilon = 0;
  double gamma = 0.1;
  std::string kernel = "gaussian";
  double bandwidth = 0;
};

struct pc_prediction {
  double sigma2_max = 0;     ///< (1 + |φ|)/(1 − |φ|) ≥ λ_max(Σ_n) (docs §8)
  double bandwidth = 0;      ///< (σ²_max/n)^{1/3} ∨ (σ_max/(nε))^{1/2} unless fixed
  double tau = 0;            ///< Lemma 4.9 as printed
  double laplace_scale = 0;  ///< 12τ/(nε) (Algorithm 4 on the terms Z_i at the whole ε)
  double mse_np = 0;  ///< exact non-private MSE: bias² + wᵀΣw, w_i = K((x_i − x0)/b)/(nb)
  double mse = 0;     ///< mse_np + 2 b_L²: exact when nothing is clipped
};
pc_prediction pc_oracle(const pc_cell& c);

/// The exact non-private MSE of (1/(nb)) Σ Y_i K((i/n − x0)/b) with Y_i = f(i/n) + ε_i,
/// Cov ε = φ^{|i−j|}: bias² + wᵀΣw, the quadratic form by the AR(1) recursion
/// S_i = φ(w_{i+1} + S_{i+1}), wᵀΣw = Σ w_i² + 2Σ w_i S_i (exact, O(n)).
/// Lemma 4.9's radius as printed: tau = b(L_f mu_1 + ||f||_inf) + (L_f ||K||_inf + ||f||_inf L_K
/// + sqrt(2 sigma2 ||K||_inf ln(2n/gamma)))/b (the one home of the formula: dd_nonparametric's and
/// dd_local's Priestley-Chao oracles).
double pc_radius(const pc_kernel& k,
                 double bandwidth,
                 double lipschitz,
                 double sup_norm,
                 double sigma2,
                 std::size_t n,
                 double gamma);

double pc_exact_np_mse(
    const pc_function& f, const pc_kernel& k, std::size_t n, double phi, double x0, double b);

}  // namespace dpx::experiments::s1_theory
