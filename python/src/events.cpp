// Privacy events (dpx::core::privacy_event alternatives) as Python classes named like
// dp_accounting's (GaussianDpEvent, LaplaceDpEvent, EpsilonDeltaDpEvent, ...). Mechanisms
// return them from .event; dpx.accounting composes them.
#include <pybind11/stl.h>

#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "common.hpp"
#include "dpx/core/error.hpp"

namespace dpx::python {
namespace {

std::string fmt(double x) { return core::format_double(x); }

// The constructors validate through the one home of the events' domains (core::check_event):
// GaussianDpEvent(-1.0) raises ValueError naming noise_multiplier here, not at compose.
template <class E>
E checked(const char* name, E e) {
  core::check_event(name, e);
  return e;
}

// Equality, hashing-free value semantics and the kind name shared by every event class.
template <class E>
py::class_<E> event_class(py::module_& m, const char* name, const char* doc) {
  py::class_<E> c(m, name, doc);
  c.def("__eq__", [](const E& a, const E& b) { return a == b; });
  c.def("__eq__", [](const E&, const py::object&) { return false; });
  c.def_property_readonly(
      "kind",
      [](const E& e) { return core::event_name(core::privacy_event(e)); },
      "dpx's short name of the event kind (as in the CLI's JSON).");
  return c;
}

// A Poisson-subsampled event E{sampling_rate, noise_multiplier} (Gaussian or Laplace).
template <class E>
void poisson_sampled_event(py::module_& m,
                           const char* name,
                           const char* doc,
                           const char* multiplier_doc) {
  event_class<E>(m, name, doc)
      .def(py::init([name](double q, double s) {
             return checked(name, E{q, s});
           }),
           py::arg("sampling_rate"),
           py::arg("noise_multiplier"))
      .def_readonly("sampling_rate", &E::sampling_rate, "Poisson sampling rate q.")
      .def_readonly("noise_multiplier", &E::noise_multiplier, multiplier_doc)
      .def("__repr__", [name = std::string(name)](const E& e) {
        return name + "(sampling_rate=" + fmt(e.sampling_rate) +
               ", noise_multiplier=" + fmt(e.noise_multiplier) + ")";
      });
}

}  // namespace

py::object event_to_python(const core::privacy_event& e) {
  return std::visit([](const auto& x) { return py::cast(x); }, e);
}

core::privacy_event event_from_python(py::handle h) {
  // Each alternative's bound class; anything else is rejected with the type's name.
  core::privacy_event out;
  bool found = false;
  auto try_one = [&](auto tag) {
    using E = decltype(tag);
    if (!found && py::isinstance<E>(h)) {
      out = h.cast<E>();
      found = true;
    }
  };
  std::apply([&](auto... tags) { (try_one(tags), ...); },
             std::tuple<core::pure_dp_event,
                        core::approx_dp_event,
                        core::laplace_event,
                        core::gaussian_event,
                        core::subsampled_gaussian_event,
                        core::discrete_laplace_event,
                        core::discrete_gaussian_event,
                        core::randomized_response_event,
                        core::zcdp_event,
                        core::discrete_pair_event,
                        core::exponential_mechanism_event,
                        core::subsampled_laplace_event,
                        core::sampled_without_replacement_event>{});
  if (!found)
    core::throw_invalid("compose",
                        "event",
                        std::string(py::str(py::type::handle_of(h))),
                        "is not a dpx privacy event");
  return out;
}

void init_events(py::module_& m) {
  event_class<core::pure_dp_event>(m, "PureDpEvent", "A pure epsilon-DP release.")
      .def(py::init([](double eps) { return checked("PureDpEvent", core::pure_dp_event{eps}); }),
           py::arg("epsilon"))
      .def_readonly("epsilon", &core::pure_dp_event::epsilon, "Privacy parameter epsilon.")
      .def("__repr__", [](const core::pure_dp_event& e) {
        return "PureDpEvent(epsilon=" + fmt(e.epsilon) + ")";
      });
  event_class<core::approx_dp_event>(
      m, "EpsilonDeltaDpEvent", "An (epsilon, delta)-DP release with no finer description.")
      .def(py::init([](double eps, double delta) {
             return checked("EpsilonDeltaDpEvent", core::approx_dp_event{eps, delta});
           }),
           py::arg("epsilon"),
           py::arg("delta"))
      .def_readonly("epsilon", &core::approx_dp_event::epsilon, "Privacy parameter epsilon.")
      .def_readonly("delta", &core::approx_dp_event::delta, "Privacy parameter delta.")
      .def("__repr__", [](const core::approx_dp_event& e) {
        return "EpsilonDeltaDpEvent(epsilon=" + fmt(e.epsilon) + ", delta=" + fmt(e.delta) + ")";
      });
  event_class<core::laplace_event>(
      m,
      "LaplaceDpEvent",
      "Laplace noise of scale b on a query of L1 sensitivity Delta: noise_multiplier = b / "
      "Delta ((1 / noise_multiplier)-DP).")
      .def(py::init([](double s) { return checked("LaplaceDpEvent", core::laplace_event{s}); }),
           py::arg("noise_multiplier"))
      .def_readonly("noise_multiplier",
                    &core::laplace_event::noise_multiplier,
                    "Noise scale per unit sensitivity (sigma / Delta or b / Delta).")
      .def("__repr__", [](const core::laplace_event& e) {
        return "LaplaceDpEvent(noise_multiplier=" + fmt(e.noise_multiplier) + ")";
      });
  event_class<core::gaussian_event>(
      m,
      "GaussianDpEvent",
      "Gaussian noise sigma on a query of L2 sensitivity Delta: noise_multiplier = sigma / "
      "Delta.")
      .def(py::init([](double s) { return checked("GaussianDpEvent", core::gaussian_event{s}); }),
           py::arg("noise_multiplier"))
      .def_readonly("noise_multiplier",
                    &core::gaussian_event::noise_multiplier,
                    "Noise scale per unit sensitivity (sigma / Delta or b / Delta).")
      .def("__repr__", [](const core::gaussian_event& e) {
        return "GaussianDpEvent(noise_multiplier=" + fmt(e.noise_multiplier) + ")";
      });
  poisson_sampled_event<core::subsampled_gaussian_event>(
      m,
      "PoissonSampledGaussianDpEvent",
      "Poisson subsampling with rate q followed by a Gaussian release (add/remove neighbours); "
      "dpx.accounting.PoissonSampledDpEvent(q, GaussianDpEvent(s)) becomes this event.",
      "Noise scale per unit sensitivity (sigma / Delta or b / Delta).");
  poisson_sampled_event<core::subsampled_laplace_event>(
      m,
      "PoissonSampledLaplaceDpEvent",
      "Poisson subsampling with rate q followed by a Laplace release (add/remove neighbours).",
      "Laplace scale per unit L1 sensitivity (b / Delta1).");
  event_class<core::sampled_without_replacement_event>(
      m,
      "SampledWithoutReplacementDpEvent",
      "A fixed-size batch drawn without replacement, then a Gaussian or Laplace release; "
      "noise_multiplier is relative to the replace-one sensitivity of the batch query "
      "(docs/accounting.md, 'Subsampling').")
      .def(py::init([](const std::string& noise,
                       double s,
                       std::int64_t batch,
                       std::int64_t n,
                       const std::string& rel) {
             if (noise != "gaussian" && noise != "laplace")
               core::throw_invalid("SampledWithoutReplacementDpEvent",
                                   "noise",
                                   noise,
                                   "must be gaussian or laplace");
             if (rel != "replace_one" && rel != "add_remove")
               core::throw_invalid("SampledWithoutReplacementDpEvent",
                                   "neighbouring",
                                   rel,
                                   "must be replace_one or add_remove");
             return checked("SampledWithoutReplacementDpEvent",
                            core::sampled_without_replacement_event{
                                noise == "gaussian" ? core::noise_family::gaussian
                                                    : core::noise_family::laplace,
                                s,
                                batch,
                                n,
                                rel == "replace_one" ? core::neighbouring::replace_one
                                                     : core::neighbouring::add_remove});
           }),
           py::arg("noise"),
           py::arg("noise_multiplier"),
           py::arg("batch_size"),
           py::arg("dataset_size"),
           py::arg("neighbouring") = "replace_one")
      .def_readonly("noise_multiplier",
                    &core::sampled_without_replacement_event::noise_multiplier,
                    "Noise scale per unit replace-one sensitivity of the batch query.")
      .def_readonly("batch_size",
                    &core::sampled_without_replacement_event::batch_size,
                    "Records per batch m.")
      .def_readonly("dataset_size",
                    &core::sampled_without_replacement_event::dataset_size,
                    "Dataset size n (add/remove: the larger dataset of a neighbouring pair).")
      .def("__repr__", [](const core::sampled_without_replacement_event& e) {
        return std::string("SampledWithoutReplacementDpEvent(noise=") +
               (e.noise == core::noise_family::gaussian ? "gaussian" : "laplace") +
               ", noise_multiplier=" + fmt(e.noise_multiplier) +
               ", batch_size=" + std::to_string(e.batch_size) +
               ", dataset_size=" + std::to_string(e.dataset_size) + ", neighbouring=" +
               (e.relation == core::neighbouring::replace_one ? "replace_one" : "add_remove") + ")";
      });
  event_class<core::discrete_laplace_event>(
      m,
      "DiscreteLaplaceDpEvent",
      "Discrete Laplace with scale t on an integer query of sensitivity Delta.")
      .def(py::init([](double t, std::int64_t d) {
             return checked("DiscreteLaplaceDpEvent", core::discrete_laplace_event{t, d});
           }),
           py::arg("scale"),
           py::arg("sensitivity") = 1)
      .def_readonly("scale", &core::discrete_laplace_event::scale, "Noise scale.")
      .def_readonly("sensitivity",
                    &core::discrete_laplace_event::sensitivity,
                    "Sensitivity Delta of the query.")
      .def("__repr__", [](const core::discrete_laplace_event& e) {
        return "DiscreteLaplaceDpEvent(scale=" + fmt(e.scale) +
               ", sensitivity=" + std::to_string(e.sensitivity) + ")";
      });
  event_class<core::discrete_gaussian_event>(
      m,
      "DiscreteGaussianDpEvent",
      "Discrete Gaussian with parameter sigma on an integer query of L2 sensitivity Delta.")
      .def(py::init([](double s, double d) {
             return checked("DiscreteGaussianDpEvent", core::discrete_gaussian_event{s, d});
           }),
           py::arg("sigma"),
           py::arg("sensitivity") = 1.0)
      .def_readonly("sigma",
                    &core::discrete_gaussian_event::sigma,
                    "Noise standard deviation sigma (discrete Gaussian: its parameter).")
      .def_readonly("sensitivity",
                    &core::discrete_gaussian_event::sensitivity,
                    "Sensitivity Delta of the query.")
      .def("__repr__", [](const core::discrete_gaussian_event& e) {
        return "DiscreteGaussianDpEvent(sigma=" + fmt(e.sigma) +
               ", sensitivity=" + fmt(e.sensitivity) + ")";
      });
  event_class<core::randomized_response_event>(
      m,
      "RandomizedResponseDpEvent",
      "k-ary randomized response with parameter epsilon (truth with probability e^eps / (e^eps "
      "+ k - 1)). Note: dp_accounting's RandomizedResponseDpEvent takes (noise_parameter, "
      "num_buckets) instead.")
      .def(py::init([](double eps, std::int64_t k) {
             return checked("RandomizedResponseDpEvent", core::randomized_response_event{eps, k});
           }),
           py::arg("epsilon"),
           py::arg("categories") = 2)
      .def_readonly(
          "epsilon", &core::randomized_response_event::epsilon, "Privacy parameter epsilon.")
      .def_readonly(
          "categories", &core::randomized_response_event::categories, "Number of categories k.")
      .def("__repr__", [](const core::randomized_response_event& e) {
        return "RandomizedResponseDpEvent(epsilon=" + fmt(e.epsilon) +
               ", categories=" + std::to_string(e.categories) + ")";
      });
  event_class<core::zcdp_event>(m, "ZCdpEvent", "A rho-zCDP release (Bun & Steinke 2016).")
      .def(py::init([](double rho) { return checked("ZCdpEvent", core::zcdp_event{rho}); }),
           py::arg("rho"))
      .def_readonly("rho", &core::zcdp_event::rho, "zCDP parameter rho = Delta^2 / (2 sigma^2).")
      .def("__repr__",
           [](const core::zcdp_event& e) { return "ZCdpEvent(rho=" + fmt(e.rho) + ")"; });
  event_class<core::discrete_pair_event>(
      m,
      "DiscretePairDpEvent",
      "A mechanism given by its dominating pair (P, Q) on a common finite support.")
      .def(py::init([](std::vector<double> p, std::vector<double> q) {
             return checked("DiscretePairDpEvent",
                            core::discrete_pair_event{std::move(p), std::move(q)});
           }),
           py::arg("p"),
           py::arg("q"))
      .def_readonly("p", &core::discrete_pair_event::p, "Probabilities of the output under D.")
      .def_readonly(
          "q", &core::discrete_pair_event::q, "Probabilities of the output under the neighbour D'.")
      .def("__repr__", [](const core::discrete_pair_event& e) {
        return "DiscretePairDpEvent(<support " + std::to_string(e.p.size()) + ">)";
      });
  event_class<core::exponential_mechanism_event>(
      m,
      "ExponentialMechanismDpEvent",
      "The exponential mechanism / report-noisy-max (epsilon-DP and epsilon-bounded-range).")
      .def(py::init([](double eps) {
             return checked("ExponentialMechanismDpEvent", core::exponential_mechanism_event{eps});
           }),
           py::arg("epsilon"))
      .def_readonly(
          "epsilon", &core::exponential_mechanism_event::epsilon, "Privacy parameter epsilon.")
      .def("__repr__", [](const core::exponential_mechanism_event& e) {
        return "ExponentialMechanismDpEvent(epsilon=" + fmt(e.epsilon) + ")";
      });
}

}  // namespace dpx::python
