// Registered user-level panels: block_toeplitz, random_effects, longitudinal
// (dpx/data/user_models.hpp). n is the number of users.
#include <cmath>

#include "dpx/core/error.hpp"
#include "dpx/data/user_models.hpp"
#include "models.hpp"

namespace dpx::data::model_defs {
namespace {
const param_spec times_spec{"times", param_type::count, "10", size_range(1), "times T per user"};
}  // namespace

model_entry block_toeplitz_model() {
  model_entry m{"block_toeplitz",
                "n independent users, each a T-vector with Cov = variance rho^|s-t|",
                "users",
                "user,t,x",
                {times_spec,
                 {"rho", param_type::real, "0.95", open_unit, "within-user lag-one correlation"},
                 {"variance", param_type::real, "1", positive_variance, "marginal variance"},
                 mu_spec}};
  m.realize = [](const param_values& p, std::size_t n, bool describe, rng::philox4x32& g) {
    block_toeplitz_options op{n, p.count("times"), p.real("rho"), p.real("variance"), p.real("mu")};
    auto md = std::make_shared<const block_toeplitz>(op);
    realization r;
    r.parameters.add("users", op.users).add("times", op.times).add("rho", op.rho);
    r.parameters.add("variance", op.variance).add("mu", op.mu);
    if (describe) {
      auto& t = r.theory;
      t.add("mean", md->mean());
      t.add("variance", md->variance());
      t.add("autocorrelation",
            within_user_lags(op.times, [&](double h) { return std::pow(op.rho, h); }));
      t.add("log_sobolev", md->log_sobolev());
      t.add("marginal_log_sobolev", md->marginal_log_sobolev());
      t.add("user_mean_variance", md->user_mean_variance());
    }
    r.write = [md, &g](table_sink& w) { write_panel(w, md->sample(g), "x"); };
    return r;
  };
  return m;
}

model_entry random_effects_model() {
  model_entry m{
      "random_effects",
      "y_ut = mu + sigma_u U_g(u) + AR(1) noise (sd sigma, correlation phi); users split evenly "
      "into groups",
      "users",
      "user,group,t,y",
      {{"groups", param_type::count, "10", size_range(1, 1e9), "number of groups G (<= n)"},
       times_spec,
       mu_spec,
       {"sigma_u", param_type::real, "1", nonnegative_scale, "group-effect sd"},
       {"sigma", param_type::real, "1", positive_scale, "within-user marginal sd"},
       {"phi", param_type::real, "0", open_unit, "within-user AR(1) correlation"}}};
  m.realize = [](const param_values& p, std::size_t n, bool describe, rng::philox4x32& g) {
    const std::size_t groups = p.count("groups");
    if (groups > n)
      core::throw_invalid("generate", p.label("groups"), double(groups), "must be in [1, n]");
    random_effects_options op;
    op.group_sizes.assign(groups, n / groups);
    for (std::size_t k = 0; k < n % groups; ++k) ++op.group_sizes[k];
    op.times = p.count("times");
    op.mu = p.real("mu");
    op.sigma_u = p.real("sigma_u");
    op.sigma = p.real("sigma");
    op.phi = p.real("phi");
    auto md = std::make_shared<const random_effects>(op);
    realization r;
    r.parameters.add("users", n).add("groups", groups).add("times", op.times).add("mu", op.mu);
    r.parameters.add("sigma_u", op.sigma_u).add("sigma", op.sigma).add("phi", op.phi);
    if (describe) {
      auto& t = r.theory;
      t.add("mean", md->mean());
      t.add("variance", md->variance());
      const double su2 = op.sigma_u * op.sigma_u, s2 = op.sigma * op.sigma;
      t.add("autocorrelation", within_user_lags(op.times, [&](double h) {
              return (su2 + s2 * std::pow(op.phi, h)) / (su2 + s2);
            }));
      t.add("log_sobolev", md->log_sobolev());
      t.add("log_sobolev_bound", md->log_sobolev_bound());
      t.add("marginal_log_sobolev", md->marginal_log_sobolev());
      t.add("user_log_sobolev", md->user_log_sobolev());
      t.add("user_mean_variance", md->user_mean_variance());
      t.add("grand_mean_variance", md->grand_mean_variance());
    }
    r.write = [md, &g](table_sink& w) {
      const auto y = md->sample(g);
      w.header({"user", "group", "t", "y"});
      for (std::size_t u = 0; u < y.users(); ++u) {
        const std::size_t grp = md->group_of(u);
        for (std::size_t t = 0; t < y.times(); ++t) {
          w.index(u);
          w.index(grp);
          w.index(t);
          w.real(y(u, t));
          w.end_row();
        }
      }
    };
    return r;
  };
  return m;
}

model_entry longitudinal_model() {
  model_entry m{
      "longitudinal",
      "Y_u = X_u beta + eps_u per user; X_u = (1, t/T, AR(1) covariates), eps_u AR(1) (+ random "
      "intercept)",
      "users",
      "user,t,y,x1..xp",
      {times_spec,
       {"p", param_type::count, "3", size_range(1, 1e4), "columns of X_u (<= times)"},
       {"beta",
        param_type::real_list,
        "",
        any_location,
        "coefficients (p entries)",
        {},
        "(1, ..., 1) of length p"},
       {"sigma", param_type::real, "1", positive_scale, "error marginal sd"},
       {"phi", param_type::real, "0.5", open_unit, "error AR(1) correlation over t"},
       {"covariate_phi", param_type::real, "0", open_unit, "covariates' AR(1) correlation"},
       {"random_intercept_sd", param_type::real, "0", nonnegative_scale, "random-intercept sd"}}};
  m.realize = [](const param_values& p, std::size_t n, bool describe, rng::philox4x32& g) {
    longitudinal_options op;
    op.users = n;
    op.times = p.count("times");
    op.p = p.count("p");
    op.beta = p.list("beta");
    op.sigma = p.real("sigma");
    op.phi = p.real("phi");
    op.covariate_phi = p.real("covariate_phi");
    op.random_intercept_sd = p.real("random_intercept_sd");
    auto md = std::make_shared<const longitudinal>(op);
    realization r;
    r.parameters.add("users", n).add("times", op.times).add("p", op.p).add("beta", md->beta());
    r.parameters.add("sigma", op.sigma).add("phi", op.phi).add("covariate_phi", op.covariate_phi);
    r.parameters.add("random_intercept_sd", op.random_intercept_sd);
    // The design is part of the draw and θ_lo, θ_hi are its eigenvalue bounds: draw now.
    auto s = std::make_shared<const longitudinal_sample>(md->sample(g));
    if (describe) {
      auto& t = r.theory;
      t.add("beta", md->beta());
      const auto ec = md->error_covariance();
      std::vector<double> row(op.times);
      for (std::size_t j = 0; j < op.times; ++j) row[j] = ec(0, j);
      t.add("error_autocovariance", row);
      // Var(y_ut | X_u) = Σ_u(t, t), the same for every t (the mean X_u β varies with the design).
      t.add("variance", ec(0, 0));
      t.add("log_sobolev", md->log_sobolev());
      t.add("marginal_log_sobolev", md->marginal_log_sobolev());
      const auto b = longitudinal::bounds(s->x);
      t.add("theta_lo", b.theta_lo);
      t.add("theta_hi", b.theta_hi);
    }
    r.write = [s, op](table_sink& w) {
      std::vector<std::string> cols{"user", "t", "y"};
      for (std::size_t j = 0; j < op.p; ++j) cols.push_back("x" + std::to_string(j + 1));
      w.header(cols);
      for (std::size_t u = 0; u < op.users; ++u)
        for (std::size_t t = 0; t < op.times; ++t) {
          w.index(u);
          w.index(t);
          w.real(s->y(u, t));
          for (std::size_t j = 0; j < op.p; ++j) w.real(s->x(u, t, j));
          w.end_row();
        }
    };
    return r;
  };
  return m;
}

}  // namespace dpx::data::model_defs
