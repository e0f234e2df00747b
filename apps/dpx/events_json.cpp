#include "events_json.hpp"

#include <array>
#include <cmath>
#include <set>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "dpx/core/csv.hpp"
#include "dpx/core/error.hpp"

namespace dpx::cli {

namespace {
constexpr const char* kFn = "dpx account";
constexpr const char* kFlag = "--events";

[[noreturn]] void fail(const std::string& where, const char* why) {
  dpx::core::throw_invalid(kFn, kFlag, where, why);
}

/// Each kind and the keys it takes besides "kind" and "count".
struct kind_keys {
  const char* kind;
  std::array<const char*, 5> keys;  // nullptr: unused
};
constexpr std::array<kind_keys, 13> kKinds = {{
    {"gaussian", {"noise_multiplier", nullptr}},
    {"laplace", {"noise_multiplier", nullptr}},
    {"subsampled_gaussian", {"sampling_rate", "noise_multiplier"}},
    {"subsampled_laplace", {"sampling_rate", "noise_multiplier"}},
    {"sampled_without_replacement",
     {"noise", "noise_multiplier", "batch_size", "dataset_size", "neighbouring"}},
    {"randomized_response", {"epsilon", "categories"}},
    {"pure_dp", {"epsilon", nullptr}},
    {"exponential_mechanism", {"epsilon", nullptr}},
    {"approx_dp", {"epsilon", "delta"}},
    {"discrete_pair", {"p", "q"}},
    {"discrete_laplace", {"scale", "sensitivity"}},
    {"discrete_gaussian", {"sigma", "sensitivity"}},
    {"zcdp", {"rho", nullptr}},
}};
/// A key repeated inside one JSON object ({"count": 3, "count": 1}).
struct duplicate_key {};

/// Parses text, throwing duplicate_key when an object repeats a key: RFC 8259 leaves the
/// meaning of repeated names open and nlohmann keeps the last one, so a mis-merged ledger would
/// silently lose a release.
nlohmann::json parse_unique_keys(std::string_view text) {
  std::vector<std::set<std::string>> open;  // the keys of every object being parsed
  const nlohmann::json::parser_callback_t check =
      [&open](int, nlohmann::json::parse_event_t ev, nlohmann::json& parsed) {
        using event = nlohmann::json::parse_event_t;
        if (ev == event::object_start) {
          open.emplace_back();
        } else if (ev == event::object_end) {
          if (!open.empty()) open.pop_back();
        } else if (ev == event::key) {
          if (open.empty() || !open.back().insert(parsed.get<std::string>()).second) {
            throw duplicate_key{};
          }
        }
        return true;
      };
  return nlohmann::json::parse(text.begin(), text.end(), check);
}

const kind_keys* find_kind(const std::string& kind) {
  for (const auto& k : kKinds) {
    if (k.kind != nullptr && kind == k.kind) return &k;
  }
  return nullptr;
}
}  // namespace

dpx::core::event_log parse_events_json(std::string_view text, const std::string& path) {
  namespace core = dpx::core;
  nlohmann::json j;
  try {
    j = parse_unique_keys(text);
  } catch (const nlohmann::json::exception&) {
    fail(path, "is not valid JSON");
  } catch (const duplicate_key&) {
    fail(path, "repeats a key inside one object; each key may appear once");
  }
  const nlohmann::json& arr = j.is_object() && j.contains("events") ? j["events"] : j;
  if (j.is_object() && j.size() != 1) fail(path, "takes one key, \"events\"");
  if (!arr.is_array() || arr.empty()) fail(path, "must hold a nonempty array of events");
  core::event_log log;
  std::int64_t total = 0;
  for (std::size_t i = 0; i < arr.size(); ++i) {
    const auto& e = arr[i];
    const std::string where = path + ": event " + std::to_string(i);
    if (!e.is_object()) fail(where, "must be a JSON object");
    if (!e.contains("kind") || !e["kind"].is_string()) fail(where + " kind", "missing or not text");
    const std::string kind = e["kind"].get<std::string>();
    const kind_keys* spec = find_kind(kind);
    if (spec == nullptr) fail(where + " kind", "unknown event kind");
    for (const auto& [k, v] : e.items()) {
      bool known = k == "kind" || k == "count";
      for (const char* x : spec->keys) known = known || (x != nullptr && k == x);
      if (!known) fail(where, "has a key this kind does not take");
    }
    auto num = [&](const char* k) {
      if (!e.contains(k) || !e[k].is_number()) fail(where + " " + k, "missing or not a number");
      return e[k].get<double>();
    };
    auto integer = [&](const char* k, std::int64_t fallback) {
      if (!e.contains(k)) return fallback;
      // Unsigned values above 2^63 - 1 are out of range too (get<int64_t> would wrap them).
      if (!e[k].is_number_integer() ||
          (e[k].is_number_unsigned() &&
           e[k].get<std::uint64_t>() > static_cast<std::uint64_t>(max_event_releases))) {
        fail(where + " " + k, "must be an integer no larger than 2^53");
      }
      return e[k].get<std::int64_t>();
    };
    auto vec = [&](const char* k) {
      if (!e.contains(k) || !e[k].is_array()) fail(where + " " + k, "missing or not an array");
      std::vector<double> v;
      for (const auto& x : e[k]) {
        if (!x.is_number()) fail(where + " " + k, "must hold only numbers");
        v.push_back(x.get<double>());
      }
      return v;
    };
    // Types here; ranges in core::check_event below (the events' one home of validation).
    core::privacy_event ev;
    if (kind == "gaussian") {
      ev = core::gaussian_event{num("noise_multiplier")};
    } else if (kind == "laplace") {
      ev = core::laplace_event{num("noise_multiplier")};
    } else if (kind == "subsampled_gaussian") {
      ev = core::subsampled_gaussian_event{num("sampling_rate"), num("noise_multiplier")};
    } else if (kind == "subsampled_laplace") {
      ev = core::subsampled_laplace_event{num("sampling_rate"), num("noise_multiplier")};
    } else if (kind == "sampled_without_replacement") {
      auto text = [&](const char* k) {
        if (!e.contains(k) || !e[k].is_string()) fail(where + " " + k, "missing or not text");
        return e[k].get<std::string>();
      };
      const std::string noise = text("noise");
      if (noise != "gaussian" && noise != "laplace") {
        fail(where + " noise", "must be gaussian or laplace");
      }
      const std::string rel = text("neighbouring");
      if (rel != "add_remove" && rel != "replace_one") {
        fail(where + " neighbouring", "must be add_remove or replace_one");
      }
      const std::int64_t batch = integer("batch_size", 0), size = integer("dataset_size", 0);
      ev = core::sampled_without_replacement_event{
          noise == "gaussian" ? core::noise_family::gaussian : core::noise_family::laplace,
          num("noise_multiplier"),
          batch,
          size,
          rel == "replace_one" ? core::neighbouring::replace_one : core::neighbouring::add_remove};
    } else if (kind == "randomized_response") {
      ev = core::randomized_response_event{num("epsilon"), integer("categories", 2)};
    } else if (kind == "pure_dp") {
      ev = core::pure_dp_event{num("epsilon")};
    } else if (kind == "approx_dp") {
      ev = core::approx_dp_event{num("epsilon"), num("delta")};
    } else if (kind == "discrete_pair") {
      ev = core::discrete_pair_event{vec("p"), vec("q")};
    } else if (kind == "discrete_laplace") {
      ev = core::discrete_laplace_event{num("scale"), integer("sensitivity", 1)};
    } else if (kind == "discrete_gaussian") {
      ev = core::discrete_gaussian_event{num("sigma"), num("sensitivity")};
    } else if (kind == "zcdp") {
      ev = core::zcdp_event{num("rho")};
    } else {
      ev = core::exponential_mechanism_event{num("epsilon")};
    }
    try {
      core::check_event(kind, ev);
    } catch (const core::invalid_argument_error& x) {
      // The event and key, never the value (the message must not echo the file).
      fail(where + " " + x.parameter(), x.requirement().c_str());
    }
    const std::int64_t count = integer("count", 1);
    if (count < 1) fail(where + " count", "must be >= 1");
    if (count > max_event_releases - total) {
      fail(where + " count", "brings the total number of releases above 2^53");
    }
    total += count;
    log.append(ev, count);
  }
  return log;
}

dpx::core::event_log read_events_file(const std::string& path) {
  std::string text;
  try {
    text = dpx::core::read_input_text(path, max_events_file_bytes);
  } catch (const dpx::core::csv_error& e) {
    // The reader's reason without its "<path>: " prefix (fail names the file).
    std::string why = e.what();
    const std::string prefix = e.source() + ": ";
    if (why.rfind(prefix, 0) == 0) why.erase(0, prefix.size());
    fail(path, why.c_str());
  }
  return parse_events_json(text, path == "-" ? std::string("<stdin>") : path);
}

}  // namespace dpx::cli
