// Finding presets: the experiments directory, a preset by name or path, the list of presets.
#include <algorithm>
#include <cstdlib>

#include "preset_parse.hpp"

namespace dpx::harness {

using namespace preset_parse;

namespace {
bool has_presets(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return false;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.is_directory(ec) && fs::is_regular_file(e.path() / "preset.toml", ec)) return true;
  }
  return false;
}
}  // namespace

fs::path experiments_dir() {
  if (const char* env = std::getenv("DPX_EXPERIMENTS_DIR"); env != nullptr && *env != '\0')
    return env;
  if (has_presets("experiments")) return "experiments";
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path share = exe.parent_path().parent_path() / "share" / "dpx" / "experiments";
    if (has_presets(share)) return share;
  }
  return fs::path(DPX_SOURCE_DIR) / "experiments";
}

fs::path find_preset(const std::string& arg) {
  std::error_code ec;
  fs::path as_path(arg);
  if (fs::is_regular_file(as_path, ec)) return as_path;
  if (as_path.extension() == ".toml" || arg.find('/') != std::string::npos) {
    throw preset_error(arg + ": no such preset file");
  }
  const fs::path dir = experiments_dir();
  fs::path candidate = dir / arg / "preset.toml";
  if (fs::is_regular_file(candidate, ec)) return candidate;
  std::vector<std::string> names;
  for (const auto& info : list_presets(dir)) names.push_back(info.name);
  throw preset_error("unknown preset '" + arg + "' (presets in " + dir.string() + ": " +
                     (names.empty() ? std::string("none") : join(names)) + ")");
}

std::vector<preset_info> list_presets(const fs::path& dir) {
  std::vector<preset_info> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const fs::path file = e.path() / "preset.toml";
    if (!fs::is_regular_file(file, ec)) continue;
    preset_info info;
    info.name = e.path().filename().string();
    info.path = file;
    try {
      const toml::table t = toml::parse(read_file(file), file.string());
      info.description = t["experiment"]["description"].value_or(std::string{});
    } catch (const std::exception& ex) {
      std::string m = ex.what();
      std::replace(m.begin(), m.end(), '\n', ' ');
      info.description = "(invalid preset: " + m + ")";
    }
    out.push_back(std::move(info));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return out;
}

}  // namespace dpx::harness
