// Properties checked (dpx::harness results.hpp):
//  - format_number is shortest round-trip ("0.1", "1e-06") and renders nan/inf/-inf; parsing
//    the output gives back the same double for many random values;
//  - csv_field quotes exactly the fields that need it (comma, quote, line break) and
//    split_csv_record inverts it (empty fields, doubled quotes); malformed records throw;
//  - tidy.csv round trip: params with commas/quotes, NaN metrics of failed rows, messages with
//    commas/quotes/newlines (newlines become spaces), wall_s written as 0 unless asked;
//    write -> read -> write is byte-identical and matches a hand-written golden file;
//  - read_tidy_csv is strict: bad header, wrong field count, bad number, bad rep, bad status
//    throw std::invalid_argument naming the line;
//  - write_file_atomic replaces content and leaves no temporary file, also on failure;
//  - sort_rows orders by (cell_id, rep); index lookups throw naming the valid names.
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

#include <gtest/gtest.h>

#include "dpx/core/rng.hpp"
#include "dpx/harness/results.hpp"

namespace fs = std::filesystem;
using namespace dpx::harness;

namespace {

fs::path fresh_dir(const std::string& name) {
  const fs::path d =
      fs::temp_directory_path() / ("dpx_results_test_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> dir_entries(const fs::path& d) {
  std::vector<std::string> v;
  for (const auto& e : fs::directory_iterator(d)) v.push_back(e.path().filename().string());
  std::sort(v.begin(), v.end());
  return v;
}

tidy_table sample_table() {
  tidy_table t;
  t.param_names = {"label", "n"};
  t.metric_names = {"err", "loss"};
  tidy_row a;
  a.cell_id = "00000000000000aa";
  a.rep = 0;
  a.params = {"x,y", "1000"};
  a.metrics = {0.1, 1e-06};
  a.wall_s = 0.25;
  tidy_row b = a;
  b.rep = 1;
  b.metrics = {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::quiet_NaN()};
  b.status = "failed";
  b.message = "boom, \"bad\"\nsecond line";
  tidy_row c;
  c.cell_id = "00000000000000bb";
  c.rep = 0;
  c.params = {"say \"hi\"", "2000"};
  c.metrics = {-2.5, std::numeric_limits<double>::infinity()};
  t.rows = {a, b, c};
  return t;
}

}  // namespace

TEST(FormatNumber, ShortestRoundTripAndSpecialValues) {
  EXPECT_EQ(format_number(0.1), "0.1");
  EXPECT_EQ(format_number(1e-6), "1e-06");
  EXPECT_EQ(format_number(1000), "1000");
  EXPECT_EQ(format_number(-2.5), "-2.5");
  EXPECT_EQ(format_number(std::numeric_limits<double>::quiet_NaN()), "nan");
  EXPECT_EQ(format_number(-std::numeric_limits<double>::quiet_NaN()), "nan");
  EXPECT_EQ(format_number(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(format_number(-std::numeric_limits<double>::infinity()), "-inf");
  auto g = dpx::rng::stream(1, 2, 3, dpx::rng::purpose::aux);
  for (int i = 0; i < 2000; ++i) {
    const double x = (dpx::rng::uniform01(g) - 0.5) * std::pow(10.0, i % 40 - 20);
    EXPECT_EQ(std::strtod(format_number(x).c_str(), nullptr), x);
  }
}

TEST(Csv, FieldQuotingAndSplitting) {
  EXPECT_EQ(csv_field("plain"), "plain");
  EXPECT_EQ(csv_field(""), "");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field("a\nb"), "\"a\nb\"");
  using v = std::vector<std::string>;
  EXPECT_EQ(split_csv_record("a,b,c"), (v{"a", "b", "c"}));
  EXPECT_EQ(split_csv_record(""), (v{""}));
  EXPECT_EQ(split_csv_record(",,"), (v{"", "", ""}));
  EXPECT_EQ(split_csv_record("\"a,b\",\"say \"\"hi\"\"\",x"), (v{"a,b", "say \"hi\"", "x"}));
  EXPECT_EQ(split_csv_record("\"\",z"), (v{"", "z"}));
  for (const std::string s : {"a,b", "say \"hi\"", "", ",", "\"\"", "x,\"y\",z"}) {
    EXPECT_EQ(split_csv_record(csv_field(s) + "," + csv_field(s)), (v{s, s})) << s;
  }
  EXPECT_THROW(split_csv_record("\"unterminated"), std::invalid_argument);
  EXPECT_THROW(split_csv_record("\"a\"b,c"), std::invalid_argument);
  EXPECT_THROW(split_csv_record("a\"b"), std::invalid_argument);
}

TEST(TidyCsv, GoldenFileAndRoundTrip) {
  const fs::path d = fresh_dir("tidy");
  const tidy_table t = sample_table();
  write_tidy_csv(t, d / "tidy.csv");
  const std::string golden =
      "cell_id,p_label,p_n,rep,err,loss,wall_s,status,message\n"
      "00000000000000aa,\"x,y\",1000,0,0.1,1e-06,0,ok,\n"
      "00000000000000aa,\"x,y\",1000,1,nan,nan,0,failed,\"boom, \"\"bad\"\" second line\"\n"
      "00000000000000bb,\"say \"\"hi\"\"\",2000,0,-2.5,inf,0,ok,\n";
  EXPECT_EQ(slurp(d / "tidy.csv"), golden);

  const tidy_table r = read_tidy_csv(d / "tidy.csv");
  EXPECT_EQ(r.param_names, t.param_names);
  EXPECT_EQ(r.metric_names, t.metric_names);
  ASSERT_EQ(r.rows.size(), 3u);
  EXPECT_EQ(r.rows[0].params, t.rows[0].params);
  EXPECT_EQ(r.rows[2].params[0], "say \"hi\"");
  EXPECT_EQ(r.rows[0].metrics[0], 0.1);
  EXPECT_EQ(r.rows[0].metrics[1], 1e-6);
  EXPECT_TRUE(std::isnan(r.rows[1].metrics[0]));
  EXPECT_EQ(r.rows[1].status, "failed");
  EXPECT_EQ(r.rows[1].message, "boom, \"bad\" second line");
  EXPECT_EQ(r.rows[1].rep, 1u);
  EXPECT_TRUE(std::isinf(r.rows[2].metrics[1]));
  EXPECT_EQ(r.rows[0].wall_s, 0.0);

  write_tidy_csv(r, d / "again.csv");
  EXPECT_EQ(slurp(d / "again.csv"), golden);

  // With timing the wall time survives the round trip.
  write_tidy_csv(t, d / "timed.csv", true);
  EXPECT_EQ(read_tidy_csv(d / "timed.csv").rows[0].wall_s, 0.25);
  fs::remove_all(d);
}

TEST(TidyCsv, NoParametersOrMetrics) {
  const fs::path d = fresh_dir("empty");
  tidy_table t;
  tidy_row a;
  a.cell_id = "c";
  t.rows.push_back(a);
  write_tidy_csv(t, d / "t.csv");
  EXPECT_EQ(slurp(d / "t.csv"), "cell_id,rep,wall_s,status,message\nc,0,0,ok,\n");
  const tidy_table r = read_tidy_csv(d / "t.csv");
  EXPECT_TRUE(r.param_names.empty());
  EXPECT_TRUE(r.metric_names.empty());
  EXPECT_EQ(r.rows.size(), 1u);
  fs::remove_all(d);
}

TEST(TidyCsv, WriteRejectsMisalignedRows) {
  const fs::path d = fresh_dir("misaligned");
  tidy_table t = sample_table();
  t.rows[1].metrics.pop_back();
  EXPECT_THROW(write_tidy_csv(t, d / "t.csv"), std::invalid_argument);
  t = sample_table();
  t.rows[0].params.push_back("extra");
  EXPECT_THROW(write_tidy_csv(t, d / "t.csv"), std::invalid_argument);
  EXPECT_FALSE(fs::exists(d / "t.csv"));
  EXPECT_TRUE(dir_entries(d).empty());
  fs::remove_all(d);
}

TEST(TidyCsv, ReadIsStrictAndNamesTheLine) {
  const fs::path d = fresh_dir("strict");
  const std::string header = "cell_id,p_n,rep,err,wall_s,status,message\n";
  auto expect_error = [&](const std::string& content, const std::string& needle) {
    { std::ofstream(d / "bad.csv", std::ios::binary) << content; }
    try {
      read_tidy_csv(d / "bad.csv");
      ADD_FAILURE() << "no exception for: " << content;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos)
          << e.what() << " (expected " << needle << ")";
    }
  };
  expect_error("", "bad.csv:1");
  expect_error("id,p_n,rep,err,wall_s,status,message\n", "bad.csv:1");
  expect_error("cell_id,p_n,err,wall_s,status,message\n", "bad.csv:1");
  expect_error("cell_id,p_n,rep,err,wall_s,status\n", "bad.csv:1");
  expect_error(header + "a,1,0,0.5,0,ok,\na,1,1,0.5,0,ok\n", "bad.csv:3");
  expect_error(header + "a,1,0,abc,0,ok,\n", "bad.csv:2");
  expect_error(header + "a,1,0,0.5x,0,ok,\n", "bad.csv:2");
  expect_error(header + "a,1,-1,0.5,0,ok,\n", "bad.csv:2");
  expect_error(header + "a,1,0,0.5,0,maybe,\n", "bad.csv:2");
  expect_error(header + "a,1,0,0.5,0,ok,\"open\n", "bad.csv:2");
  expect_error(header + ",1,0,0.5,0,ok,\n", "bad.csv:2");
  EXPECT_THROW(read_tidy_csv(d / "does_not_exist.csv"), std::invalid_argument);
  // CRLF line endings are accepted.
  {
    std::ofstream(d / "crlf.csv", std::ios::binary)
        << "cell_id,p_n,rep,err,wall_s,status,message\r\na,1,0,0.5,0,ok,\r\n";
  }
  const tidy_table t = read_tidy_csv(d / "crlf.csv");
  ASSERT_EQ(t.rows.size(), 1u);
  EXPECT_EQ(t.rows[0].message, "");
  EXPECT_EQ(t.rows[0].metrics[0], 0.5);
  fs::remove_all(d);
}

TEST(WriteFileAtomic, ReplacesContentAndLeavesNoTemporary) {
  const fs::path d = fresh_dir("atomic");
  write_file_atomic(d / "f.txt", "first version, longer than the second\n");
  EXPECT_EQ(slurp(d / "f.txt"), "first version, longer than the second\n");
  write_file_atomic(d / "f.txt", "second\n");
  EXPECT_EQ(slurp(d / "f.txt"), "second\n");
  write_file_atomic(d / "sub" / "g.txt", "");
  EXPECT_EQ(slurp(d / "sub" / "g.txt"), "");
  EXPECT_EQ(dir_entries(d), (std::vector<std::string>{"f.txt", "sub"}));
  EXPECT_EQ(dir_entries(d / "sub"), (std::vector<std::string>{"g.txt"}));
  // Failure: the target is an existing directory, so the rename fails; the temporary file
  // must be removed and the directory left untouched.
  fs::create_directories(d / "dir_target" / "inner");
  EXPECT_ANY_THROW(write_file_atomic(d / "dir_target", "x"));
  EXPECT_EQ(dir_entries(d), (std::vector<std::string>{"dir_target", "f.txt", "sub"}));
  EXPECT_TRUE(fs::is_directory(d / "dir_target" / "inner"));
  fs::remove_all(d);
}

TEST(TidyTable, SortAndLookups) {
  tidy_table t = sample_table();
  std::swap(t.rows[0], t.rows[2]);
  std::swap(t.rows[1], t.rows[2]);
  sort_rows(t);
  EXPECT_EQ(t.rows[0].cell_id, "00000000000000aa");
  EXPECT_EQ(t.rows[0].rep, 0u);
  EXPECT_EQ(t.rows[1].rep, 1u);
  EXPECT_EQ(t.rows[2].cell_id, "00000000000000bb");
  EXPECT_EQ(t.param_index("n"), 1u);
  EXPECT_EQ(t.metric_index("loss"), 1u);
  EXPECT_TRUE(t.has_param("label"));
  EXPECT_FALSE(t.has_param("err"));
  EXPECT_TRUE(t.has_metric("err"));
  EXPECT_FALSE(t.has_metric("n"));
  try {
    (void)t.param_index("eps");
    ADD_FAILURE();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("label, n"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)t.metric_index("n"), std::invalid_argument);
}
