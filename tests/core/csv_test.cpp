// dpx::core CSV reader: RFC 4180 quoting, BOM, CRLF, named columns, ragged rows, and messages
// that name file, row, line and column but never a cell's content.
#include "dpx/core/csv.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

namespace {

using dpx::core::csv_columns;
using dpx::core::csv_error;
using dpx::core::parse_csv;

std::string error_of(const std::string& text, const csv_columns& cols) {
  try {
    parse_csv(text, "data.csv", cols);
  } catch (const csv_error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Csv, QuotedFieldsEscapedQuotesEmbeddedCommasAndNewlines) {
  const std::string text =
      "id,name,x\n"
      "1,\"Smith, J\",2.5\n"
      "2,\"say \"\"hi\"\"\",\"-3\"\n"
      "3,\"two\nlines\",+4e1\n";
  const auto t = parse_csv(text, "data.csv", csv_columns{{"x"}, {"name"}});
  ASSERT_EQ(t.rows, 3u);
  EXPECT_EQ(t.number_column("x"), (std::vector<double>{2.5, -3.0, 40.0}));
  EXPECT_EQ(t.text_column("name"),
            (std::vector<std::string>{"Smith, J", "say \"hi\"", "two\nlines"}));
  EXPECT_EQ(t.record_line, (std::vector<std::size_t>{2, 3, 4}));
}

TEST(Csv, BomCrlfBlankLinesAndTrimming) {
  const std::string text = "\xEF\xBB\xBFy, x1 ,x2\r\n\r\n 1 ,2,3\r\n4,5,6";
  const auto t = parse_csv(text, "data.csv", csv_columns{{"y", "x1"}, {}});
  ASSERT_EQ(t.header, (std::vector<std::string>{"y", "x1", "x2"}));
  EXPECT_EQ(t.number_column("y"), (std::vector<double>{1, 4}));
  EXPECT_EQ(t.number_column("x1"), (std::vector<double>{2, 5}));
}

TEST(Csv, ParsesOnlyTheRequestedColumns) {
  // x2 holds text; it is never converted because it is not requested.
  const auto t = parse_csv("y,x1,x2\n1,2,abc\n", "d", csv_columns{{"y", "x1"}, {}});
  EXPECT_EQ(t.rows, 1u);
  EXPECT_EQ(t.numeric.size(), 2u);
}

TEST(Csv, ChooserSeesTheHeader) {
  const auto t = parse_csv("a,b,c\n1,2,3\n", "d", [](const std::vector<std::string>& h) {
    csv_columns c;
    for (const auto& n : h)
      if (n != "b") c.numeric.push_back(n);
    return c;
  });
  EXPECT_EQ(t.names.numeric, (std::vector<std::string>{"a", "c"}));
}

TEST(Csv, ErrorsNameFileRowLineAndColumnNeverTheValue) {
  const std::string secret = "123-45-6789";
  const std::string m = error_of("y,x\n1,2\n3," + secret + "\n", csv_columns{{"y", "x"}, {}});
  EXPECT_NE(m.find("data.csv"), std::string::npos) << m;
  EXPECT_NE(m.find("row 2 (line 3)"), std::string::npos) << m;
  EXPECT_NE(m.find("column 'x'"), std::string::npos) << m;
  EXPECT_EQ(m.find(secret), std::string::npos) << m;
  for (const char* bad : {"nan", "inf", "-inf", "1e999", "0x10", "1.5.2", "", "+"}) {
    const std::string e = error_of(std::string("y\n") + bad + "\n2\n", csv_columns{{"y"}, {}});
    // "" is a blank line in a one-column file (skipped): the file then has one good row.
    if (std::string(bad).empty()) {
      EXPECT_EQ(e, "(no error)");
    } else {
      EXPECT_NE(e.find("row 1 (line 2), column 'y': not a finite number"), std::string::npos)
          << bad << ": " << e;
    }
  }
  EXPECT_NE(error_of("y,x\n1,\n", csv_columns{{"x"}, {}}).find("empty cell"), std::string::npos);
}

TEST(Csv, RaggedRowsRejected) {
  const std::string m = error_of("y,x\n1,2\n3\n", csv_columns{{"y"}, {}});
  EXPECT_NE(m.find("row 2 (line 3): 1 fields, the header has 2"), std::string::npos) << m;
  EXPECT_NE(error_of("y,x\n1,2,3\n", csv_columns{{"y"}, {}}).find("3 fields"), std::string::npos);
}

TEST(Csv, MalformedQuotingRejected) {
  EXPECT_NE(error_of("y\n\"1\n", csv_columns{{"y"}, {}}).find("row 1 (line 2): unterminated"),
            std::string::npos);
  EXPECT_NE(error_of("y\n\"1\"x\n", csv_columns{{"y"}, {}}).find("after the closing quote"),
            std::string::npos);
  EXPECT_NE(error_of("y\n1\"2\n", csv_columns{{"y"}, {}}).find("double quote inside"),
            std::string::npos);
}

TEST(Csv, MissingColumnsDuplicatesAndEmptyInputs) {
  EXPECT_NE(error_of("y,x\n1,2\n", csv_columns{{"z"}, {}}).find("column 'z': no such column"),
            std::string::npos);
  EXPECT_NE(error_of("y,y\n1,2\n", csv_columns{{"y"}, {}}).find("names this column twice"),
            std::string::npos);
  EXPECT_NE(error_of("y\n1\n", csv_columns{{"y"}, {"y"}}).find("requested twice"),
            std::string::npos);
  EXPECT_NE(error_of("", csv_columns{{"y"}, {}}).find("is empty"), std::string::npos);
  EXPECT_NE(error_of("\xEF\xBB\xBF", csv_columns{{"y"}, {}}).find("is empty"), std::string::npos);
  EXPECT_NE(error_of("y\n", csv_columns{{"y"}, {}}).find("no data rows"), std::string::npos);
}

TEST(Csv, FilesDirectoriesAndMissingFiles) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(::testing::TempDir()) / "dpx_csv_test_dir";
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto msg = [](const fs::path& p) -> std::string {
    try {
      dpx::core::read_csv_file(p, csv_columns{{"y"}, {}});
    } catch (const csv_error& e) {
      return e.what();
    }
    return "(no error)";
  };
  EXPECT_NE(msg(dir).find("is a directory"), std::string::npos);
  EXPECT_NE(msg(dir / "missing.csv").find("no such file"), std::string::npos);
  std::ofstream(dir / "empty.csv").flush();
  EXPECT_NE(msg(dir / "empty.csv").find("is empty"), std::string::npos);
  std::ofstream(dir / "ok.csv") << "y\n1\n2\n";
  EXPECT_EQ(dpx::core::read_csv_file(dir / "ok.csv", csv_columns{{"y"}, {}}).rows, 2u);
  fs::remove_all(dir);
}

// A file without a header line: its first record is read as the header, so a message listing
// the header's names would print a data record.
TEST(Csv, AHeaderlessFileNeverEchoesItsFirstRecord) {
  const std::string text = "987654321.125,123-45-6789,Alice Smith\n1,2,3\n";
  for (const csv_columns& cols : {csv_columns{{"x"}, {}}, csv_columns{{}, {"x"}}}) {
    const std::string m = error_of(text, cols);
    EXPECT_NE(m.find("column 'x': no such column"), std::string::npos) << m;
    EXPECT_NE(m.find("3 fields"), std::string::npos) << m;
    for (const char* cell : {"987654321", "123-45-6789", "Alice"})
      EXPECT_EQ(m.find(cell), std::string::npos) << m;
  }
}

TEST(Csv, RowLimit) {
  dpx::core::csv_limits lim;
  lim.max_rows = 2;
  EXPECT_EQ(parse_csv("y\n1\n\n2\n", "d", csv_columns{{"y"}, {}}, lim).rows, 2u);
  try {
    parse_csv("y\n1\n2\n3\n", "d", csv_columns{{"y"}, {}}, lim);
    ADD_FAILURE() << "3 rows accepted with max_rows = 2";
  } catch (const csv_error& e) {
    EXPECT_NE(std::string(e.what()).find("more than 2 data rows"), std::string::npos) << e.what();
  }
  lim.rows_flag = "--max-rows";
  try {
    parse_csv("y\n1\n2\n3\n", "d", csv_columns{{"y"}, {}}, lim);
  } catch (const csv_error& e) {
    EXPECT_NE(std::string(e.what()).find("raise it with --max-rows"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(dpx::core::default_max_input_rows, 10'000'000u);
  EXPECT_EQ(dpx::core::default_max_input_bytes, std::uint64_t{1} << 30);
}

namespace {
std::string read_error(const std::filesystem::path& p, const dpx::core::csv_limits& lim = {}) {
  try {
    dpx::core::read_csv_file(p, csv_columns{{"y"}, {}}, lim);
  } catch (const csv_error& e) {
    return e.what();
  }
  return "(no error)";
}
}  // namespace

TEST(Csv, SizeLimit) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(::testing::TempDir()) / "dpx_csv_test_size";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "ten.csv") << "y\n1\n2\n3\n4\n";  // 10 bytes
  dpx::core::csv_limits lim;
  lim.max_bytes = 10;
  EXPECT_EQ(dpx::core::read_csv_file(dir / "ten.csv", csv_columns{{"y"}, {}}, lim).rows, 4u);
  lim.max_bytes = 9;
  lim.bytes_flag = "--max-input-bytes";
  const std::string m = read_error(dir / "ten.csv", lim);
  EXPECT_NE(m.find("larger than 9 bytes"), std::string::npos) << m;
  EXPECT_NE(m.find("--max-input-bytes"), std::string::npos) << m;
  fs::remove_all(dir);
}

// Devices and FIFOs may never end (/dev/urandom, /dev/zero) or block: refused by name.
TEST(Csv, NonRegularFilesAreRefused) {
  namespace fs = std::filesystem;
  for (const char* dev : {"/dev/null", "/dev/zero"}) {
    if (!fs::exists(dev)) continue;
    const std::string m = read_error(dev);
    EXPECT_NE(m.find("not a regular file"), std::string::npos) << dev << ": " << m;
  }
  const fs::path dir = fs::path(::testing::TempDir()) / "dpx_csv_test_fifo";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path fifo = dir / "data.csv";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // A writer that feeds a valid CSV as soon as a reader opens the FIFO (a reader that opened
  // it would read "y\n1\n" and succeed); it gives up once the read has returned.
  std::atomic<bool> done{false};
  std::thread writer([&] {
    while (!done.load()) {
      const int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
      if (fd >= 0) {
        const char text[] = "y\n1\n";
        (void)!::write(fd, text, sizeof text - 1);
        ::close(fd);
        return;
      }
      std::this_thread::yield();
    }
  });
  const std::string m = read_error(fifo);
  done.store(true);
  writer.join();
  EXPECT_NE(m.find("not a regular file"), std::string::npos) << m;
  fs::remove_all(dir);
}

TEST(Csv, ColumnLabelsBoundedAndWithoutControlBytes) {
  const std::string m = error_of("y\n1\n", csv_columns{{std::string(500, 'a') + "\n"}, {}});
  EXPECT_EQ(m.find('\n'), std::string::npos);
  EXPECT_LT(m.size(), 200u);
}

}  // namespace
