// Replication blocks on disk: computing one, writing it (CSV + sidecar), verifying a cached one
// by content and merging the blocks of a grid (docs/presets.md, "Caching").
//
// A block is reused only when everything checks out: its sidecar names this cell and
// replication range, carries the expected cache key and the SHA-256 of the CSV bytes, the CSV
// hashes to that digest, and its rows are exactly replications first..last of this cell with
// this cell's parameters and the driver's metric columns. Anything else is "corrupt" (recomputed
// with a warning by run, skipped by collect) or "stale" (recomputed silently).
#include <algorithm>
#include <chrono>
#include <fstream>
#include <limits>
#include <sstream>

#include <nlohmann/json.hpp>

#include "dpx/core/hash.hpp"
#include "dpx/harness/sha256.hpp"
#include "internal.hpp"

namespace dpx::harness {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

namespace detail {

std::string cache_key(const preset& p, const driver& d, const cell& c, const block_ref& u) {
  const std::string material = c.key + "|driver=" + d.name + "|version=" + d.version +
                               "|reps=" + std::to_string(u.first) + "-" + std::to_string(u.last) +
                               "|base_seed=" + std::to_string(p.base_seed) +
                               "|rng=" + std::string(rng::philox4x32::algorithm_name) + "|" +
                               std::string(rng::stream_derivation);
  return core::hex16(core::stable_hash(material));
}

fs::path cell_dir(const fs::path& out, const cell& c) { return out / "cells" / c.id; }

fs::path block_file(const fs::path& out, const cell& c, const block_ref& b, const char* ext) {
  return cell_dir(out, c) / (block_stem(b.first, b.last) + ext);
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string one_line(std::string s, std::size_t max_len) {
  for (char& ch : s) {
    const auto u = static_cast<unsigned char>(ch);
    if (u < 0x20 || u == 0x7f) ch = ' ';
  }
  if (s.size() > max_len) s = s.substr(0, max_len) + "...";
  return s;
}

std::vector<std::string> param_names_of(const cell& c) {
  std::vector<std::string> names;
  for (const auto& [k, _] : c.params.values()) names.push_back(k);
  return names;
}

std::vector<std::string> rendered_params(const cell& c) {
  std::vector<std::string> vals;
  for (const auto& [_, v] : c.params.values()) vals.push_back(render(v));
  return vals;
}

namespace {

/// "" when the rows are exactly replications first..last of cell c (its parameters, the
/// driver's metric columns, failures as the sidecar says); else what is wrong.
std::string verify_rows(const tidy_table& t,
                        const driver& d,
                        const cell& c,
                        const block_ref& b,
                        std::size_t failed_expected) {
  if (t.param_names != param_names_of(c)) return "its parameter columns are not this cell's";
  if (t.metric_names != d.metric_names) return "its metric columns are not the driver's";
  const std::size_t n = static_cast<std::size_t>(b.last) - b.first + 1;
  if (t.rows.size() != n) {
    return "it has " + std::to_string(t.rows.size()) + " rows, expected " + std::to_string(n);
  }
  const std::vector<std::string> params = rendered_params(c);
  std::size_t failed = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const tidy_row& r = t.rows[i];
    if (r.cell_id != c.id) return "row " + std::to_string(i + 1) + " belongs to another cell";
    if (r.rep != b.first + i) {
      return "row " + std::to_string(i + 1) + " is not replication " + std::to_string(b.first + i);
    }
    if (r.params != params) {
      return "row " + std::to_string(i + 1) + " has parameter values of another cell";
    }
    if (r.status != "ok") ++failed;
  }
  if (failed != failed_expected) return "its failed rows differ from its sidecar";
  return {};
}

}  // namespace

block_check inspect_block(const fs::path& out,
                          const preset& p,
                          const driver& d,
                          const cell& c,
                          const block_ref& b,
                          tidy_table* rows) {
  const fs::path csv = block_file(out, c, b, ".csv");
  const fs::path sidecar = block_file(out, c, b, ".json");
  std::error_code ec;
  const bool have_csv = fs::is_regular_file(csv, ec);
  const bool have_side = fs::is_regular_file(sidecar, ec);
  // Only the CSV without its sidecar: a crash between the two renames (write_block), or a
  // block being written; recomputed silently.
  if (!have_side) return {block_state::missing, {}};
  if (!have_csv) return {block_state::corrupt, "its sidecar exists without the CSV"};
  json j;
  try {
    j = json::parse(read_text(sidecar));
  } catch (const std::exception&) {
    return {block_state::corrupt, "its sidecar is not valid JSON"};
  }
  std::size_t failed = 0, n_rows = 0;
  std::string digest;
  try {
    if (!j.is_object()) return {block_state::corrupt, "its sidecar is not a JSON object"};
    if (j.at("cell_id").get<std::string>() != c.id) {
      return {block_state::corrupt, "its sidecar belongs to another cell"};
    }
    if (j.at("first_rep").get<std::uint32_t>() != b.first ||
        j.at("last_rep").get<std::uint32_t>() != b.last) {
      return {block_state::corrupt, "its sidecar names another replication range"};
    }
    if (j.at("cache_key").get<std::string>() != cache_key(p, d, c, b)) {
      return {block_state::stale, {}};
    }
    // Blocks written before content hashes existed are recomputed (once).
    if (!j.contains("content_sha256")) return {block_state::stale, {}};
    digest = j.at("content_sha256").get<std::string>();
    failed = j.at("failed").get<std::size_t>();
    n_rows = j.at("rows").get<std::size_t>();
  } catch (const std::exception&) {
    return {block_state::corrupt, "its sidecar lacks a field or has a wrong type"};
  }
  const std::string text = read_text(csv);
  if (sha256_hex(text) != digest) {
    return {block_state::corrupt, "its content does not match the SHA-256 in its sidecar"};
  }
  tidy_table t;
  try {
    t = parse_tidy_csv(text, csv.string());
  } catch (const std::exception& e) {
    return {block_state::corrupt, "its rows cannot be read: " + one_line(e.what(), 160)};
  }
  std::string why = verify_rows(t, d, c, b, failed);
  if (why.empty() && n_rows != t.rows.size()) why = "its row count differs from its sidecar";
  if (!why.empty()) return {block_state::corrupt, why};
  if (rows != nullptr) *rows = std::move(t);
  return {failed == 0 ? block_state::ok : block_state::has_failures, {}};
}

block_state check_block(
    const fs::path& out, const preset& p, const driver& d, const cell& c, const block_ref& b) {
  return inspect_block(out, p, d, c, b).state;
}

void write_block(const fs::path& out, const cell& c, const block_ref& b, const block_payload& pl) {
  const auto t0 = std::chrono::steady_clock::now();
  // A block path that is not a regular file (e.g. a directory left in its place) was reported
  // corrupt by inspect_block; clear it, or the rename onto it would fail (EISDIR).
  for (const char* ext : {".csv", ".json"}) {
    std::error_code ec;
    const fs::path f = block_file(out, c, b, ext);
    if (fs::is_directory(fs::symlink_status(f, ec))) fs::remove_all(f, ec);
  }
  write_file_atomic(block_file(out, c, b, ".csv"), pl.csv);
  json side = json::parse(pl.sidecar);
  side["write_s"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  write_file_atomic(block_file(out, c, b, ".json"), side.dump(2) + "\n");
}

tidy_table merge_blocks(const preset& p,
                        const driver& d,
                        const std::vector<cell>& cells,
                        const fs::path& out,
                        const std::vector<bool>* include,
                        const std::atomic<bool>* stop) {
  tidy_table all;
  all.param_names = param_names_of(cells.front());
  all.metric_names = d.metric_names;
  // Blocks in (cell_id, first replication) order, so the rows arrive sorted.
  const std::vector<block_ref> plan = plan_blocks(p, cells.size());
  std::vector<std::size_t> order;
  for (std::size_t k = 0; k < plan.size(); ++k)
    if (include == nullptr || (*include)[k]) order.push_back(k);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return cells[plan[a].cell_index].id < cells[plan[b].cell_index].id;
  });
  all.rows.reserve(static_cast<std::size_t>(p.replications) * cells.size());
  for (const std::size_t k : order) {
    if (stop != nullptr && stop->load(std::memory_order_relaxed)) throw run_interrupted{};
    const block_ref& u = plan[k];
    const cell& c = cells[u.cell_index];
    tidy_table t;
    const block_check chk = inspect_block(out, p, d, c, u, &t);
    if (chk.state == block_state::missing || chk.state == block_state::stale) {
      throw std::invalid_argument("missing block " + block_file(out, c, u, ".csv").string() +
                                  " (run the preset first)");
    }
    if (chk.state == block_state::corrupt) {
      // Never merged: run the preset again (with --resume) to recompute it.
      throw std::invalid_argument("block " + block_file(out, c, u, ".csv").string() +
                                  " is corrupt (" + chk.reason + "); rerun the preset");
    }
    for (auto& row : t.rows) all.rows.push_back(std::move(row));
  }
  const bool sorted =
      std::is_sorted(all.rows.begin(), all.rows.end(), [](const tidy_row& a, const tidy_row& b) {
        return a.cell_id != b.cell_id ? a.cell_id < b.cell_id : a.rep < b.rep;
      });
  if (!sorted) sort_rows(all);
  return all;
}

}  // namespace detail

