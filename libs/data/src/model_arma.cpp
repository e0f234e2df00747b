// Registered ARMA-family models: ar1, ar1_t, arp, ma, arma (dpx/data/arma.hpp).
#include "dpx/data/arma.hpp"
#include "models.hpp"

namespace dpx::data::model_defs {
namespace {

const param_spec sd_spec{
    "innovation_sd", param_type::real, "1", positive_scale, "innovation standard deviation"};

// The ARMA family differs only in which coefficient lists it takes.
model_entry arma_family(std::string name, std::string summary, bool ar, bool ma) {
  model_entry m{std::move(name), std::move(summary), "series length", "x", {}};
  if (ar)
    m.params.push_back({"phi",
                        param_type::real_list,
                        "0.5",
                        any_location,
                        "AR coefficients phi_1..phi_p (causal)"});
  if (ma)
    m.params.push_back(
        {"theta", param_type::real_list, "0.5", any_location, "MA coefficients theta_1..theta_q"});
  m.params.push_back(mu_spec);
  m.params.push_back(sd_spec);
  m.realize = [ar, ma](const param_values& p, std::size_t n, bool describe, rng::philox4x32& g) {
    arma_options op;
    if (ar) op.phi = p.list("phi");
    if (ma) op.theta = p.list("theta");
    op.mu = p.real("mu");
    op.innovation_sd = p.real("innovation_sd");
    arma md(op);
    description par;
    par.add("phi", op.phi).add("theta", op.theta).add("mu", op.mu);
    par.add("innovation_sd", op.innovation_sd);
    description t;
    if (describe) {
      t = series_theory(md, md.log_sobolev(n), md.mean_variance_constant(n));
      t.add("log_sobolev_bound", md.log_sobolev_bound());
    }
    return series_realization(md, std::move(par), std::move(t), n, g);
  };
  return m;
}

}  // namespace

model_entry ar1_model() {
  model_entry m{
      "ar1",
      "Gaussian AR(1) X_t - mu = phi (X_{t-1} - mu) + innovation_sd z_t, stationary start",
      "series length",
      "x",
      {{"phi", param_type::real, "0.5", open_unit, "autoregressive coefficient"},
       mu_spec,
       sd_spec}};
  m.realize = [](const param_values& p, std::size_t n, bool describe, rng::philox4x32& g) {
    ar1_options op{p.real("phi"), p.real("mu"), p.real("innovation_sd")};
    ar1 md(op);
    description par;
    par.add("phi", op.phi).add("mu", op.mu).add("innovation_sd", op.innovation_sd);
    description t;
    if (describe) {
      t = series_theory(md, md.log_sobolev(n), md.mean_variance_constant(n));
      t.add("log_sobolev_bound", md.log_sobolev_bound());
    }
    return series_realization(md, std::move(par), std::move(t), n, g);
  };
  return m;
}

model_entry ar1_t_model() {
  model_entry m{"ar1_t",
                "AR(1) with Student-t innovations X_t - mu = phi (X_{t-1} - mu) + s T_t",
                "series length",
                "x",
                {{"phi", param_type::real, "0.5", open_unit, "autoregressive coefficient"},
                 {"mu", param_type::real, "0", any_location, "location"},
                 {"innovation_scale", param_type::real, "1", positive_scale, "innovation scale s"},
                 {"nu", param_type::real, "5", positive_scale, "degrees of freedom"}}};
  m.realize = [](const param_values& p, std::size_t n, bool describe, rng::philox4x32& g) {
    ar1_t_options op{p.real("phi"), p.real("mu"), p.real("innovation_scale"), p.real("nu")};
    ar1_t md(op);
    description par;
    par.add("phi", op.phi).add("mu", op.mu).add("innovation_scale", op.innovation_scale);
    par.add("nu", op.nu);
    description t;
    if (describe) t = series_theory(md, md.log_sobolev(n), md.mean_variance_constant(n));
    return series_realization(md, std::move(par), std::move(t), n, g);
  };
  return m;
}

model_entry arp_model() {
  return arma_family("arp", "Gaussian AR(p), exact stationary start", true, false);
}
model_entry ma_model() {
  return arma_family("ma", "Gaussian MA(q), exact stationary start", false, true);
}
model_entry arma_model() {
  return arma_family("arma", "Gaussian ARMA(p, q), exact stationary start", true, true);
}

}  // namespace dpx::data::model_defs
