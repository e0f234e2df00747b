#pragma once
/// \file
/// Panel data: n users × T time points × d coordinates, row-major (user, time, coordinate).
/// User u's block X_u ∈ R^{T×d} is contiguous, which is what user-level estimators consume
/// (docs/theory/dependent-data.md §4.1: a user-level record is the whole block). Deliberately free
/// of xtensor so that estimators can include it cheaply.

#include <cstddef>
#include <span>
#include <vector>

namespace dpx::data {

class panel {
 public:
  panel() = default;
  /// Zero-filled panel; throws core::invalid_argument_error on a zero dimension.
  panel(std::size_t users, std::size_t times, std::size_t dims);

  std::size_t users() const noexcept { return n_; }
  std::size_t times() const noexcept { return t_; }
  std::size_t dims() const noexcept { return d_; }
  std::size_t size() const noexcept { return v_.size(); }

  double& operator()(std::size_t u, std::size_t t, std::size_t j = 0) noexcept {
    return v_[(u * t_ + t) * d_ + j];
  }
  double operator()(std::size_t u, std::size_t t, std::size_t j = 0) const noexcept {
    return v_[(u * t_ + t) * d_ + j];
  }
  /// User u's T×d block (row-major).
  std::span<double> user(std::size_t u) noexcept {
    return std::span<double>(v_).subspan(u * t_ * d_, t_ * d_);
  }
  std::span<const double> user(std::size_t u) const noexcept {
    return std::span<const double>(v_).subspan(u * t_ * d_, t_ * d_);
  }
  std::span<double> values() noexcept { return v_; }
  std::span<const double> values() const noexcept { return v_; }

  /// Per-user time averages μ̂_u = (1/T) Σ_t X_{u,t,·}: n×d row-major (docs/theory/dependent-data.md
  /// §4.1).
  std::vector<double> user_means() const;

 private:
  std::size_t n_ = 0, t_ = 0, d_ = 0;
  std::vector<double> v_;
};

}  // namespace dpx::data
