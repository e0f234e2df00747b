// The tidy result table: CSV I/O (byte-stable), atomic file writes and number formatting.
#include "dpx/harness/results.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include "dpx/core/error.hpp"

namespace dpx::harness {

namespace {

std::string join_names(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s.empty() ? "(none)" : s;
}

std::size_t index_of(const std::vector<std::string>& names,
                     const std::string& name,
                     const char* function,
                     const char* kind) {
  const auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end()) {
    throw core::invalid_argument_error(
        function, kind, name, "is not a column of the table; have: " + join_names(names));
  }
  return static_cast<std::size_t>(it - names.begin());
}

/// Replaces CR/LF by spaces: tidy.csv records never span lines.
std::string single_line(const std::string& s) {
  std::string out = s;
  for (char& c : out) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return out;
}

[[noreturn]] void bad_line(const std::string& path, std::size_t line_no, const std::string& what) {
  throw std::invalid_argument("read_tidy_csv: " + path + ":" + std::to_string(line_no) + ": " +
                              what);
}

bool parse_double(const std::string& s, double& out) {
  if (s == "nan" || s == "-nan" || s == "NaN") {
    out = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  if (s == "inf") {
    out = std::numeric_limits<double>::infinity();
    return true;
  }
  if (s == "-inf") {
    out = -std::numeric_limits<double>::infinity();
    return true;
  }
  if (s.empty()) return false;
  const char* first = s.data();
  const char* last = s.data() + s.size();
  const auto r = std::from_chars(first, last, out);
  return r.ec == std::errc() && r.ptr == last;
}

std::atomic<unsigned long long> temp_counter{0};

}  // namespace

std::size_t tidy_table::param_index(const std::string& name) const {
  return index_of(param_names, name, "tidy_table::param_index", "parameter");
}

std::size_t tidy_table::metric_index(const std::string& name) const {
  return index_of(metric_names, name, "tidy_table::metric_index", "metric");
}

bool tidy_table::has_param(const std::string& name) const {
  return std::find(param_names.begin(), param_names.end(), name) != param_names.end();
}

bool tidy_table::has_metric(const std::string& name) const {
  return std::find(metric_names.begin(), metric_names.end(), name) != metric_names.end();
}

void sort_rows(tidy_table& t) {
  std::stable_sort(t.rows.begin(), t.rows.end(), [](const tidy_row& a, const tidy_row& b) {
    if (a.cell_id != b.cell_id) return a.cell_id < b.cell_id;
    return a.rep < b.rep;
  });
}

std::string format_number(double x) { return core::format_double(x); }

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (const char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

std::vector<std::string> split_csv_record(const std::string& line) {
  std::vector<std::string> fields;
  std::string cur;
  std::size_t i = 0;
  const std::size_t n = line.size();
  while (true) {
    cur.clear();
    if (i < n && line[i] == '"') {
      ++i;
      bool closed = false;
      while (i < n) {
        if (line[i] == '"') {
          if (i + 1 < n && line[i + 1] == '"') {
            cur += '"';
            i += 2;
          } else {
            ++i;
            closed = true;
            break;
          }
        } else {
          cur += line[i++];
        }
      }
      if (!closed) {
        throw std::invalid_argument("split_csv_record: unterminated quoted field in: " + line);
      }
      if (i < n && line[i] != ',') {
        throw std::invalid_argument(
            "split_csv_record: unexpected character after closing quote in: " + line);
      }
    } else {
      while (i < n && line[i] != ',') {
        if (line[i] == '"') {
          throw std::invalid_argument("split_csv_record: quote inside an unquoted field in: " +
                                      line);
        }
        cur += line[i++];
      }
    }
    fields.push_back(cur);
    if (i >= n) break;
    ++i;  // the comma
  }
  return fields;
}

void write_file_atomic(const std::filesystem::path& path, const std::string& content) {
  const std::filesystem::path parent = path.parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent);
  const std::string tmp = path.string() + ".tmp." + std::to_string(::getpid()) + "." +
                          std::to_string(temp_counter.fetch_add(1));
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    throw std::system_error(errno, std::generic_category(), "write_file_atomic: open " + tmp);
  }
  auto fail = [&](const char* what) {
    const int err = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    throw std::system_error(
        err, std::generic_category(), std::string("write_file_atomic: ") + what + " " + tmp);
  };
  const char* p = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    const ssize_t w = ::write(fd, p, left);
    if (w < 0) {
      if (errno == EINTR) continue;
      fail("write");
    }
    p += w;
    left -= static_cast<std::size_t>(w);
  }
  if (::fsync(fd) != 0) fail("fsync");
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw std::system_error(err, std::generic_category(), "write_file_atomic: close " + tmp);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw std::system_error(
        err, std::generic_category(), "write_file_atomic: rename " + tmp + " -> " + path.string());
  }
  // The rename lives in the directory: until the directory is synced a crash may bring back
  // the old file (or none) although the new content is on disk (fsync(2), "Notes").
  const std::string dir = parent.empty() ? std::string(".") : parent.string();
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) {
    throw std::system_error(errno, std::generic_category(), "write_file_atomic: open " + dir);
  }
  // EINVAL: a file system that cannot sync directories (nothing more can be done there).
  if (::fsync(dfd) != 0 && errno != EINVAL) {
    const int err = errno;
    ::close(dfd);
    throw std::system_error(err, std::generic_category(), "write_file_atomic: fsync " + dir);
  }
  ::close(dfd);
}

void write_tidy_csv(const tidy_table& t,
                    const std::filesystem::path& path,
                    bool include_wall_time) {
  write_file_atomic(path, format_tidy_csv(t, include_wall_time));
}

