// dpx list: the presets of the experiments directory with their one-line descriptions.
#include <algorithm>
#include <iostream>
#include <memory>

#include "command.hpp"
#include "dpx/harness/preset.hpp"
#include "strict.hpp"

namespace dpx::cli::cmd_list {
namespace {

struct list_options {
  std::string dir;
};

const bool registered = dpx::cli::register_command(
    "list", "List the experiment presets with one-line descriptions", [](CLI::App& sub) {
      auto opts = std::make_shared<list_options>();
      sub.add_option("--dir",
                     opts->dir,
                     "Experiments directory (default: $DPX_EXPERIMENTS_DIR, ./experiments, the "
                     "installed share/dpx/experiments, or the source tree's)");
      return [opts]() -> int {
        if (!opts->dir.empty()) dpx::cli::check_input_dir("--dir", opts->dir);
        const std::filesystem::path dir =
            opts->dir.empty() ? dpx::harness::experiments_dir() : std::filesystem::path(opts->dir);
        const auto presets = dpx::harness::list_presets(dir);
        if (presets.empty()) {
          std::cout << "no presets in " << dir.string() << "\n";
          return dpx::cli::exit_ok;
        }
        std::size_t width = 0;
        for (const auto& p : presets) width = std::max(width, p.name.size());
        for (const auto& p : presets) {
          std::cout << p.name << std::string(width - p.name.size() + 2, ' ') << p.description
                    << "\n";
        }
        return dpx::cli::exit_ok;
      };
    });

}  // namespace
}  // namespace dpx::cli::cmd_list
