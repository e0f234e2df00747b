// Registered regression designs: nonparametric (dpx/data/nonparametric.hpp), sparse_linear and
// sparse_logistic (dpx/data/erm.hpp).
#include <cmath>

#include "dpx/data/erm.hpp"
#include "dpx/data/nonparametric.hpp"
#include "models.hpp"

namespace dpx::data::model_defs {

model_entry nonparametric_model() {
  model_entry m{
      "nonparametric",
      "Y_i = f(i/n) + eps_i, f a Lipschitz test function, eps AR(1) with sd noise_sd",
      "sample size",
      "x,y,f",
      {{"function",
        param_type::choice,
        "sine",
        {},
        "regression function f",
        {"sine", "vee", "bump"}},
       {"amplitude", param_type::real, "1", any_location, "amplitude a (nonzero)"},
       {"frequency", param_type::real, "1", {1.0, 1e6, false, false}, "k of a sin(2 pi k x)"},
       {"noise_sd", param_type::real, "1", positive_scale, "noise marginal sd"},
       {"phi", param_type::real, "0", open_unit, "noise AR(1) correlation"}}};
  m.realize = [](const param_values& p, std::size_t n, bool describe, rng::philox4x32& g) {
    nonparametric_options op;
    op.f.shape = test_function::parse(p.choice("function"));
    op.f.amplitude = p.real("amplitude");
    op.f.frequency = p.real("frequency");
    op.noise_sd = p.real("noise_sd");
    op.phi = p.real("phi");
    auto md = std::make_shared<const nonparametric>(op);
    realization r;
    r.parameters.add("function", std::string(test_function::name(op.f.shape)));
    r.parameters.add("amplitude", op.f.amplitude).add("frequency", op.f.frequency);
    r.parameters.add("noise_sd", op.noise_sd).add("phi", op.phi);
    if (describe) {
      auto& t = r.theory;
      // The mean varies with x_i (column f); the variance is the marginal noise variance σ² and
      // the autocorrelation that of the AR(1) noise.
      t.add("variance", op.noise_sd * op.noise_sd);
      std::vector<double> ac;
      for (std::size_t h = 1; h <= 5; ++h) ac.push_back(std::pow(op.phi, double(h)));
      t.add("autocorrelation", ac);
      t.add("lipschitz", op.f.lipschitz());
      t.add("sup_norm", op.f.sup_norm());
      const double ls = md->log_sobolev(n);
      t.add("log_sobolev", ls);
      t.add("sigma_max2", ls);
      t.add("sigma_min2", md->min_eigenvalue(n));
      t.add("marginal_log_sobolev", md->marginal_log_sobolev());
    }
    r.write = [md, n, &g](table_sink& w) {
      const auto s = md->sample(n, g);
      w.header({"x", "y", "f"});
      for (std::size_t i = 0; i < n; ++i) {
        w.real(s.x(i));
        w.real(s.y(i));
        w.real(s.f(i));
        w.end_row();
      }
    };
    return r;
  };
  return m;
}

namespace {

// sparse_linear and sparse_logistic share the design; they differ in the response.
model_entry erm_model(bool linear) {
  model_entry m{linear ? "sparse_linear" : "sparse_logistic",
                linear ? "y = x'beta + noise, x ~ N(0, rho^|j-k|), beta k-sparse"
                       : "P(y = 1) = 1/(1 + exp(-x'beta)), x ~ N(0, rho^|j-k|), beta k-sparse",
                "training rows",
                "split,y,x1..xd (split = train|test)",
                {{"n_test", param_type::count, "0", size_range(0, 1e9), "held-out rows"},
                 {"d", param_type::count, "20", size_range(1, 1e5), "features"},
                 {"k", param_type::count, "5", size_range(1, 1e5), "nonzeros of beta (<= d)"},
                 {"rho", param_type::real, "0.5", open_unit, "feature correlation r"},
                 {"signal", param_type::real, "1", positive_scale, "|beta_j| on the support"}}};
  if (linear)
    m.params.push_back({"noise_sd", param_type::real, "1", nonnegative_scale, "response noise sd"});
  m.params.push_back({"scaling",
                      param_type::choice,
                      "none",
                      {},
                      "row scaling of x",
                      {"none", "clip", "normalize"}});
  if (!linear)
    m.params.push_back(
        {"labels", param_type::choice, "pm1", {}, "label encoding (-1/+1 or 0/1)", {"pm1", "01"}});
  m.realize = [linear](const param_values& p, std::size_t n, bool describe, rng::philox4x32& g) {
    erm_options op;
    op.n = n;
    op.n_test = p.count("n_test");
    op.d = p.count("d");
    op.k = p.count("k");
    op.rho = p.real("rho");
    op.signal = p.real("signal");
    if (linear) op.noise_sd = p.real("noise_sd");
    const std::string& sc = p.choice("scaling");
    op.scaling = sc == "clip"        ? row_scaling::clip
                 : sc == "normalize" ? row_scaling::normalize
                                     : row_scaling::none;
    if (!linear)
      op.labels =
          p.choice("labels") == "01" ? label_encoding::zero_one : label_encoding::plus_minus_one;
    std::shared_ptr<const erm_sample> s;
    std::shared_ptr<const erm_design> design;
    if (linear) {
      auto md = std::make_shared<const sparse_linear>(op);
      s = std::make_shared<const erm_sample>(md->sample(g));
      design = md;
    } else {
      auto md = std::make_shared<const sparse_logistic>(op);
      s = std::make_shared<const erm_sample>(md->sample(g));
      design = md;
    }
    realization r;
    r.parameters.add("n", op.n).add("n_test", op.n_test).add("d", op.d).add("k", op.k);
    r.parameters.add("rho", op.rho).add("signal", op.signal);
    // Only the parameters the model takes: noise_sd for linear, the label encoding for logistic.
    if (linear)
      r.parameters.add("noise_sd", op.noise_sd);
    else
      r.parameters.add("labels", p.choice("labels"));
    r.parameters.add("scaling", sc);
    if (describe) {
      auto& t = r.theory;
      t.add("support", s->support);
      std::vector<double> bv;
      for (std::size_t j : s->support) bv.push_back(s->beta(j));
      t.add("beta_support_values", bv);
      t.add("feature_lambda_max", design->feature_lambda_max());
      t.add("feature_lambda_min", design->feature_lambda_min());
      // The λ's are those of the Gaussian rows' Σ = r^|j−k|; clipping or normalising the rows
      // changes their second moments (no closed form), so say which matrix they belong to.
      t.add("feature_covariance",
            std::string(sc == "none" ? "r^|j-k|" : "r^|j-k| (rows before scaling)"));
      if (linear) t.add("noise_variance", op.noise_sd * op.noise_sd);
    }
    r.write = [s, d = op.d](table_sink& w) {
      std::vector<std::string> cols{"split", "y"};
      for (std::size_t j = 0; j < d; ++j) cols.push_back("x" + std::to_string(j + 1));
      w.header(cols);
      auto rows = [&](std::string_view split,
                      const xt::xtensor<double, 2>& x,
                      const xt::xtensor<double, 1>& y) {
        for (std::size_t i = 0; i < y.size(); ++i) {
          w.word(split);
          w.real(y(i));
          for (std::size_t j = 0; j < d; ++j) w.real(x(i, j));
          w.end_row();
        }
      };
      rows("train", s->x_train, s->y_train);
      rows("test", s->x_test, s->y_test);
    };
    return r;
  };
  return m;
}

}  // namespace

model_entry sparse_linear_model() { return erm_model(true); }
model_entry sparse_logistic_model() { return erm_model(false); }

}  // namespace dpx::data::model_defs
