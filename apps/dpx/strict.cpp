#include "strict.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <limits>
#include <stdexcept>
#include <system_error>

namespace dpx::cli {

namespace {

bool is_control(unsigned char c) { return c < 0x20 || c == 0x7f; }

CLI::Validator strict_validator(const std::string& full_type) {
  // CLI11 appends validator descriptions after ':' ("UINT:INT in [1 - 4096]").
  const std::string type = full_type.substr(0, full_type.find(':'));
  const bool is_int = type == "INT" || type == "UINT";
  const bool is_unsigned = type == "UINT";
  const bool is_float = type == "FLOAT";
  return CLI::Validator(
      [=](std::string& value) -> std::string {
        if (is_int) return check_integer_text(value, is_unsigned);
        if (is_float) return check_number_text(value);
        return check_plain_text(value);
      },
      "",
      "strict");
}

void harden_options(CLI::App& app) {
  for (CLI::Option* opt : app.get_options()) {
    if (opt->get_expected_min() == 0 && opt->get_expected_max() == 0) continue;  // a flag
    if (opt->get_name() == "--help" || opt->get_name() == "--version") continue;
    opt->check(strict_validator(opt->get_type_name()));
  }
  for (CLI::App* sub : app.get_subcommands({})) harden_options(*sub);
}

}  // namespace

std::string check_plain_text(std::string_view s) {
  if (s.empty()) return "must not be empty";
  if (s.find_first_not_of(" ") == std::string_view::npos) return "must not be blank";
  if (s.size() > max_value_bytes) {
    return "is longer than " + std::to_string(max_value_bytes) + " bytes";
  }
  for (char c : s) {
    if (is_control(static_cast<unsigned char>(c))) {
      return "must not contain control characters (newline, tab, ...)";
    }
  }
  return {};
}

std::string check_integer_text(std::string_view s, bool is_unsigned) {
  if (auto e = check_plain_text(s); !e.empty()) return e;
  const char* b = s.data();
  const char* e = b + s.size();
  if (is_unsigned) {
    std::uint64_t v = 0;
    const auto r = std::from_chars(b, e, v);
    if (s[0] == '-' || s[0] == '+' || r.ec == std::errc::invalid_argument || r.ptr != e) {
      return "must be a non-negative integer (decimal digits only)";
    }
    if (r.ec == std::errc::result_out_of_range) return "is out of range (at most 2^64 - 1)";
  } else {
    std::int64_t v = 0;
    const auto r = std::from_chars(b, e, v);
    if (s[0] == '+' || r.ec == std::errc::invalid_argument || r.ptr != e) {
      return "must be an integer (decimal digits only)";
    }
    if (r.ec == std::errc::result_out_of_range) {
      return "is out of range (a 64-bit integer: |value| < 2^63)";
    }
  }
  return {};
}

std::string check_number_text(std::string_view s) {
  if (auto e = check_plain_text(s); !e.empty()) return e;
  const char* b = s.data();
  const char* e = b + s.size();
  if (*b == '+') ++b;
  double v = 0;
  const auto r = std::from_chars(b, e, v);
  if (b == e || r.ec == std::errc::invalid_argument || r.ptr != e) return "must be a number";
  if (r.ec == std::errc::result_out_of_range) {
    // from_chars reports underflow too: a value below the smallest subnormal is as unusable.
    return "is out of the range of a double (about 1e-308 to 1e308 in magnitude)";
  }
  if (!std::isfinite(v)) return "must be finite (not nan or inf)";
  return {};
}

void harden(CLI::App& app) { harden_options(app); }

void add_input_limit_options(CLI::App& sub, dpx::core::csv_limits& limits) {
  limits.bytes_flag = "--max-input-bytes";
  limits.rows_flag = "--max-rows";
  constexpr auto most = std::numeric_limits<std::uint64_t>::max();
  sub.add_option("--max-input-bytes",
                 limits.max_bytes,
                 "Largest --input accepted, in bytes (default " +
                     std::to_string(dpx::core::default_max_input_bytes) + " = 1 GiB)")
      ->check(CLI::Range(std::uint64_t{1}, most));
  sub.add_option("--max-rows",
                 limits.max_rows,
                 "Most data rows accepted in --input (default " +
                     std::to_string(dpx::core::default_max_input_rows) + ")")
      ->check(CLI::Range(std::uint64_t{1}, most));
}

void check_bound(const char* flag, std::int64_t value, std::int64_t bound, const char* why) {
  if (value > bound) {
    throw std::invalid_argument(std::string(flag) + " = " + std::to_string(value) +
                                " is invalid (must be <= " + std::to_string(bound) + ": " + why +
                                ")");
  }
}

void check_output_dir(const char* flag, const std::string& path) {
  if (path.empty()) return;
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);
  if (ec && ec != std::errc::no_such_file_or_directory) {
    throw std::invalid_argument(std::string(flag) + ": '" + path +
                                "' cannot be used as a directory (" + ec.message() + ")");
  }
  if (std::filesystem::exists(st) && !std::filesystem::is_directory(st)) {
    throw std::invalid_argument(std::string(flag) + ": '" + path +
                                "' exists and is not a directory");
  }
}

