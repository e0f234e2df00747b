// Registers the synthetic_power_law driver in the dpx tool (harness integration tests).
// Deliberately no preset.toml here: test presets live under tests/integration/presets/.
#include "synthetic.hpp"

namespace {
const dpx::harness::driver_registrar registrar{dpx::experiments::make_synthetic_power_law()};
}  // namespace
