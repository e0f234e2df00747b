#include "fft.hpp"

#include <new>

namespace dpx::data::detail {

std::mutex& fftw_planner_mutex() {
  static std::mutex m;
  return m;
}

fft_buffer make_fft_buffer(std::size_t n) {
  auto* p = static_cast<double*>(fftw_malloc(sizeof(double) * (n == 0 ? 1 : n)));
  if (p == nullptr) throw std::bad_alloc();
  return fft_buffer(p);
}

void fft_plan::reset() noexcept {
  if (p_ != nullptr) {
    std::lock_guard lock(fftw_planner_mutex());
    fftw_destroy_plan(p_);
    p_ = nullptr;
  }
}

fft_plan plan_r2c(std::size_t m, double* in, fftw_complex* out) {
  std::lock_guard lock(fftw_planner_mutex());
  return fft_plan(fftw_plan_dft_r2c_1d(static_cast<int>(m), in, out, FFTW_ESTIMATE));
}

fft_plan plan_c2r(std::size_t m, fftw_complex* in, double* out) {
  std::lock_guard lock(fftw_planner_mutex());
  return fft_plan(fftw_plan_dft_c2r_1d(static_cast<int>(m), in, out, FFTW_ESTIMATE));
}

}  // namespace dpx::data::detail
