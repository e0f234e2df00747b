#pragma once
/// \file
/// All of dpx::solvers (convenience header).
#include "dpx/solvers/calibration.hpp"
#include "dpx/solvers/common.hpp"
#include "dpx/solvers/dp_sgd.hpp"
#include "dpx/solvers/frank_wolfe.hpp"
#include "dpx/solvers/gist.hpp"
#include "dpx/solvers/istdp.hpp"
#include "dpx/solvers/metrics.hpp"
#include "dpx/solvers/online_kernel.hpp"
#include "dpx/solvers/perturbation.hpp"
#include "dpx/solvers/pgd.hpp"
