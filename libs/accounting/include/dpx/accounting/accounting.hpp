#pragma once
/// \file
/// Umbrella header of dpx::accounting (docs/accounting.md): composition theorems, RDP, zCDP,
/// PLD, the analytic Gaussian, the papers' own calibrations and the one-call API.
#include "dpx/accounting/accountant.hpp"
#include "dpx/accounting/calibration.hpp"
#include "dpx/accounting/composition.hpp"
#include "dpx/accounting/gaussian.hpp"
#include "dpx/accounting/pld.hpp"
#include "dpx/accounting/rdp.hpp"
#include "dpx/accounting/seeds.hpp"
#include "dpx/accounting/zcdp.hpp"
