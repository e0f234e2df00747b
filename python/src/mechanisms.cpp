// dpx.mechanisms: every mechanism of dpx::mechanisms with sample / release / privatize over
// numpy arrays (one C++ bulk call per array; no per-element Python loop).
//
// Copies: sample(rng, size) fills a new array in place (no copy). release(array, rng) converts
// the input to a C-contiguous float64 (int64 for integer mechanisms) array only if it is not one
// already (numpy forcecast), then adds the noise to a fresh output array (one copy: the input is
// never modified). privatize(array, rng) adds noise in place and never copies (a non-contiguous
// or wrongly typed array is a ValidationError).
#include <pybind11/stl.h>

#include <cstring>
#include <string>
#include <vector>

#include "common.hpp"
#include "dpx/core/error.hpp"
#include "dpx/mechanisms/mechanisms.hpp"

namespace dpx::python {
namespace {

namespace mech = dpx::mechanisms;
using core::neighbouring;

neighbouring parse_relation(const std::string& s) {
  if (s == "replace_one") return neighbouring::replace_one;
  if (s == "add_remove") return neighbouring::add_remove;
  core::throw_invalid("mechanisms", "relation", s, "must be replace_one or add_remove");
}

template <class M>
void common_properties(py::class_<M>& c) {
  c.def_property_readonly(
      "event",
      [](const M& m) { return event_to_python(m.event()); },
      "The accounting event of one release (compose it with dpx.accounting).");
  c.def_property_readonly(
      "protects",
      [](const M& m) {
        const auto p = m.protects();
        py::dict d;
        d["relation"] = core::to_string(p.relation);
        d["unit"] = core::to_string(p.unit);
        return d;
      },
      "Neighbouring relation and privacy unit of the guarantee.");
}

using i64_in = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>;

// sample / release / privatize for a mechanism on doubles.
template <class M>
void continuous_methods(py::class_<M>& c, const char* cls) {
  const std::string name = std::string(cls) + ".privatize", fill_name = std::string(cls) + ".fill",
                    release_name = std::string(cls) + ".release";
  for_each_generator([&]<class Gen>() {
    c.def(
        "release",
        [](const M& m, double v, Gen& g) {
          return with_engine(g, 1, [&](auto& e) {
            if constexpr (requires { m.release(v, e); }) {
              return m.release(v, e);
            } else {
              double x = v;
              m.privatize(std::span<double>(&x, 1), e);
              return x;
            }
          });
        },
        py::arg("value"),
        py::arg("rng"),
        "value + noise for one scalar query value.");
    c.def(
        "release",
        [release_name](const M& m, const f64_in& v, Gen& g) {
          auto out = empty_like(v);
          std::span<double> s(out.mutable_data(), static_cast<std::size_t>(out.size()));
          std::memcpy(s.data(), v.data(), s.size_bytes());
          if (s.empty()) core::throw_invalid(release_name, "value", "empty", "must be non-empty");
          with_engine(g, s.size(), [&](auto& e) { m.privatize(s, e); });
          return out;
        },
        py::arg("value"),
        py::arg("rng"),
        "value + independent noise per element, as a new float64 array (the vector mechanism; "
        "bit-identical to privatize on a copy).");
    c.def(
        "privatize",
        [name](const M& m, py::array v, Gen& g) {
          auto s = writable_span(name.c_str(), "value", v);
          with_engine(g, s.size(), [&](auto& e) { m.privatize(s, e); });
        },
        py::arg("value"),
        py::arg("rng"),
        "In place value[i] += noise (writable C-contiguous float64 array; no copy).");
    c.def(
        "fill",
        [fill_name](const M& m, py::array out, Gen& g) {
          auto s = writable_span(fill_name.c_str(), "out", out);
          with_engine(g, s.size(), [&](auto& e) { m.fill(s, e); });
        },
        py::arg("out"),
        py::arg("rng"),
        "Overwrites out (writable C-contiguous float64; no copy, no allocation) with noise "
        "draws: the same values as sample(rng, out.size).");
    c.def(
        "sample",
        [](const M& m, Gen& g) { return with_engine(g, 1, [&](auto& e) { return m.sample(e); }); },
        py::arg("rng"),
        "One noise draw (location 0).");
    c.def(
        "sample",
        [](const M& m, Gen& g, py::ssize_t size) {
          if (size < 0) core::throw_invalid("sample", "size", double(size), "must be >= 0");
          auto out = aligned_array(static_cast<std::size_t>(size));
          std::span<double> s(out.mutable_data(), static_cast<std::size_t>(size));
          with_engine(g, s.size(), [&](auto& e) { m.fill(s, e); });
          return out;
        },
        py::arg("rng"),
        py::arg("size"),
        "size independent noise draws as a float64 array (the C++ fill(); bit-identical to "
        "size scalar sample() calls for Laplace, pairs of Box-Muller halves for Gaussian).");
  });
  common_properties(c);
}

// The same for integer-valued mechanisms (int64 arrays).
template <class M>
void integer_methods(py::class_<M>& c, const char* cls) {
  const std::string name = std::string(cls) + ".privatize";
  for_each_generator([&]<class Gen>() {
    c.def(
        "release",
        [](const M& m, std::int64_t v, Gen& g) {
          return with_engine(g, 1, [&](auto& e) { return m.release(v, e); });
        },
        py::arg("value"),
        py::arg("rng"),
        "value + integer noise.");
    c.def(
        "release",
        [](const M& m, const i64_in& v, Gen& g) {
          std::vector<py::ssize_t> shape(v.shape(), v.shape() + v.ndim());
          py::array_t<std::int64_t> out(shape);
          std::span<std::int64_t> s(out.mutable_data(), static_cast<std::size_t>(out.size()));
          std::memcpy(s.data(), v.data(), s.size_bytes());
          with_engine(g, s.size(), [&](auto& e) { m.privatize(s, e); });
          return out;
        },
        py::arg("value"),
        py::arg("rng"),
        "value + noise per element, as a new int64 array.");
    c.def(
        "privatize",
        [name](const M& m, py::array v, Gen& g) {
          auto s = writable_int_span(name.c_str(), "value", v);
          with_engine(g, s.size(), [&](auto& e) { m.privatize(s, e); });
        },
        py::arg("value"),
        py::arg("rng"),
        "In place value[i] += noise (int64 array; no copy).");
    c.def(
        "sample",
        [](const M& m, Gen& g) { return with_engine(g, 1, [&](auto& e) { return m.sample(e); }); },
        py::arg("rng"),
        "One noise draw (an int).");
    c.def(
        "sample",
        [](const M& m, Gen& g, py::ssize_t size) {
          if (size < 0) core::throw_invalid("sample", "size", double(size), "must be >= 0");
          auto out = aligned_int_array(static_cast<std::size_t>(size));
          std::span<std::int64_t> s(out.mutable_data(), static_cast<std::size_t>(size));
          with_engine(g, s.size(), [&](auto& e) { m.fill(s, e); });
          return out;
        },
        py::arg("rng"),
        py::arg("size"),
        "size independent draws as an int64 array.");
  });
  c.def("pmf", &M::pmf, py::arg("z"), "Exact P(Z = z).");
  common_properties(c);
}

}  // namespace

void init_mechanisms(py::module_& m) {
  const auto rel = py::arg("relation") = "replace_one";

  py::class_<mech::laplace> lap(m, "Laplace", R"doc(
Laplace mechanism, research-grade (double noise; Dwork & Roth 2014, Thm. 3.6): b = Delta_1 /
epsilon gives epsilon-DP. The low-order bits of x + noise leak x (Mironov 2012): use
FloatSafeLaplace for real releases.)doc");
  lap.def_static(
         "calibrate",
         [](double eps, double sens, const std::string& r) {
           return mech::laplace::calibrate(eps, sens, parse_relation(r));
         },
         py::arg("epsilon"),
         py::arg("l1_sensitivity") = 1.0,
         rel,
         "b = l1_sensitivity / epsilon (epsilon-DP).")
      .def_static(
          "from_scale",
          [](double b, double sens, const std::string& r) {
            return mech::laplace::from_scale(b, sens, parse_relation(r));
          },
          py::arg("scale"),
          py::arg("l1_sensitivity") = 1.0,
          rel,
          "Noise scale b given directly.")
      .def_property_readonly("scale", &mech::laplace::scale, "Noise scale b.")
      .def_property_readonly("l1_sensitivity",
                             &mech::laplace::l1_sensitivity,
                             "L1 sensitivity Delta_1 the noise is calibrated for.")
      .def_property_readonly("epsilon", &mech::laplace::epsilon, "Delta_1 / b.")
      .def_property_readonly("variance", &mech::laplace::variance, "2 b^2.");
  continuous_methods(lap, "Laplace");

  py::class_<mech::gaussian> ga(m, "Gaussian", R"doc(
Gaussian mechanism, research-grade (Box-Muller in double). Classical calibration (Dwork & Roth
2014, Thm. A.1; epsilon < 1) or analytic (Balle & Wang 2018, exact). Use FloatSafeGaussian for
real releases.)doc");
  ga.def_static(
        "calibrate_analytic",
        [](double eps, double delta, double sens, const std::string& r) {
          return mech::gaussian::calibrate_analytic(eps, delta, sens, parse_relation(r));
        },
        py::arg("epsilon"),
        py::arg("delta"),
        py::arg("l2_sensitivity") = 1.0,
        rel,
        "Smallest sigma giving (epsilon, delta)-DP (Balle & Wang 2018, Algorithm 1).")
      .def_static(
          "calibrate_classical",
          [](double eps, double delta, double sens, const std::string& r) {
            return mech::gaussian::calibrate_classical(eps, delta, sens, parse_relation(r));
          },
          py::arg("epsilon"),
          py::arg("delta"),
          py::arg("l2_sensitivity") = 1.0,
          rel,
          "sigma = Delta_2 sqrt(2 ln(1.25/delta)) / epsilon (epsilon in (0, 1)).")
      .def_static(
          "from_sigma",
          [](double s, double sens, const std::string& r) {
            return mech::gaussian::from_sigma(s, sens, parse_relation(r));
          },
          py::arg("sigma"),
          py::arg("l2_sensitivity") = 1.0,
          rel,
          "sigma given directly.")
      .def_property_readonly("sigma",
                             &mech::gaussian::sigma,
                             "Noise standard deviation sigma (discrete Gaussian: its parameter).")
      .def_property_readonly("l2_sensitivity",
                             &mech::gaussian::l2_sensitivity,
                             "L2 sensitivity Delta_2 the noise is calibrated for.")
      .def_property_readonly(
          "noise_multiplier", &mech::gaussian::noise_multiplier, "sigma / Delta_2.")
      .def("delta_for_epsilon",
           &mech::gaussian::delta_for_epsilon,
           py::arg("epsilon"),
           "delta(epsilon) of one release (Balle & Wang 2018, Thm. 8).");
  continuous_methods(ga, "Gaussian");

  py::class_<mech::float_safe_laplace> fsl(m, "FloatSafeLaplace", R"doc(
Float-safe Laplace: discrete Laplace on the grid Lambda = 2^(floor(log2 b) - granularity_bits);
exactly epsilon-DP for a query of L1 sensitivity Delta_1, for every dimension.)doc");
  fsl.def_static(
         "calibrate",
         [](double eps, double sens, const std::string& r, int bits) {
           return mech::float_safe_laplace::calibrate(eps, sens, parse_relation(r), bits);
         },
         py::arg("epsilon"),
         py::arg("l1_sensitivity") = 1.0,
         rel,
         py::arg("granularity_bits") = mech::float_safe_laplace::default_granularity_bits)
      .def_property_readonly(
          "epsilon", &mech::float_safe_laplace::epsilon, "Privacy parameter epsilon.")
      .def_property_readonly("l1_sensitivity",
                             &mech::float_safe_laplace::l1_sensitivity,
                             "L1 sensitivity Delta_1 the noise is calibrated for.")
      .def_property_readonly("granularity",
                             &mech::float_safe_laplace::granularity,
                             "The grid Lambda (every output is a multiple of it).")
      .def_property_readonly("scale",
                             &mech::float_safe_laplace::scale,
                             "Effective noise scale of a scalar release (>= b).");
  continuous_methods(fsl, "FloatSafeLaplace");

  py::class_<mech::float_safe_gaussian> fsg(m, "FloatSafeGaussian", R"doc(
Float-safe Gaussian: discrete Gaussian on a grid; rho-zCDP with the continuous Gaussian's rho
(Canonne, Kamath & Steinke 2020).)doc");
  fsg.def_static(
         "from_sigma",
         [](double s, double sens, const std::string& r, int bits) {
           return mech::float_safe_gaussian::from_sigma(s, sens, parse_relation(r), bits);
         },
         py::arg("sigma"),
         py::arg("l2_sensitivity") = 1.0,
         rel,
         py::arg("granularity_bits") = mech::float_safe_gaussian::default_granularity_bits)
      .def_static(
          "calibrate_zcdp",
          [](double rho, double sens, const std::string& r, int bits) {
            return mech::float_safe_gaussian::calibrate_zcdp(rho, sens, parse_relation(r), bits);
          },
          py::arg("rho"),
          py::arg("l2_sensitivity") = 1.0,
          rel,
          py::arg("granularity_bits") = mech::float_safe_gaussian::default_granularity_bits)
      .def_property_readonly("sigma",
                             &mech::float_safe_gaussian::sigma,
                             "Noise standard deviation sigma (discrete Gaussian: its parameter).")
      .def_property_readonly("l2_sensitivity",
                             &mech::float_safe_gaussian::l2_sensitivity,
                             "L2 sensitivity Delta_2 the noise is calibrated for.")
      .def_property_readonly("granularity",
                             &mech::float_safe_gaussian::granularity,
                             "The output grid Lambda (a power of two).")
      .def_property_readonly("rho", &mech::float_safe_gaussian::rho, "Delta_2^2 / (2 sigma^2).");
  continuous_methods(fsg, "FloatSafeGaussian");
  // After the float-safe classes exist, so that signatures name them.
  lap.def("float_safe",
          &mech::laplace::float_safe,
          "The float-safe release with the same epsilon and sensitivity (FloatSafeLaplace).");
  ga.def("float_safe",
         &mech::gaussian::float_safe,
         "The float-safe release with the same sigma and sensitivity (FloatSafeGaussian).");

  py::class_<mech::l2_laplace> l2l(m,
                                   "L2Laplace",
                                   "Per-coordinate Laplace calibrated to an L2 sensitivity "
                                   "((epsilon, delta)-DP independent of the dimension).");
  l2l.def_static(
         "calibrate",
         [](double eps, double delta, double sens, const std::string& r) {
           return mech::l2_laplace::calibrate(eps, delta, sens, parse_relation(r));
         },
         py::arg("epsilon"),
         py::arg("delta"),
         py::arg("l2_sensitivity") = 1.0,
         rel)
      .def_static("epsilon_bound",
                  &mech::l2_laplace::epsilon_bound,
                  py::arg("scale"),
                  py::arg("delta"),
                  py::arg("l2_sensitivity"))
      .def_property_readonly("scale", &mech::l2_laplace::scale, "Noise scale.")
      .def_property_readonly("epsilon", &mech::l2_laplace::epsilon, "Privacy parameter epsilon.")
      .def_property_readonly("delta", &mech::l2_laplace::delta, "Privacy parameter delta.")
      .def_property_readonly("l2_sensitivity",
                             &mech::l2_laplace::l2_sensitivity,
                             "L2 sensitivity Delta_2 the noise is calibrated for.");
  continuous_methods(l2l, "L2Laplace");

  py::class_<mech::discrete_laplace> dl(m, "DiscreteLaplace", R"doc(
Discrete Laplace (two-sided geometric) noise, sampled exactly (Canonne, Kamath & Steinke 2020):
f(D) + Z is (Delta / scale)-DP for an integer query of sensitivity Delta.)doc");
  dl.def_static(
        "calibrate",
        [](double eps, std::int64_t sens, const std::string& r) {
          return mech::discrete_laplace::calibrate(eps, sens, parse_relation(r));
        },
        py::arg("epsilon"),
        py::arg("sensitivity") = 1,
        rel)
      .def_static("from_scale",
                  &mech::discrete_laplace::from_scale,
                  py::arg("scale"),
                  py::arg("sensitivity") = 1)
      .def_property_readonly("scale", &mech::discrete_laplace::scale, "Noise scale.")
      .def_property_readonly(
          "sensitivity", &mech::discrete_laplace::sensitivity, "Sensitivity Delta of the query.")
      .def_property_readonly(
          "epsilon", &mech::discrete_laplace::epsilon, "Privacy parameter epsilon.")
      .def_property_readonly(
          "variance", &mech::discrete_laplace::variance, "Variance of one noise draw.");
  integer_methods(dl, "DiscreteLaplace");

  py::class_<mech::discrete_gaussian> dg(m, "DiscreteGaussian", R"doc(
Discrete Gaussian noise, sampled exactly (Canonne, Kamath & Steinke 2020, Algorithm 3):
(Delta^2 / (2 sigma^2))-zCDP for an integer query of L2 sensitivity Delta.)doc");
  dg.def_static(
        "from_sigma",
        [](double s, double sens, const std::string& r) {
          return mech::discrete_gaussian::from_sigma(s, sens, parse_relation(r));
        },
        py::arg("sigma"),
        py::arg("l2_sensitivity") = 1.0,
        rel)
      .def_static(
          "calibrate_zcdp",
          [](double rho, double sens, const std::string& r) {
            return mech::discrete_gaussian::calibrate_zcdp(rho, sens, parse_relation(r));
          },
          py::arg("rho"),
          py::arg("l2_sensitivity") = 1.0,
          rel)
      .def_property_readonly("sigma",
                             &mech::discrete_gaussian::sigma,
                             "Noise standard deviation sigma (discrete Gaussian: its parameter).")
      .def_property_readonly("l2_sensitivity",
                             &mech::discrete_gaussian::l2_sensitivity,
                             "L2 sensitivity Delta_2 the noise is calibrated for.")
      .def_property_readonly(
          "rho", &mech::discrete_gaussian::rho, "zCDP parameter rho = Delta^2 / (2 sigma^2).");
  integer_methods(dg, "DiscreteGaussian");

  py::class_<mech::randomized_response> rr(m, "RandomizedResponse", R"doc(
k-ary randomized response (local model; epsilon-LDP per user). Inputs are categories in [0, k).)doc");
  rr.def_static("calibrate",
                &mech::randomized_response::calibrate,
                py::arg("epsilon"),
                py::arg("categories") = 2)
      .def_property_readonly(
          "epsilon", &mech::randomized_response::epsilon, "Privacy parameter epsilon.")
      .def_property_readonly(
          "categories", &mech::randomized_response::categories, "Number of categories k.")
      .def_property_readonly(
          "truth_probability", &mech::randomized_response::truth_probability, "p' (as run).")
      .def_property_readonly(
          "other_probability",
          &mech::randomized_response::other_probability,
          "q' = (1 - p') / (k - 1), probability of each other category (as run).")
      .def("pmf",
           &mech::randomized_response::pmf,
           py::arg("y"),
           py::arg("x"),
           "P(report = y | input = x).")
      .def(
          "estimate_frequencies",
          [](const mech::randomized_response& r,
             const py::array_t<std::uint64_t, py::array::c_style | py::array::forcecast>& c) {
            return r.estimate_frequencies(
                std::span<const std::uint64_t>(c.data(), static_cast<std::size_t>(c.size())));
          },
          py::arg("counts"),
          "Unbiased frequency estimates (Wang et al. 2017, Thm. 2).")
      .def("estimator_variance",
           &mech::randomized_response::estimator_variance,
           py::arg("true_frequency"),
           py::arg("n"));
  for_each_generator([&]<class Gen>() {
    rr.def(
        "randomize",
        [](const mech::randomized_response& r, std::int64_t x, Gen& g) {
          return with_engine(g, 1, [&](auto& e) { return r.randomize(x, e); });
        },
        py::arg("value"),
        py::arg("rng"),
        "Randomize one category.");
    rr.def(
        "release",
        [](const mech::randomized_response& r, const i64_in& v, Gen& g) {
          std::vector<py::ssize_t> shape(v.shape(), v.shape() + v.ndim());
          py::array_t<std::int64_t> out(shape);
          std::span<std::int64_t> s(out.mutable_data(), static_cast<std::size_t>(out.size()));
          std::memcpy(s.data(), v.data(), s.size_bytes());
          with_engine(g, s.size(), [&](auto& e) { r.privatize(s, e); });
          return out;
        },
        py::arg("value"),
        py::arg("rng"),
        "Randomized copy of an array of categories.");
    rr.def(
        "privatize",
        [](const mech::randomized_response& r, py::array v, Gen& g) {
          auto s = writable_int_span("RandomizedResponse.privatize", "value", v);
          with_engine(g, s.size(), [&](auto& e) { r.privatize(s, e); });
        },
        py::arg("value"),
        py::arg("rng"),
        "Randomize an int64 array of categories in place.");
  });
  common_properties(rr);

  py::class_<mech::exponential_mechanism> em(m, "ExponentialMechanism", R"doc(
The exponential mechanism / report-noisy-max with Gumbel noise (McSherry & Talwar 2007).)doc");
  em.def_static(
        "calibrate",
        [](double eps, double sens, bool mono, const std::string& r) {
          return mech::exponential_mechanism::calibrate(eps, sens, mono, parse_relation(r));
        },
        py::arg("epsilon"),
        py::arg("utility_sensitivity") = 1.0,
        py::arg("monotone") = false,
        rel)
      .def_property_readonly(
          "epsilon", &mech::exponential_mechanism::epsilon, "Privacy parameter epsilon.")
      .def_property_readonly(
          "inverse_temperature",
          &mech::exponential_mechanism::inverse_temperature,
          "c = epsilon / (2 Delta_u) (epsilon / Delta_u for monotone utilities).")
      .def(
          "probabilities",
          [](const mech::exponential_mechanism& e, const f64_in& u) {
            return e.probabilities(
                std::span<const double>(u.data(), static_cast<std::size_t>(u.size())));
          },
          py::arg("utilities"),
          "Selection probabilities.");
  py::class_<mech::permute_and_flip> pf(
      m, "PermuteAndFlip", "Permute-and-flip selection (McKenna & Sheldon 2020).");
  pf.def_static(
        "calibrate",
        [](double eps, double sens, bool mono, const std::string& r) {
          return mech::permute_and_flip::calibrate(eps, sens, mono, parse_relation(r));
        },
        py::arg("epsilon"),
        py::arg("utility_sensitivity") = 1.0,
        py::arg("monotone") = false,
        rel)
      .def_property_readonly(
          "epsilon", &mech::permute_and_flip::epsilon, "Privacy parameter epsilon.")
      .def(
          "probabilities",
          [](const mech::permute_and_flip& e, const f64_in& u) {
            return e.probabilities(
                std::span<const double>(u.data(), static_cast<std::size_t>(u.size())));
          },
          py::arg("utilities"),
          "Selection probabilities.");
  auto select_methods = [&]<class M>(py::class_<M>& c) {
    for_each_generator([&]<class Gen>() {
      c.def(
          "select",
          [](const M& s, const f64_in& u, Gen& g) {
            std::span<const double> us(u.data(), static_cast<std::size_t>(u.size()));
            return with_engine(g, us.size(), [&](auto& e) { return s.select(us, e); });
          },
          py::arg("utilities"),
          py::arg("rng"),
          "Index of the selected candidate.");
    });
    common_properties(c);
  };
  select_methods(em);
  select_methods(pf);
}

}  // namespace dpx::python
