#include "dpx/mechanisms/selection.hpp"

#include <algorithm>
#include <cmath>

namespace dpx::mechanisms {

exponential_mechanism exponential_mechanism::calibrate(double epsilon,
                                                       double utility_sensitivity,
                                                       bool monotone,
                                                       core::neighbouring relation) {
  const char* fn = "exponential_mechanism::calibrate";
  core::check_positive(fn, "epsilon", epsilon);
  core::check_positive(fn, "utility_sensitivity", utility_sensitivity);
  return exponential_mechanism(epsilon, utility_sensitivity, monotone, relation);
}

std::vector<double> exponential_mechanism::probabilities(std::span<const double> utilities) const {
  core::check_nonempty_finite_span("exponential_mechanism::probabilities", "utilities", utilities);
  const long double c = inverse_temperature();
  const double top = *std::max_element(utilities.begin(), utilities.end());
  long double z = 0.0L;
  std::vector<long double> w(utilities.size());
  for (std::size_t r = 0; r < w.size(); ++r) {
    w[r] = std::exp(c * (static_cast<long double>(utilities[r]) - top));
    z += w[r];
  }
  std::vector<double> p(w.size());
  for (std::size_t r = 0; r < w.size(); ++r) p[r] = static_cast<double>(w[r] / z);
  return p;
}

permute_and_flip permute_and_flip::calibrate(double epsilon,
                                             double utility_sensitivity,
                                             bool monotone,
                                             core::neighbouring relation) {
  const char* fn = "permute_and_flip::calibrate";
  core::check_positive(fn, "epsilon", epsilon);
  core::check_positive(fn, "utility_sensitivity", utility_sensitivity);
  return permute_and_flip(epsilon, utility_sensitivity, monotone, relation);
}

std::vector<double> permute_and_flip::probabilities(std::span<const double> utilities) const {
  const char* fn = "permute_and_flip::probabilities";
  core::check_nonempty_finite_span(fn, "utilities", utilities);
  if (utilities.size() > 8)
    core::throw_invalid(fn,
                        "utilities",
                        static_cast<double>(utilities.size()),
                        "has more than 8 candidates (exact enumeration only)");
  const long double c = inverse_temperature();
  const double top = *std::max_element(utilities.begin(), utilities.end());
  const std::size_t k = utilities.size();
  std::vector<long double> acc(k, 0.0L), pr(k);
  for (std::size_t r = 0; r < k; ++r)
    pr[r] =
        utilities[r] == top ? 1.0L : std::exp(c * (static_cast<long double>(utilities[r]) - top));
  std::vector<std::size_t> perm(k);
  for (std::size_t i = 0; i < k; ++i) perm[i] = i;
  long double count = 0.0L;
  do {
    long double reach = 1.0L;  // probability of reaching position i
    for (std::size_t i = 0; i < k; ++i) {
      acc[perm[i]] += reach * pr[perm[i]];
      reach *= 1.0L - pr[perm[i]];
    }
    count += 1.0L;
  } while (std::next_permutation(perm.begin(), perm.end()));
  std::vector<double> p(k);
  for (std::size_t r = 0; r < k; ++r) p[r] = static_cast<double>(acc[r] / count);
  return p;
}

void quantile_options::validate() const {
  const char* fn = "quantile_options::validate";
  core::check_closed_interval(fn, "quantile", quantile, 0.0, 1.0);
  core::check_finite(fn, "lower", lower);
  core::check_finite(fn, "upper", upper);
  if (!(upper > lower)) core::throw_invalid(fn, "upper", upper, "must be > lower");
  core::check_positive(fn, "epsilon", epsilon);
}

namespace detail {

std::vector<double> quantile_support(std::span<const double> data, const quantile_options& o) {
  std::vector<double> z;
  z.reserve(data.size() + 2);
  z.push_back(o.lower);
  for (double x : data) z.push_back(std::clamp(x, o.lower, o.upper));
  z.push_back(o.upper);
  std::sort(z.begin() + 1, z.end() - 1);
  return z;
}

std::vector<double> quantile_log_weights(std::span<const double> z, double q, double eps) {
  const std::size_t n = z.size() - 2;
  std::vector<double> lw(n + 1);
  const double target = q * static_cast<double>(n);
  for (std::size_t i = 0; i <= n; ++i) {
    const double len = z[i + 1] - z[i];
    const double u = -std::fabs(static_cast<double>(i) - target);
    lw[i] = (len > 0.0 ? std::log(len) : -std::numeric_limits<double>::infinity()) + eps * u / 2.0;
  }
  return lw;
}

}  // namespace detail

}  // namespace dpx::mechanisms
