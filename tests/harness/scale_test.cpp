// Properties checked (libs/harness scale.hpp + the shard options of runner.hpp):
// - parse_shard accepts i/N with 0 <= i < N and rejects everything else;
// - shard_of is a pure function of (cell id, first replication): recomputing gives the same
//   shard, every block lands in exactly one shard in [0, N), and over many blocks the shards
//   are balanced (each within 25% of the mean for 3000 blocks over 3 shards: a binomial
//   deviation of > 8 sd, false-failure probability < 1e-15);
// - run_preset with shard i/N computes exactly the blocks of shard i and writes no tidy.csv;
//   collect_preset over all shards gives the single-process tidy.csv byte for byte;
// - status_preset: missing before, finished after, failed for a dead heartbeat;
// - slurm_script: array line with throttle, single-threaded BLAS, afterok dependency;
//   slurm_options::validate rejects relative paths, zero shards and a bad time.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "dpx/core/hash.hpp"
#include "dpx/harness/results.hpp"
#include "dpx/harness/scale.hpp"

namespace {

namespace fs = std::filesystem;
namespace h = dpx::harness;

h::driver make_scale_driver() {
  h::driver d;
  d.name = "scale_test_driver";
  d.version = "1";
  d.params = {{"n", "", std::nullopt}};
  d.metric_names = {"x"};
  d.run = [](const h::cell_context& c) {
    auto g = c.stream(dpx::rng::purpose::noise);
    return h::metrics{{"x", dpx::rng::uniform01(g) * c.params.get_double("n")}};
  };
  return d;
}
const h::driver_registrar reg{make_scale_driver()};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class ScaleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(::testing::TempDir()) / (std::string("dpx_scale_unit_") + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    preset_ = dir_ / "p.toml";
    std::ofstream(preset_) << "[experiment]\nname = \"p\"\ndriver = \"scale_test_driver\"\n"
                              "base_seed = 3\nreplications = 30\nreplication_block = 4\n"
                              "[grid]\nn = [1, 2, 3, 4, 5]\n";
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }
  h::run_options opts(const std::string& out, unsigned i = 0, unsigned n = 1) {
    h::run_options o;
    o.preset = preset_.string();
    o.out_dir = dir_ / out;
    o.threads = 2;
    o.quiet = true;
    o.figures = false;
    o.shard_index = i;
    o.shard_count = n;
    return o;
  }
  fs::path dir_, preset_;
};

TEST(ParseShard, AcceptsAndRejects) {
  EXPECT_EQ(h::parse_shard("0/1"), (std::pair<unsigned, unsigned>{0, 1}));
  EXPECT_EQ(h::parse_shard("7/10"), (std::pair<unsigned, unsigned>{7, 10}));
  for (const char* bad : {"", "1", "1/1", "3/2", "-1/2", "a/2", "1/", "/2", "1/0", "1 /2"}) {
    EXPECT_THROW(h::parse_shard(bad), std::invalid_argument) << bad;
  }
}

TEST(ShardOf, PureTotalAndBalanced) {
  EXPECT_THROW(h::shard_of("00", 0, 0), std::invalid_argument);
  std::vector<std::size_t> per(3, 0);
  for (int c = 0; c < 300; ++c) {
    const std::string id = dpx::core::hex16(dpx::core::stable_hash("cell" + std::to_string(c)));
    for (std::uint32_t b = 0; b < 10; ++b) {
      const unsigned s = h::shard_of(id, b * 50, 3);
      ASSERT_LT(s, 3u);
      EXPECT_EQ(s, h::shard_of(id, b * 50, 3));
      EXPECT_EQ(h::shard_of(id, b * 50, 1), 0u);
      ++per[s];
    }
  }
  for (const auto n : per) {
    EXPECT_GT(n, 750u);
    EXPECT_LT(n, 1250u);
  }
  // Documented formula.
  EXPECT_EQ(h::shard_of("abc", 17, 7), dpx::core::stable_hash("abc/17") % 7);
}

TEST_F(ScaleTest, ShardsThenCollectEqualSingleRun) {
  const h::run_result single = h::run_preset(opts("single"));
  ASSERT_EQ(single.status, h::run_status::completed);
  const std::string ref = slurp(dir_ / "single" / "tidy.csv");

  auto st = h::status_preset({preset_.string(), dir_ / "sh", std::nullopt, 3, 60});
  ASSERT_EQ(st.shards.size(), 3u);
  std::size_t total = 0;
  for (const auto& s : st.shards) {
    EXPECT_EQ(s.state, "missing");
    total += s.blocks;
  }
  EXPECT_EQ(total, 5u * 8u);

  std::size_t computed = 0;
  for (unsigned i = 0; i < 3; ++i) {
    const h::run_result r = h::run_preset(opts("sh", i, 3));
    EXPECT_EQ(r.counts.blocks, st.shards[i].blocks);
    EXPECT_EQ(r.counts.computed, st.shards[i].blocks);
    computed += r.counts.computed;
    EXPECT_TRUE(fs::exists(dir_ / "sh" / h::shard_dir(i, 3) / "manifest.json"));
    EXPECT_TRUE(fs::exists(dir_ / "sh" / h::shard_dir(i, 3) / "progress.json"));
  }
  EXPECT_EQ(computed, 40u);
  EXPECT_FALSE(fs::exists(dir_ / "sh" / "tidy.csv"));
  st = h::status_preset({preset_.string(), dir_ / "sh", std::nullopt, 0, 60});
  ASSERT_EQ(st.shards.size(), 3u);  // inferred from shards/<i>-of-3
  for (const auto& s : st.shards) EXPECT_EQ(s.state, "finished");
  EXPECT_FALSE(st.collected);

  h::collect_options c;
  c.preset = preset_.string();
  c.out_dir = dir_ / "sh";
  c.figures = false;
  const h::collect_result cr = h::collect_preset(c);
  EXPECT_EQ(cr.blocks_missing, 0u);
  EXPECT_EQ(cr.shard_manifests, 3u);
  EXPECT_EQ(slurp(dir_ / "sh" / "tidy.csv"), ref);
  EXPECT_EQ(slurp(dir_ / "sh" / "summary.csv"), slurp(dir_ / "single" / "summary.csv"));
  EXPECT_TRUE(h::status_preset({preset_.string(), dir_ / "sh", std::nullopt, 3, 60}).collected);
  // A second run of a shard is all cached.
  EXPECT_EQ(h::run_preset(opts("sh", 1, 3)).counts.computed, 0u);
}

