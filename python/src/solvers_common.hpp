#pragma once
// Pieces shared by the solver binding files (solvers.cpp, solvers_private.cpp): the numpy
// dataset view, the GLM loss by name, the penalty / constraint value type bound as
// dpx.solvers.Penalty, and the string <-> enum conversions of the options classes.
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "common.hpp"
#include "dpx/core/error.hpp"
#include "dpx/core/privacy.hpp"
#include "dpx/losses/losses.hpp"
#include "dpx/prox/prox.hpp"
#include "dpx/solvers/solvers.hpp"

namespace dpx::python {

losses::glm_kind parse_loss(const std::string& s);

/// "replace_one" / "add_remove" (also the C++ spellings "replace-one", "add/remove").
core::neighbouring parse_relation(const char* function, const std::string& s);
/// "replace_one" / "add_remove".
std::string relation_name(core::neighbouring n);

/// The dataset view over X (n x d, C-contiguous float64) and y (n); the arrays must outlive it.
losses::dataset_view dataset(const char* function, const f64_in& x, const f64_in& y);

/// Sets the privacy fields every private solver's options share: the neighbouring relation, the
/// public normaliser n_bar (add/remove) and the (epsilon, delta) target.
template <class Opt>
void set_privacy(Opt& o,
                 const char* function,
                 const std::string& relation,
                 std::size_t public_size,
                 double epsilon,
                 double delta) {
  o.relation = parse_relation(function, relation);
  o.public_size = public_size;
  o.target.epsilon = epsilon;
  o.target.delta = delta;
}

/// The (epsilon, delta) target from the keywords epsilon and delta (None = not given): no target
/// when neither is given (the C++ options then refuse a calibration that needs one, naming
/// epsilon), else {epsilon, delta}, each None taken from `fallback` when there is one; a delta
/// still missing is 0 (refused, naming delta, by every calibration that uses it). delta without
/// epsilon is refused naming delta (it would be ignored).
std::optional<core::epsilon_delta> target_argument(
    const char* function,
    std::optional<double> epsilon,
    std::optional<double> delta,
    const std::optional<core::epsilon_delta>& fallback = std::nullopt);

/// set_privacy for the options whose target is optional (pgd, frank_wolfe, istdp: a run that
/// would ignore a target refuses one, naming the option; docs/solvers.md, "Privacy targets").
template <class Opt>
void set_privacy(Opt& o,
                 const char* function,
                 const std::string& relation,
                 std::size_t public_size,
                 std::optional<core::epsilon_delta> target) {
  o.relation = parse_relation(function, relation);
  o.public_size = public_size;
  o.target = target;
}

/// A starting point: zeros when absent, else the given vector of size d.
std::vector<double> start_point(const char* function,
                                const char* parameter,
                                const std::optional<f64_in>& v,
                                std::size_t d);

/// A penalty or the indicator of a constraint set (dpx::prox), as one value type.
struct penalty_spec {
  using variant = std::variant<prox::zero_penalty,
                               prox::l1_norm,
                               prox::squared_l2,
                               prox::elastic_net,
                               prox::mcp,
                               prox::scad,
                               prox::capped_l1,
                               prox::l2_ball,
                               prox::box,
                               prox::simplex,
                               prox::l1_ball>;
  variant value;
  std::string name;  ///< e.g. "l1(lam=0.1)", for repr
  /// The shorthand of the solver functions: "none", "l1" (lam), "mcp" (lam, gamma = 3),
  /// "scad" (lam, gamma = 3.7) as `dpx fit --penalty`.
  static penalty_spec from_name(const std::string& s, double lam, std::optional<double> gamma);
};

/// The penalty argument of a solver function: a Penalty or a shorthand name.
penalty_spec penalty_argument(py::handle penalty, double lam, std::optional<double> gamma);

/// Calls f(P) with the penalty as the solvers take it: a separable penalty wrapped in
/// partially_penalized on the first d - unpenalized coordinates (the last `unpenalized` free,
/// e.g. an intercept column stored last, as `dpx fit --intercept`); a constraint set as is
/// (then unpenalized must be 0).
template <class F>
decltype(auto) with_penalty(const penalty_spec& p, std::size_t d, std::size_t unpenalized, F&& f) {
  if (unpenalized > d)
    core::throw_invalid("solvers", "unpenalized", double(unpenalized), "must be <= d");
  return std::visit(
      [&](const auto& raw) -> decltype(auto) {
        using P = std::decay_t<decltype(raw)>;
        if constexpr (prox::separable_penalty<P>) {
          return f(solvers::partially_penalized<P>{raw, d - unpenalized});
        } else {
          if (unpenalized != 0)
            core::throw_invalid("solvers",
                                "unpenalized",
                                double(unpenalized),
                                "must be 0 with a constraint set (" + p.name + ")");
          return f(raw);
        }
      },
      p.value);
}

/// A solver's result for Python under the output contract (dpx/core/output_contract.hpp,
/// surface "SolveResult"): for a run that released anything (privacy events), unless
/// nonprivate_diagnostics, the non-private diagnostics (objective, trace, status, counters,
/// time) are erased and read as None, and repr shows only the release and the public inputs.
py::object private_result(solvers::solve_result r, bool nonprivate_diagnostics);

void init_solvers_private(py::module_& m);
void init_solvers_convex(py::module_& m);
void init_online_kernel(py::module_& m);

}  // namespace dpx::python
