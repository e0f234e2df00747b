// report_html (report.html, index.html, report.md provenance) on a hand-written results
// directory:
//  - provenance rows come from manifest.json (commit, dirty flag, dates, grid, seed, compiler);
//  - the provenance section of report.md is replaced, never duplicated, on a second call;
//  - rate verdicts (PASS / FAIL / informational) and the optional control_verdict and claim
//    columns are rendered; text from the files is HTML-escaped;
//  - a PNG is embedded as a data URI whose base64 decodes to the file's bytes (RFC 4648
//    test vectors through a 1-, 2- and 3-byte tail);
//  - index.html lists the result directories with their rate counts;
//  - missing files give pages that say so instead of throwing.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "dpx/harness/report_html.hpp"

namespace fs = std::filesystem;
using namespace dpx::harness;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

std::size_t count(const std::string& s, const std::string& needle) {
  std::size_t n = 0;
  for (auto i = s.find(needle); i != std::string::npos; i = s.find(needle, i + 1)) ++n;
  return n;
}

class ReportHtml : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ =
        fs::temp_directory_path() /
        ("dpx_report_html_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
         "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    dir_ = root_ / "demo";
    write(dir_ / "manifest.json", R"({
  "experiment": "demo", "description": "a <b>demo</b> & test",
  "driver": {"name": "demo_driver", "version": "3"},
  "preset": {"path": "demo.toml", "sha256": "abc", "text": "[experiment]\nname = \"demo\"\n",
             "replications": 40, "replication_block": 20,
             "resolved": [{"cell_id": "1"}, {"cell_id": "2"}]},
  "quick": false,
  "git": {"commit": "0123456789abcdef", "dirty": true, "describe": "v0.2.0-dirty"},
  "build": {"compiler": "GNU 12.2.0", "flags": "-O2", "target_flags": "-Wall", "build_type": "Release"},
  "host": {"cpu_model": "cpu", "cores": 2, "kernel": "Linux"},
  "env": {"blas_threads": 1}, "rng": {"algorithm": "Philox", "base_seed": 99},
  "threads": 2, "timing": {"start_utc": "2026-11-26T01:00:00Z", "end_utc": "2026-11-26T01:05:00Z",
  "wall_s": 300}, "counts": {"cells": 2, "replications": 80, "failed": 0},
  "status": "completed", "rates": {"checked": 2, "passed": 1, "failed": 1}
})");
    write(dir_ / "rates.json", R"J([
  {"rate": "r1", "group": "eps=1", "slope": -2.01, "ci_lo": -2.1, "ci_hi": -1.9, "ci_level": 0.95,
   "expected": -2, "tolerance": 0.1, "points": 5, "replications": 40, "pass": true,
   "informational": false, "check": "ci", "note": ""},
  {"rate": "r2", "group": "", "slope": -1.5, "ci_lo": -1.6, "ci_hi": -1.4, "ci_level": 0.95,
   "expected": -2, "tolerance": 0.1, "points": 5, "replications": 40, "pass": false,
   "informational": false, "check": "ci", "note": "x<y", "control_verdict": "control fails, as required",
   "claim": "Theorem 2"},
  {"rate": "r3", "group": "", "slope": null, "ci_lo": null, "ci_hi": null, "ci_level": 0.95,
   "expected": -1, "tolerance": 0.1, "points": 0, "replications": 0, "pass": false,
   "informational": true, "check": "tolerance", "note": "no fit"}
])J");
    write(dir_ / "summary.csv",
          "cell_id,p_epsilon,metric,n_reps,n_failed,mean,sd,se,median,q25,q75,ci_lo,ci_hi\n"
          "1,0.5,err,40,0,0.25,0.1,0.01,0.2,0.1,0.3,0.23,0.27\n");
    write(dir_ / "figures" / "figures.json",
          R"({"figures": [{"name": "fig", "title": "A figure", "x": "n", "y": "err"},
                          {"name": "absent", "title": "Missing", "x": "n", "y": "err"}]})");
    write(dir_ / "figures" / "fig.png", "Man");  // stands in for PNG bytes
    write(dir_ / "report.md", "# demo\n\nbody\n");
  }
  void TearDown() override { fs::remove_all(root_); }

  fs::path root_, dir_;
};

