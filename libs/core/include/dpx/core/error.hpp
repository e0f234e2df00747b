#pragma once
/// \file
/// Validation at public boundaries. Every precondition failure on user input throws
/// dpx::core::invalid_argument_error (a std::invalid_argument) whose message names the
/// function, the parameter and the offending value, e.g.
///   "laplace::calibrate: epsilon = -1 is invalid (must be finite and > 0)".

#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

namespace dpx::core {

/// Bad user input. Derives from std::invalid_argument so callers may catch either.
class invalid_argument_error : public std::invalid_argument {
 public:
  invalid_argument_error(std::string_view function,
                         std::string_view parameter,
                         std::string_view value,
                         std::string_view requirement);
  const std::string& function() const noexcept { return function_; }
  const std::string& parameter() const noexcept { return parameter_; }
  const std::string& value() const noexcept { return value_; }
  /// What the parameter must satisfy ("must be finite and > 0").
  const std::string& requirement() const noexcept { return requirement_; }

 private:
  std::string function_, parameter_, value_, requirement_;
};

/// Shortest round-trip rendering of a double ("0.1", "1e-06", "nan", "inf").
std::string format_double(double x);

[[noreturn]] void throw_invalid(std::string_view function,
                                std::string_view parameter,
                                double value,
                                std::string_view requirement);
[[noreturn]] void throw_invalid(std::string_view function,
                                std::string_view parameter,
                                std::string_view value,
                                std::string_view requirement);

/// x is finite.
void check_finite(std::string_view function, std::string_view parameter, double x);
/// x is finite and > 0 (epsilon, scales, sensitivities).
void check_positive(std::string_view function, std::string_view parameter, double x);
/// x is finite and >= 0.
void check_nonnegative(std::string_view function, std::string_view parameter, double x);
/// lo < x < hi (e.g. delta in (0, 1)); NaN fails.
void check_open_interval(
    std::string_view function, std::string_view parameter, double x, double lo, double hi);
/// lo <= x <= hi; NaN fails.
void check_closed_interval(
    std::string_view function, std::string_view parameter, double x, double lo, double hi);
/// lo < x <= hi (e.g. a sampling rate in (0, 1]); NaN fails.
void check_half_open_interval(
    std::string_view function, std::string_view parameter, double x, double lo, double hi);
/// Every element finite.
void check_finite_span(std::string_view function,
                       std::string_view parameter,
                       std::span<const double> xs);
/// Non-empty and every element finite.
void check_nonempty_finite_span(std::string_view function,
                                std::string_view parameter,
                                std::span<const double> xs);
/// actual == expected (shapes and lengths).
void check_size(std::string_view function,
                std::string_view parameter,
                std::size_t actual,
                std::size_t expected);
/// Integer parameter at least `minimum` (steps, counts).
void check_at_least(std::string_view function,
                    std::string_view parameter,
                    long long value,
                    long long minimum);

}  // namespace dpx::core
