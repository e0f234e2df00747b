// dpx generate MODEL [--param value ...] --n N [--seed S] [--out FILE.csv] [--describe]
//
// Draws a dataset from a dpx::data model and writes it as CSV (header row; panels in long
// format user,t,...), and/or prints the model's theoretical quantities as JSON (--describe).
// Model parameters are `--name value` pairs after the model name (dashes or underscores);
// lists are comma-separated (`--phi 0.5,-0.2`). A parameter the model does not take, or a bad
// value, is a one-line error naming the parameter (exit 2).
//
// Randomness: the generator is rng::stream(seed, stable_hash("dpx generate <model>"), 0,
// purpose::data), so a (model, seed) pair always gives the same data.
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "command.hpp"
#include "dpx/core/error.hpp"
#include "dpx/core/hash.hpp"
#include "dpx/core/rng.hpp"
#include "dpx/data/data.hpp"

namespace dpx::cli::cmd_generate {
namespace {

using json = nlohmann::ordered_json;
namespace data = dpx::data;
namespace core = dpx::core;

constexpr const char* kFn = "generate";
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();  // JSON null

// JSON number; +inf/-inf become the strings "inf"/"-inf" and NaN (unknown) becomes null.
json num(double v) {
  if (std::isnan(v)) return nullptr;
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}
json num_list(const std::vector<double>& v) {
  json a = json::array();
  for (double x : v) a.push_back(num(x));
  return a;
}

// ---- model parameters: --key value pairs left over by CLI11 -------------------------------
class params {
 public:
  explicit params(const std::vector<std::string>& args) {
    for (std::size_t i = 0; i < args.size(); ++i) {
      std::string k = args[i];
      if (k.rfind("--", 0) != 0)
        core::throw_invalid(kFn, "argument", k, "expected --parameter value");
      k = k.substr(2);
      std::string v;
      if (auto eq = k.find('='); eq != std::string::npos) {
        v = k.substr(eq + 1);
        k = k.substr(0, eq);
      } else {
        if (i + 1 >= args.size()) core::throw_invalid(kFn, "--" + k, "", "is missing its value");
        v = args[++i];
      }
      for (char& c : k)
        if (c == '-') c = '_';
      if (values_.count(k)) core::throw_invalid(kFn, "--" + dashed(k), v, "is given twice");
      values_[k] = v;
    }
  }
  static std::string dashed(std::string k) {
    for (char& c : k)
      if (c == '_') c = '-';
    return k;
  }
  double number(const std::string& k, double def) {
    used_.insert(k);
    auto it = values_.find(k);
    if (it == values_.end()) return def;
    return parse_double(k, it->second);
  }
  std::size_t count(const std::string& k, std::size_t def) {
    used_.insert(k);
    auto it = values_.find(k);
    if (it == values_.end()) return def;
    const std::string& s = it->second;
    unsigned long long v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size())
      core::throw_invalid(kFn, "--" + dashed(k), s, "must be a non-negative integer");
    return static_cast<std::size_t>(v);
  }
  std::vector<double> list(const std::string& k, std::vector<double> def) {
    used_.insert(k);
    auto it = values_.find(k);
    if (it == values_.end()) return def;
    std::vector<double> out;
    std::stringstream ss(it->second);
    std::string item;
    while (std::getline(ss, item, ',')) {
      if (item.empty()) continue;
      out.push_back(parse_double(k, item));
    }
    return out;
  }
  std::string text(const std::string& k, const std::string& def) {
    used_.insert(k);
    auto it = values_.find(k);
    return it == values_.end() ? def : it->second;
  }
  void finish(const std::string& model) const {
    for (const auto& [k, v] : values_)
      if (!used_.count(k))
        core::throw_invalid(kFn, "--" + dashed(k), v, "is not a parameter of model " + model);
  }

 private:
  double parse_double(const std::string& k, const std::string& s) const {
    double v = 0.0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size())
      core::throw_invalid(kFn, "--" + dashed(k), s, "must be a number");
    return v;
  }
  std::map<std::string, std::string> values_;
  std::set<std::string> used_;
};