std::string format_tidy_csv(const tidy_table& t, bool include_wall_time) {
  std::string out;
  out.reserve(64 + t.rows.size() * (32 + 16 * (t.param_names.size() + t.metric_names.size())));
  out += "cell_id";
  for (const auto& p : t.param_names) out += "," + csv_field("p_" + p);
  out += ",rep";
  for (const auto& m : t.metric_names) out += "," + csv_field(m);
  out += ",wall_s,status,message\n";
  for (const auto& r : t.rows) {
    if (r.params.size() != t.param_names.size()) {
      throw core::invalid_argument_error("write_tidy_csv",
                                         "row.params",
                                         std::to_string(r.params.size()) + " values",
                                         "cell " + r.cell_id + " must have " +
                                             std::to_string(t.param_names.size()) + " parameters");
    }
    if (r.metrics.size() != t.metric_names.size()) {
      throw core::invalid_argument_error(
          "write_tidy_csv",
          "row.metrics",
          std::to_string(r.metrics.size()) + " values",
          "cell " + r.cell_id + " must have " + std::to_string(t.metric_names.size()) + " metrics");
    }
    out += csv_field(single_line(r.cell_id));
    for (const auto& v : r.params) {
      if (v.find_first_of("\n\r") != std::string::npos) {
        throw core::invalid_argument_error(
            "write_tidy_csv", "row.params", v, "parameter values must not contain line breaks");
      }
      out += ',';
      out += csv_field(v);
    }
    out += ',';
    out += std::to_string(r.rep);
    for (const double m : r.metrics) {
      out += ',';
      out += format_number(m);
    }
    out += ',';
    out += include_wall_time ? format_number(r.wall_s) : std::string("0");
    out += ',';
    out += csv_field(single_line(r.status));
    out += ',';
    out += csv_field(single_line(r.message));
    out += '\n';
  }
  return out;
}

tidy_table read_tidy_csv(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    throw std::invalid_argument("read_tidy_csv: cannot open " + path.string());
  }
  std::ostringstream ss;
  ss << file.rdbuf();
  return parse_tidy_csv(ss.str(), path.string());
}

tidy_table parse_tidy_csv(const std::string& text, const std::string& path) {
  std::istringstream in(text);
  tidy_table t;
  std::string line;
  std::size_t line_no = 0;
  auto next_line = [&]() -> bool {
    if (!std::getline(in, line)) return false;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return true;
  };
  if (!next_line()) bad_line(path, 1, "empty file (expected a header row)");
  std::vector<std::string> header;
  try {
    header = split_csv_record(line);
  } catch (const std::invalid_argument& e) {
    bad_line(path, line_no, e.what());
  }
  // cell_id, p_*..., rep, metrics..., wall_s, status, message
  if (header.size() < 5 || header.front() != "cell_id" || header[header.size() - 3] != "wall_s" ||
      header[header.size() - 2] != "status" || header.back() != "message") {
    bad_line(path,
             line_no,
             "bad header (expected cell_id, p_<param>..., rep, <metric>..., wall_s, status, "
             "message): " +
                 line);
  }
  std::size_t i = 1;
  while (i < header.size() && header[i].rfind("p_", 0) == 0) {
    t.param_names.push_back(header[i].substr(2));
    ++i;
  }
  if (i >= header.size() - 3 || header[i] != "rep") {
    bad_line(path, line_no, "bad header: expected the column rep after the p_ columns: " + line);
  }
  const std::size_t rep_col = i;
  for (std::size_t j = rep_col + 1; j + 3 < header.size(); ++j) {
    t.metric_names.push_back(header[j]);
  }
  const std::size_t ncols = header.size();
  while (next_line()) {
    if (line.empty()) continue;
    std::vector<std::string> f;
    try {
      f = split_csv_record(line);
    } catch (const std::invalid_argument& e) {
      bad_line(path, line_no, e.what());
    }
    if (f.size() != ncols) {
      bad_line(path,
               line_no,
               "expected " + std::to_string(ncols) + " fields, found " + std::to_string(f.size()));
    }
    tidy_row r;
    r.cell_id = f[0];
    if (r.cell_id.empty()) bad_line(path, line_no, "empty cell_id");
    r.params.assign(f.begin() + 1, f.begin() + static_cast<std::ptrdiff_t>(rep_col));
    {
      const std::string& s = f[rep_col];
      std::uint32_t rep = 0;
      const auto res = std::from_chars(s.data(), s.data() + s.size(), rep);
      if (s.empty() || res.ec != std::errc() || res.ptr != s.data() + s.size()) {
        bad_line(path, line_no, "rep = '" + s + "' is not a non-negative 32-bit integer");
      }
      r.rep = rep;
    }
    r.metrics.reserve(t.metric_names.size());
    for (std::size_t j = 0; j < t.metric_names.size(); ++j) {
      const std::string& s = f[rep_col + 1 + j];
      double v = 0;
      if (!parse_double(s, v)) {
        bad_line(path, line_no, t.metric_names[j] + " = '" + s + "' is not a number");
      }
      r.metrics.push_back(v);
    }
    if (!parse_double(f[ncols - 3], r.wall_s)) {
      bad_line(path, line_no, "wall_s = '" + f[ncols - 3] + "' is not a number");
    }
    r.status = f[ncols - 2];
    if (r.status != "ok" && r.status != "failed") {
      bad_line(path, line_no, "status = '" + r.status + "' (must be ok or failed)");
    }
    r.message = f[ncols - 1];
    t.rows.push_back(std::move(r));
  }
  return t;
}

}  // namespace dpx::harness
