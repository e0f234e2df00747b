// Progress reporting on stderr and the progress.json heartbeat.
#include <unistd.h>
#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "internal.hpp"

namespace dpx::harness::detail {

namespace {
std::string format_duration(double s) {
  if (!std::isfinite(s) || s < 0) return "?";
  const auto t = static_cast<long long>(std::llround(s));
  char buf[32];
  if (t >= 3600) {
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", t / 3600, (t / 60) % 60, t % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%lld:%02lld", t / 60, t % 60);
  }
  return buf;
}
}  // namespace

progress_reporter::progress_reporter(std::string experiment,
                                     std::filesystem::path heartbeat_path,
                                     std::size_t blocks_total,
                                     std::size_t blocks_cached,
                                     std::size_t reps_to_compute,
                                     unsigned threads,
                                     bool quiet,
                                     double interval_s,
                                     std::string start_utc)
    : experiment_(std::move(experiment)),
      heartbeat_(std::move(heartbeat_path)),
      blocks_total_(blocks_total),
      blocks_cached_(blocks_cached),
      reps_to_compute_(reps_to_compute),
      threads_(threads == 0 ? 1 : threads),
      quiet_(quiet),
      tty_(isatty(STDERR_FILENO) == 1),
      interval_s_(interval_s),
      start_utc_(std::move(start_utc)),
      start_(std::chrono::steady_clock::now()),
      last_print_(start_),
      last_heartbeat_(start_) {
  heartbeat("running");
}

void progress_reporter::block_done(std::size_t reps, std::size_t failed, double seconds) {
  std::lock_guard lock(mutex_);
  ++blocks_done_;
  reps_done_ += reps;
  failed_ += failed;
  // Exponential moving average of the block time (weight 0.2 on the newest block).
  ema_block_s_ = blocks_done_ == 1 ? seconds : 0.8 * ema_block_s_ + 0.2 * seconds;
}

void progress_reporter::tick() {
  const auto now = std::chrono::steady_clock::now();
  if (now - last_heartbeat_ >= std::chrono::seconds(2)) {
    heartbeat("running");
    last_heartbeat_ = now;
  }
  if (quiet_) return;
  const double since = std::chrono::duration<double>(now - last_print_).count();
  if ((tty_ && since >= 0.25) || (!tty_ && since >= interval_s_)) {
    print(false);
    last_print_ = now;
  }
}

void progress_reporter::compute_done() {
  if (!quiet_) print(true);
}

void progress_reporter::finish(const std::string& status) { heartbeat(status); }

void progress_reporter::print(bool final_line) {
  std::size_t done, reps, failed;
  double ema;
  {
    std::lock_guard lock(mutex_);
    done = blocks_done_;
    reps = reps_done_;
    failed = failed_;
    ema = ema_block_s_;
  }
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const std::size_t to_do = blocks_total_ - blocks_cached_;
  const double rate = elapsed > 0 ? static_cast<double>(reps) / elapsed : 0.0;
  const double eta = done == 0 ? NAN
                               : ema * static_cast<double>(to_do - std::min(done, to_do)) /
                                     static_cast<double>(threads_);
  char buf[512];
  std::snprintf(buf,
                sizeof buf,
                "dpx run %s: blocks %zu/%zu (cached %zu), %zu/%zu reps, %.3g reps/s, %s %s, "
                "failed %zu",
                experiment_.c_str(),
                blocks_cached_ + done,
                blocks_total_,
                blocks_cached_,
                reps,
                reps_to_compute_,
                rate,
                final_line ? "elapsed" : "ETA",
                format_duration(final_line ? elapsed : eta).c_str(),
                failed);
  if (tty_) {
    std::fprintf(stderr, "\r%s\033[K%s", buf, final_line ? "\n" : "");
  } else {
    std::fprintf(stderr, "%s\n", buf);
  }
  std::fflush(stderr);
  printed_ = true;
}

void progress_reporter::heartbeat(const std::string& status) {
  std::size_t done, reps, failed;
  {
    std::lock_guard lock(mutex_);
    done = blocks_done_;
    reps = reps_done_;
    failed = failed_;
  }
  nlohmann::ordered_json j;
  j["experiment"] = experiment_;
  j["status"] = status;
  j["pid"] = static_cast<long long>(getpid());
  j["host"] = host_name();
  j["start_utc"] = start_utc_;
  j["updated_utc"] = utc_iso(std::chrono::system_clock::now());
  j["blocks_total"] = blocks_total_;
  j["blocks_cached"] = blocks_cached_;
  j["blocks_computed"] = done;
  j["replications_computed"] = reps;
  j["replications_to_compute"] = reps_to_compute_;
  j["failed"] = failed;
  try {
    write_file_atomic(heartbeat_, j.dump(2) + "\n");
  } catch (const std::exception&) {
    // A heartbeat is advisory: never fail a run because it could not be written.
  }
}

}  // namespace dpx::harness::detail
