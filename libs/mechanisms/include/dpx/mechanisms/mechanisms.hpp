#pragma once
/// \file
/// Umbrella header of dpx::mechanisms (see docs/mechanisms.md).
#include "dpx/mechanisms/discrete.hpp"
#include "dpx/mechanisms/float_safe.hpp"
#include "dpx/mechanisms/gaussian.hpp"
#include "dpx/mechanisms/histogram.hpp"
#include "dpx/mechanisms/l2_laplace.hpp"
#include "dpx/mechanisms/laplace.hpp"
#include "dpx/mechanisms/noise_kind.hpp"
#include "dpx/mechanisms/randomized_response.hpp"
#include "dpx/mechanisms/rounded_gaussian.hpp"
#include "dpx/mechanisms/selection.hpp"
