// report.html, index.html and the provenance section of report.md (report_html.hpp).
#include "dpx/harness/report_html.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "analysis_internal.hpp"
#include "dpx/harness/results.hpp"
#include "json_io.hpp"

namespace dpx::harness {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

// Summary tables longer than this many rows per metric are cut (summary.csv has them all).
constexpr std::size_t kMaxSummaryRows = 400;

// Parsed JSON file, or null when absent or malformed.
json json_or_null(const fs::path& path) {
  return detail::read_json_file(path).value_or(json(nullptr));
}

std::string esc(const std::string& s) {
  return analysis_internal::escape_chars(
      s, {{'&', "&amp;"}, {'<', "&lt;"}, {'>', "&gt;"}, {'"', "&quot;"}, {'\'', "&#39;"}});
}

std::string base64(const std::string& bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const auto v = (static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i])) << 16) |
                   (static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8) |
                   static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i + 2]));
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  if (i < bytes.size()) {
    auto v = static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i])) << 16;
    if (i + 1 < bytes.size()) {
      v |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8;
    }
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += i + 1 < bytes.size() ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

// A JSON scalar as text (numbers shortest round-trip; null as "—").
std::string text_of(const json& v) {
  if (v.is_null()) return "\xE2\x80\x94";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number_float()) return format_number(v.get<double>());
  if (v.is_number()) return v.dump();
  return v.dump();
}

// A JSON number with printf format fmt (tables); other values as text_of.
std::string fmt_num(const json& v, const char* fmt) {
  if (!v.is_number()) return text_of(v);
  const double x = v.get<double>();
  if (!std::isfinite(x)) return format_number(x);
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, x);
  return buf;
}

std::string field(const json& j, std::initializer_list<const char*> path) {
  const json* p = &j;
  for (const char* key : path) {
    if (!p->is_object() || !p->contains(key)) return "unknown";
    p = &(*p)[key];
  }
  return text_of(*p);
}

