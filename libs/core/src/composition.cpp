#include "dpx/core/composition.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "dpx/core/error.hpp"
#include "dpx/core/roots.hpp"

namespace dpx::core {

namespace {
/// The name of an enum value from its table (the enums count from 0 in declaration order).
template <std::size_t N, class E>
std::string name_of(const std::array<const char*, N>& names, E e) {
  const auto i = static_cast<std::size_t>(e);
  return i < N ? names[i] : "?";
}
}  // namespace

std::string to_string(composition_rule r) {
  static constexpr std::array<const char*, 8> names{
      "single", "basic", "advanced", "kov", "kov_optimal", "rdp", "zcdp", "pld"};
  static_assert(static_cast<std::size_t>(composition_rule::pld) + 1 == names.size());
  return name_of(names, r);
}

namespace {
/// "must be a, b or c" for the accepted names.
template <class E>
std::string must_be(std::initializer_list<E> accepted) {
  std::string names;
  std::size_t i = 0;
  for (const E r : accepted) {
    if (i > 0) names += i + 1 == accepted.size() ? " or " : ", ";
    names += to_string(r);
    ++i;
  }
  return "must be " + names;
}

template <class E>
E parse_one_of(const std::string& s,
               std::initializer_list<E> accepted,
               const char* function,
               const char* parameter) {
  for (const E r : accepted) {
    if (to_string(r) == s) return r;
  }
  throw_invalid(function, parameter, s, must_be(accepted));
}
}  // namespace

composition_rule parse_composition_rule(const std::string& s,
                                        std::initializer_list<composition_rule> accepted,
                                        const char* function,
                                        const char* parameter) {
  return parse_one_of(s, accepted, function, parameter);
}

std::string to_string(noise_calibration c) {
  static constexpr std::array<const char*, 7> names{
      "classical", "analytic", "rdp", "pld", "paper", "tight", "fixed"};
  static_assert(static_cast<std::size_t>(noise_calibration::fixed) + 1 == names.size());
  return name_of(names, c);
}

noise_calibration parse_noise_calibration(const std::string& s,
                                          std::initializer_list<noise_calibration> accepted,
                                          const char* function,
                                          const char* parameter) {
  return parse_one_of(s, accepted, function, parameter);
}

void check_noise_calibration(noise_calibration c,
                             std::initializer_list<noise_calibration> accepted,
                             const char* function,
                             const char* parameter) {
  for (const noise_calibration a : accepted) {
    if (a == c) return;
  }
  throw_invalid(function, parameter, to_string(c), must_be(accepted));
}

double advanced_composition_epsilon(double epsilon0, std::int64_t k, double delta_slack) {
  const double kd = static_cast<double>(k);
  return std::sqrt(2.0 * kd * std::log(1.0 / delta_slack)) * epsilon0 +
         kd * epsilon0 * std::expm1(epsilon0);
}

double advanced_per_step_epsilon(double epsilon, std::int64_t k, double delta_slack) {
  const char* fn = "advanced_per_step_epsilon";
  check_positive(fn, "epsilon", epsilon);
  check_at_least(fn, "k", k, 1);
  check_open_interval(fn, "delta_slack", delta_slack, 0.0, 1.0);
  const double kd = static_cast<double>(k);
  // total(epsilon / a) >= epsilon with a = sqrt(2k ln(1/delta_slack)): the bracket's top.
  const double hi = epsilon / std::sqrt(2.0 * kd * std::log(1.0 / delta_slack));
  // The bound is evaluated in double (log, sqrt, expm1 and a few products and sums, each
  // <= 1 ulp): compared with a target lowered by 1e-14 relative, a point that passes meets the
  // exact bound (safe side; costs 1e-14 relative in eps0).
  const double target = epsilon * (1.0 - 1e-14);
  auto ok = [&](double e0) { return advanced_composition_epsilon(e0, k, delta_slack) <= target; };
  if (ok(hi)) return hi;
  return bisect_largest(ok, 0.0, hi, {0.0, 1e-17});
}

double advanced_per_step_epsilon_simplified(double epsilon, std::int64_t k, double delta_slack) {
  const char* fn = "advanced_per_step_epsilon_simplified";
  check_positive(fn, "epsilon", epsilon);
  check_at_least(fn, "k", k, 1);
  check_open_interval(fn, "delta_slack", delta_slack, 0.0, 1.0);
  // log, two products, sqrt and a division: rounded down past their error (safe side).
  return round_down(epsilon / std::sqrt(8.0 * static_cast<double>(k) * std::log(1.0 / delta_slack)),
                    6);
}

epsilon_delta split_budget(
    composition_rule rule, epsilon_delta total, std::int64_t k, double slack, advanced_form form) {
  const char* fn = "split_budget";
  check_positive(fn, "epsilon", total.epsilon);
  if (!(total.delta >= 0.0 && total.delta < 1.0))
    throw_invalid(fn, "delta", total.delta, "must be in [0, 1)");
  check_at_least(fn, "k", k, 1);
  const double kd = static_cast<double>(k);
  switch (rule) {
    case composition_rule::single:
      if (k != 1) throw_invalid(fn, "k", static_cast<double>(k), "must be 1 for 'single'");
      return total;
    case composition_rule::basic:
      // Rounded down (exactly: divide_down) so that k per-step budgets never exceed the total.
      return {divide_down(total.epsilon, kd), divide_down(total.delta, kd)};
    case composition_rule::advanced:
      check_open_interval(fn, "slack", slack, 0.0, 1.0);
      return {form == advanced_form::exact
                  ? advanced_per_step_epsilon(total.epsilon, k, slack)
                  : advanced_per_step_epsilon_simplified(total.epsilon, k, slack),
              divide_down(total.delta, kd)};
    default:
      throw_invalid(fn, "rule", to_string(rule), "must be single, basic or advanced");
  }
}

istdp_calibration istdp_theorem_3_3(double epsilon,
                                    double delta,
                                    std::int64_t iterations,
                                    double sensitivity) {
  const char* fn = "istdp_theorem_3_3";
  check_positive(fn, "epsilon", epsilon);
  check_open_interval(fn, "delta", delta, 0.0, 1.0);
  check_at_least(fn, "iterations", iterations, 1);
  check_positive(fn, "sensitivity", sensitivity);
  const double t = static_cast<double>(iterations);
  istdp_calibration c;
  c.epsilon_step = std::min(epsilon / (2.0 * std::sqrt(2.0 * t * std::log(2.0 / delta))),
                            0.5 * std::sqrt(epsilon / t));
  c.delta_step = delta / (2.0 * t);
  // eps_k and delta_k carry ~5 roundings each, the formula ~5 more: 16 ulps is the safe side
  // of the classical bound at the exact eps_k, delta_k.
  c.noise_multiplier =
      round_up(std::sqrt(2.0 * std::log(1.25 / c.delta_step)) / c.epsilon_step, 16);
  c.sigma = multiply_up(sensitivity, c.noise_multiplier);
  c.classical_valid = c.epsilon_step < 1.0;
  return c;
}

}  // namespace dpx::core
