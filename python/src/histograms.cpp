// dpx.mechanisms (compiled part, continued): the private histograms of
// dpx/mechanisms/histogram.hpp. StableHistogram: the thresholded histogram over unbounded bins
// (Roth & Avella-Medina 2025, Algorithm 2 and Lemma C.1; Karwa & Vadhan 2018, Lemma 2.3),
// central model, replace-one. LocalHistogram: one-hot randomized response with debiasing
// (Algorithm 7, Lemma 6.3), epsilon-LDP per user. Large inputs are processed with the GIL
// released.
#include <pybind11/stl.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common.hpp"
#include "dpx/core/error.hpp"
#include "dpx/mechanisms/histogram.hpp"

namespace dpx::python {
namespace {

namespace mech = dpx::mechanisms;
using i64_in = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>;

template <class T>
py::array_t<T> array_of(const std::vector<T>& v) {
  return py::array_t<T>(static_cast<py::ssize_t>(v.size()), v.data());
}

// The output contract (dpx/core/output_contract.hpp, surface SparseHistogram): `occupied` is an
// exact count of the data's bins, withheld (read as None) unless nonprivate_diagnostics.
mech::sparse_histogram under_contract(mech::sparse_histogram h, bool nonprivate_diagnostics) {
  if (!nonprivate_diagnostics) h.occupied = withheld_count;
  return h;
}

}  // namespace

void init_histograms(py::module_& m) {
  py::class_<mech::sparse_histogram>(
      m,
      "SparseHistogram",
      "Output of a stable histogram: the released bins in increasing order of index and their "
      "frequencies (private), and `occupied`, an exact count of the data's distinct bins that "
      "is NOT private (never publish it).")
      .def_property_readonly(
          "bins",
          [](const mech::sparse_histogram& h) { return array_of(h.bins); },
          "Indices k of the released bins (int64).")
      .def_property_readonly(
          "values",
          [](const mech::sparse_histogram& h) { return array_of(h.values); },
          "Released frequencies (>= threshold), same order.")
      .def_property_readonly(
          "occupied",
          [](const mech::sparse_histogram& h) { return count_or_none(h.occupied); },
          "Occupied bins (NOT private; None unless the release was called with "
          "nonprivate_diagnostics=True).")
      .def_readonly("n", &mech::sparse_histogram::n, "Number of records.")
      .def_readonly("threshold", &mech::sparse_histogram::threshold, "Frequency threshold used.")
      .def(
          "argmax",
          [](const mech::sparse_histogram& h) -> py::object {
            std::int64_t k = 0;
            if (!h.argmax(k)) return py::none();
            return py::int_(k);
          },
          "The released bin with the largest frequency (smallest index on ties), or None when "
          "nothing was released.");

  py::class_<mech::stable_histogram> sh(m, "StableHistogram", R"doc(
Stable (thresholded) histogram over unbounded equal-width bins (Roth & Avella-Medina 2025,
Algorithm 2, Lemma C.1; Karwa & Vadhan 2018, Lemma 2.3). Default noise "discrete_laplace"
(float-safe): the integer count c of each occupied bin gets exact discrete Laplace noise Z of
scale tau >= 2/epsilon and (c + Z)/n is released when c + Z >= T = ceil(1 + tau ln(2/delta)).
noise="laplace" is the research-grade Algorithm 2 as printed (double Lap(2/(epsilon n)) on the
frequencies, threshold 2 ln(2/delta)/(epsilon n) + 1/n; NOT float-safe: ask for it by name).
(epsilon, delta)-DP under replace-one, item level (EpsilonDeltaDpEvent).)doc");
  sh.def_static(
        "calibrate",
        [](double epsilon, double delta, const std::string& noise) {
          mech::histogram_noise k = mech::histogram_noise::discrete_laplace;
          if (noise == "laplace")
            k = mech::histogram_noise::laplace;
          else if (noise != "discrete_laplace")
            core::throw_invalid(
                "StableHistogram.calibrate", "noise", noise, "must be discrete_laplace or laplace");
          return mech::stable_histogram::calibrate(epsilon, delta, k);
        },
        py::arg("epsilon"),
        py::arg("delta"),
        py::arg("noise") = "discrete_laplace",
        "The histogram at (epsilon, delta); noise 'discrete_laplace' (default: exact noise on the "
        "integer counts, float-safe) or 'laplace' (research-grade double noise on the "
        "frequencies).")
      .def_property_readonly("epsilon", &mech::stable_histogram::epsilon, "epsilon of the release.")
      .def_property_readonly("delta", &mech::stable_histogram::delta, "delta of the release.")
      .def_property_readonly(
          "noise",
          [](const mech::stable_histogram& h) -> std::string {
            return h.noise() == mech::histogram_noise::laplace ? "laplace" : "discrete_laplace";
          },
          "'discrete_laplace' (float-safe) or 'laplace' (research-grade).")
      .def("noise_scale",
           &mech::stable_histogram::noise_scale,
           py::arg("n"),
           "Noise scale in frequency units: tau/n (discrete_laplace, tau the exact scale on "
           "counts) or 2/(epsilon n) (laplace).")
      .def("threshold",
           &mech::stable_histogram::threshold,
           py::arg("n"),
           "Release threshold on frequencies: T/n (discrete_laplace) or "
           "2 ln(2/delta)/(epsilon n) + 1/n (laplace).")
      .def_property_readonly(
          "count_threshold",
          [](const mech::stable_histogram& h) -> py::object {
            if (h.noise() != mech::histogram_noise::discrete_laplace) return py::none();
            return py::int_(h.count_threshold());
          },
          "T = ceil(1 + tau ln(2/delta)), the count threshold of discrete_laplace (None for "
          "laplace).")
      .def_property_readonly(
          "event",
          [](const mech::stable_histogram& h) { return event_to_python(h.event()); },
          "EpsilonDeltaDpEvent(epsilon, delta).");
  for_each_generator([&]<class Gen>() {
    sh.def(
        "release",
        [](const mech::stable_histogram& h,
           const f64_in& x,
           Gen& g,
           double width,
           double origin,
           bool nonprivate_diagnostics) {
          const std::span<const double> s(x.data(), static_cast<std::size_t>(x.size()));
          const mech::bin_grid grid{width, origin};
          return under_contract(
              with_engine(g, s.size(), [&](auto& e) { return h.release(s, grid, e); }),
              nonprivate_diagnostics);
        },
        py::arg("x"),
        py::arg("rng"),
        py::arg("width") = 1.0,
        py::arg("origin") = 0.0,
        py::arg("nonprivate_diagnostics") = false,
        "Releases the histogram of x over bins (origin + (k - 1/2) width, origin + (k + 1/2) "
        "width].");
    sh.def(
        "release_bins",
        [](const mech::stable_histogram& h,
           const i64_in& keys,
           Gen& g,
           bool nonprivate_diagnostics) {
          const std::span<const std::int64_t> s(keys.data(), static_cast<std::size_t>(keys.size()));
          return under_contract(
              with_engine(g, s.size(), [&](auto& e) { return h.release_bins(s, e); }),
              nonprivate_diagnostics);
        },
        py::arg("keys"),
        py::arg("rng"),
        py::arg("nonprivate_diagnostics") = false,
        "Releases the histogram of precomputed bin indices (int64, one per record).");
  });

  py::class_<mech::local_histogram> lh(m, "LocalHistogram", R"doc(
Local randomized-response histogram over `bins` bins (Roth & Avella-Medina 2025, Algorithm 7):
each user one-hot encodes its bin (-1: none) and flips every bit by binary randomized response
at epsilon/2; epsilon-LDP per user (PureDpEvent). The server debiases the bit averages.)doc");
  lh.def_static("calibrate",
                &mech::local_histogram::calibrate,
                py::arg("epsilon"),
                py::arg("bins"),
                "The protocol at total epsilon per user over bins >= 1 bins.")
      .def_property_readonly("epsilon", &mech::local_histogram::epsilon, "Total epsilon per user.")
      .def_property_readonly("bins", &mech::local_histogram::bins, "Number of bins.")
      .def_property_readonly("keep_probability",
                             &mech::local_histogram::keep_probability,
                             "Per-bit keep probability as run (T / 2^64 <= e^(eps/2)/(1 + "
                             "e^(eps/2))).")
      .def(
          "estimate",
          [](const mech::local_histogram& h,
             const py::array_t<std::uint64_t>& ones,
             std::uint64_t n) {
            const std::span<const std::uint64_t> s(ones.data(),
                                                   static_cast<std::size_t>(ones.size()));
            return array_of(h.estimate(s, n));
          },
          py::arg("ones"),
          py::arg("n"),
          "Debiased frequencies (mean_k - (1 - pi)) / (2 pi - 1) from the per-bin counts of ones.")
      .def("estimator_variance",
           &mech::local_histogram::estimator_variance,
           py::arg("p"),
           py::arg("n"),
           "Variance of one debiased frequency with true frequency p over n users.")
      .def_property_readonly(
          "event",
          [](const mech::local_histogram& h) { return event_to_python(h.event()); },
          "PureDpEvent(epsilon) per user.");
  for_each_generator([&]<class Gen>() {
    lh.def(
        "report_counts",
        [](const mech::local_histogram& h, const i64_in& bins_of_users, Gen& g) {
          const std::span<const std::int64_t> s(bins_of_users.data(),
                                                static_cast<std::size_t>(bins_of_users.size()));
          const auto v = with_engine(g, s.size(), [&](auto& e) { return h.report_counts(s, e); });
          return array_of(v);
        },
        py::arg("bins_of_users"),
        py::arg("rng"),
        "Randomizes every user's one-hot report (bin in [-1, bins)) and returns the per-bin "
        "counts of ones (what the server sees, aggregated).");
  });
}

}  // namespace dpx::python
