// Registered vector autoregression: var1 (dpx/data/var1.hpp).
#include <cmath>

#include "dpx/core/error.hpp"
#include "dpx/data/var1.hpp"
#include "models.hpp"

namespace dpx::data::model_defs {

model_entry var1_model() {
  model_entry m{
      "var1",
      "Gaussian VAR(1) X_t - mu = A (X_{t-1} - mu) + e_t, e_t ~ N(0, sigma_e), stationary",
      "series length",
      "x1..xd",
      {{"a",
        param_type::real_list,
        "0.5,0.1,0,0.3",
        any_location,
        "transition matrix A (d*d entries, row-major; spectral radius < 1)"},
       {"sigma_e",
        param_type::real_list,
        "",
        any_location,
        "innovation covariance (d*d entries, row-major; positive definite)",
        {},
        "identity (d x d)"},
       {"mu", param_type::real_list, "", any_location, "mean (d entries)", {}, "zeros (d)"}}};
  m.realize = [](const param_values& p, std::size_t n, bool describe, rng::philox4x32& g) {
    const auto& a = p.list("a");
    const auto d = static_cast<std::size_t>(std::llround(std::sqrt(static_cast<double>(a.size()))));
    if (d * d != a.size() || d == 0)
      core::throw_invalid("generate",
                          p.label("a"),
                          static_cast<double>(a.size()),
                          "must list d*d entries (row-major)");
    std::vector<double> se = p.list("sigma_e");
    if (se.empty()) {
      se.assign(d * d, 0.0);
      for (std::size_t i = 0; i < d; ++i) se[i * d + i] = 1.0;
    }
    if (se.size() != d * d)
      core::throw_invalid(
          "generate", p.label("sigma_e"), static_cast<double>(se.size()), "must list d*d entries");
    var1_options op;
    op.a = xt::xtensor<double, 2>::from_shape({d, d});
    op.sigma_e = xt::xtensor<double, 2>::from_shape({d, d});
    std::copy(a.begin(), a.end(), op.a.begin());
    std::copy(se.begin(), se.end(), op.sigma_e.begin());
    op.mu = p.list("mu");
    if (op.mu.empty()) op.mu.assign(d, 0.0);
    auto md = std::make_shared<const var1>(op);
    realization r;
    r.parameters.add("a", a).add("sigma_e", se).add("mu", op.mu);
    if (describe) {
      auto& t = r.theory;
      t.add("mean", md->mean());
      auto mat = [](const xt::xtensor<double, 2>& x) {
        std::vector<std::vector<double>> rows(x.shape()[0]);
        for (std::size_t i = 0; i < x.shape()[0]; ++i)
          for (std::size_t j = 0; j < x.shape()[1]; ++j) rows[i].push_back(x(i, j));
        return rows;
      };
      const auto& g0 = md->stationary_covariance();
      std::vector<double> var(d);
      for (std::size_t i = 0; i < d; ++i) var[i] = g0(i, i);
      t.add("variance", var);
      t.add("stationary_covariance", mat(g0));
      t.add("long_run_variance", mat(md->long_run_variance()));
      std::vector<std::vector<double>> ac;
      for (std::size_t h = 1; h <= 5; ++h) {
        const auto gh = md->autocovariance(h);
        std::vector<double> row(d);
        for (std::size_t i = 0; i < d; ++i) row[i] = gh(i, i) / g0(i, i);
        ac.push_back(row);
      }
      t.add("autocorrelation", ac);
      t.add("log_sobolev", md->log_sobolev(n));
      // The per-coordinate constant of the column-wise estimators (docs/theory/dependent-data.md,
      // assumption on coordinate log-Sobolev constants).
      t.add("coordinate_log_sobolev", md->coordinate_log_sobolev(n));
      t.add("marginal_log_sobolev", md->marginal_log_sobolev());
    }
    r.write = [md, n, d, &g](table_sink& w) {
      const auto x = md->sample(n, g);
      std::vector<std::string> cols;
      for (std::size_t i = 0; i < d; ++i) cols.push_back("x" + std::to_string(i + 1));
      w.header(cols);
      for (std::size_t t = 0; t < n; ++t) {
        for (std::size_t i = 0; i < d; ++i) w.real(x(t, i));
        w.end_row();
      }
    };
    return r;
  };
  return m;
}

}  // namespace dpx::data::model_defs
