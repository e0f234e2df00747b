#pragma once
// Internal FFTW helpers for dpx::data (not installed). FFTW planning is not thread-safe
// (FFTW manual §5.4), so every plan creation and destruction goes through one mutex; executing
// a plan with fftw_execute_dft_* on other arrays of the same alignment is thread-safe.
#include <fftw3.h>

#include <cstddef>
#include <memory>
#include <mutex>

namespace dpx::data::detail {

std::mutex& fftw_planner_mutex();

struct fftw_deleter {
  void operator()(double* p) const noexcept { fftw_free(p); }
};
using fft_buffer = std::unique_ptr<double[], fftw_deleter>;
/// SIMD-aligned buffer of n doubles (uninitialised).
fft_buffer make_fft_buffer(std::size_t n);

/// An owned FFTW plan (destroyed under the planner mutex).
class fft_plan {
 public:
  fft_plan() = default;
  explicit fft_plan(fftw_plan p) : p_(p) {}
  ~fft_plan() { reset(); }
  fft_plan(fft_plan&& o) noexcept : p_(o.p_) { o.p_ = nullptr; }
  fft_plan& operator=(fft_plan&& o) noexcept {
    if (this != &o) {
      reset();
      p_ = o.p_;
      o.p_ = nullptr;
    }
    return *this;
  }
  fft_plan(const fft_plan&) = delete;
  fft_plan& operator=(const fft_plan&) = delete;
  fftw_plan get() const noexcept { return p_; }
  void reset() noexcept;

 private:
  fftw_plan p_ = nullptr;
};

/// Real-to-complex forward plan of length m on (in, out) (out has m/2+1 complex entries).
fft_plan plan_r2c(std::size_t m, double* in, fftw_complex* out);
/// Complex-to-real backward (unnormalised) plan of length m.
fft_plan plan_c2r(std::size_t m, fftw_complex* in, double* out);

}  // namespace dpx::data::detail
