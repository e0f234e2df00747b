#pragma once
/// \file
/// Umbrella header of dpx::estimators (docs/theory/dependent-data.md: Roth & Avella-Medina 2025
/// built on Karwa & Vadhan 2018). See docs/estimators.md.
#include "dpx/estimators/central.hpp"           // Algorithms 3, 4, 5, sample split, KV baseline
#include "dpx/estimators/common.hpp"            // privacy_spent, interval rules, budget split, τ
#include "dpx/estimators/local.hpp"             // Algorithms 7–9 (local model)
#include "dpx/estimators/local_regression.hpp"  // local regression (S1 Cor 6.7, 6.10)
#include "dpx/estimators/nonparametric.hpp"     // private Priestley–Chao
#include "dpx/estimators/user_level.hpp"  // user mean, random effects, longitudinal regression
#include "dpx/estimators/variance.hpp"    // plug-in variance (bisection, CoinPress)
