#pragma once
/// \file
/// Umbrella header of dpx::harness (docs/architecture.md, docs/presets.md): presets, drivers,
/// the runner, results, analysis and scale-out.
#include "dpx/harness/analysis.hpp"
#include "dpx/harness/driver.hpp"
#include "dpx/harness/preset.hpp"
#include "dpx/harness/results.hpp"
#include "dpx/harness/runner.hpp"
#include "dpx/harness/scale.hpp"
#include "dpx/harness/sha256.hpp"
