#include "dpx/estimators/common.hpp"

#include <cmath>

#include "dpx/core/error.hpp"

namespace dpx::estimators {

std::string to_string(trust_model m) { return m == trust_model::central ? "central" : "local"; }

interval_rule interval_rule::paper(double tau) {
  core::check_positive("interval_rule::paper", "tau", tau);
  return {tau, 3.0 * tau};
}

interval_rule interval_rule::sharper(double tau, double tau_prime) {
  core::check_positive("interval_rule::sharper", "tau", tau);
  core::check_positive("interval_rule::sharper", "tau_prime", tau_prime);
  return {tau_prime, tau + 2.0 * tau_prime};
}

interval_rule interval_rule::custom(double bin_half_width, double radius) {
  interval_rule r{bin_half_width, radius};
  r.validate("interval_rule::custom");
  return r;
}

void interval_rule::validate(const char* function) const {
  // The default rule {0, 0} is "not set": the rule is a required public input (its τ comes
  // from the data's public concentration bound), so there is no default to fall back on.
  if (bin_half_width == 0.0 && radius == 0.0)
    core::throw_invalid(function,
                        "rule",
                        0.0,
                        "is required: set interval_rule::paper(tau), sharper(tau, tau') or custom");
  core::check_positive(function, "bin_half_width", bin_half_width);
  core::check_positive(function, "radius", radius);
}

coordinate_budget split_budget(double epsilon,
                               double delta,
                               std::size_t d,
                               double composition_slack,
                               composition_choice choice) {
  constexpr const char* fn = "split_budget";
  core::check_positive(fn, "epsilon", epsilon);
  if (!(delta >= 0.0 && delta < 1.0)) core::throw_invalid(fn, "delta", delta, "must be in [0, 1)");
  if (d == 0) core::throw_invalid(fn, "d", "0", "must be >= 1");
  if (d == 1) return {epsilon, delta, composition::single, epsilon, delta};
  // The per-coordinate numbers come from core::split_budget (one home for the splits of the
  // solvers and the estimators); S1 Thm 2.4 is the simplified advanced form (Dwork & Roth 2014,
  // Cor 3.21).
  const auto k = static_cast<std::int64_t>(d);
  const auto b = core::split_budget(composition::basic, {epsilon, delta}, k);
  const coordinate_budget basic{b.epsilon, b.delta, composition::basic, epsilon, delta};
  const bool advanced_ok = epsilon < 1.0 && composition_slack > 0.0 && composition_slack < 1.0;
  auto advanced = [&]() -> coordinate_budget {
    const auto a = core::split_budget(composition::advanced,
                                      {epsilon, delta},
                                      k,
                                      composition_slack,
                                      core::advanced_form::simplified);
    return {a.epsilon, a.delta, composition::advanced, epsilon, delta + composition_slack};
  };
  if (!choice) {  // automatic
    if (!advanced_ok) return basic;
    const coordinate_budget a = advanced();
    return a.epsilon > basic.epsilon ? a : basic;
  }
  switch (*choice) {
    case composition::basic:
      return basic;
    case composition::advanced:
      if (!(composition_slack > 0.0 && composition_slack < 1.0))
        core::throw_invalid(fn,
                            "composition_slack",
                            composition_slack,
                            "must be in (0, 1) for advanced composition");
      if (!(epsilon < 1.0))
        core::throw_invalid(
            fn, "epsilon", epsilon, "must be < 1 for advanced composition (S1 Thm 2.4)");
      return advanced();
    default:
      core::throw_invalid(fn, "choice", to_string(choice), "must be automatic, basic or advanced");
  }
}

composition_choice parse_composition_choice(const std::string& s,
                                            const char* function,
                                            const char* parameter) {
  if (s == "automatic") return std::nullopt;
  if (s == "basic") return composition::basic;
  if (s == "advanced") return composition::advanced;
  core::throw_invalid(function, parameter, s, "must be automatic, basic or advanced");
}

std::string to_string(const composition_choice& c) {
  return c ? core::to_string(*c) : std::string("automatic");
}

namespace {
void check_gamma(const char* fn, double gamma) {
  core::check_open_interval(fn, "gamma", gamma, 0.0, 1.0);
}
void check_count(const char* fn, const char* name, std::size_t v) {
  if (v == 0) core::throw_invalid(fn, name, "0", "must be >= 1");
}
}  // namespace

double tau_subgaussian(double sigma2, std::size_t n, double gamma) {
  constexpr const char* fn = "tau_subgaussian";
  core::check_positive(fn, "sigma2", sigma2);
  check_count(fn, "n", n);
  check_gamma(fn, gamma);
  return std::sqrt(2.0 * sigma2 * std::log(2.0 * static_cast<double>(n) / gamma));
}

double tau_prime(double sigma2, double gamma) {
  constexpr const char* fn = "tau_prime";
  core::check_positive(fn, "sigma2", sigma2);
  check_gamma(fn, gamma);
  return std::sqrt(2.0 * sigma2 * std::log(2.0 / gamma));
}

double tau_user(
    double rho_star, std::size_t times, std::size_t users, std::size_t d, double gamma) {
  constexpr const char* fn = "tau_user";
  core::check_positive(fn, "rho_star", rho_star);
  check_count(fn, "times", times);
  check_count(fn, "users", users);
  check_count(fn, "d", d);
  check_gamma(fn, gamma);
  const double l = std::log(2.0 * static_cast<double>(d) * static_cast<double>(users) / gamma);
  return std::sqrt(2.0 * rho_star * l / static_cast<double>(times));
}

double tau_user_mean_variance(double user_mean_variance,
                              std::size_t users,
                              std::size_t d,
                              double gamma) {
  constexpr const char* fn = "tau_user_mean_variance";
  core::check_positive(fn, "user_mean_variance", user_mean_variance);
  check_count(fn, "users", users);
  check_count(fn, "d", d);
  check_gamma(fn, gamma);
  const double l = std::log(2.0 * static_cast<double>(d) * static_cast<double>(users) / gamma);
  return std::sqrt(2.0 * user_mean_variance * l);
}

double tau_regression(double theta_lo,
                      double theta_hi,
                      double sigma2,
                      std::size_t p,
                      std::size_t users,
                      std::size_t times,
                      double gamma) {
  constexpr const char* fn = "tau_regression";
  core::check_positive(fn, "theta_lo", theta_lo);
  core::check_positive(fn, "theta_hi", theta_hi);
  if (theta_hi < theta_lo) core::throw_invalid(fn, "theta_hi", theta_hi, "must be >= theta_lo");
  core::check_positive(fn, "sigma2", sigma2);
  check_count(fn, "p", p);
  check_count(fn, "users", users);
  check_count(fn, "times", times);
  check_gamma(fn, gamma);
  const double l = std::log(2.0 * static_cast<double>(p) * static_cast<double>(users) / gamma);
  return std::sqrt(2.0 * (theta_hi / (theta_lo * theta_lo)) * sigma2 * l /
                   static_cast<double>(times));
}

}  // namespace dpx::estimators
