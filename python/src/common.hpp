#pragma once
// Shared pieces of the dpx Python bindings: the generator wrappers, GIL and locking policy,
// numpy helpers, event conversion and the init function of each component's binding file.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <span>
#include <string>

#include "dpx/core/privacy.hpp"
#include "dpx/core/rng.hpp"

namespace dpx::python {

/// A count of the data that the output contract withholds (dpx/core/output_contract.hpp: a
/// non-private diagnostic, kept only with nonprivate_diagnostics=True) is erased to this value;
/// count_or_none reads it as None.
inline constexpr std::size_t withheld_count = static_cast<std::size_t>(-1);
inline std::optional<std::size_t> count_or_none(std::size_t c) {
  if (c == withheld_count) return std::nullopt;
  return c;
}

namespace py = pybind11;

/// A float64 input array: C-contiguous float64 is viewed in place, anything else converted once.
using f64_in = py::array_t<double, py::array::c_style | py::array::forcecast>;

/// Arrays at least this long are filled with the GIL released (a scalar call keeps it: releasing
/// and re-acquiring costs more than the draw).
inline constexpr std::size_t gil_release_threshold = 4096;

/// A Philox stream as a Python object. The mutex makes sharing one generator between Python
/// threads safe (calls are serialised; which thread gets which draws is then up to the
/// scheduler, so reproducible experiments give each thread its own stream).
struct philox_gen {
  rng::philox4x32 engine;
  std::mutex mutex;
  explicit philox_gen(rng::philox4x32 e) : engine(e) {}
};

/// The CSPRNG of real releases (rng::os_random: OpenSSL RAND_priv_bytes) as a Python object.
struct os_gen {
  rng::os_random engine;
  std::mutex mutex;
};

/// Runs f(engine) under the generator's lock, with the GIL released when n is large.
template <class Gen, class F>
decltype(auto) with_engine(Gen& gen, std::size_t n, F&& f) {
  if (n >= gil_release_threshold) {
    py::gil_scoped_release unlocked;
    std::lock_guard<std::mutex> lock(gen.mutex);
    return f(gen.engine);
  }
  std::lock_guard<std::mutex> lock(gen.mutex);
  return f(gen.engine);
}

/// Calls reg.template operator()<Gen>() for every Python generator type, so that each method
/// taking a generator gets one overload per engine (the C++ samplers are templates).
template <class Reg>
void for_each_generator(Reg&& reg) {
  reg.template operator()<philox_gen>();
  reg.template operator()<os_gen>();
}

/// A fresh 1-D array of n values whose buffer is 64-byte aligned (numpy's own allocations are
/// only 16-byte aligned, which costs the SIMD noise kernels about 10%; measured in
/// bench/python/bench_python.py).
py::array_t<double> aligned_array(std::size_t n);
py::array_t<std::int64_t> aligned_int_array(std::size_t n);

/// A fresh C-contiguous float64 array with the shape of `like`.
py::array_t<double> empty_like(const py::array& like);

/// The array as a writable C-contiguous float64 span, or a ValidationError naming `parameter`
/// (in-place methods never copy: a copy would silently leave the caller's array unchanged).
std::span<double> writable_span(const char* function, const char* parameter, py::array& a);
std::span<std::int64_t> writable_int_span(const char* function,
                                          const char* parameter,
                                          py::array& a);

/// Runs OpenBLAS single-threaded while alive and restores the caller's thread count after, as
/// the dpx tool does for its whole run (dpx::harness::single_threaded_blas): a multi-threaded
/// LAPACK eigensolver changes the last bits of e.g. a log-Sobolev constant, and results must be
/// bit-identical to the CLI's. A no-op without OpenBLAS. Not thread-safe with respect to other
/// Python threads that change the OpenBLAS thread count at the same time.
class single_threaded_blas_scope {
 public:
  single_threaded_blas_scope();
  ~single_threaded_blas_scope();
  single_threaded_blas_scope(const single_threaded_blas_scope&) = delete;
  single_threaded_blas_scope& operator=(const single_threaded_blas_scope&) = delete;

 private:
  int saved_ = -1;
};

/// privacy_event <-> Python objects (the bound event classes of events.cpp).
py::object event_to_python(const core::privacy_event& e);
core::privacy_event event_from_python(py::handle h);

/// Component binding functions (one source file each).
void init_errors(py::module_& m);
void init_core(py::module_& m);
void init_events(py::module_& m);
void init_mechanisms(py::module_& m);
void init_histograms(py::module_& m);
void init_data(py::module_& m);
void init_data_registry(py::module_& m);
void init_accounting(py::module_& m);
void init_bench(py::module_& m);
void init_solvers(py::module_& m);
void init_estimators(py::module_& m);
void init_audit(py::module_& m);
void init_experiments(py::module_& m);

}  // namespace dpx::python
