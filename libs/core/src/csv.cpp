#include "dpx/core/csv.hpp"

#include <charconv>
#include <cmath>
#include <fstream>
#include <iterator>
#include <sstream>
#include <system_error>

namespace dpx::core {

namespace {

std::string csv_message(const std::string& source,
                        std::size_t row,
                        std::size_t line,
                        const std::string& column,
                        std::string_view what) {
  std::string m = source.empty() ? std::string("<csv>") : source;
  if (row > 0) {
    m += ": row " + std::to_string(row) + " (line " + std::to_string(line) + ")";
  } else if (line > 0) {
    m += ": line " + std::to_string(line);
  }
  if (!column.empty()) m += ", column '" + csv_column_label(column) + "'";
  m += ": ";
  m += what;
  return m;
}

/// One record: the kept fields (others left empty), how many fields it had, where it starts.
struct record {
  std::vector<std::string> fields;
  std::size_t count = 0;
  std::size_t line = 0;
  bool blank = false;
};

bool is_space(char c) { return c == ' ' || c == '\t'; }

class scanner {
 public:
  scanner(std::string_view text, const std::string& source) : s_(text), source_(source) {
    if (s_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;  // UTF-8 byte order mark
  }
  bool done() const { return pos_ >= s_.size(); }

  /// Reads the next record; keep(i) says whether field i is stored. row labels errors.
  template <class Keep>
  void next(record& r, const Keep& keep, std::size_t row) {
    r.count = 0;
    r.line = line_;
    r.blank = false;
    std::size_t stored = 0;
    bool content = false;
    std::string cur;
    for (;;) {
      // One field starting at pos_.
      cur.clear();
      const bool want = keep(r.count);
      while (pos_ < s_.size() && is_space(s_[pos_])) ++pos_;
      if (pos_ < s_.size() && s_[pos_] == '"') {
        content = true;
        ++pos_;
        for (;;) {
          if (pos_ >= s_.size()) {
            throw csv_error(source_, row, r.line, "", "unterminated quoted field");
          }
          const char c = s_[pos_++];
          if (c == '"') {
            if (pos_ < s_.size() && s_[pos_] == '"') {
              if (want) cur += '"';
              ++pos_;
            } else {
              break;
            }
          } else {
            if (c == '\n') ++line_;
            if (want) cur += c;
          }
        }
        while (pos_ < s_.size() && (is_space(s_[pos_]) || s_[pos_] == '\r')) ++pos_;
        if (pos_ < s_.size() && s_[pos_] != ',' && s_[pos_] != '\n') {
          throw csv_error(source_,
                          row,
                          r.line,
                          "",
                          "field " + std::to_string(r.count + 1) +
                              ": text after the closing quote of a quoted field");
        }
      } else {
        const std::size_t b = pos_;
        while (pos_ < s_.size() && s_[pos_] != ',' && s_[pos_] != '\n') {
          if (s_[pos_] == '"') {
            throw csv_error(source_,
                            row,
                            r.line,
                            "",
                            "field " + std::to_string(r.count + 1) +
                                ": a double quote inside an unquoted field (RFC 4180: quote "
                                "the whole field and double the quote)");
          }
          ++pos_;
        }
        std::size_t e = pos_;
        while (e > b && (is_space(s_[e - 1]) || s_[e - 1] == '\r')) --e;
        if (want) cur.assign(s_.substr(b, e - b));
        if (e > b) content = true;  // non-empty content (the record is not blank)
      }
      if (want) {
        if (stored < r.fields.size()) {
          r.fields[stored] = std::move(cur);
        } else {
          r.fields.push_back(std::move(cur));
        }
        ++stored;
        cur = std::string();
      }
      ++r.count;
      if (pos_ >= s_.size()) break;
      const char sep = s_[pos_++];
      if (sep == '\n') {
        ++line_;
        break;
      }
    }
    r.fields.resize(stored);
    r.blank = r.count == 1 && !content;
  }

 private:
  std::string_view s_;
  const std::string& source_;
  std::size_t pos_ = 0;
  std::size_t line_ = 1;
};

double to_number(const std::string& cell,
                 const std::string& source,
                 std::size_t row,
                 std::size_t line,
                 const std::string& column) {
  if (cell.empty()) throw csv_error(source, row, line, column, "empty cell (a number is needed)");
  const char* b = cell.data();
  const char* e = b + cell.size();
  if (*b == '+') ++b;
  double v = 0;
  const auto r = std::from_chars(b, e, v);
  if (r.ec != std::errc() || r.ptr != e || !std::isfinite(v) || b == e) {
    throw csv_error(source, row, line, column, "not a finite number");
  }
  return v;
}

}  // namespace

csv_error::csv_error(std::string source,
                     std::size_t row,
                     std::size_t line,
                     std::string column,
                     std::string_view what)
    : std::invalid_argument(csv_message(source, row, line, column, what)),
      source_(std::move(source)),
      row_(row),
      line_(line),
      column_(std::move(column)) {}

std::string csv_column_label(std::string_view name) {
  constexpr std::size_t max_len = 64;
  std::string out;
  for (char c : name.substr(0, max_len)) {
    const auto u = static_cast<unsigned char>(c);
    out += (u < 0x20 || u == 0x7f) ? '?' : c;
  }
  if (name.size() > max_len) out += "...";
  return out;
}

const std::vector<double>& csv_table::number_column(std::string_view name) const {
  for (std::size_t i = 0; i < names.numeric.size(); ++i) {
    if (names.numeric[i] == name) return numeric[i];
  }
  throw std::out_of_range("csv_table: numeric column '" + csv_column_label(name) +
                          "' was not requested");
}

const std::vector<std::string>& csv_table::text_column(std::string_view name) const {
  for (std::size_t i = 0; i < names.text.size(); ++i) {
    if (names.text[i] == name) return text[i];
  }
  throw std::out_of_range("csv_table: text column '" + csv_column_label(name) +
                          "' was not requested");
}

csv_table parse_csv(std::string_view text,
                    const std::string& source,
                    const csv_column_chooser& choose) {
  csv_table t;
  t.source = source;
  scanner sc(text, source);
  record r;
  // Header: the first non-blank record, every field kept.
  const auto all = [](std::size_t) { return true; };
  do {
    if (sc.done()) throw csv_error(source, 0, 0, "", "is empty (a header row is needed)");
    sc.next(r, all, 0);
  } while (r.blank);
  t.header = r.fields;
  const std::size_t width = t.header.size();
  t.names = choose(t.header);

  // Where each requested column sits; kind 1 = numeric, 2 = text.
  std::vector<int> kind(width, 0);
  std::vector<std::size_t> slot(width, 0);
  const auto place = [&](const std::string& name, int k, std::size_t s) {
    std::size_t found = width;
    for (std::size_t i = 0; i < width; ++i) {
      if (t.header[i] == name) {
        if (found != width) {
          throw csv_error(source, 0, 1, name, "the header names this column twice");
        }
        found = i;
      }
    }
    if (found == width) {
      std::string cols;
      for (std::size_t i = 0; i < width && i < 20; ++i) {
        cols += (i ? ", " : "") + csv_column_label(t.header[i]);
      }
      if (width > 20) cols += ", ...";
      throw csv_error(source, 0, 0, name, "no such column (columns: " + cols + ")");
    }
    if (kind[found] != 0) throw csv_error(source, 0, 0, name, "column requested twice");
    kind[found] = k;
    slot[found] = s;
  };
  for (std::size_t i = 0; i < t.names.numeric.size(); ++i) place(t.names.numeric[i], 1, i);
  for (std::size_t i = 0; i < t.names.text.size(); ++i) place(t.names.text[i], 2, i);
  t.numeric.resize(t.names.numeric.size());
  t.text.resize(t.names.text.size());
  std::vector<std::size_t> kept;  // file indices of the kept columns, in file order
  for (std::size_t i = 0; i < width; ++i) {
    if (kind[i] != 0) kept.push_back(i);
  }
  const auto keep = [&](std::size_t i) { return i < width && kind[i] != 0; };

  while (!sc.done()) {
    const std::size_t row = t.rows + 1;
    sc.next(r, keep, row);
    if (r.blank) continue;
    if (r.count != width) {
      throw csv_error(source,
                      row,
                      r.line,
                      "",
                      std::to_string(r.count) + " fields, the header has " + std::to_string(width) +
                          " (ragged rows are not accepted)");
    }
    for (std::size_t k = 0; k < kept.size(); ++k) {
      const std::size_t i = kept[k];
      if (kind[i] == 1) {
        t.numeric[slot[i]].push_back(to_number(r.fields[k], source, row, r.line, t.header[i]));
      } else {
        t.text[slot[i]].push_back(std::move(r.fields[k]));
      }
    }
    t.record_line.push_back(r.line);
    ++t.rows;
  }
  if (t.rows == 0) throw csv_error(source, 0, 0, "", "has no data rows (only a header)");
  return t;
}

csv_table parse_csv(std::string_view text, const std::string& source, const csv_columns& columns) {
  return parse_csv(text, source, [&](const std::vector<std::string>&) { return columns; });
}

csv_table read_csv_file(const std::filesystem::path& path, const csv_column_chooser& choose) {
  const std::string source = path.string();
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(st)) {
    throw csv_error(source, 0, 0, "", "cannot open (no such file)");
  }
  if (std::filesystem::is_directory(st)) {
    throw csv_error(source, 0, 0, "", "is a directory, not a CSV file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw csv_error(source, 0, 0, "", "cannot open (permission denied or unreadable)");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw csv_error(source, 0, 0, "", "read error");
  return parse_csv(text, source, choose);
}

csv_table read_csv_file(const std::filesystem::path& path, const csv_columns& columns) {
  return read_csv_file(path, [&](const std::vector<std::string>&) { return columns; });
}

}  // namespace dpx::core