TEST_F(ScaleTest, StaleHeartbeatIsFailed) {
  (void)h::run_preset(opts("hb", 0, 2));
  const fs::path hb = dir_ / "hb" / h::shard_dir(1, 2) / "progress.json";
  fs::create_directories(hb.parent_path());
  std::ofstream(hb) << R"({"status": "running", "pid": 1, "host": "elsewhere",
                          "updated_utc": "2020-01-01T00:00:00Z"})";
  const auto st = h::status_preset({preset_.string(), dir_ / "hb", std::nullopt, 2, 60});
  EXPECT_EQ(st.shards[0].state, "finished");
  EXPECT_EQ(st.shards[1].state, "failed");
  EXPECT_GT(st.shards[1].heartbeat_age_s, 1e7);
  std::ofstream(hb) << R"({"status": "running", "pid": 1, "host": "elsewhere",
                          "updated_utc": "2200-01-01T00:00:00Z"})";
  EXPECT_EQ(h::status_preset({preset_.string(), dir_ / "hb", std::nullopt, 2, 60}).shards[1].state,
            "running");
  const std::string j = h::status_json(st);
  EXPECT_NE(j.find("\"state\": \"failed\""), std::string::npos) << j;
}

// A shard whose blocks are all complete is finished whatever its (not running) heartbeat says;
// a disagreeing heartbeat (here: "failed" from an earlier attempt) is explained in the note.
TEST_F(ScaleTest, FinishedShardExplainsAFailedHeartbeat) {
  ASSERT_EQ(h::run_preset(opts("fh", 0, 2)).status, h::run_status::completed);
  auto st = h::status_preset({preset_.string(), dir_ / "fh", std::nullopt, 2, 60});
  EXPECT_EQ(st.shards[0].state, "finished");
  EXPECT_EQ(st.shards[0].heartbeat_status, "completed");
  EXPECT_EQ(st.shards[0].note, "");  // heartbeat and blocks agree
  const fs::path hb = dir_ / "fh" / h::shard_dir(0, 2) / "progress.json";
  std::ofstream(hb) << R"({"status": "failed", "pid": 1, "host": "elsewhere",
                          "updated_utc": "2020-01-01T00:00:00Z"})";
  st = h::status_preset({preset_.string(), dir_ / "fh", std::nullopt, 2, 60});
  EXPECT_EQ(st.shards[0].state, "finished");
  EXPECT_EQ(st.shards[0].heartbeat_status, "failed");
  EXPECT_NE(st.shards[0].note.find("earlier attempt"), std::string::npos) << st.shards[0].note;
  EXPECT_EQ(st.shards[1].state, "missing");
  EXPECT_EQ(st.shards[1].note, "");
  const std::string j = h::status_json(st);
  EXPECT_NE(j.find("\"note\": \"every block is complete"), std::string::npos) << j;
}

TEST(SlurmScript, ContentAndValidation) {
  h::slurm_options o;
  o.preset_path = "/x/p.toml";
  o.experiment = "p";
  o.out_dir = "/x/results/p";
  o.workdir = "/x";
  o.dpx = "/x/bin/dpx";
  o.shards = 8;
  o.parallelism = 3;
  o.cpus_per_task = 2;
  o.time = "02:00:00";
  const std::string s = h::slurm_script(o);
  EXPECT_EQ(s.rfind("#!/bin/bash\n", 0), 0u);
  EXPECT_NE(s.find("#SBATCH --array=0-7%3\n"), std::string::npos) << s;
  EXPECT_NE(s.find("#SBATCH --cpus-per-task=2\n"), std::string::npos);
  EXPECT_NE(s.find("#SBATCH --time=02:00:00\n"), std::string::npos);
  EXPECT_NE(s.find("export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1"), std::string::npos);
  EXPECT_NE(s.find("--dependency=afterok:"), std::string::npos);
  EXPECT_NE(s.find("SHARDS=8\n"), std::string::npos);
  o.parallelism = 0;
  EXPECT_NE(h::slurm_script(o).find("#SBATCH --array=0-7\n"), std::string::npos);

  auto bad = o;
  bad.shards = 0;
  EXPECT_THROW(bad.validate(), std::invalid_argument);
  bad = o;
  bad.time = "2h";
  EXPECT_THROW(bad.validate(), std::invalid_argument);
  bad = o;
  bad.out_dir = "results/p";
  EXPECT_THROW(bad.validate(), std::invalid_argument);
  bad = o;
  bad.time = "1-00:00:00";
  EXPECT_NO_THROW(bad.validate());
}

}  // namespace