block_payload compute_block_payload(const preset& p,
                                    const driver& d,
                                    const cell& c,
                                    const block_ref& u,
                                    std::size_t block_index,
                                    const std::atomic<bool>* stop) {
  using clock = std::chrono::steady_clock;
  const auto block_start = clock::now();
  tidy_table t;
  t.param_names = detail::param_names_of(c);
  t.metric_names = d.metric_names;
  const std::vector<std::string> params = detail::rendered_params(c);
  t.rows.reserve(u.last - u.first + 1);
  block_payload out;
  out.block = block_index;
  for (std::uint32_t r = u.first;; ++r) {
    if (stop != nullptr && stop->load(std::memory_order_relaxed)) {
      out.abandoned = true;
      return out;
    }
    tidy_row row;
    row.cell_id = c.id;
    row.rep = r;
    row.params = params;
    const cell_context ctx{c.params, c.hash, c.data_hash, r, p.base_seed};
    const auto t0 = clock::now();
    try {
      metrics m = d.run(ctx);
      bool names_ok = m.size() == d.metric_names.size();
      for (std::size_t i = 0; names_ok && i < m.size(); ++i)
        names_ok = m[i].first == d.metric_names[i];
      if (!names_ok) {
        std::string got;
        for (const auto& [k, _] : m) got += (got.empty() ? "" : ", ") + k;
        std::string want;
        for (const auto& k : d.metric_names) want += (want.empty() ? "" : ", ") + k;
        std::string msg = "driver returned metrics (" + got;
        msg += "), declared (" + want + ")";
        throw std::runtime_error(msg);
      }
      row.metrics.reserve(m.size());
      for (const auto& [_, v] : m) row.metrics.push_back(v);
    } catch (const std::exception& e) {
      row.status = "failed";
      row.message = e.what();
      std::replace(row.message.begin(), row.message.end(), '\n', ' ');
      std::replace(row.message.begin(), row.message.end(), '\r', ' ');
      row.metrics.assign(d.metric_names.size(), std::numeric_limits<double>::quiet_NaN());
      ++out.failed;
    }
    row.wall_s = std::chrono::duration<double>(clock::now() - t0).count();
    out.rep_wall_s += row.wall_s;
    t.rows.push_back(std::move(row));
    if (r == u.last) break;
  }
  out.reps = t.rows.size();
  out.wall_s = std::chrono::duration<double>(clock::now() - block_start).count();
  out.csv = format_tidy_csv(t, /*include_wall_time=*/true);
  json side;
  side["cache_key"] = detail::cache_key(p, d, c, u);
  side["cell_id"] = c.id;
  side["cell_key"] = c.key;
  side["driver"] = d.name;
  side["driver_version"] = d.version;
  side["first_rep"] = u.first;
  side["last_rep"] = u.last;
  side["base_seed"] = p.base_seed;
  side["rng_algorithm"] = std::string(rng::philox4x32::algorithm_name);
  side["rng_derivation"] = std::string(rng::stream_derivation);
  side["rows"] = t.rows.size();
  side["failed"] = out.failed;
  side["content_sha256"] = detail::sha256_hex(out.csv);
  side["wall_s"] = out.wall_s;
  out.sidecar = side.dump(2) + "\n";
  return out;
}

}  // namespace dpx::harness
