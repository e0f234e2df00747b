#pragma once
/// \file
/// The tidy result table: one row per (cell, replication). This is the single data model
/// between the runner (which produces rows block by block) and the analysis (summaries, rate
/// fits, tables, figures), and it is what tidy.csv stores.
///
/// tidy.csv layout (header row, comma separated, RFC 4180 quoting where needed):
///   cell_id, p_<param>... (sorted by name), rep, <metric>... (driver order), wall_s, status,
///   message
/// Rows are sorted by (cell_id, rep), so the file is byte-identical for any thread count,
/// shard count or execution order. Doubles use shortest round-trip formatting
/// (std::to_chars); a metric of a failed replication is written as "nan".

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace dpx::harness {

struct tidy_row {
  std::string cell_id;              ///< 16 hex digits: stable hash of the resolved parameters
  std::uint32_t rep = 0;            ///< replication index within the cell
  std::vector<std::string> params;  ///< rendered values, aligned with tidy_table::param_names
  std::vector<double> metrics;      ///< aligned with tidy_table::metric_names (NaN if failed)
  double wall_s = 0;                ///< wall time of this replication (not part of the
                                    ///< byte-identity promise: see tidy_options::timing)
  std::string status = "ok";        ///< "ok" or "failed"
  std::string message;              ///< failure message, empty when ok
};

struct tidy_table {
  std::vector<std::string> param_names;   ///< without the p_ prefix, sorted by name
  std::vector<std::string> metric_names;  ///< in the driver's order
  std::vector<tidy_row> rows;

  /// Index of a parameter or metric by name; throws std::invalid_argument naming the valid
  /// names when absent.
  std::size_t param_index(const std::string& name) const;
  std::size_t metric_index(const std::string& name) const;
  bool has_param(const std::string& name) const;
  bool has_metric(const std::string& name) const;
};

/// Sorts rows by (cell_id, rep).
void sort_rows(tidy_table& t);

/// Writes tidy.csv atomically (temporary file in the same directory, then rename).
/// With include_wall_time = false the wall_s column is written as 0 for every row, which is
/// what makes the file byte-identical across thread counts and reruns.
void write_tidy_csv(const tidy_table& t,
                    const std::filesystem::path& path,
                    bool include_wall_time = false);
/// The text write_tidy_csv writes (same rules; throws the same errors).
std::string format_tidy_csv(const tidy_table& t, bool include_wall_time = false);
/// Reads a tidy.csv written by write_tidy_csv; throws std::invalid_argument with the line on
/// malformed input.
tidy_table read_tidy_csv(const std::filesystem::path& path);
/// Parses tidy.csv text (what read_tidy_csv does with a file's bytes); name is used in errors.
tidy_table parse_tidy_csv(const std::string& text, const std::string& name);

/// Atomic whole-file write: content goes to "<path>.tmp.<pid>.<n>" in the same directory,
/// is flushed (fsync), renamed over path, and the directory is fsynced so that the rename
/// itself survives a crash. A crash or interrupt never leaves a partial file.
void write_file_atomic(const std::filesystem::path& path, const std::string& content);

/// Shortest round-trip rendering of a double ("nan", "inf" for non-finite values).
std::string format_number(double x);

/// RFC 4180 quoting: the field is quoted if it contains a comma, quote or newline.
std::string csv_field(const std::string& s);
/// Splits one CSV record (handles quoted fields; no embedded newlines).
std::vector<std::string> split_csv_record(const std::string& line);

}  // namespace dpx::harness