TEST_F(ReportHtml, ProvenanceFromManifestReplacedNotDuplicated) {
  write_html_reports(dir_, /*write_index=*/true);
  write_html_reports(dir_, /*write_index=*/true);
  const std::string md = slurp(dir_ / "report.md");
  EXPECT_EQ(md.rfind("# demo\n\nbody\n", 0), 0u);
  EXPECT_EQ(count(md, "## Provenance"), 1u);
  EXPECT_NE(md.find("| commit | 0123456789abcdef (with uncommitted changes) |"), std::string::npos);
  EXPECT_NE(md.find("| run ended (UTC) | 2026-11-26T01:05:00Z |"), std::string::npos);
  EXPECT_NE(md.find("| grid | 2 cells x 40 replications (blocks of 20) |"), std::string::npos);
  EXPECT_NE(md.find("| base seed | 99 |"), std::string::npos);
  EXPECT_NE(md.find("| compiler | GNU 12.2.0 |"), std::string::npos);
}

TEST_F(ReportHtml, RatesVerdictsControlsAndEscaping) {
  write_html_reports(dir_, false);
  const std::string h = slurp(dir_ / "report.html");
  EXPECT_EQ(h.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(h.find("<td class=\"pass\">PASS</td>"), std::string::npos);
  EXPECT_NE(h.find("<td class=\"fail\">FAIL</td>"), std::string::npos);
  EXPECT_NE(h.find("<td class=\"info\">informational</td>"), std::string::npos);
  EXPECT_NE(h.find("<th>control</th>"), std::string::npos);
  EXPECT_NE(h.find("<th>claim</th>"), std::string::npos);
  EXPECT_NE(h.find("control fails, as required"), std::string::npos);
  EXPECT_NE(h.find("Theorem 2"), std::string::npos);
  EXPECT_NE(h.find("1 of 2 gated checks passed"), std::string::npos);
  EXPECT_NE(h.find("-2.010"), std::string::npos);
  EXPECT_NE(h.find("a &lt;b&gt;demo&lt;/b&gt; &amp; test"), std::string::npos);
  EXPECT_NE(h.find("x&lt;y"), std::string::npos);
  EXPECT_EQ(h.find("<b>demo"), std::string::npos);
  EXPECT_EQ(h.find("<script"), std::string::npos);
  // "Man" is RFC 4648's example: "TWFu".
  EXPECT_NE(h.find("src=\"data:image/png;base64,TWFu\""), std::string::npos);
  EXPECT_NE(h.find("Not rendered (no figures/absent.png"), std::string::npos);
  EXPECT_NE(h.find("<td>0.5</td>"), std::string::npos);  // summary row, p_ prefix dropped
  EXPECT_NE(h.find("<th>epsilon</th>"), std::string::npos);
  EXPECT_FALSE(fs::exists(root_ / "index.html"));
}

TEST_F(ReportHtml, Base64Tails) {
  // RFC 4648 section 10 vectors: "f" -> "Zg==", "fo" -> "Zm8=", "foobar" -> "Zm9vYmFy".
  for (const auto& [bytes, b64] : {std::pair<std::string, std::string>{"f", "Zg=="},
                                   {"fo", "Zm8="},
                                   {"foo", "Zm9v"},
                                   {"foob", "Zm9vYg=="},
                                   {"foobar", "Zm9vYmFy"}}) {
    write(dir_ / "figures" / "fig.png", bytes);
    const std::string h = report_html(dir_);
    EXPECT_NE(h.find("base64," + b64 + "\""), std::string::npos) << bytes;
  }
}

TEST_F(ReportHtml, IndexListsResultDirectories) {
  write(root_ / "other" / "report.md", "# other\n");
  fs::create_directories(root_ / "not_results");
  write_html_reports(dir_, true);
  const std::string idx = slurp(root_ / "index.html");
  EXPECT_NE(idx.find("href=\"demo/report.html\""), std::string::npos);
  EXPECT_NE(idx.find("href=\"other/report.md\""), std::string::npos);
  EXPECT_EQ(idx.find("not_results"), std::string::npos);
  EXPECT_NE(idx.find("1/2 passed"), std::string::npos);
  EXPECT_NE(idx.find("2 result directories"), std::string::npos);
}

TEST_F(ReportHtml, MissingFilesSaySo) {
  const fs::path empty = root_ / "empty";
  fs::create_directories(empty);
  const std::string h = report_html(empty);
  EXPECT_NE(h.find("No rates.json"), std::string::npos);
  EXPECT_NE(h.find("No summary.csv"), std::string::npos);
  EXPECT_NE(h.find("No readable manifest.json"), std::string::npos);
  EXPECT_NE(provenance_markdown(empty).find("No readable manifest.json"), std::string::npos);
}

}  // namespace
