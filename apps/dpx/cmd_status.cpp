// dpx status: finished / running / missing / failed, per shard.
#include <cstdio>
#include <iostream>
#include <memory>

#include "command.hpp"
#include "dpx/harness/scale.hpp"
#include "json_output.hpp"
#include "strict.hpp"

namespace dpx::cli::cmd_status {
namespace {

namespace h = dpx::harness;

struct status_cli {
  std::string preset;
  std::string out;
  unsigned shards = 0;
  bool quick = false;
  bool full = false;
  bool json = false;
};

const bool registered = dpx::cli::register_command(
    "status",
    "Show which shards of a preset are finished, running, missing or failed",
    [](CLI::App& sub) {
      auto o = std::make_shared<status_cli>();
      sub.add_option("preset", o->preset, "Preset name or path to a .toml")->required();
      sub.add_option("--out", o->out, "Results directory (default results/<name>)");
      sub.add_option("--shards", o->shards, "Shard count N (default: from shards/<i>-of-<N>/)")
          ->check(CLI::Range(1u, 1000000u));
      auto* q = sub.add_flag("--quick", o->quick, "Examine the [quick] grid");
      sub.add_flag("--full", o->full, "Examine the full grid")->excludes(q);
      sub.add_flag("--json", o->json, "Print JSON instead of a table");
      dpx::cli::add_pretty_flag(sub);
      return [o]() -> int {
        h::status_options opts;
        opts.preset = o->preset;
        dpx::cli::check_output_dir("--out", o->out);
        opts.out_dir = o->out;
        opts.shards = o->shards;
        if (o->quick) opts.quick = true;
        if (o->full) opts.quick = false;
        const h::status_result s = h::status_preset(opts);
        if (o->json) {
          // The library's object behind this command's schema_version (docs/cli-schema.json).
          nlohmann::ordered_json j;
          j["schema_version"] = 1;
          const auto body = nlohmann::ordered_json::parse(h::status_json(s));
          for (auto it = body.begin(); it != body.end(); ++it) j[it.key()] = it.value();
          dpx::cli::emit_json(j);
          return dpx::cli::exit_ok;
        }
        std::cout << s.experiment << (s.quick ? " (quick)" : "") << ": " << s.blocks_done << "/"
                  << s.blocks << " blocks done" << (s.collected ? ", collected" : ", not collected")
                  << " (" << s.out_dir.string() << ")\n";
        std::cout << "shard      state     blocks done/total  failed  heartbeat\n";
        for (const auto& x : s.shards) {
          char line[256];
          std::snprintf(line,
                        sizeof line,
                        "%-10s %-9s %10zu/%-6zu %7zu  ",
                        (std::to_string(x.index) + "/" + std::to_string(x.count)).c_str(),
                        x.state.c_str(),
                        x.blocks_done,
                        x.blocks,
                        x.blocks_failed);
          std::cout << line;
          if (x.heartbeat_status.empty()) {
            std::cout << "-";
          } else {
            std::cout << x.heartbeat_status << " " << static_cast<long long>(x.heartbeat_age_s)
                      << " s ago (" << x.host << " pid " << x.pid << ")";
          }
          if (!x.note.empty()) std::cout << "\n           note: " << x.note;
          std::cout << "\n";
        }
        return dpx::cli::exit_ok;
      };
    });

}  // namespace
}  // namespace dpx::cli::cmd_status
