#pragma once
// The log-space normal helpers live in dpx::core (one home: the privacy curves that mechanisms
// and solvers use are built on them); the accounting sources use them under their old names.
#include "dpx/core/detail/log_normal.hpp"

namespace dpx::accounting::detail {
using core::detail::erfcx;
using core::detail::gaussian_hockey_stick_fast;
using core::detail::gaussian_hockey_stick_rel_error;
using core::detail::inf;
using core::detail::log1mexp;
using core::detail::log_add;
using core::detail::log_erfc;
using core::detail::log_gaussian_hockey_stick;
using core::detail::log_gaussian_hockey_stick_fast;
using core::detail::log_ndtr;
using core::detail::log_sub;
using core::detail::ndtr_upper;
}  // namespace dpx::accounting::detail
