#pragma once
/// \file
/// Which noise a high-level entry point (an estimator, a private solver) draws: the float-safe
/// releases (float_safe.hpp: exact integer noise on a power-of-two grid, immune to Mironov's 2012
/// floating-point attack) or the research-grade double-precision mechanisms (laplace.hpp,
/// gaussian.hpp: fast, the papers' mechanisms exactly, NOT safe for real data).
/// docs/mechanisms.md, "Float safety: which release is which".
///
/// Every options struct that has a `noise` field of this type defaults to float_safe: a release
/// of real data is safe unless research-grade noise is asked for by name. Experiments that need
/// the papers' mechanisms (and bit-identical streams) pass research_grade explicitly.

#include <string>

#include "dpx/core/error.hpp"

namespace dpx::mechanisms {

/// Noise drawn by a high-level entry point.
enum class noise_kind {
  float_safe,      ///< float_safe_laplace / float_safe_gaussian / exact discrete noise (default)
  research_grade,  ///< laplace / gaussian in double precision (experiments, simulations)
};

/// "float_safe" or "research_grade".
inline std::string to_string(noise_kind k) {
  return k == noise_kind::float_safe ? "float_safe" : "research_grade";
}

/// Parses "float_safe" | "research_grade"; throws core::invalid_argument_error naming `noise`.
inline noise_kind parse_noise_kind(const std::string& s) {
  if (s == "float_safe") return noise_kind::float_safe;
  if (s == "research_grade") return noise_kind::research_grade;
  core::throw_invalid("parse_noise_kind", "noise", s, "must be float_safe or research_grade");
}

}  // namespace dpx::mechanisms
