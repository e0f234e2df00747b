#pragma once
/// \file
/// Umbrella header of dpx::core: keyed random streams, validation errors, the privacy
/// vocabulary and stable hashes (docs/architecture.md).
#include "dpx/core/error.hpp"
#include "dpx/core/hash.hpp"
#include "dpx/core/normal.hpp"
#include "dpx/core/privacy.hpp"
#include "dpx/core/rng.hpp"
