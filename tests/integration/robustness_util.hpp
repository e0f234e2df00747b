#pragma once
// Shared fixture of the robustness replay tests (robustness_cli_test.cpp,
// robustness_more_cli_test.cpp): runs the real `dpx` executable with a time limit in a fresh
// directory holding CSV inputs that contain the planted private value kSecret, and checks the
// invariants every run must satisfy (see check()).
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_util.hpp"

namespace dpx::test::robust {

namespace fs = std::filesystem;
using args_t = std::vector<std::string>;

inline const std::string kSecret = "123-45-6789";
inline constexpr long kLimit = 60;  // hang detector: CPU seconds of one run
/// check()'s expected code meaning "exit 0 with a finite answer, or exit 2 with one line".
inline constexpr int kAnswerOrRefusal = -1;

class RobustnessCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = dpx::test::fresh_test_dir("dpx_robust_");
    write("secret.csv", "y,x1,x2\n1,2,3\n2," + kSecret + ",4\n3,5,6\n");
    write("secret_quoted.csv", "y,x1,x2\n1,2,3\n2,\"" + kSecret + ",\nmore\",4\n");
    write("secret_user.csv", "id,x\n" + kSecret + ",1\n2,1.5\n3,zz" + kSecret + "\n");
    write("big_cell.csv", "y,x1\n1,2\n2," + std::string(1 << 20, '7') + kSecret + "\n");
    write("garbage.csv", std::string("y,x1\n\x01\xff\xfe\x00", 9) + kSecret + "\x1b[2J\n");
    write("bom.csv", "\xEF\xBB\xBFy,x1,x2\r\n1,2,3\r\n2,3,5\r\n3,1,1\r\n4,2,2\r\n");
    write("ragged.csv", "y,x1\n1,2\n3\n");
    write("quoted.csv", "y,\"x1\",note\n1,\"2\",\"a, b\"\n2,3,\"c\"\"d\"\n3,1,\"e\nf\"\n4,2,g\n");
    write("empty.csv", "");
    write("header_only.csv", "y,x1\n");
    write("huge_values.csv", "y,x1\n1e308,1e308\n-1e308,-1e308\n1e308,-1e308\n");
    write("subnormal.csv", "y,x1\n1e-310,2e-310\n-3e-310,1e-310\n4e-310,-2e-310\n");
    write("mean.csv", "x\n1\n2\n3\n4\n");
    fs::create_directories(dir_ / "adir");
    preset_ = fs::path(DPX_INTEGRATION_PRESETS) / "synthetic_rate" / "preset.toml";
  }

  void write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name, std::ios::binary) << text;
  }

  dpx::test::outcome run(const args_t& args) {
    args_t argv{DPX_EXE};
    argv.insert(argv.end(), args.begin(), args.end());
    return dpx::test::run_in_bounded(argv, dir_, kLimit);
  }

  static std::string show(const args_t& args) {
    std::string s;
    for (const auto& a : args) s += (s.empty() ? "" : " ") + a.substr(0, 40);
    return s;
  }

  /// The invariants every run satisfies; returns the outcome for further checks.
  dpx::test::outcome check(const args_t& args, int expected_code) {
    const auto o = run(args);
    const std::string what = show(args);
    ++runs_;
    EXPECT_FALSE(o.timed_out) << what;
    if (expected_code == kAnswerOrRefusal) {
      EXPECT_TRUE(o.code == 0 || o.code == 2)
          << what << " exit " << o.code << "\nstderr: " << o.err.substr(0, 400);
    } else {
      EXPECT_EQ(o.code, expected_code) << what << "\nstderr: " << o.err.substr(0, 400);
    }
    EXPECT_EQ(o.out.find(kSecret), std::string::npos) << what;
    EXPECT_EQ(o.err.find(kSecret), std::string::npos) << what << "\n" << o.err.substr(0, 400);
    EXPECT_EQ(o.out.find("** On entry"), std::string::npos) << what;
    if (o.code != 0) {
      EXPECT_LE(o.err.size(), 1100u) << what;  // prefix + 1000-byte message bound
      EXPECT_TRUE(!o.err.empty() && o.err.back() == '\n' && o.err.find('\n') == o.err.size() - 1)
          << what << "\nstderr: " << o.err.substr(0, 400);
      EXPECT_NE(o.err.find("error: "), std::string::npos) << what << "\n" << o.err;
    } else if (!o.out.empty() && o.out.front() == '{') {
      const auto j = nlohmann::json::parse(o.out, nullptr, false);
      EXPECT_FALSE(j.is_discarded()) << what << "\n" << o.out.substr(0, 400);
      if (!j.is_discarded()) expect_no_null(j, args.front() == "fit", what);
    } else if (o.code == 0) {
      expect_no_nonfinite_text(o.out, what);
    }
    return o;
  }

  /// Text output (CSV, draws, listings): no field reads nan or inf.
  static void expect_no_nonfinite_text(const std::string& out, const std::string& what) {
    std::string tok;
    for (std::size_t i = 0; i <= out.size(); ++i) {
      const char c = i < out.size() ? out[i] : '\n';
      if (c == ',' || c == '\n' || c == '\r' || c == ' ' || c == '\t') {
        std::string t;
        for (char x : tok) t += static_cast<char>(std::tolower(static_cast<unsigned char>(x)));
        if (!t.empty() && (t[0] == '-' || t[0] == '+')) t.erase(0, 1);
        EXPECT_TRUE(t != "nan" && t != "inf" && t != "infinity") << what << ": '" << tok << "'";
        tok.clear();
      } else {
        tok += c;
      }
    }
  }

  static void expect_no_null(const nlohmann::json& j, bool fit, const std::string& what) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (it->is_structured()) {
        expect_no_null(*it, false, what);
        continue;
      }
      // Documented nulls: nonprivate `fit`'s epsilon/delta (docs/cli.md) and, under
      // `account --events ... --method all`, the answer of a method marked "unsupported": true.
      const bool unsupported =
          j.is_object() && j.contains("unsupported") && j["unsupported"] == true;
      const bool documented =
          (fit || unsupported) && j.is_object() && (it.key() == "epsilon" || it.key() == "delta");
      if (!documented) {
        EXPECT_FALSE(it->is_null()) << what << ": null answer";
      }
    }
  }

  fs::path dir_, preset_;
  int runs_ = 0;
};

}  // namespace dpx::test::robust
