// dpx::core CSV reader: RFC 4180 quoting, BOM, CRLF, named columns, ragged rows, and messages
// that name file, row, line and column but never a cell's content.
#include "dpx/core/csv.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

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

TEST(Csv, ColumnLabelsBoundedAndWithoutControlBytes) {
  const std::string m = error_of("y\n1\n", csv_columns{{std::string(500, 'a') + "\n"}, {}});
  EXPECT_EQ(m.find('\n'), std::string::npos);
  EXPECT_LT(m.size(), 200u);
}

}  // namespace
