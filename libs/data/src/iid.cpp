#include "dpx/data/iid.hpp"

#include <numbers>

#include "dpx/core/error.hpp"

namespace dpx::data {

void iid_gaussian_options::validate() const {
  core::check_finite("iid_gaussian", "mu", mu);
  core::check_positive("iid_gaussian", "sd", sd);
}
iid_gaussian::iid_gaussian(iid_gaussian_options o) : o_(o) { o_.validate(); }

void iid_student_t_options::validate() const {
  core::check_positive("iid_student_t", "nu", nu);
  core::check_finite("iid_student_t", "mu", mu);
  core::check_positive("iid_student_t", "scale", scale);
}
iid_student_t::iid_student_t(iid_student_t_options o) : o_(o) { o_.validate(); }
double iid_student_t::mean() const noexcept {
  return o_.nu > 1.0 ? o_.mu : std::numeric_limits<double>::quiet_NaN();
}
double iid_student_t::variance() const noexcept {
  return o_.nu > 2.0 ? o_.scale * o_.scale * o_.nu / (o_.nu - 2.0)
                     : std::numeric_limits<double>::infinity();
}

void iid_uniform_options::validate() const {
  core::check_finite("iid_uniform", "lo", lo);
  core::check_finite("iid_uniform", "hi", hi);
  if (!(hi > lo)) core::throw_invalid("iid_uniform", "hi", hi, "must be > lo");
}
iid_uniform::iid_uniform(iid_uniform_options o) : o_(o) { o_.validate(); }
double iid_uniform::log_sobolev(std::size_t) const noexcept { return marginal_log_sobolev(); }
double iid_uniform::marginal_log_sobolev() const noexcept {
  const double l = o_.hi - o_.lo;
  return l * l / (std::numbers::pi * std::numbers::pi);
}

void iid_beta_options::validate() const {
  core::check_positive("iid_beta", "a", a);
  core::check_positive("iid_beta", "b", b);
}
iid_beta::iid_beta(iid_beta_options o) : o_(o) { o_.validate(); }
double iid_beta::log_sobolev(std::size_t) const noexcept {
  if (o_.a == 1.0 && o_.b == 1.0) return 1.0 / (std::numbers::pi * std::numbers::pi);
  return std::numeric_limits<double>::quiet_NaN();
}
double iid_beta::marginal_log_sobolev() const noexcept {
  if (o_.a == 1.0 && o_.b == 1.0) return 1.0 / (std::numbers::pi * std::numbers::pi);
  return 0.25;
}

}  // namespace dpx::data
