// Number formatting and escaping for the Markdown and LaTeX tables.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "analysis_internal.hpp"

namespace dpx::harness::analysis_internal {

std::string fixed(double x, int digits) {
  if (std::isnan(x)) return "n/a";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, x);
  std::string s = buf;
  if (s.find_first_not_of("-0.") == std::string::npos && s[0] == '-') s.erase(0, 1);  // no "-0.000"
  return s;
}

std::string short_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string escape_chars(const std::string& s, std::initializer_list<char_escape> table) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    const auto* e =
        std::find_if(table.begin(), table.end(), [c](const char_escape& x) { return x.from == c; });
    if (e != table.end()) {
      out += e->to;
    } else {
      out += c;
    }
  }
  return out;
}

std::string latex_escape(const std::string& s) {
  return escape_chars(s,
                      {{'\\', "\\textbackslash{}"},
                       {'&', "\\&"},
                       {'%', "\\%"},
                       {'$', "\\$"},
                       {'#', "\\#"},
                       {'_', "\\_"},
                       {'{', "\\{"},
                       {'}', "\\}"},
                       {'~', "\\textasciitilde{}"},
                       {'^', "\\textasciicircum{}"},
                       {'<', "\\textless{}"},
                       {'>', "\\textgreater{}"},
                       {'|', "\\textbar{}"}});
}

std::string md_escape(const std::string& s) {
  return escape_chars(s, {{'|', "\\|"}, {'\n', " "}, {'\r', " "}});
}

std::string latex_num(double x, int digits) {
  if (std::isnan(x)) return "--";
  return "$" + fixed(x, digits) + "$";
}

}  // namespace dpx::harness::analysis_internal
