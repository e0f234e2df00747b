#include "dpx/core/csv.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
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
                    const csv_column_chooser& choose,
                    const csv_limits& limits) {
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
      // The header's names are not listed: without a header line they are a data record.
      throw csv_error(source,
                      0,
                      0,
                      name,
                      "no such column (the first line has " + std::to_string(width) +
                          (width == 1 ? " field" : " fields") +
                          "; it must be a header naming the columns)");
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
    if (t.rows >= limits.max_rows) {
      throw csv_error(
          source,
          0,
          0,
          "",
          "has more than " + std::to_string(limits.max_rows) + " data rows (the row limit" +
              (limits.rows_flag != nullptr ? std::string("; raise it with ") + limits.rows_flag
                                           : std::string()) +
              ")");
    }
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

csv_table parse_csv(std::string_view text,
                    const std::string& source,
                    const csv_columns& columns,
                    const csv_limits& limits) {
  return parse_csv(
      text, source, [&](const std::vector<std::string>&) { return columns; }, limits);
}

namespace {

[[noreturn]] void input_fail(const std::string& source, const std::string& what) {
  throw csv_error(source, 0, 0, "", what);
}

std::string too_large(std::uint64_t max_bytes, const char* bytes_flag) {
  return "is larger than " + std::to_string(max_bytes) + " bytes (the input size limit" +
         (bytes_flag != nullptr ? std::string("; raise it with ") + bytes_flag : std::string()) +
         ")";
}

/// Reads fd to its end, refusing more than max_bytes.
std::string read_bounded(int fd,
                         const std::string& source,
                         std::uint64_t max_bytes,
                         const char* bytes_flag) {
  std::string text;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      input_fail(source, "read error");
    }
    if (n == 0) break;
    if (static_cast<std::uint64_t>(n) > max_bytes - text.size()) {
      input_fail(source, too_large(max_bytes, bytes_flag));
    }
    text.append(buf, static_cast<std::size_t>(n));
  }
  return text;
}

/// Closes a file descriptor on scope exit.
struct fd_closer {
  int fd;
  ~fd_closer() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::string read_input_text(const std::filesystem::path& path,
                            std::uint64_t max_bytes,
                            const char* bytes_flag) {
  if (path == "-") return read_bounded(STDIN_FILENO, "<stdin>", max_bytes, bytes_flag);
  const std::string source = path.string();
  const auto kind = [&](const struct stat& st) {
    if (S_ISDIR(st.st_mode)) input_fail(source, "is a directory, not a file");
    if (!S_ISREG(st.st_mode)) {
      // A FIFO or a device may never end (/dev/urandom); a stream is read through stdin ("-").
      input_fail(source,
                 "is not a regular file (a FIFO, device or socket); pipe a stream to standard "
                 "input and name it '-'");
    }
    if (static_cast<std::uint64_t>(st.st_size) > max_bytes) {
      input_fail(source, too_large(max_bytes, bytes_flag));
    }
  };
  struct stat st {};
  if (::stat(source.c_str(), &st) != 0) {
    input_fail(source,
               errno == ENOENT || errno == ENOTDIR
                   ? "cannot open (no such file)"
                   : "cannot open (permission denied or unreadable)");
  }
  kind(st);  // before open: opening a FIFO would wait for a writer
  // O_NONBLOCK: should the path have been replaced by a FIFO meanwhile, open does not wait.
  const fd_closer fd{::open(source.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
  if (fd.fd < 0) input_fail(source, "cannot open (permission denied or unreadable)");
  if (::fstat(fd.fd, &st) != 0) input_fail(source, "read error");
  kind(st);
  const int flags = ::fcntl(fd.fd, F_GETFL);
  if (flags >= 0) (void)::fcntl(fd.fd, F_SETFL, flags & ~O_NONBLOCK);
  return read_bounded(fd.fd, source, max_bytes, bytes_flag);
}

csv_table read_csv_file(const std::filesystem::path& path,
                        const csv_column_chooser& choose,
                        const csv_limits& limits) {
  const std::string text = read_input_text(path, limits.max_bytes, limits.bytes_flag);
  return parse_csv(text, path == "-" ? std::string("<stdin>") : path.string(), choose, limits);
}

csv_table read_csv_file(const std::filesystem::path& path,
                        const csv_columns& columns,
                        const csv_limits& limits) {
  return read_csv_file(
      path, [&](const std::vector<std::string>&) { return columns; }, limits);
}

}  // namespace dpx::core
