// dpx.data (compiled part): the scalar time-series and i.i.d. generators of dpx::data. Each
// model's sample(n, rng) fills a new float64 array in place (no copy) and theory(n) returns the
// same quantities as `dpx generate MODEL --describe` (mean, variance, long-run variance,
// autocorrelations at lags 1..5, log-Sobolev constants, n Var(mean)).
#include <pybind11/stl.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "common.hpp"
#include "dpx/core/error.hpp"
#include "dpx/data/arma.hpp"
#include "dpx/data/iid.hpp"
#include "dpx/data/stationary.hpp"

namespace dpx::python {
namespace {

namespace data = dpx::data;

template <class M>
py::dict theory(const M& md, std::size_t n) {
  // Mirrors dpx generate --describe (apps/dpx/cmd_generate.cpp): correlations need a finite
  // variance (NaN otherwise: unknown; JSON null in the CLI).
  py::dict d;
  d["mean"] = md.mean();
  d["variance"] = md.variance();
  d["long_run_variance"] = md.long_run_variance();
  const bool finite = std::isfinite(md.variance());
  py::list ac;
  for (std::size_t h = 1; h <= 5; ++h) {
    ac.append(finite ? md.autocorrelation(h) : std::numeric_limits<double>::quiet_NaN());
  }
  d["autocorrelation"] = ac;
  {
    const single_threaded_blas_scope blas;  // bit-identical to `dpx generate --describe`
    d["log_sobolev"] = md.log_sobolev(n);
  }
  d["marginal_log_sobolev"] = md.marginal_log_sobolev();
  d["mean_variance_constant"] = md.mean_variance_constant(n);
  if constexpr (requires { md.log_sobolev_bound(); })
    d["log_sobolev_bound"] = md.log_sobolev_bound();
  return d;
}

template <class M>
py::class_<M> series_model(py::module_& m, const char* name, const char* doc) {
  py::class_<M> c(m, name, doc);
  for_each_generator([&]<class Gen>() {
    c.def(
        "sample",
        [](const M& md, py::ssize_t n, Gen& g) {
          if (n < 1) core::throw_invalid("sample", "n", double(n), "must be >= 1");
          auto out = aligned_array(static_cast<std::size_t>(n));
          std::span<double> s(out.mutable_data(), static_cast<std::size_t>(n));
          with_engine(g, s.size(), [&](auto& e) { md.sample_into(s, e); });
          return out;
        },
        py::arg("n"),
        py::arg("rng"),
        "A path / sample of length n as a float64 array.");
  });
  c.def("theory",
        &theory<M>,
        py::arg("n"),
        "Exact theoretical quantities for samples of length n (a dict; keys as in "
        "`dpx generate MODEL --describe`).");
  c.def_property_readonly("mean", &M::mean, "Mean of the process.");
  c.def_property_readonly("variance", &M::variance, "Marginal variance gamma(0).");
  c.def_property_readonly(
      "long_run_variance", &M::long_run_variance, "sum over h of gamma(h) (2 pi f(0)).");
  c.def("autocorrelation", &M::autocorrelation, py::arg("h"));
  c.def("mean_variance_constant", &M::mean_variance_constant, py::arg("n"), "n Var(mean of n).");
  return c;
}

// Autocorrelation for the i.i.d. models (0 at every lag h >= 1; the C++ classes have
// autocovariance only).
template <class M>
struct iid_adapter : M {
  using M::M;
  double autocorrelation(std::size_t) const noexcept {
    return std::isfinite(this->variance()) ? 0.0 : std::numeric_limits<double>::quiet_NaN();
  }
};

// Fixed-length stationary Gaussian series sampled by circulant embedding (toeplitz, fgn): the
// length n is part of the model (the embedding is built once), so sample(rng) takes no n and
// theory() no argument.
template <class M>
py::class_<M> fixed_length_model(py::module_& m, const char* name, const char* doc) {
  py::class_<M> c(m, name, doc);
  for_each_generator([&]<class Gen>() {
    c.def(
        "sample",
        [](const M& md, Gen& g) {
          const std::size_t n = md.sampler().size();
          py::array_t<double> out(static_cast<py::ssize_t>(n));
          with_engine(g, n, [&](auto& e) {
            const auto x = md.sample(e);
            std::copy(x.begin(), x.end(), out.mutable_data());  // one copy out of the xtensor
          });
          return out;
        },
        py::arg("rng"),
        "One path of the model's length n as a float64 array.");
  });
  c.def(
      "theory",
      [](const M& md) {
        py::dict d;
        d["mean"] = md.mean();
        d["variance"] = md.variance();
        d["long_run_variance"] = md.long_run_variance();
        py::list ac;
        for (std::size_t h = 1; h <= 5; ++h) ac.append(md.autocorrelation(h));
        d["autocorrelation"] = ac;
        {
          const single_threaded_blas_scope blas;  // bit-identical to the CLI
          d["log_sobolev"] = md.log_sobolev();
        }
        d["marginal_log_sobolev"] = md.marginal_log_sobolev();
        d["mean_variance_constant"] = md.mean_variance_constant();
        d["embedding_size"] = md.sampler().embedding_size();
        return d;
      },
      "Exact theoretical quantities for the model's length (keys as in `dpx generate "
      "MODEL --describe`).");
  c.def_property_readonly(
      "n", [](const M& md) { return md.sampler().size(); }, "Length of a path.");
  c.def("autocorrelation", &M::autocorrelation, py::arg("h"), "Correlation at lag h.");
  return c;
}

}  // namespace

void init_data(py::module_& m) {
  using ig = iid_adapter<data::iid_gaussian>;
  series_model<ig>(m, "IidGaussian", "i.i.d. N(mu, sd^2).")
      .def(py::init([](double mu, double sd) {
             return ig(data::iid_gaussian_options{mu, sd});
           }),
           py::arg("mu") = 0.0,
           py::arg("sd") = 1.0);
  using it = iid_adapter<data::iid_student_t>;
  series_model<it>(m, "StudentT", "i.i.d. Student t with nu degrees of freedom.")
      .def(py::init([](double nu, double mu, double scale) {
             return it(data::iid_student_t_options{nu, mu, scale});
           }),
           py::arg("nu") = 5.0,
           py::arg("mu") = 0.0,
           py::arg("scale") = 1.0);
  using iu = iid_adapter<data::iid_uniform>;
  series_model<iu>(m, "Uniform", "i.i.d. uniform on [lo, hi].")
      .def(py::init([](double lo, double hi) {
             return iu(data::iid_uniform_options{lo, hi});
           }),
           py::arg("lo") = 0.0,
           py::arg("hi") = 1.0);
  using ib = iid_adapter<data::iid_beta>;
  series_model<ib>(m, "Beta", "i.i.d. Beta(a, b).")
      .def(py::init([](double a, double b) {
             return ib(data::iid_beta_options{a, b});
           }),
           py::arg("a") = 2.0,
           py::arg("b") = 2.0);
  series_model<data::ar1>(m,
                          "AR1",
                          "Gaussian AR(1): X_t - mu = phi (X_{t-1} - mu) + sd e_t, stationary "
                          "start.")
      .def(py::init([](double phi, double mu, double sd, bool stationary_start) {
             return data::ar1(data::ar1_options{phi, mu, sd, stationary_start});
           }),
           py::arg("phi") = 0.5,
           py::arg("mu") = 0.0,
           py::arg("innovation_sd") = 1.0,
           py::arg("stationary_start") = true)
      .def("autocovariance", &data::ar1::autocovariance, py::arg("h"))
      .def("spectral_density", &data::ar1::spectral_density, py::arg("frequency"));
  series_model<data::ar1_t>(m, "AR1T", "AR(1) with Student-t innovations (stationary start).")
      .def(py::init([](double phi, double mu, double s, double nu) {
             return data::ar1_t(data::ar1_t_options{phi, mu, s, nu});
           }),
           py::arg("phi") = 0.5,
           py::arg("mu") = 0.0,
           py::arg("innovation_scale") = 1.0,
           py::arg("nu") = 5.0);
  series_model<data::arma>(m, "ARMA", "Gaussian causal ARMA(p, q) with exact stationary start.")
      .def(py::init([](std::vector<double> phi, std::vector<double> theta, double mu, double sd) {
             data::arma_options o;
             o.phi = std::move(phi);
             o.theta = std::move(theta);
             o.mu = mu;
             o.innovation_sd = sd;
             return data::arma(o);
           }),
           py::arg("phi") = std::vector<double>{},
           py::arg("theta") = std::vector<double>{},
           py::arg("mu") = 0.0,
           py::arg("innovation_sd") = 1.0)
      .def("autocovariance", &data::arma::autocovariance, py::arg("h"));
  series_model<data::equicorrelated>(
      m, "Equicorrelated", "Gaussian with Corr(X_s, X_t) = correlation for s != t.")
      .def(py::init([](double c, double v, double mu) {
             return data::equicorrelated(data::equicorrelated_options{c, v, mu});
           }),
           py::arg("correlation") = 0.25,
           py::arg("variance") = 1.0,
           py::arg("mu") = 0.0);
  fixed_length_model<data::toeplitz>(
      m,
      "Toeplitz",
      "Gaussian with Cov(X_s, X_t) = variance rho^|s-t|, length n (circulant embedding).")
      .def(py::init([](std::size_t n, double rho, double v, double mu) {
             const data::toeplitz_options o{rho, v, mu};
             o.validate();
             return data::toeplitz(n, o);
           }),
           py::arg("n"),
           py::arg("rho") = 0.95,
           py::arg("variance") = 1.0,
           py::arg("mu") = 0.0);
  fixed_length_model<data::fgn>(m,
                                "FGN",
                                "Fractional Gaussian noise with Hurst index H, length n "
                                "(circulant embedding).")
      .def(py::init([](std::size_t n, double hurst, double v, double mu) {
             const data::fgn_options o{hurst, v, mu};
             o.validate();
             return data::fgn(n, o);
           }),
           py::arg("n"),
           py::arg("hurst") = 0.75,
           py::arg("variance") = 1.0,
           py::arg("mu") = 0.0);
}

}  // namespace dpx::python