void check_input_dir(const char* flag, const std::string& path) {
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(st)) {
    throw std::invalid_argument(std::string(flag) + ": '" + path + "' does not exist");
  }
  if (!std::filesystem::is_directory(st)) {
    throw std::invalid_argument(std::string(flag) + ": '" + path + "' is not a directory");
  }
}

namespace {
/// Levenshtein distance (small strings: flag and command names).
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string closest(std::string_view word, const std::vector<std::string>& names) {
  if (word.size() > 64) return {};
  std::string best;
  std::size_t best_d = 3;  // at most 2 edits
  for (const auto& n : names) {
    const std::size_t d = edit_distance(word, n);
    if (d < best_d && d > 0) {
      best_d = d;
      best = n;
    }
  }
  return best;
}
}  // namespace

std::string did_you_mean(const CLI::App& app,
                         const CLI::App* chosen,
                         const std::vector<std::string>& args) {
  if (chosen == nullptr) {
    std::vector<std::string> names;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
      names.push_back(sub->get_name());
    for (const auto& a : args) {
      if (a.rfind("-", 0) == 0) continue;
      const std::string c = closest(a, names);
      return c.empty() ? std::string() : " (did you mean '" + c + "'?)";
    }
    return {};
  }
  std::vector<std::string> flags;
  for (const CLI::Option* opt : chosen->get_options()) {
    for (const auto& l : opt->get_lnames()) flags.push_back("--" + l);
  }
  for (const auto& a : args) {
    if (a.rfind("--", 0) != 0) continue;
    const std::string name = a.substr(0, a.find('='));
    bool known = false;
    for (const auto& f : flags) known = known || f == name;
    if (known) continue;
    const std::string c = closest(name, flags);
    if (!c.empty()) return " (did you mean " + c + "?)";
  }
  return {};
}

std::string one_line_message(std::string_view msg) {
  std::string out;
  out.reserve(std::min(msg.size(), max_message_bytes + 3));
  bool space = false;
  for (char ch : msg) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\v' || c == '\f') {
      space = !out.empty();
      continue;
    }
    if (space) {
      out += ' ';
      space = false;
    }
    out += is_control(c) ? '?' : ch;
    if (out.size() >= max_message_bytes) {
      // Do not cut a UTF-8 sequence in half.
      while (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xC0) == 0x80) {
        out.pop_back();
      }
      if (!out.empty() && static_cast<unsigned char>(out.back()) >= 0xC0) out.pop_back();
      out += "...";
      return out;
    }
  }
  return out;
}

namespace {

template <class Json>
void make_finite(Json& j, const std::string& path) {
  if (j.is_object()) {
    bool inf_epsilon = false;
    for (auto it = j.begin(); it != j.end(); ++it) {
      const std::string key = it.key();
      auto& v = it.value();
      if (v.is_number_float() && !std::isfinite(v.template get<double>())) {
        const double x = v.template get<double>();
        if (key == "epsilon" && x > 0) {
          v = "inf";
          inf_epsilon = true;
          continue;
        }
        throw std::invalid_argument(
            "the answer is not a finite number (field '" + path + key +
            "' overflowed or is undefined): the inputs are outside the range this computation "
            "can represent");
      }
      make_finite(v, path + key + ".");
    }
    if (inf_epsilon) {
      j["epsilon_note"] =
          "epsilon is +infinity: the bound exceeds the largest double (no useful guarantee)";
    }
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) {
      auto& v = j[i];
      if (v.is_number_float() && !std::isfinite(v.template get<double>())) {
        throw std::invalid_argument("the answer is not a finite number (field '" + path + "[" +
                                    std::to_string(i) +
                                    "]' overflowed or is undefined): the inputs are outside the "
                                    "range this computation can represent");
      }
      make_finite(v, path + "[" + std::to_string(i) + "].");
    }
  }
}

template <class Json>
void print_checked(Json j, int indent) {
  make_finite(j, "");
  std::cout << j.dump(indent) << "\n";
}

}  // namespace

void print_json(const nlohmann::ordered_json& j, int indent) { print_checked(j, indent); }
void print_json(const nlohmann::json& j, int indent) { print_checked(j, indent); }

}  // namespace dpx::cli
