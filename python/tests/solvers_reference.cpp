// The C++ side of the bit-identity tests of the solvers that `dpx fit` does not offer (Frank-Wolfe,
// output and objective perturbation; test_solvers.py): runs the C++ solver directly on a CSV
// (no header; the last column is y) with the noise stream rng::stream(seed, 0, 0, noise), which
// is dpx.Philox(seed), and prints the result as JSON with 17 significant digits (round-trip
// exact). It shares no code with the Python bindings beyond the library itself.
//
//   dpx_solvers_reference DATA.csv frank_wolfe|output_perturbation|objective_perturbation SEED
//                         [key=value ...]
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "dpx/core/rng.hpp"
#include "dpx/losses/losses.hpp"
#include "dpx/solvers/frank_wolfe.hpp"
#include "dpx/solvers/perturbation.hpp"

namespace {

namespace sol = dpx::solvers;

struct table {
  std::vector<double> x, y;
  std::size_t rows = 0, cols = 0;
};

table read_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  table t;
  std::string line;
  while (std::getline(in, line)) {
    std::vector<double> row;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ',')) row.push_back(std::strtod(cell.c_str(), nullptr));
    if (row.size() < 2) throw std::runtime_error("a row needs features and y");
    t.cols = row.size() - 1;
    t.x.insert(t.x.end(), row.begin(), row.end() - 1);
    t.y.push_back(row.back());
    ++t.rows;
  }
  return t;
}

// key=value options with the C++ defaults for absent keys.
struct options {
  std::map<std::string, std::string> kv;
  double num(const std::string& k, double d) const {
    const auto it = kv.find(k);
    return it == kv.end() ? d : std::strtod(it->second.c_str(), nullptr);
  }
  std::string str(const std::string& k, const std::string& d) const {
    const auto it = kv.find(k);
    return it == kv.end() ? d : it->second;
  }
  dpx::core::neighbouring relation() const {
    return str("relation", "replace_one") == "add_remove" ? dpx::core::neighbouring::add_remove
                                                          : dpx::core::neighbouring::replace_one;
  }
  // The fields every private solver's options share.
  template <class Opt>
  void privacy(Opt& p) const {
    p.relation = relation();
    p.public_size = static_cast<std::size_t>(num("public_size", 0));
    if constexpr (requires { p.target.has_value(); }) {
      // An optional target: set only when given, like the Python keywords (a missing delta is
      // the default target's, or 0 without one).
      if (kv.contains("epsilon"))
        p.target = dpx::core::epsilon_delta{num("epsilon", 0),
                                            num("delta", p.target ? p.target->delta : 0.0)};
    } else {
      p.target.epsilon = num("epsilon", p.target.epsilon);
      p.target.delta = num("delta", p.target.delta);
    }
  }
  sol::strongly_convex_solve_options solve(sol::strongly_convex_solve_options s) const {
    s.relative_tolerance = num("relative_tolerance", s.relative_tolerance);
    s.max_iterations = static_cast<std::int64_t>(num("max_iterations", double(s.max_iterations)));
    return s;
  }
};

void print(const sol::solve_result& r) {
  std::printf("{\"status\": \"%s\", \"sensitivity\": %.17g, \"noise_scale\": %.17g, ",
              sol::to_string(r.status).c_str(),
              r.sensitivity,
              r.noise_scale);
  std::printf("\"events\": %zu, \"coefficients\": [", r.privacy_events.runs().size());
  for (std::size_t j = 0; j < r.x.size(); ++j) std::printf(j ? ", %.17g" : "%.17g", r.x[j]);
  std::printf("]}\n");
}

}  // namespace

int main(int argc, char** argv) try {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s DATA.csv SOLVER SEED [key=value ...]\n", argv[0]);
    return 2;
  }
  const table t = read_csv(argv[1]);
  const std::string solver = argv[2];
  const auto seed = std::strtoull(argv[3], nullptr, 10);
  options o;
  for (int i = 4; i < argc; ++i) {
    const std::string a = argv[i];
    const auto eq = a.find('=');
    if (eq == std::string::npos) throw std::runtime_error("expected key=value: " + a);
    o.kv[a.substr(0, eq)] = a.substr(eq + 1);
  }
  const auto kind =
      o.str("loss", solver == "objective_perturbation" ? "logistic" : "least_squares") == "logistic"
          ? dpx::losses::glm_kind::logistic
          : dpx::losses::glm_kind::least_squares;
  const dpx::losses::glm_loss loss(kind, {t.x, t.y, t.rows, t.cols});
  auto rng = dpx::rng::stream(seed, 0, 0, dpx::rng::purpose::noise);
  if (solver == "frank_wolfe") {
    sol::frank_wolfe_options f;
    f.noise_kind = dpx::mechanisms::noise_kind::research_grade;
    f.iterations = static_cast<std::int64_t>(o.num("iterations", double(f.iterations)));
    f.radius = o.num("radius", f.radius);
    f.private_selection = o.num("private_selection", 0) != 0;
    f.clip_norm = o.num("clip_norm", f.clip_norm);
    f.coordinate_bound = o.num("coordinate_bound", f.coordinate_bound);
    o.privacy(f);
    f.calibration = sol::parse_noise_calibration(o.str("calibration", "tight"));
    f.step_epsilon = o.num("step_epsilon", f.step_epsilon);
    const std::vector<double> x0(t.cols, 0.0);
    print(sol::frank_wolfe(loss, x0, f, rng));
  } else if (solver == "output_perturbation") {
    sol::output_perturbation_options p;
    p.noise_kind = dpx::mechanisms::noise_kind::research_grade;
    p.regularization = o.num("regularization", p.regularization);
    p.clip_norm = o.num("clip_norm", p.clip_norm);
    o.privacy(p);
    p.calibration = sol::parse_noise_calibration(o.str("calibration", "tight"));
    // As the Python keyword: fixed takes no target unless one is given (then refused).
    if (p.calibration == sol::noise_calibration::fixed && !o.kv.contains("epsilon"))
      p.target.reset();
    p.noise_scale = o.num("noise_scale", p.noise_scale);
    p.solve = o.solve(p.solve);
    print(sol::output_perturbation(loss, p, rng));
  } else if (solver == "objective_perturbation") {
    sol::objective_perturbation_options p;
    p.noise_kind = dpx::mechanisms::noise_kind::research_grade;
    p.regularization = o.num("regularization", p.regularization);
    p.row_norm_bound = o.num("row_norm_bound", p.row_norm_bound);
    o.privacy(p);
    p.approx_fraction = o.num("approx_fraction", p.approx_fraction);
    p.solve = o.solve(p.solve);
    print(sol::objective_perturbation(loss, p, rng));
  } else {
    throw std::runtime_error("unknown solver " + solver);
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 1;
}