// ---- CSV ----------------------------------------------------------------------------------
class csv_writer {
 public:
  explicit csv_writer(std::ostream& os) : os_(os) { buf_.reserve(1 << 16); }
  ~csv_writer() { flush(); }
  void header(const std::vector<std::string>& cols) {
    for (std::size_t i = 0; i < cols.size(); ++i) {
      if (i) buf_ += ',';
      buf_ += cols[i];
    }
    buf_ += '\n';
  }
  csv_writer& value(double v) {
    sep();
    char tmp[32];
    auto [p, ec] = std::to_chars(tmp, tmp + sizeof tmp, v);
    buf_.append(tmp, p);
    return *this;
  }
  csv_writer& index(std::size_t v) {
    sep();
    buf_ += std::to_string(v);
    return *this;
  }
  csv_writer& word(const std::string& s) {
    sep();
    buf_ += s;
    return *this;
  }
  void end_row() {
    buf_ += '\n';
    first_ = true;
    if (buf_.size() > (1 << 16) - 512) flush();
  }
  void flush() {
    os_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
    buf_.clear();
  }

 private:
  void sep() {
    if (!first_) buf_ += ',';
    first_ = false;
  }
  std::ostream& os_;
  std::string buf_;
  bool first_ = true;
};

struct generate_options {
  std::string model;
  std::size_t n = 0;
  std::uint64_t seed = 1;
  std::string out;
  bool describe = false;
};

// A generated model: a CSV writer (draws the data) and a description.
struct generated {
  std::function<void(csv_writer&)> write;  // empty when only describing
  json describe;
};

template <class M>
json series_theory(const M& m, std::size_t n, double log_sobolev, double mvc) {
  json j;
  j["mean"] = num(m.mean());
  j["variance"] = num(m.variance());
  j["long_run_variance"] = num(m.long_run_variance());
  // Correlations need a finite variance (Student-t innovations with ν ≤ 2: null).
  const bool finite = std::isfinite(m.variance());
  std::vector<double> ac;
  for (std::size_t h = 1; h <= 5; ++h) ac.push_back(finite ? m.autocorrelation(h) : kNaN);
  j["autocorrelation"] = num_list(ac);
  j["log_sobolev"] = num(log_sobolev);
  j["marginal_log_sobolev"] = num(m.marginal_log_sobolev());
  j["mean_variance_constant"] = num(mvc);
  (void)n;
  return j;
}

template <class M>
json iid_theory(const M& m, std::size_t n) {
  json j;
  j["mean"] = num(m.mean());
  j["variance"] = num(m.variance());
  j["long_run_variance"] = num(m.long_run_variance());
  const double r0 = std::isfinite(m.variance()) ? 0.0 : kNaN;  // undefined without a variance
  j["autocorrelation"] = num_list({r0, r0, r0, r0, r0});
  j["log_sobolev"] = num(m.log_sobolev(n));
  j["marginal_log_sobolev"] = num(m.marginal_log_sobolev());
  j["mean_variance_constant"] = num(m.mean_variance_constant(n));
  return j;
}

void write_series(csv_writer& w, const xt::xtensor<double, 1>& x) {
  w.header({"x"});
  for (double v : x) {
    w.value(v);
    w.end_row();
  }
}

void write_panel(csv_writer& w, const data::panel& y, const std::string& col) {
  w.header({"user", "t", col});
  for (std::size_t u = 0; u < y.users(); ++u)
    for (std::size_t t = 0; t < y.times(); ++t) {
      w.index(u).index(t).value(y(u, t));
      w.end_row();
    }
}

json merge(json a, const json& b) {
  for (auto it = b.begin(); it != b.end(); ++it) a[it.key()] = it.value();
  return a;
}

