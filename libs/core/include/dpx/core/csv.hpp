#pragma once
/// \file
/// The one CSV reader of dpx (the `dpx fit` and `dpx mean` commands and the Python bindings).
///
/// Format: RFC 4180 — comma separated, fields optionally enclosed in double quotes, a quote
/// inside a quoted field written twice, commas and line breaks allowed inside quoted fields;
/// records end with LF or CRLF (a final line break is optional). Also accepted: a UTF-8 byte
/// order mark before the header (stripped), blank lines (skipped), spaces and tabs around an
/// unquoted field (trimmed). The first record is the header and names the columns.
///
/// Only the columns the caller asks for are kept, and only the numeric ones are converted (to
/// finite doubles; "nan", "inf" and out-of-range values are rejected). Every record must have
/// exactly as many fields as the header (ragged rows are rejected).
///
/// Errors: csv_error (a std::invalid_argument). Its message names the file, the data row
/// (1-based, the header not counted), the line on which the record starts and the column —
/// never the content of a cell, which may be private. Header names are not listed either: in a
/// file without a header line the "header" is the first data record.
///
/// Bounds: the input is at most csv_limits::max_bytes bytes and max_rows data records
/// (defaults below, overridable by the caller); only regular files are read, or standard input
/// when the path is "-" (a FIFO, device or directory given by name is refused: it may never
/// end).

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace dpx::core {

/// Bad CSV input. row == 0 and line == 0 when the error is not tied to a record (missing
/// file, empty file); column is empty when it is not tied to a column.
class csv_error : public std::invalid_argument {
 public:
  csv_error(std::string source,
            std::size_t row,
            std::size_t line,
            std::string column,
            std::string_view what);
  const std::string& source() const noexcept { return source_; }
  std::size_t row() const noexcept { return row_; }
  std::size_t line() const noexcept { return line_; }
  const std::string& column() const noexcept { return column_; }

 private:
  std::string source_;
  std::size_t row_, line_;
  std::string column_;
};

/// Default bounds of every input file dpx reads (CSV data, events files): 1 GiB and 10 million
/// data rows. One record costs at least two bytes, so the kept numeric columns take at most
/// about four times the input size in memory.
inline constexpr std::uint64_t default_max_input_bytes = std::uint64_t{1} << 30;
inline constexpr std::uint64_t default_max_input_rows = 10'000'000;

/// Bounds on one input. The flag names, when set, say in messages how to raise a bound
/// (e.g. "--max-input-bytes").
struct csv_limits {
  std::uint64_t max_bytes = default_max_input_bytes;  ///< >= 1
  std::uint64_t max_rows = default_max_input_rows;    ///< data records (header not counted), >= 1
  const char* bytes_flag = nullptr;
  const char* rows_flag = nullptr;
};

/// The columns to keep: numeric ones (converted to double) and text ones (kept as strings).
/// A name listed twice, or in both lists, is an error.
struct csv_columns {
  std::vector<std::string> numeric;
  std::vector<std::string> text;
};

/// Chooses the columns once the header is known (e.g. "every column except the target").
using csv_column_chooser = std::function<csv_columns(const std::vector<std::string>& header)>;

/// The requested columns of a CSV file, column-major.
struct csv_table {
  std::string source;                          ///< file name (or label) used in messages
  std::vector<std::string> header;             ///< every column name, in file order
  std::size_t rows = 0;                        ///< data records
  csv_columns names;                           ///< the columns kept, as requested
  std::vector<std::vector<double>> numeric;    ///< numeric[i] is column names.numeric[i]
  std::vector<std::vector<std::string>> text;  ///< text[i] is column names.text[i]
  /// The data line of every record (for messages about rows found later by the caller).
  std::vector<std::size_t> record_line;

  const std::vector<double>& number_column(std::string_view name) const;
  const std::vector<std::string>& text_column(std::string_view name) const;
};

/// Parses CSV text (source labels messages). Throws csv_error (also past limits.max_rows; the
/// size bound is read_input_text's).
csv_table parse_csv(std::string_view text,
                    const std::string& source,
                    const csv_column_chooser& choose,
                    const csv_limits& limits = {});
csv_table parse_csv(std::string_view text,
                    const std::string& source,
                    const csv_columns& columns,
                    const csv_limits& limits = {});

/// The whole content of an input: a regular file, or standard input when path is "-" (labelled
/// "<stdin>"), of at most max_bytes bytes (read no further than one byte past it). A missing
/// or unreadable file, a directory, any other non-regular file (FIFO, device, socket) and a
/// larger input are reported as such (csv_error with row 0; bytes_flag as in csv_limits).
std::string read_input_text(const std::filesystem::path& path,
                            std::uint64_t max_bytes = default_max_input_bytes,
                            const char* bytes_flag = nullptr);

/// Reads a CSV file (read_input_text, then parse_csv). An empty file is reported as such.
csv_table read_csv_file(const std::filesystem::path& path,
                        const csv_column_chooser& choose,
                        const csv_limits& limits = {});
csv_table read_csv_file(const std::filesystem::path& path,
                        const csv_columns& columns,
                        const csv_limits& limits = {});

/// A column name as it may appear in a message: control bytes replaced, at most 64 bytes.
std::string csv_column_label(std::string_view name);

}  // namespace dpx::core
