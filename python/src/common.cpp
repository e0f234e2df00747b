// Errors and numpy helpers shared by the binding files.
#include "common.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <new>
#include <stdexcept>

#include "dpx/accounting/accountant.hpp"
#include "dpx/core/error.hpp"

extern "C" void openblas_set_num_threads(int) __attribute__((weak));
extern "C" int openblas_get_num_threads() __attribute__((weak));

namespace dpx::python {

single_threaded_blas_scope::single_threaded_blas_scope() {
  if (openblas_get_num_threads == nullptr || openblas_set_num_threads == nullptr) return;
  saved_ = openblas_get_num_threads();
  if (saved_ != 1) openblas_set_num_threads(1);
}

single_threaded_blas_scope::~single_threaded_blas_scope() {
  if (saved_ > 1) openblas_set_num_threads(saved_);
}

namespace {
template <class T>
py::array_t<T> aligned(std::size_t n) {
  // Large buffers: 2 MiB alignment and MADV_HUGEPAGE, so that first touch faults in huge pages
  // (80 MB of noise: ~40 faults instead of ~20 000, which otherwise dominate sample(size)).
  constexpr std::size_t huge = std::size_t{2} << 20;
  const std::size_t want = n * sizeof(T);
  const std::size_t alignment = want >= 2 * huge ? huge : 64;
  const std::size_t bytes = std::max(alignment, ((want + alignment - 1) / alignment) * alignment);
  void* p = std::aligned_alloc(alignment, bytes);
  if (p == nullptr) throw std::bad_alloc();
  if (alignment == huge) (void)madvise(p, bytes, MADV_HUGEPAGE);  // a hint; failure is harmless
  py::capsule owner(p, [](void* q) { std::free(q); });
  return py::array_t<T>({static_cast<py::ssize_t>(n)},
                        {static_cast<py::ssize_t>(sizeof(T))},
                        static_cast<T*>(p),
                        owner);
}
}  // namespace

py::array_t<double> aligned_array(std::size_t n) { return aligned<double>(n); }
py::array_t<std::int64_t> aligned_int_array(std::size_t n) { return aligned<std::int64_t>(n); }

py::array_t<double> empty_like(const py::array& like) {
  std::vector<py::ssize_t> shape(like.shape(), like.shape() + like.ndim());
  return py::array_t<double>(shape);
}

namespace {
template <class T>
std::span<T> writable(const char* function, const char* parameter, py::array& a, const char* kind) {
  const bool ok =
      py::isinstance<py::array_t<T>>(a) && (a.flags() & py::array::c_style) != 0 && a.writeable();
  if (!ok)
    core::throw_invalid(function,
                        parameter,
                        std::string(py::str(a.dtype())),
                        std::string("must be a writable C-contiguous ") + kind +
                            " numpy array (in-place; use release() for a copy)");
  return {static_cast<T*>(a.mutable_data()), static_cast<std::size_t>(a.size())};
}
}  // namespace

std::span<double> writable_span(const char* function, const char* parameter, py::array& a) {
  return writable<double>(function, parameter, a, "float64");
}
std::span<std::int64_t> writable_int_span(const char* function,
                                          const char* parameter,
                                          py::array& a) {
  return writable<std::int64_t>(function, parameter, a, "int64");
}

void init_errors(py::module_& m) {
  // dpx::core::invalid_argument_error -> dpx.ValidationError(ValueError) with the C++ message
  // and its function / parameter / value; accounting's unsupported_event_error ->
  // dpx.UnsupportedEventError(ValidationError); any other std::invalid_argument ->
  // ValidationError with the message only.
  static py::exception<core::invalid_argument_error> validation(
      m, "ValidationError", PyExc_ValueError);
  static py::exception<accounting::unsupported_event_error> unsupported(
      m, "UnsupportedEventError", validation.ptr());
  validation.doc() =
      "Bad input to a dpx function (a ValueError). The message is the C++ library's; the "
      "attributes function, parameter and value name what was rejected (None when unknown).";
  unsupported.doc() = "An accountant was given a privacy event it cannot interpret.";
  // NOLINTNEXTLINE(performance-unnecessary-value-param): pybind11 needs void(*)(exception_ptr)
  py::register_exception_translator([](std::exception_ptr p) {
    auto raise =
        [](py::handle type, const char* what, py::object fn, py::object par, py::object val) {
          py::object inst = type(what);
          inst.attr("function") = fn;
          inst.attr("parameter") = par;
          inst.attr("value") = val;
          PyErr_SetObject(type.ptr(), inst.ptr());
        };
    try {
      if (p) std::rethrow_exception(p);
    } catch (const core::invalid_argument_error& e) {
      raise(
          validation, e.what(), py::str(e.function()), py::str(e.parameter()), py::str(e.value()));
    } catch (const accounting::unsupported_event_error& e) {
      raise(unsupported, e.what(), py::none(), py::none(), py::none());
    } catch (const std::invalid_argument& e) {
      raise(validation, e.what(), py::none(), py::none(), py::none());
    }
  });
}

}  // namespace dpx::python
