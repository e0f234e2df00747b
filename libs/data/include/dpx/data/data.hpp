#pragma once
/// \file
/// Umbrella header for dpx::data: dataset generators with their exact theoretical quantities
/// (docs/data.md). Include the individual headers to keep compile times down.
#include "dpx/data/arma.hpp"
#include "dpx/data/erm.hpp"
#include "dpx/data/iid.hpp"
#include "dpx/data/nonparametric.hpp"
#include "dpx/data/panel.hpp"
#include "dpx/data/registry.hpp"
#include "dpx/data/spectral.hpp"
#include "dpx/data/stationary.hpp"
#include "dpx/data/user_models.hpp"
#include "dpx/data/var1.hpp"
#include "dpx/data/variates.hpp"