generated build(const generate_options& o, params& p, dpx::rng::philox4x32& g) {
  const std::string& m = o.model;
  const std::size_t n = o.n;
  generated r;
  json par;
  auto scalar_series = [&](auto model, const json& theory) {
    r.describe = merge(std::move(par), theory);
    r.write = [model, n, &g](csv_writer& w) { write_series(w, model.sample(n, g)); };
  };
  if (m == "iid_gaussian") {
    data::iid_gaussian_options op{p.number("mu", 0.0), p.number("sd", 1.0)};
    data::iid_gaussian md(op);
    par["parameters"] = {{"mu", op.mu}, {"sd", op.sd}};
    scalar_series(md, iid_theory(md, n));
  } else if (m == "student_t") {
    data::iid_student_t_options op{
        p.number("nu", 5.0), p.number("mu", 0.0), p.number("scale", 1.0)};
    data::iid_student_t md(op);
    par["parameters"] = {{"nu", op.nu}, {"mu", op.mu}, {"scale", op.scale}};
    scalar_series(md, iid_theory(md, n));
  } else if (m == "uniform") {
    data::iid_uniform_options op{p.number("lo", 0.0), p.number("hi", 1.0)};
    data::iid_uniform md(op);
    par["parameters"] = {{"lo", op.lo}, {"hi", op.hi}};
    scalar_series(md, iid_theory(md, n));
  } else if (m == "beta") {
    data::iid_beta_options op{p.number("a", 2.0), p.number("b", 2.0)};
    data::iid_beta md(op);
    par["parameters"] = {{"a", op.a}, {"b", op.b}};
    scalar_series(md, iid_theory(md, n));
  } else if (m == "ar1") {
    data::ar1_options op{p.number("phi", 0.5), p.number("mu", 0.0), p.number("innovation_sd", 1.0)};
    data::ar1 md(op);
    par["parameters"] = {{"phi", op.phi}, {"mu", op.mu}, {"innovation_sd", op.innovation_sd}};
    json t = series_theory(md,
                           n,
                           o.describe ? md.log_sobolev(n) : 0.0,
                           o.describe ? md.mean_variance_constant(n) : 0.0);
    t["log_sobolev_bound"] = num(md.log_sobolev_bound());
    scalar_series(md, t);
  } else if (m == "ar1_t") {
    data::ar1_t_options op{p.number("phi", 0.5),
                           p.number("mu", 0.0),
                           p.number("innovation_scale", 1.0),
                           p.number("nu", 5.0)};
    data::ar1_t md(op);
    par["parameters"] = {
        {"phi", op.phi}, {"mu", op.mu}, {"innovation_scale", op.innovation_scale}, {"nu", op.nu}};
    scalar_series(md, series_theory(md, n, md.log_sobolev(n), md.mean_variance_constant(n)));
  } else if (m == "arp" || m == "ma" || m == "arma") {
    data::arma_options op;
    if (m != "ma") op.phi = p.list("phi", {0.5});
    if (m != "arp") op.theta = p.list("theta", {0.5});
    op.mu = p.number("mu", 0.0);
    op.innovation_sd = p.number("innovation_sd", 1.0);
    data::arma md(op);
    par["parameters"] = {
        {"phi", op.phi}, {"theta", op.theta}, {"mu", op.mu}, {"innovation_sd", op.innovation_sd}};
    json t = series_theory(md,
                           n,
                           o.describe ? md.log_sobolev(n) : 0.0,
                           o.describe ? md.mean_variance_constant(n) : 0.0);
    t["log_sobolev_bound"] = num(md.log_sobolev_bound());
    scalar_series(md, t);
  } else if (m == "toeplitz" || m == "fgn") {
    std::shared_ptr<data::toeplitz> tp;
    std::shared_ptr<data::fgn> fg;
    json t;
    if (m == "toeplitz") {
      data::toeplitz_options op{
          p.number("rho", 0.95), p.number("variance", 1.0), p.number("mu", 0.0)};
      op.validate();
      tp = std::make_shared<data::toeplitz>(n, op);
      par["parameters"] = {{"rho", op.rho}, {"variance", op.variance}, {"mu", op.mu}};
      t = series_theory(*tp, n, o.describe ? tp->log_sobolev() : 0.0, tp->mean_variance_constant());
      t["sampling_method"] =
          tp->sampler().method() == data::sampling_method::circulant ? "circulant" : "cholesky";
      t["embedding_size"] = tp->sampler().embedding_size();
    } else {
      data::fgn_options op{p.number("hurst", 0.75), p.number("variance", 1.0), p.number("mu", 0.0)};
      op.validate();
      fg = std::make_shared<data::fgn>(n, op);
      par["parameters"] = {{"hurst", op.hurst}, {"variance", op.variance}, {"mu", op.mu}};
      t = series_theory(*fg, n, o.describe ? fg->log_sobolev() : 0.0, fg->mean_variance_constant());
      t["sampling_method"] =
          fg->sampler().method() == data::sampling_method::circulant ? "circulant" : "cholesky";
      t["embedding_size"] = fg->sampler().embedding_size();
    }
    r.describe = merge(std::move(par), t);
    r.write = [tp, fg, &g](csv_writer& w) { write_series(w, tp ? tp->sample(g) : fg->sample(g)); };
  } else if (m == "equicorrelated") {
    data::equicorrelated_options op{
        p.number("correlation", 0.25), p.number("variance", 1.0), p.number("mu", 0.0)};
    data::equicorrelated md(op);
    par["parameters"] = {{"correlation", op.correlation}, {"variance", op.variance}, {"mu", op.mu}};
    scalar_series(md, series_theory(md, n, md.log_sobolev(n), md.mean_variance_constant(n)));
  } else if (m == "var1") {
    const auto a = p.list("a", {0.5, 0.1, 0.0, 0.3});
    const auto d = static_cast<std::size_t>(std::llround(std::sqrt(static_cast<double>(a.size()))));
    if (d * d != a.size() || d == 0)
      core::throw_invalid(
          kFn, "--a", static_cast<double>(a.size()), "must list d*d entries (row-major)");
    std::vector<double> ident(d * d, 0.0);
    for (std::size_t i = 0; i < d; ++i) ident[i * d + i] = 1.0;
    const auto se = p.list("sigma_e", ident);
    if (se.size() != d * d)
      core::throw_invalid(
          kFn, "--sigma-e", static_cast<double>(se.size()), "must list d*d entries");
    data::var1_options op;
    op.a = xt::xtensor<double, 2>::from_shape({d, d});
    op.sigma_e = xt::xtensor<double, 2>::from_shape({d, d});
    std::copy(a.begin(), a.end(), op.a.begin());
    std::copy(se.begin(), se.end(), op.sigma_e.begin());
    op.mu = p.list("mu", std::vector<double>(d, 0.0));
    auto md = std::make_shared<data::var1>(op);
    par["parameters"] = {{"a", a}, {"sigma_e", se}, {"mu", op.mu}};
    json t;
    t["mean"] = num_list(md->mean());
    auto mat = [](const xt::xtensor<double, 2>& x) {
      json rows = json::array();
      for (std::size_t i = 0; i < x.shape()[0]; ++i) {
        json row = json::array();
        for (std::size_t j = 0; j < x.shape()[1]; ++j) row.push_back(num(x(i, j)));
        rows.push_back(row);
      }
      return rows;
    };
    const auto& g0 = md->stationary_covariance();
    std::vector<double> var(d);
    for (std::size_t i = 0; i < d; ++i) var[i] = g0(i, i);
    t["variance"] = num_list(var);
    t["stationary_covariance"] = mat(g0);
    t["long_run_variance"] = mat(md->long_run_variance());
    json ac = json::array();
    for (std::size_t h = 1; h <= 5; ++h) {
      const auto gh = md->autocovariance(h);
      std::vector<double> r(d);
      for (std::size_t i = 0; i < d; ++i) r[i] = gh(i, i) / g0(i, i);
      ac.push_back(num_list(r));
    }
    t["autocorrelation"] = ac;
    t["log_sobolev"] = num(o.describe ? md->log_sobolev(n) : 0.0);
    // Spec §2.2 Assumption 2.8(a): the per-coordinate constant the column-wise estimators use.
    t["coordinate_log_sobolev"] = num(o.describe ? md->coordinate_log_sobolev(n) : 0.0);
    t["marginal_log_sobolev"] = num(md->marginal_log_sobolev());
    r.describe = merge(std::move(par), t);
    r.write = [md, n, d, &g](csv_writer& w) {
      const auto x = md->sample(n, g);
      std::vector<std::string> cols;
      for (std::size_t i = 0; i < d; ++i) cols.push_back("x" + std::to_string(i + 1));
      w.header(cols);
      for (std::size_t t = 0; t < n; ++t) {
        for (std::size_t i = 0; i < d; ++i) w.value(x(t, i));
        w.end_row();
      }
    };
  } else if (m == "block_toeplitz") {
    data::block_toeplitz_options op{n,
                                    p.count("times", 10),
                                    p.number("rho", 0.95),
                                    p.number("variance", 1.0),
                                    p.number("mu", 0.0)};
    auto md = std::make_shared<data::block_toeplitz>(op);
    par["parameters"] = {{"users", op.users},
                         {"times", op.times},
                         {"rho", op.rho},
                         {"variance", op.variance},
                         {"mu", op.mu}};
    json t;
    t["mean"] = num(md->mean());
    t["variance"] = num(md->variance());
    std::vector<double> ac;
    // Within a user's T times only: lags h >= T do not exist (null).
    for (std::size_t h = 1; h <= 5; ++h)
      ac.push_back(h < op.times ? std::pow(op.rho, double(h)) : kNaN);
    t["autocorrelation"] = num_list(ac);
    t["log_sobolev"] = num(md->log_sobolev());
    t["marginal_log_sobolev"] = num(md->marginal_log_sobolev());
    t["user_mean_variance"] = num(md->user_mean_variance());
    r.describe = merge(std::move(par), t);
    r.write = [md, &g](csv_writer& w) { write_panel(w, md->sample(g), "x"); };
  } else if (m == "random_effects") {
    const std::size_t groups = p.count("groups", 10);
    if (groups == 0 || groups > n)
      core::throw_invalid(kFn, "--groups", static_cast<double>(groups), "must be in [1, n]");
    data::random_effects_options op;
    op.group_sizes.assign(groups, n / groups);
    for (std::size_t k = 0; k < n % groups; ++k) ++op.group_sizes[k];
    op.times = p.count("times", 10);
    op.mu = p.number("mu", 0.0);
    op.sigma_u = p.number("sigma_u", 1.0);
    op.sigma = p.number("sigma", 1.0);
    op.phi = p.number("phi", 0.0);
    auto md = std::make_shared<data::random_effects>(op);
    par["parameters"] = {{"users", n},
                         {"groups", groups},
                         {"times", op.times},
                         {"mu", op.mu},
                         {"sigma_u", op.sigma_u},
                         {"sigma", op.sigma},
                         {"phi", op.phi}};
    json t;
    t["mean"] = num(md->mean());
    t["variance"] = num(md->variance());
    std::vector<double> ac;
    const double su2 = op.sigma_u * op.sigma_u, s2 = op.sigma * op.sigma;
    for (std::size_t h = 1; h <= 5; ++h)  // lags h >= T do not exist within a user (null)
      ac.push_back(h < op.times ? (su2 + s2 * std::pow(op.phi, double(h))) / (su2 + s2) : kNaN);
    t["autocorrelation"] = num_list(ac);
    t["log_sobolev"] = num(md->log_sobolev());
    t["log_sobolev_bound"] = num(md->log_sobolev_bound());
    t["marginal_log_sobolev"] = num(md->marginal_log_sobolev());
    t["user_log_sobolev"] = num(md->user_log_sobolev());
    t["user_mean_variance"] = num(md->user_mean_variance());
    t["grand_mean_variance"] = num(md->grand_mean_variance());
    r.describe = merge(std::move(par), t);
    r.write = [md, &g](csv_writer& w) {
      const auto y = md->sample(g);
      w.header({"user", "group", "t", "y"});
      for (std::size_t u = 0; u < y.users(); ++u) {
        const std::size_t grp = md->group_of(u);
        for (std::size_t t = 0; t < y.times(); ++t) {
          w.index(u).index(grp).index(t).value(y(u, t));
          w.end_row();
        }
      }
    };
  } else if (m == "longitudinal") {
    data::longitudinal_options op;
    op.users = n;
    op.times = p.count("times", 10);
    op.p = p.count("p", 3);
    op.beta = p.list("beta", {});
    op.sigma = p.number("sigma", 1.0);
    op.phi = p.number("phi", 0.5);
    op.covariate_phi = p.number("covariate_phi", 0.0);
    op.random_intercept_sd = p.number("random_intercept_sd", 0.0);
    auto md = std::make_shared<data::longitudinal>(op);
    par["parameters"] = {{"users", n},
                         {"times", op.times},
                         {"p", op.p},
                         {"beta", md->beta()},
                         {"sigma", op.sigma},
                         {"phi", op.phi},
                         {"covariate_phi", op.covariate_phi},
                         {"random_intercept_sd", op.random_intercept_sd}};
    auto s = std::make_shared<data::longitudinal_sample>(md->sample(g));
    json t;
    t["beta"] = num_list(md->beta());
    const auto ec = md->error_covariance();
    std::vector<double> row(op.times);
    for (std::size_t j = 0; j < op.times; ++j) row[j] = ec(0, j);
    t["error_autocovariance"] = num_list(row);
    // Var(y_ut | X_u) = Σ_u(t, t), the same for every t (the mean X_u β varies with the design).
    t["variance"] = num(ec(0, 0));
    t["log_sobolev"] = num(md->log_sobolev());
    t["marginal_log_sobolev"] = num(md->marginal_log_sobolev());
    const auto b = data::longitudinal::bounds(s->x);
    t["theta_lo"] = num(b.theta_lo);
    t["theta_hi"] = num(b.theta_hi);
    r.describe = merge(std::move(par), t);
    r.write = [s, op](csv_writer& w) {
      std::vector<std::string> cols{"user", "t", "y"};
      for (std::size_t j = 0; j < op.p; ++j) cols.push_back("x" + std::to_string(j + 1));
      w.header(cols);
      for (std::size_t u = 0; u < op.users; ++u)
        for (std::size_t t = 0; t < op.times; ++t) {
          w.index(u).index(t).value(s->y(u, t));
          for (std::size_t j = 0; j < op.p; ++j) w.value(s->x(u, t, j));
          w.end_row();
        }
    };
  } else if (m == "nonparametric") {
    data::nonparametric_options op;
    op.f.shape = data::test_function::parse(p.text("function", "sine"));
    op.f.amplitude = p.number("amplitude", 1.0);
    op.f.frequency = p.number("frequency", 1.0);
    op.noise_sd = p.number("noise_sd", 1.0);
    op.phi = p.number("phi", 0.0);
    auto md = std::make_shared<data::nonparametric>(op);
    par["parameters"] = {{"function", std::string(data::test_function::name(op.f.shape))},
                         {"amplitude", op.f.amplitude},
                         {"frequency", op.f.frequency},
                         {"noise_sd", op.noise_sd},
                         {"phi", op.phi}};
    json t;
    // Y_i = f(x_i) + ε_i: the mean varies with x_i (column f of the CSV); the variance is the
    // marginal noise variance σ² and the autocorrelation that of the AR(1) noise.
    t["variance"] = num(op.noise_sd * op.noise_sd);
    {
      std::vector<double> ac;
      for (std::size_t h = 1; h <= 5; ++h) ac.push_back(std::pow(op.phi, double(h)));
      t["autocorrelation"] = num_list(ac);
    }
    t["lipschitz"] = num(op.f.lipschitz());
    t["sup_norm"] = num(op.f.sup_norm());
    t["log_sobolev"] = num(o.describe ? md->log_sobolev(n) : 0.0);
    t["sigma_max2"] = t["log_sobolev"];
    t["sigma_min2"] = num(o.describe ? md->min_eigenvalue(n) : 0.0);
    t["marginal_log_sobolev"] = num(md->marginal_log_sobolev());
    r.describe = merge(std::move(par), t);
    r.write = [md, n, &g](csv_writer& w) {
      const auto s = md->sample(n, g);
      w.header({"x", "y", "f"});
      for (std::size_t i = 0; i < n; ++i) {
        w.value(s.x(i)).value(s.y(i)).value(s.f(i));
        w.end_row();
      }
    };
  } else if (m == "sparse_linear" || m == "sparse_logistic") {
    data::erm_options op;
    op.n = n;
    op.n_test = p.count("n_test", 0);
    op.d = p.count("d", 20);
    op.k = p.count("k", 5);
    op.rho = p.number("rho", 0.5);
    op.signal = p.number("signal", 1.0);
    if (m == "sparse_linear") op.noise_sd = p.number("noise_sd", 1.0);
    const std::string sc = p.text("scaling", "none");
    if (sc == "none")
      op.scaling = data::row_scaling::none;
    else if (sc == "clip")
      op.scaling = data::row_scaling::clip;
    else if (sc == "normalize")
      op.scaling = data::row_scaling::normalize;
    else
      core::throw_invalid(kFn, "--scaling", sc, "must be none, clip or normalize");
    std::string lb;
    if (m == "sparse_logistic") {
      lb = p.text("labels", "pm1");
      if (lb == "pm1")
        op.labels = data::label_encoding::plus_minus_one;
      else if (lb == "01")
        op.labels = data::label_encoding::zero_one;
      else
        core::throw_invalid(kFn, "--labels", lb, "must be pm1 or 01");
    }
    std::shared_ptr<data::erm_sample> s;
    std::shared_ptr<data::erm_design> design;
    if (m == "sparse_linear") {
      auto md = std::make_shared<data::sparse_linear>(op);
      s = std::make_shared<data::erm_sample>(md->sample(g));
      design = md;
    } else {
      auto md = std::make_shared<data::sparse_logistic>(op);
      s = std::make_shared<data::erm_sample>(md->sample(g));
      design = md;
    }
    par["parameters"] = {{"n", op.n},
                         {"n_test", op.n_test},
                         {"d", op.d},
                         {"k", op.k},
                         {"rho", op.rho},
                         {"signal", op.signal}};
    // Only the parameters the model takes: noise_sd for linear, the label encoding for logistic.
    if (m == "sparse_linear")
      par["parameters"]["noise_sd"] = op.noise_sd;
    else
      par["parameters"]["labels"] = lb;
    par["parameters"]["scaling"] = sc;
    json t;
    t["support"] = s->support;
    std::vector<double> bv;
    for (std::size_t j : s->support) bv.push_back(s->beta(j));
    t["beta_support_values"] = num_list(bv);
    t["feature_lambda_max"] = num(design->feature_lambda_max());
    t["feature_lambda_min"] = num(design->feature_lambda_min());
    // The λ's are those of the Gaussian rows' Σ = r^|j−k|; clipping or normalising the rows
    // changes their second moments (no closed form), so say which matrix they belong to.
    t["feature_covariance"] = sc == "none" ? "r^|j-k|" : "r^|j-k| (rows before scaling)";
    if (m == "sparse_linear") t["noise_variance"] = num(op.noise_sd * op.noise_sd);
    r.describe = merge(std::move(par), t);
    r.write = [s, op](csv_writer& w) {
      std::vector<std::string> cols{"split", "y"};
      for (std::size_t j = 0; j < op.d; ++j) cols.push_back("x" + std::to_string(j + 1));
      w.header(cols);
      auto rows = [&](const std::string& split,
                      const xt::xtensor<double, 2>& x,
                      const xt::xtensor<double, 1>& y) {
        for (std::size_t i = 0; i < y.size(); ++i) {
          w.word(split).value(y(i));
          for (std::size_t j = 0; j < op.d; ++j) w.value(x(i, j));
          w.end_row();
        }
      };
      rows("train", s->x_train, s->y_train);
      rows("test", s->x_test, s->y_test);
    };
  } else {
    core::throw_invalid(kFn,
                        "model",
                        m,
                        "unknown (iid_gaussian, student_t, uniform, beta, ar1, ar1_t, arp, ma, "
                        "arma, var1, toeplitz, equicorrelated, fgn, block_toeplitz, "
                        "random_effects, longitudinal, nonparametric, sparse_linear, "
                        "sparse_logistic)");
  }
  p.finish(m);
  return r;
}

