// Registered stationary Gaussian vectors: toeplitz, equicorrelated, fgn (dpx/data/stationary.hpp).
#include "dpx/data/stationary.hpp"
#include "models.hpp"

namespace dpx::data::model_defs {
namespace {

const param_spec variance_spec{
    "variance", param_type::real, "1", positive_variance, "marginal variance"};

// toeplitz and fgn: a stationary_gaussian sampler built once for length n.
template <class M>
struct circulant_vector final : gaussian_vector {
  explicit circulant_vector(std::shared_ptr<const M> m) : md(std::move(m)) {}
  std::shared_ptr<const M> md;
  std::size_t size() const noexcept override { return md->sampler().size(); }
  void sample_into(std::span<double> out, rng::philox4x32& g) const override {
    md->sampler().sample_into(out, g);
  }
  double log_sobolev() const override { return md->log_sobolev(); }
  double mean_variance_constant() const override { return md->mean_variance_constant(); }
};

template <class M>
realization circulant_realization(std::shared_ptr<const M> md,
                                  description par,
                                  std::size_t n,
                                  bool describe,
                                  rng::philox4x32& g) {
  realization r;
  r.parameters = std::move(par);
  if (describe) {
    r.theory = series_theory(*md, md->log_sobolev(), md->mean_variance_constant());
    const bool circulant = md->sampler().method() == sampling_method::circulant;
    r.theory.add("sampling_method", std::string(circulant ? "circulant" : "cholesky"));
    r.theory.add("embedding_size", md->sampler().embedding_size());
  }
  (void)n;
  r.write = [md, &g](table_sink& w) { write_series(w, md->sample(g)); };
  return r;
}

toeplitz_options toeplitz_of(const param_values& p) {
  return {p.real("rho"), p.real("variance"), p.real("mu")};
}
fgn_options fgn_of(const param_values& p) {
  return {p.real("hurst"), p.real("variance"), p.real("mu")};
}
equicorrelated_options equicorrelated_of(const param_values& p) {
  return {p.real("correlation"), p.real("variance"), p.real("mu")};
}

}  // namespace

model_entry toeplitz_model() {
  model_entry m{"toeplitz",
                "stationary Gaussian with Cov(X_i, X_j) = variance rho^|i-j| (AR(1) covariance)",
                "series length",
                "x",
                {{"rho", param_type::real, "0.95", open_unit, "lag-one correlation"},
                 variance_spec,
                 mu_spec}};
  m.realize = [](const param_values& p, std::size_t n, bool describe, rng::philox4x32& g) {
    const auto op = toeplitz_of(p);
    auto md = std::make_shared<const toeplitz>(n, op);
    description par;
    par.add("rho", op.rho).add("variance", op.variance).add("mu", op.mu);
    return circulant_realization(md, std::move(par), n, describe, g);
  };
  m.vector = [](const param_values& p, std::size_t n) -> std::shared_ptr<const gaussian_vector> {
    return std::make_shared<circulant_vector<toeplitz>>(
        std::make_shared<const toeplitz>(n, toeplitz_of(p)));
  };
  return m;
}

model_entry fgn_model() {
  model_entry m{"fgn",
                "fractional Gaussian noise with Hurst index hurst (circulant embedding)",
                "series length",
                "x",
                {{"hurst", param_type::real, "0.75", {0.0, 1.0, true, true}, "Hurst index H"},
                 variance_spec,
                 mu_spec}};
  m.realize = [](const param_values& p, std::size_t n, bool describe, rng::philox4x32& g) {
    const auto op = fgn_of(p);
    auto md = std::make_shared<const fgn>(n, op);
    description par;
    par.add("hurst", op.hurst).add("variance", op.variance).add("mu", op.mu);
    return circulant_realization(md, std::move(par), n, describe, g);
  };
  m.vector = [](const param_values& p, std::size_t n) -> std::shared_ptr<const gaussian_vector> {
    return std::make_shared<circulant_vector<fgn>>(std::make_shared<const fgn>(n, fgn_of(p)));
  };
  return m;
}

model_entry equicorrelated_model() {
  model_entry m{
      "equicorrelated",
      "X_i = mu + s (sqrt(c) W + sqrt(1 - c) Z_i): every pair has correlation c",
      "sample size",
      "x",
      {{"correlation", param_type::real, "0.25", {0.0, 1.0, false, true}, "pairwise correlation c"},
       variance_spec,
       mu_spec}};
  m.realize = [](const param_values& p, std::size_t n, bool describe, rng::philox4x32& g) {
    const auto op = equicorrelated_of(p);
    equicorrelated md(op);
    description par;
    par.add("correlation", op.correlation).add("variance", op.variance).add("mu", op.mu);
    description t;
    if (describe) t = series_theory(md, md.log_sobolev(n), md.mean_variance_constant(n));
    return series_realization(md, std::move(par), std::move(t), n, g);
  };
  m.vector = [](const param_values& p, std::size_t n) -> std::shared_ptr<const gaussian_vector> {
    return std::make_shared<sized_gaussian_vector<equicorrelated>>(
        equicorrelated(equicorrelated_of(p)), n);
  };
  return m;
}

}  // namespace dpx::data::model_defs
