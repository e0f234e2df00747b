// Real releases draw their noise from the CSPRNG (rng::os_random: OpenSSL's RAND_priv_bytes) and
// from nothing else: each command runs twice, without --seed, with RAND_priv_bytes replaced by a
// fixed byte stream (LD_PRELOAD of shim/fixed_csprng.cpp). Equal outputs show that all of the
// noise came from RAND_priv_bytes; a Philox keyed from getrandom(2) (the release generator
// before) gives different outputs (equal by chance: below 1e-5 for each command, the draws being
// continuous-valued on fine grids). A control run without the shim differs, so the check has
// power: the commands are not deterministic by themselves.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_util.hpp"

namespace {

namespace fs = std::filesystem;
using dpx::test::env_list;
using dpx::test::run_dpx;

// Under a sanitizer build the ASan runtime must come first in the library list; the shim only
// defines one symbol, so the order check is switched off for these runs.
const env_list fixed_csprng = {{"LD_PRELOAD", DPX_TEST_FIXED_CSPRNG},
                               {"ASAN_OPTIONS", "verify_asan_link_order=0"}};

class ReleaseGenerator : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = dpx::test::fresh_test_dir("dpx_release_generator_");
    std::ofstream csv(dir_ / "d.csv");
    csv << "x,y\n";
    for (int i = 0; i < 200; ++i)
      csv << (i % 17) * 0.05 - 0.4 << "," << (i % 17) * 0.03 + (i % 5) * 0.01 << "\n";
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The output without its timing ("seconds" of dpx fit, a wall-clock figure).
  static std::string untimed(const std::string& out) {
    if (out.empty() || out[0] != '{') return out;
    auto j = nlohmann::ordered_json::parse(out);
    j.erase("seconds");
    return j.dump();
  }
  // Two runs under the fixed CSPRNG agree; a run without it differs.
  void expect_noise_only_from_csprng(const std::vector<std::string>& args) {
    const auto a = run_dpx(args, dir_, fixed_csprng);
    const auto b = run_dpx(args, dir_, fixed_csprng);
    const auto c = run_dpx(args, dir_);
    ASSERT_EQ(a.code, 0) << a.err;
    ASSERT_EQ(b.code, 0) << b.err;
    ASSERT_EQ(c.code, 0) << c.err;
    EXPECT_TRUE(a.err.empty()) << a.err;  // no --seed: no warning
    EXPECT_EQ(untimed(a.out), untimed(b.out)) << args[0];
    EXPECT_NE(untimed(a.out), untimed(c.out)) << args[0];
  }
  fs::path dir_;
};

TEST_F(ReleaseGenerator, MeanDrawsOnlyFromTheCsprng) {
  expect_noise_only_from_csprng({"mean",
                                 "--input",
                                 (dir_ / "d.csv").string(),
                                 "--column",
                                 "x",
                                 "--epsilon",
                                 "1",
                                 "--delta",
                                 "1e-6",
                                 "--tau",
                                 "1"});
}

TEST_F(ReleaseGenerator, FitDrawsOnlyFromTheCsprng) {
  expect_noise_only_from_csprng({"fit",
                                 "--input",
                                 (dir_ / "d.csv").string(),
                                 "--target",
                                 "y",
                                 "--features",
                                 "x",
                                 "--solver",
                                 "noisy_pgd",
                                 "--epsilon",
                                 "1",
                                 "--delta",
                                 "1e-5",
                                 "--max-iter",
                                 "5"});
}

TEST_F(ReleaseGenerator, SampleDrawsOnlyFromTheCsprng) {
  for (const char* m : {"laplace", "discrete_gaussian"}) {
    const std::string noise = std::string(m) == "laplace" ? "--scale" : "--sigma";
    expect_noise_only_from_csprng({"sample", "--mechanism", m, noise, "3", "--count", "50"});
  }
}

}  // namespace
