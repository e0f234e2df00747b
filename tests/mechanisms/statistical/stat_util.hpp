#pragma once
// Goodness-of-fit helpers for the statistical tests.
//  * KS: D_n = sup |F_n - F|. Critical value from the Dvoretzky–Kiefer–Wolfowitz inequality
//    with Massart's constant, P(D_n > t) <= 2 exp(-2 n t^2): t = sqrt(ln(2/alpha) / (2n)) has
//    false-positive rate <= alpha for ANY n (a rigorous bound, not an asymptotic one).
//  * Chi-square: Pearson statistic over the support, adjacent cells merged until each expected
//    count is >= 20; critical value = Boost.Math chi-squared quantile at 1 - alpha with
//    (cells - 1) degrees of freedom (asymptotic false-positive rate alpha).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <vector>

#include <boost/math/distributions/chi_squared.hpp>

namespace dpx::test {

inline constexpr double alpha = 1e-6;  // false-positive rate of every test below

inline double ks_statistic(std::vector<double> x, const std::function<double(double)>& cdf) {
  std::sort(x.begin(), x.end());
  const double n = static_cast<double>(x.size());
  double d = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double f = cdf(x[i]);
    d = std::max({d, static_cast<double>(i + 1) / n - f, f - static_cast<double>(i) / n});
  }
  return d;
}

inline double ks_critical(std::size_t n, double a = alpha) {
  return std::sqrt(std::log(2.0 / a) / (2.0 * static_cast<double>(n)));
}

/// True if the sample is consistent with cdf at level alpha.
inline bool ks_accepts(const std::vector<double>& x, const std::function<double(double)>& cdf) {
  return ks_statistic(x, cdf) <= ks_critical(x.size());
}

struct chi2_result {
  double statistic = 0.0;
  double critical = 0.0;
  int cells = 0;
  bool accepts() const { return statistic <= critical; }
};

/// Pearson chi-square of integer samples against pmf on [lo, hi] (mass outside lumped into
/// the end cells).
inline chi2_result chi_square(const std::vector<std::int64_t>& x,
                              const std::function<double(std::int64_t)>& pmf,
                              std::int64_t lo,
                              std::int64_t hi) {
  const double n = static_cast<double>(x.size());
  std::map<std::int64_t, double> obs;
  for (auto v : x) ++obs[std::clamp(v, lo, hi)];
  std::vector<double> e, o;
  double inner = 0.0;
  for (std::int64_t k = lo; k <= hi; ++k) {
    double p = pmf(k);
    if (k != lo && k != hi) inner += p;
    e.push_back(p);
    o.push_back(obs.count(k) ? obs[k] : 0.0);
  }
  // Tails: lump the remaining mass into the end cells (split evenly by symmetry is not
  // assumed: the end cells get their own pmf plus everything beyond, computed as 1 - rest).
  double left_tail = 0.0;
  for (std::int64_t k = lo - 1; k > lo - 100000 && pmf(k) > 1e-300; --k) left_tail += pmf(k);
  e.front() += left_tail;
  double total = 0.0;
  for (double p : e) total += p;
  e.back() += std::max(0.0, 1.0 - total);
  // Merge adjacent cells until expected >= 20.
  std::vector<double> me, mo;
  double ce = 0.0, co = 0.0;
  for (std::size_t i = 0; i < e.size(); ++i) {
    ce += e[i] * n;
    co += o[i];
    if (ce >= 20.0) {
      me.push_back(ce);
      mo.push_back(co);
      ce = co = 0.0;
    }
  }
  if (!me.empty()) {
    me.back() += ce;
    mo.back() += co;
  }
  chi2_result r;
  for (std::size_t i = 0; i < me.size(); ++i)
    r.statistic += (mo[i] - me[i]) * (mo[i] - me[i]) / me[i];
  r.cells = static_cast<int>(me.size());
  const boost::math::chi_squared_distribution<double> chi(static_cast<double>(r.cells - 1));
  r.critical = boost::math::quantile(boost::math::complement(chi, alpha));
  return r;
}

}  // namespace dpx::test
