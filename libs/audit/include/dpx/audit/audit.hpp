#pragma once
/// \file
/// Umbrella header of dpx::audit (empirical privacy auditing): auditor.hpp (Clopper–Pearson,
/// the held-out threshold auditor, the privacy-profile estimate), pairs.hpp (worst-case
/// neighbouring pairs for every mechanism), estimator_pairs.hpp (the one-release estimators'
/// mean stage), stage_pairs.hpp (the estimators'
/// histogram stage), composed_pairs.hpp (composed and multi-step estimators), variance_pairs.hpp
/// (the plug-in variance estimators), audits.hpp (named mechanism and solver audits).
#include "dpx/audit/auditor.hpp"
#include "dpx/audit/audits.hpp"
#include "dpx/audit/composed_pairs.hpp"
#include "dpx/audit/estimator_pairs.hpp"
#include "dpx/audit/pairs.hpp"
#include "dpx/audit/stage_pairs.hpp"
#include "dpx/audit/variance_pairs.hpp"
