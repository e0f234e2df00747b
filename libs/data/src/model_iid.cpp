// Registered i.i.d. models: iid_gaussian, student_t, uniform, beta (dpx/data/iid.hpp).
#include "dpx/data/iid.hpp"
#include "models.hpp"

namespace dpx::data::model_defs {
namespace {

template <class M, class O>
model_entry::realize_fn iid_realizer(O (*options)(const param_values&),
                                     description (*parameters)(const O&)) {
  return [options, parameters](const param_values& p, std::size_t n, bool, rng::philox4x32& g) {
    const O op = options(p);
    M md(op);
    return series_realization(md, parameters(op), iid_theory(md, n), n, g);
  };
}

}  // namespace

model_entry iid_gaussian_model() {
  model_entry m{"iid_gaussian",
                "X_i i.i.d. N(mu, sd^2)",
                "sample size",
                "x",
                {{"mu", param_type::real, "0", any_location, "mean"},
                 {"sd", param_type::real, "1", positive_scale, "standard deviation"}}};
  m.realize = iid_realizer<iid_gaussian, iid_gaussian_options>(
      [](const param_values& p) {
        return iid_gaussian_options{p.real("mu"), p.real("sd")};
      },
      [](const iid_gaussian_options& o) { return description{}.add("mu", o.mu).add("sd", o.sd); });
  m.vector = [](const param_values& p, std::size_t n) -> std::shared_ptr<const gaussian_vector> {
    return std::make_shared<sized_gaussian_vector<iid_gaussian>>(
        iid_gaussian(iid_gaussian_options{p.real("mu"), p.real("sd")}), n);
  };
  return m;
}

model_entry student_t_model() {
  model_entry m{"student_t",
                "X_i = mu + scale T_i, T_i i.i.d. Student t with nu degrees of freedom",
                "sample size",
                "x",
                {{"nu", param_type::real, "5", positive_scale, "degrees of freedom"},
                 {"mu", param_type::real, "0", any_location, "location"},
                 {"scale", param_type::real, "1", positive_scale, "scale"}}};
  m.realize = iid_realizer<iid_student_t, iid_student_t_options>(
      [](const param_values& p) {
        return iid_student_t_options{p.real("nu"), p.real("mu"), p.real("scale")};
      },
      [](const iid_student_t_options& o) {
        return description{}.add("nu", o.nu).add("mu", o.mu).add("scale", o.scale);
      });
  return m;
}

model_entry uniform_model() {
  model_entry m{"uniform",
                "X_i i.i.d. uniform on [lo, hi]",
                "sample size",
                "x",
                {{"lo", param_type::real, "0", any_location, "lower end"},
                 {"hi", param_type::real, "1", any_location, "upper end (> lo)"}}};
  m.realize = iid_realizer<iid_uniform, iid_uniform_options>(
      [](const param_values& p) {
        return iid_uniform_options{p.real("lo"), p.real("hi")};
      },
      [](const iid_uniform_options& o) { return description{}.add("lo", o.lo).add("hi", o.hi); });
  return m;
}

model_entry beta_model() {
  model_entry m{"beta",
                "X_i i.i.d. Beta(a, b) on [0, 1]",
                "sample size",
                "x",
                {{"a", param_type::real, "2", positive_scale, "first shape"},
                 {"b", param_type::real, "2", positive_scale, "second shape"}}};
  m.realize = iid_realizer<iid_beta, iid_beta_options>(
      [](const param_values& p) {
        return iid_beta_options{p.real("a"), p.real("b")};
      },
      [](const iid_beta_options& o) { return description{}.add("a", o.a).add("b", o.b); });
  return m;
}

}  // namespace dpx::data::model_defs
