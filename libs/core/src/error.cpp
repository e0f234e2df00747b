#include "dpx/core/error.hpp"

#include <charconv>
#include <cmath>
#include <string>

namespace dpx::core {

namespace {
std::string invalid_message(std::string_view function,
                            std::string_view parameter,
                            std::string_view value,
                            std::string_view requirement) {
  std::string m;
  m.append(function).append(": ").append(parameter).append(" = ").append(value);
  m.append(" is invalid (").append(requirement).append(")");
  return m;
}
}  // namespace

invalid_argument_error::invalid_argument_error(std::string_view function,
                                               std::string_view parameter,
                                               std::string_view value,
                                               std::string_view requirement)
    : std::invalid_argument(invalid_message(function, parameter, value, requirement)),
      function_(function),
      parameter_(parameter),
      value_(value),
      requirement_(requirement) {}

std::string format_double(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, r.ptr);
}

void throw_invalid(std::string_view function,
                   std::string_view parameter,
                   double value,
                   std::string_view requirement) {
  throw invalid_argument_error(function, parameter, format_double(value), requirement);
}

void throw_invalid(std::string_view function,
                   std::string_view parameter,
                   std::string_view value,
                   std::string_view requirement) {
  throw invalid_argument_error(function, parameter, value, requirement);
}

void check_finite(std::string_view function, std::string_view parameter, double x) {
  if (!std::isfinite(x)) throw_invalid(function, parameter, x, "must be finite");
}

void check_positive(std::string_view function, std::string_view parameter, double x) {
  if (!(std::isfinite(x) && x > 0)) {
    throw_invalid(function, parameter, x, "must be finite and > 0");
  }
}

void check_nonnegative(std::string_view function, std::string_view parameter, double x) {
  if (!(std::isfinite(x) && x >= 0)) {
    throw_invalid(function, parameter, x, "must be finite and >= 0");
  }
}

void check_open_interval(
    std::string_view function, std::string_view parameter, double x, double lo, double hi) {
  if (!(x > lo && x < hi)) {
    throw_invalid(function,
                  parameter,
                  x,
                  "must lie in (" + format_double(lo) + ", " + format_double(hi) + ")");
  }
}

void check_closed_interval(
    std::string_view function, std::string_view parameter, double x, double lo, double hi) {
  if (!(x >= lo && x <= hi)) {
    throw_invalid(function,
                  parameter,
                  x,
                  "must lie in [" + format_double(lo) + ", " + format_double(hi) + "]");
  }
}

void check_half_open_interval(
    std::string_view function, std::string_view parameter, double x, double lo, double hi) {
  if (!(x > lo && x <= hi)) {
    throw_invalid(function,
                  parameter,
                  x,
                  "must lie in (" + format_double(lo) + ", " + format_double(hi) + "]");
  }
}

void check_finite_span(std::string_view function,
                       std::string_view parameter,
                       std::span<const double> xs) {
  for (std::size_t i = 0; i < xs.size(); ++i) {
    if (!std::isfinite(xs[i])) {
      throw_invalid(function,
                    std::string(parameter) + "[" + std::to_string(i) + "]",
                    xs[i],
                    "every element must be finite");
    }
  }
}

void check_nonempty_finite_span(std::string_view function,
                                std::string_view parameter,
                                std::span<const double> xs) {
  if (xs.empty()) throw_invalid(function, parameter, "[] (empty)", "must not be empty");
  check_finite_span(function, parameter, xs);
}

void check_size(std::string_view function,
                std::string_view parameter,
                std::size_t actual,
                std::size_t expected) {
  if (actual != expected) {
    throw_invalid(function,
                  std::string(parameter) + ".size()",
                  std::to_string(actual),
                  "must equal " + std::to_string(expected));
  }
}

void check_at_least(std::string_view function,
                    std::string_view parameter,
                    long long value,
                    long long minimum) {
  if (value < minimum) {
    throw_invalid(
        function, parameter, std::to_string(value), "must be >= " + std::to_string(minimum));
  }
}

}  // namespace dpx::core
