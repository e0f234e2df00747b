#pragma once
/// \file
/// The output contract: every field that a private `dpx` command prints, and every attribute of
/// the result of a private Python function, is classified here, in one table, as
///  * a release: covered by the printed guarantee (a noisy output or a function of noisy
///    outputs only);
///  * a public input: fixed by the flags, the arguments or the public facts the guarantee
///    assumes (identical on neighbouring datasets);
///  * a non-private diagnostic: a function of the data that the guarantee does not cover, output
///    only on explicit request (`--nonprivate-diagnostics`, `nonprivate_diagnostics=True`) and
///    labelled so.
/// The CLI (apps/dpx) and the Python bindings (python/src) decide what they output from this
/// table; the docs section (docs/cli.md, "Output contract") is generated from it
/// (output_contract_markdown); tests/integration/output_contract_cli_test.cpp and
/// python/tests/test_output_contract.py run every surface on neighbouring datasets with one
/// seed and check that every field outside "release" is identical. It lives in dpx::core
/// because both the tool and the bindings read it.
#include <span>
#include <string>
#include <string_view>

namespace dpx::core {

enum class output_class {
  release,                ///< covered by the printed guarantee
  public_input,           ///< echoed flags / arguments, or public by the guarantee's assumptions
  nonprivate_diagnostic,  ///< a function of the data not covered: opt-in and labelled
};

/// "release", "public input", "non-private diagnostic".
std::string_view to_string(output_class c) noexcept;

/// One private output surface: a CLI command (in the modes that release privately) or the
/// result type of a family of private Python functions.
struct output_surface {
  std::string_view name;      ///< "dpx fit", "dpx mean", "SolveResult", ...
  std::string_view covers;    ///< the commands / functions and modes it describes
  std::string_view relation;  ///< the neighbouring relation the contract test uses
  std::string_view opt_in;    ///< the switch that adds the diagnostics ("" = none exist)
};

/// One classified field of a surface. Nested JSON keys are written "object.key".
struct output_field {
  std::string_view surface;
  std::string_view field;
  output_class kind;
  std::string_view meaning;  ///< what it is, and why it has this class
};

std::span<const output_surface> output_surfaces() noexcept;
std::span<const output_field> output_contract() noexcept;

/// The class of surface.field; throws invalid_argument_error (parameter "field") when the pair
/// is not in the table: an unclassified field must never be output.
output_class classify(std::string_view surface, std::string_view field);

/// Whether surface.field is in the table.
bool is_classified(std::string_view surface, std::string_view field) noexcept;

/// The docs block (Markdown: one table per surface), as docs/cli.md holds it between the
/// markers output_contract_begin and output_contract_end.
std::string output_contract_markdown();

inline constexpr std::string_view output_contract_begin =
    "<!-- output contract: begin (generated from libs/core/src/output_contract.cpp; do not edit) "
    "-->";
inline constexpr std::string_view output_contract_end = "<!-- output contract: end -->";

}  // namespace dpx::core