const bool registered = dpx::cli::register_command(
    "generate",
    "Draw a dataset from a dpx::data model as CSV; --describe prints its theory as JSON",
    [](CLI::App& sub) {
      auto o = std::make_shared<generate_options>();
      sub.add_option("model",
                     o->model,
                     "model name (iid_gaussian, ar1, arp, arma, var1, toeplitz, "
                     "equicorrelated, fgn, random_effects, longitudinal, "
                     "nonparametric, sparse_linear, sparse_logistic, ...)")
          ->required();
      sub.add_option("--n", o->n, "sample size (series length, users for panels, training rows)")
          ->required();
      sub.add_option("--seed", o->seed, "base seed of the data stream (default 1)");
      sub.add_option("--out", o->out, "write the CSV here (default: stdout unless --describe)");
      sub.add_flag("--describe", o->describe, "print the model's theoretical quantities as JSON");
      sub.allow_extras();
      return [o, &sub]() -> int {
        if (o->n == 0) core::throw_invalid(kFn, "--n", 0.0, "must be >= 1");
        params p(sub.remaining());
        auto g = dpx::rng::stream(
            o->seed, core::stable_hash("dpx generate " + o->model), 0, dpx::rng::purpose::data);
        generated r = build(*o, p, g);
        if (!o->out.empty()) {
          std::ofstream f(o->out, std::ios::binary);
          if (!f) throw std::invalid_argument("--out: cannot open " + o->out + " for writing");
          csv_writer w(f);
          r.write(w);
          w.flush();
          if (!f) throw std::runtime_error("write to " + o->out + " failed");
        } else if (!o->describe) {
          std::ios::sync_with_stdio(false);
          csv_writer w(std::cout);
          r.write(w);
        }
        if (o->describe) {
          json j;
          j["model"] = o->model;
          j["n"] = o->n;
          j["seed"] = o->seed;
          j = merge(std::move(j), r.describe);
          std::cout << j.dump(2) << "\n";
        }
        return dpx::cli::exit_ok;
      };
    });

}  // namespace
}  // namespace dpx::cli::cmd_generate