constexpr const char* kStyle = R"(<style>
body{font-family:system-ui,-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:0;
color:#1b1b1b;background:#fff;line-height:1.45}
main{max-width:1100px;margin:0 auto;padding:1.5rem}
h1{font-size:1.6rem;margin:.2rem 0 .6rem}h2{font-size:1.25rem;margin-top:2rem;
border-bottom:1px solid #ddd;padding-bottom:.2rem}h3{font-size:1.05rem}
table{border-collapse:collapse;margin:.6rem 0;font-size:.88rem}
th,td{border:1px solid #d0d0d0;padding:.25rem .5rem;text-align:left;vertical-align:top}
th{background:#f3f3f3}td.num{text-align:right;font-variant-numeric:tabular-nums}
.pass{color:#0b6b1f;font-weight:600}.fail{color:#b00020;font-weight:700}
.info{color:#555}.note{color:#555;font-size:.85rem}
figure{margin:1rem 0}figure img{max-width:100%;height:auto;border:1px solid #eee}
figcaption{font-size:.9rem;color:#333}pre{background:#f7f7f7;padding:.6rem;overflow-x:auto;
font-size:.8rem}details{margin:.4rem 0}summary{cursor:pointer}
.badge{display:inline-block;padding:.05rem .45rem;border-radius:.6rem;font-size:.8rem;
background:#eee}.badge.pass{background:#dff3e3}.badge.fail{background:#fde0e4}
.scroll{overflow-x:auto}
</style>)";

std::string page(const std::string& title, const std::string& body) {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
         "<meta name=\"generator\" content=\"dpx\">\n<title>" +
         esc(title) + "</title>\n" + kStyle + "\n</head>\n<body>\n<main>\n" + body +
         "</main>\n</body>\n</html>\n";
}

std::string verdict_cell(const json& r) {
  const bool informational = r.value("informational", false);
  const bool pass = r.value("pass", false);
  if (informational) return "<td class=\"info\">informational</td>";
  // A refutation passes when the published form fails and the positive control passes.
  if (r.value("expect", std::string("holds")) == "refuted") {
    return pass ? "<td class=\"pass\">PASS: refuted (reproduced)</td>"
                : "<td class=\"fail\">FAIL: refutation not reproduced</td>";
  }
  return pass ? "<td class=\"pass\">PASS</td>" : "<td class=\"fail\">FAIL</td>";
}

std::string rates_section(const json& rates) {
  std::string h = "<h2 id=\"rates\">Rate checks</h2>\n";
  if (!rates.is_array()) return h + "<p>No rates.json in this directory.</p>\n";
  if (rates.empty()) return h + "<p>The preset declares no rate checks.</p>\n";
  // Optional fields written by newer analyses (controls and claims) get their own columns.
  bool has_control = false;
  bool has_claim = false;
  std::size_t gated = 0;
  std::size_t passed = 0;
  for (const auto& r : rates) {
    has_control = has_control || r.contains("control_verdict");
    has_claim = has_claim || r.contains("claim");
    if (!r.value("informational", false)) {
      ++gated;
      if (r.value("pass", false)) ++passed;
    }
  }
  h += "<p>" + std::to_string(passed) + " of " + std::to_string(gated) +
       " gated checks passed. Each check fits log(statistic of y) = a + b log(x); the "
       "interval is a joint bootstrap percentile interval at the stated level (Bonferroni over "
       "the groups of a rate). A check passes when the expected slope lies in the interval and "
       "the fitted slope is within the tolerance (tolerance alone for check = tolerance).</p>\n";
  h += "<div "
       "class=\"scroll\"><table>\n<thead><tr><th>rate</th><th>group</th><th>slope</"
       "th><th>interval</th>"
       "<th>level</th><th>expected &plusmn; tol</th><th>points</th><th>reps</th><th>check</th>"
       "<th>verdict</th>";
  if (has_control) h += "<th>control</th>";
  if (has_claim) h += "<th>claim</th>";
  h += "<th>note</th></tr></thead>\n<tbody>\n";
  for (const auto& r : rates) {
    // Three decimals as in rates.md (full precision: rates.json).
    h += "<tr><td>" + esc(text_of(r.value("rate", json(nullptr)))) + "</td><td>" +
         esc(text_of(r.value("group", json("")))) + "</td><td class=\"num\">" +
         esc(fmt_num(r.value("slope", json(nullptr)), "%.3f")) + "</td><td class=\"num\">[" +
         esc(fmt_num(r.value("ci_lo", json(nullptr)), "%.3f")) + ", " +
         esc(fmt_num(r.value("ci_hi", json(nullptr)), "%.3f")) + "]</td><td class=\"num\">" +
         esc(fmt_num(r.value("ci_level", json(nullptr)), "%.4g")) + "</td><td class=\"num\">" +
         esc(fmt_num(r.value("expected", json(nullptr)), "%.3g")) + " &plusmn; " +
         esc(fmt_num(r.value("tolerance", json(nullptr)), "%.3g")) + "</td><td class=\"num\">" +
         esc(text_of(r.value("points", json(nullptr)))) + "</td><td class=\"num\">" +
         esc(text_of(r.value("replications", json(nullptr)))) + "</td><td>" +
         esc(text_of(r.value("check", json("ci")))) + "</td>" + verdict_cell(r);
    if (has_control) {
      const json c = r.value("control_verdict", json(nullptr));
      std::string cls;
      if (c.is_string()) {
        const std::string s = c.get<std::string>();
        if (s.find("fail") != std::string::npos || s.find("FAIL") != std::string::npos) {
          cls = " class=\"fail\"";
        } else if (s.find("pass") != std::string::npos || s.find("PASS") != std::string::npos) {
          cls = " class=\"pass\"";
        }
      }
      h += "<td" + cls + ">" + esc(c.is_null() ? std::string() : text_of(c)) + "</td>";
    }
    if (has_claim) {
      const json c = r.value("claim", json(nullptr));
      h += "<td>" +
           esc(c.is_null()     ? std::string()
               : c.is_object() ? c.dump()
                               : text_of(c)) +
           "</td>";
    }
    h += "<td class=\"note\">" + esc(r.value("note", std::string())) + "</td></tr>\n";
  }
  h += "</tbody>\n</table></div>\n<p class=\"note\">Also as <a href=\"rates.csv\">rates.csv</a>, "
       "<a href=\"rates.json\">rates.json</a>, <a href=\"rates.md\">rates.md</a>, "
       "<a href=\"rates.tex\">rates.tex</a>.</p>\n";
  return h;
}

std::string figures_section(const fs::path& out_dir) {
  std::string h = "<h2 id=\"figures\">Figures</h2>\n";
  const json spec = json_or_null(out_dir / "figures" / "figures.json");
  if (!spec.is_object() || !spec.contains("figures") || spec["figures"].empty()) {
    return h + "<p>The preset declares no figures.</p>\n";
  }
  std::size_t missing = 0;
  for (const auto& f : spec["figures"]) {
    const std::string name = f.value("name", std::string());
    const std::string title =
        f.value("title", std::string()).empty() ? name : f.value("title", std::string());
    const std::string png = detail::read_text(out_dir / "figures" / (name + ".png"));
    h += "<h3 id=\"figure-" + esc(name) + "\">" + esc(title) + "</h3>\n";
    if (png.empty()) {
      ++missing;
      h += "<p>Not rendered (no figures/" + esc(name) +
           ".png; see figures/plot.log or render figures/figures.json with dpx_plot.py).</p>\n";
      continue;
    }
    h += "<figure><img alt=\"" + esc(title) + "\" src=\"data:image/png;base64," + base64(png) +
         "\"><figcaption>" + esc(f.value("y", std::string())) + " against " +
         esc(f.value("x", std::string())) + " &middot; <a href=\"figures/" + esc(name) +
         ".pdf\">PDF</a> &middot; <a href=\"figures/" + esc(name) +
         ".png\">PNG</a></figcaption></figure>\n";
  }
  if (missing > 0) {
    h += "<p class=\"note\">" + std::to_string(missing) + " figure(s) not rendered.</p>\n";
  }
  return h;
}

std::string summary_section(const fs::path& out_dir) {
  std::string h = "<h2 id=\"summary\">Summary tables</h2>\n";
  std::ifstream in(out_dir / "summary.csv");
  std::string line;
  if (!in || !std::getline(in, line)) return h + "<p>No summary.csv in this directory.</p>\n";
  const std::vector<std::string> header = split_csv_record(line);
  // Columns: cell_id, p_<param>..., metric, statistics...
  const auto metric_it = std::find(header.begin(), header.end(), "metric");
  if (metric_it == header.end()) return h + "<p>summary.csv has no metric column.</p>\n";
  const auto metric_col = static_cast<std::size_t>(metric_it - header.begin());
  const std::vector<std::string> shown = {"n_reps", "mean", "se", "median", "ci_lo", "ci_hi"};
  std::vector<std::size_t> stat_cols;
  for (const auto& s : shown) {
    const auto it = std::find(header.begin(), header.end(), s);
    if (it != header.end()) stat_cols.push_back(static_cast<std::size_t>(it - header.begin()));
  }
  std::vector<std::string> metric_order;
  std::map<std::string, std::vector<std::vector<std::string>>> by_metric;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::vector<std::string> rec = split_csv_record(line);
    if (rec.size() != header.size()) continue;
    const std::string& m = rec[metric_col];
    if (!by_metric.count(m)) metric_order.push_back(m);
    by_metric[m].push_back(std::move(rec));
  }
  h += "<p>Per cell and metric (the mean's interval is the normal 95% interval). Complete "
       "table: <a href=\"summary.csv\">summary.csv</a>; every replication: "
       "<a href=\"tidy.csv\">tidy.csv</a>.</p>\n";
  for (const auto& m : metric_order) {
    const auto& rows = by_metric[m];
    h += "<details><summary>" + esc(m) + " (" + std::to_string(rows.size()) +
         " cells)</summary>\n<table>\n<thead><tr>";
    for (std::size_t c = 1; c < metric_col; ++c) {
      const std::string& name = header[c];
      h += "<th>" + esc(name.rfind("p_", 0) == 0 ? name.substr(2) : name) + "</th>";
    }
    for (std::size_t c : stat_cols) h += "<th>" + esc(header[c]) + "</th>";
    h += "</tr></thead>\n<tbody>\n";
    for (std::size_t i = 0; i < rows.size() && i < kMaxSummaryRows; ++i) {
      h += "<tr>";
      for (std::size_t c = 1; c < metric_col; ++c) h += "<td>" + esc(rows[i][c]) + "</td>";
      for (std::size_t c : stat_cols) h += "<td class=\"num\">" + esc(rows[i][c]) + "</td>";
      h += "</tr>\n";
    }
    h += "</tbody>\n</table>\n";
    if (rows.size() > kMaxSummaryRows) {
      h += "<p class=\"note\">First " + std::to_string(kMaxSummaryRows) + " of " +
           std::to_string(rows.size()) + " rows; see summary.csv.</p>\n";
    }
    h += "</details>\n";
  }
  return h;
}

// Provenance rows (label, value) from a manifest; empty when there is none.
std::vector<std::pair<std::string, std::string>> provenance_rows(const json& m) {
  std::vector<std::pair<std::string, std::string>> rows;
  if (!m.is_object()) return rows;
  std::string commit = field(m, {"git", "commit"});
  const std::string dirty = field(m, {"git", "dirty"});
  if (dirty == "true") commit += " (with uncommitted changes)";
  rows.emplace_back("experiment", field(m, {"experiment"}));
  rows.emplace_back("status", field(m, {"status"}));
  rows.emplace_back("commit", commit);
  rows.emplace_back("git describe", field(m, {"git", "describe"}));
  rows.emplace_back("run started (UTC)", field(m, {"timing", "start_utc"}));
  rows.emplace_back("run ended (UTC)", field(m, {"timing", "end_utc"}));
  rows.emplace_back("wall time (s)", field(m, {"timing", "wall_s"}));
  rows.emplace_back("driver",
                    field(m, {"driver", "name"}) + " v" + field(m, {"driver", "version"}));
  rows.emplace_back("preset", field(m, {"preset", "path"}));
  rows.emplace_back("preset sha256", field(m, {"preset", "sha256"}));
  rows.emplace_back("quick grid", field(m, {"quick"}));
  if (m.contains("overrides") && m["overrides"].is_array() && !m["overrides"].empty()) {
    std::string o;
    for (const auto& s : m["overrides"]) o += (o.empty() ? "" : "; ") + text_of(s);
    rows.emplace_back("overrides (--set)", o);
  }
  std::size_t cells = 0;
  if (m.contains("preset") && m["preset"].contains("resolved") &&
      m["preset"]["resolved"].is_array()) {
    cells = m["preset"]["resolved"].size();
  }
  rows.emplace_back("grid",
                    std::to_string(cells) + " cells x " + field(m, {"preset", "replications"}) +
                        " replications (blocks of " + field(m, {"preset", "replication_block"}) +
                        ")");
  rows.emplace_back("base seed", field(m, {"rng", "base_seed"}));
  rows.emplace_back("generator", field(m, {"rng", "algorithm"}));
  rows.emplace_back("compiler", field(m, {"build", "compiler"}));
  rows.emplace_back("build type", field(m, {"build", "build_type"}));
  rows.emplace_back("compile flags",
                    field(m, {"build", "flags"}) + " " + field(m, {"build", "target_flags"}));
  rows.emplace_back("host",
                    field(m, {"host", "cpu_model"}) + ", " + field(m, {"host", "cores"}) +
                        " cores, " + field(m, {"host", "kernel"}));
  rows.emplace_back("threads", field(m, {"threads"}));
  rows.emplace_back("BLAS threads", field(m, {"env", "blas_threads"}));
  return rows;
}

std::string provenance_section(const json& m) {
  std::string h = "<h2 id=\"provenance\">Provenance</h2>\n";
  const auto rows = provenance_rows(m);
  if (rows.empty()) return h + "<p>No readable manifest.json in this directory.</p>\n";
  h += "<table>\n<tbody>\n";
  for (const auto& [k, v] : rows) h += "<tr><th>" + esc(k) + "</th><td>" + esc(v) + "</td></tr>\n";
  h += "</tbody>\n</table>\n";
  if (m.contains("preset") && m["preset"].contains("text") && m["preset"]["text"].is_string()) {
    h += "<details><summary>Preset text</summary>\n<pre>" +
         esc(m["preset"]["text"].get<std::string>()) + "</pre></details>\n";
  }
  h += "<p class=\"note\">Everything above is from <a href=\"manifest.json\">manifest.json</a> "
       "(dependencies, environment and the resolved parameters of every cell are there).</p>\n";
  return h;
}

}  // namespace

std::string provenance_markdown(const fs::path& out_dir) {
  const json m = json_or_null(out_dir / "manifest.json");
  std::string md = "## Provenance\n\n";
  const auto rows = provenance_rows(m);
  if (rows.empty()) return md + "No readable manifest.json in this directory.\n";
  md += "| | |\n|---|---|\n";
  for (const auto& [k, v] : rows) {
    std::string cell = v;
    for (std::size_t i = cell.find('|'); i != std::string::npos; i = cell.find('|', i + 2)) {
      cell.replace(i, 1, "\\|");
    }
    md += "| ";
    md += k;
    md += " | ";
    md += cell;
    md += " |\n";
  }
  md += "\nFrom [manifest.json](manifest.json); browsable report: [report.html](report.html).\n";
  return md;
}

std::string report_html(const fs::path& out_dir) {
  const json m = json_or_null(out_dir / "manifest.json");
  const json rates = json_or_null(out_dir / "rates.json");
  std::string name = m.is_object() ? m.value("experiment", std::string()) : std::string();
  if (name.empty()) name = out_dir.filename().string();
  std::string body = "<p class=\"note\"><a href=\"../index.html\">All presets</a></p>\n";
  body += "<h1>" + esc(name) + "</h1>\n";
  if (m.is_object() && !m.value("description", std::string()).empty()) {
    body += "<p>" + esc(m.value("description", std::string())) + "</p>\n";
  }
  if (m.is_object()) {
    body += "<p>" + esc(field(m, {"counts", "cells"})) + " cells, " +
            esc(field(m, {"counts", "replications"})) + " replications, " +
            esc(field(m, {"counts", "failed"})) + " failed; status " + esc(field(m, {"status"})) +
            "; commit " + esc(field(m, {"git", "describe"})) + ", " +
            esc(field(m, {"timing", "end_utc"})) + ".</p>\n";
  }
  body +=
      "<p class=\"note\"><a href=\"#rates\">Rate checks</a> &middot; <a "
      "href=\"#figures\">Figures</a> &middot; <a href=\"#summary\">Summary tables</a> "
      "&middot; <a href=\"#provenance\">Provenance</a> &middot; <a "
      "href=\"report.md\">report.md</a></p>\n";
  body += rates_section(rates);
  body += figures_section(out_dir);
  body += summary_section(out_dir);
  body += provenance_section(m);
  return page("dpx: " + name, body);
}

std::string index_html(const fs::path& dir) {
  std::vector<fs::path> subdirs;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    std::error_code e2;
    if (!e.is_directory(e2)) continue;
    if (fs::is_regular_file(e.path() / "manifest.json", e2) ||
        fs::is_regular_file(e.path() / "report.md", e2)) {
      subdirs.push_back(e.path());
    }
  }
  std::sort(subdirs.begin(), subdirs.end());
  std::string body = "<h1>dpx results</h1>\n<p>" + std::to_string(subdirs.size()) +
                     " result director" + (subdirs.size() == 1 ? "y" : "ies") + " in " +
                     esc(dir.filename().string()) + ".</p>\n";
  body +=
      "<table>\n<thead><tr><th>preset</th><th>description</th><th>status</th>"
      "<th>rate checks</th><th>cells</th><th>replications</th><th>commit</th>"
      "<th>finished (UTC)</th></tr></thead>\n<tbody>\n";
  for (const auto& d : subdirs) {
    const json m = json_or_null(d / "manifest.json");
    const std::string sub = d.filename().string();
    const bool has_html = fs::is_regular_file(d / "report.html", ec);
    const std::string link = has_html ? sub + "/report.html" : sub + "/report.md";
    std::string checks = "\xE2\x80\x94";
    std::string cls;
    if (m.is_object() && m.contains("rates") && m["rates"].is_object()) {
      const auto checked = m["rates"].value("checked", 0);
      const auto passed = m["rates"].value("passed", 0);
      checks = std::to_string(passed) + "/" + std::to_string(checked) + " passed";
      cls = passed == checked ? "pass" : "fail";
    }
    body += "<tr><td><a href=\"" + esc(link) + "\">" + esc(sub) + "</a></td><td>" +
            esc(m.is_object() ? m.value("description", std::string()) : std::string()) +
            "</td><td>" + esc(m.is_object() ? field(m, {"status"}) : "no manifest") + "</td><td" +
            (cls.empty() ? "" : " class=\"" + cls + "\"") + ">" + esc(checks) +
            "</td><td class=\"num\">" + esc(field(m, {"counts", "cells"})) +
            "</td><td class=\"num\">" + esc(field(m, {"counts", "replications"})) + "</td><td>" +
            esc(field(m, {"git", "describe"})) + "</td><td>" +
            esc(field(m, {"timing", "end_utc"})) + "</td></tr>\n";
  }
  body += "</tbody>\n</table>\n";
  return page("dpx results", body);
}

void write_html_reports(const fs::path& out_dir, bool write_index) {
  // report.md: replace (or append) the provenance section, always the last one.
  const fs::path md_path = out_dir / "report.md";
  std::string md = detail::read_text(md_path);
  if (!md.empty()) {
    const auto at = md.find("\n## Provenance\n");
    if (at != std::string::npos) md.erase(at + 1);
    if (md.back() != '\n') md += '\n';
    md += "\n" + provenance_markdown(out_dir);
    write_file_atomic(md_path, md);
  }
  write_file_atomic(out_dir / "report.html", report_html(out_dir));
  if (write_index) {
    fs::path dir = fs::absolute(out_dir).lexically_normal();
    if (dir.filename().empty()) dir = dir.parent_path();  // "results/name/"
    const fs::path parent = dir.parent_path();
    write_file_atomic(parent / "index.html", index_html(parent));
  }
}

}  // namespace dpx::harness
