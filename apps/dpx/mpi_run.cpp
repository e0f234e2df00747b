// MPI runner: rank 0 = block dispatcher (harness::remote_executor) + writer, ranks >= 1 =
// workers. Protocol (tags below), all payloads MPI_BYTE:
//   worker -> 0  REQ  (empty)                     one of the worker's slots is free
//   worker -> 0  RES  (header + CSV + sidecar)    a computed block; frees its slot
//   worker -> 0  ERR  (message)                   a fatal error in a block; frees its slot
//   0 -> worker  WORK (uint64 block index)        compute this block of plan_blocks()
//   0 -> worker  STOP (empty)                     this slot gets no more work
// Each worker has `threads` slots; it exits once every slot received STOP, which rank 0 sends
// only in reply to REQ/RES/ERR, so no block is in flight at that point.
#include "mpi_run.hpp"

#include <mpi.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <iostream>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "command.hpp"
#include "dpx/core/hash.hpp"

namespace dpx::cli {

namespace {

namespace h = dpx::harness;

enum tag : int { tag_req = 1, tag_res = 2, tag_work = 3, tag_stop = 4, tag_err = 5 };

struct res_header {
  std::uint64_t block, reps, failed, csv_len, side_len;
  double wall_s, rep_wall_s;
};

void check_mpi(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw std::runtime_error(std::string("MPI error in ") + what);
}

void send_bytes(const void* data, std::size_t n, int dest, int t) {
  check_mpi(MPI_Send(data, static_cast<int>(n), MPI_BYTE, dest, t, MPI_COMM_WORLD), "MPI_Send");
}

std::vector<char> encode(const h::block_payload& b) {
  const res_header hd{
      b.block, b.reps, b.failed, b.csv.size(), b.sidecar.size(), b.wall_s, b.rep_wall_s};
  std::vector<char> buf(sizeof hd + b.csv.size() + b.sidecar.size());
  std::memcpy(buf.data(), &hd, sizeof hd);
  std::memcpy(buf.data() + sizeof hd, b.csv.data(), b.csv.size());
  std::memcpy(buf.data() + sizeof hd + b.csv.size(), b.sidecar.data(), b.sidecar.size());
  return buf;
}

h::block_payload decode(const std::vector<char>& buf) {
  res_header hd{};
  if (buf.size() < sizeof hd) throw std::runtime_error("MPI: truncated result message");
  std::memcpy(&hd, buf.data(), sizeof hd);
  if (buf.size() != sizeof hd + hd.csv_len + hd.side_len) {
    throw std::runtime_error("MPI: result message of inconsistent length");
  }
  h::block_payload b;
  b.block = hd.block;
  b.reps = hd.reps;
  b.failed = hd.failed;
  b.wall_s = hd.wall_s;
  b.rep_wall_s = hd.rep_wall_s;
  b.csv.assign(buf.data() + sizeof hd, hd.csv_len);
  b.sidecar.assign(buf.data() + sizeof hd + hd.csv_len, hd.side_len);
  return b;
}

/// Receives one pending message (after a successful probe).
std::vector<char> receive(const MPI_Status& st) {
  int count = 0;
  check_mpi(MPI_Get_count(&st, MPI_BYTE, &count), "MPI_Get_count");
  std::vector<char> buf(static_cast<std::size_t>(count));
  check_mpi(MPI_Recv(buf.data(),
                     count,
                     MPI_BYTE,
                     st.MPI_SOURCE,
                     st.MPI_TAG,
                     MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE),
            "MPI_Recv");
  return buf;
}

/// Rank 0's side: services the workers from run_preset's calling thread.
class mpi_executor final : public h::remote_executor {
 public:
  mpi_executor(int world, unsigned threads) : world_(world) {
    std::vector<unsigned> slots(static_cast<std::size_t>(world));
    check_mpi(
        MPI_Gather(&threads, 1, MPI_UNSIGNED, slots.data(), 1, MPI_UNSIGNED, 0, MPI_COMM_WORLD),
        "MPI_Gather");
    for (int r = 1; r < world; ++r) total_slots_ += slots[static_cast<std::size_t>(r)];
  }

  bool poll(h::block_dispatcher& d) override {
    bool any = false;
    for (int i = 0; i < 64 && stops_sent_ < total_slots_; ++i) {
      int flag = 0;
      MPI_Status st;
      check_mpi(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st), "MPI_Iprobe");
      if (!flag) break;
      any = true;
      const std::vector<char> buf = receive(st);
      ++messages_in_;
      bytes_in_ += static_cast<double>(buf.size());
      if (st.MPI_TAG == tag_res) {
        const h::block_payload b = decode(buf);
        d.deliver(b);
        ++blocks_in_;
        result_bytes_ += static_cast<double>(buf.size());
      } else if (st.MPI_TAG == tag_err) {
        d.fail("rank " + std::to_string(st.MPI_SOURCE) + ": " +
               std::string(buf.begin(), buf.end()));
      } else if (st.MPI_TAG != tag_req) {
        throw std::runtime_error("MPI: unexpected message tag " + std::to_string(st.MPI_TAG));
      }
      if (const auto k = d.take()) {
        const std::uint64_t block = *k;
        send_bytes(&block, sizeof block, st.MPI_SOURCE, tag_work);
        bytes_out_ += sizeof block;
      } else {
        send_bytes(nullptr, 0, st.MPI_SOURCE, tag_stop);
        ++stops_sent_;
      }
      ++messages_out_;
    }
    if (!any && stops_sent_ < total_slots_)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return stops_sent_ == total_slots_;
  }

  std::vector<std::pair<std::string, double>> stats() const override {
    return {{"ranks", world_},
            {"worker_slots", static_cast<double>(total_slots_)},
            {"blocks_from_workers", static_cast<double>(blocks_in_)},
            {"messages_received", static_cast<double>(messages_in_)},
            {"messages_sent", static_cast<double>(messages_out_)},
            {"bytes_received", bytes_in_},
            {"bytes_sent", bytes_out_},
            {"bytes_per_block",
             blocks_in_ > 0 ? result_bytes_ / static_cast<double>(blocks_in_) : 0.0}};
  }

  bool all_stopped() const { return stops_sent_ == total_slots_; }

 private:
  int world_;
  std::size_t total_slots_ = 0, stops_sent_ = 0, blocks_in_ = 0;
  std::size_t messages_in_ = 0, messages_out_ = 0;
  double bytes_in_ = 0, bytes_out_ = 0, result_bytes_ = 0;
};

/// A worker rank: computes the blocks rank 0 sends with `threads` threads.
int run_worker(const h::preset& p, unsigned threads) {
  const h::driver* d = h::find_driver(p.driver);
  const std::vector<h::cell> cells = h::expand_grid(p);
  const std::vector<h::block_ref> plan = h::plan_blocks(p, cells.size());
  check_mpi(MPI_Gather(&threads, 1, MPI_UNSIGNED, nullptr, 0, MPI_UNSIGNED, 0, MPI_COMM_WORLD),
            "MPI_Gather");
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);

  std::mutex mutex;
  std::condition_variable cv;
  std::deque<std::uint64_t> work;
  struct outgoing {
    int tag;
    std::vector<char> bytes;
  };
  std::deque<outgoing> results;
  bool closing = false;
  bool had_error = false;
  auto compute = [&] {
    while (true) {
      std::uint64_t k = 0;
      {
        std::unique_lock lock(mutex);
        cv.wait(lock, [&] { return closing || !work.empty(); });
        if (work.empty()) return;
        k = work.front();
        work.pop_front();
      }
      outgoing o;
      try {
        if (k >= plan.size()) throw std::runtime_error("block index out of range");
        const h::block_ref& b = plan[k];
        o = {tag_res, encode(h::compute_block_payload(p, *d, cells[b.cell_index], b, k))};
      } catch (const std::exception& e) {
        const std::string m = e.what();
        o = {tag_err, std::vector<char>(m.begin(), m.end())};
      } catch (...) {
        const std::string m = "a driver threw a non-standard exception";
        o = {tag_err, std::vector<char>(m.begin(), m.end())};
      }
      std::lock_guard lock(mutex);
      if (o.tag == tag_err) had_error = true;
      results.push_back(std::move(o));
    }
  };
  std::vector<std::thread> pool;
  for (unsigned i = 0; i < threads; ++i) pool.emplace_back(compute);
  for (unsigned i = 0; i < threads; ++i) send_bytes(nullptr, 0, 0, tag_req);
  unsigned stops = 0;
  while (stops < threads) {
    std::deque<outgoing> ready;
    {
      std::lock_guard lock(mutex);
      ready.swap(results);
    }
    for (const auto& o : ready) send_bytes(o.bytes.data(), o.bytes.size(), 0, o.tag);
    int flag = 0;
    MPI_Status st;
    check_mpi(MPI_Iprobe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st), "MPI_Iprobe");
    if (flag) {
      const std::vector<char> buf = receive(st);
      if (st.MPI_TAG == tag_work && buf.size() == sizeof(std::uint64_t)) {
        std::uint64_t k = 0;
        std::memcpy(&k, buf.data(), sizeof k);
        std::lock_guard lock(mutex);
        work.push_back(k);
        cv.notify_one();
      } else if (st.MPI_TAG == tag_stop) {
        ++stops;
      } else {
        throw std::runtime_error("MPI: unexpected message on rank " + std::to_string(rank));
      }
    } else if (ready.empty()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  {
    std::lock_guard lock(mutex);
    closing = true;
  }
  cv.notify_all();
  for (auto& t : pool) t.join();
  return had_error ? exit_failure : exit_ok;
}

struct mpi_session {
  mpi_session() {
    int provided = 0;
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
      throw std::runtime_error("MPI_Init_thread failed");
    }
  }
  ~mpi_session() { MPI_Finalize(); }
  mpi_session(const mpi_session&) = delete;
  mpi_session& operator=(const mpi_session&) = delete;
};

bool env_size_above_one(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && std::atoi(v) > 1;
}

}  // namespace

bool mpi_launched() {
  return env_size_above_one("OMPI_COMM_WORLD_SIZE") || env_size_above_one("PMI_SIZE") ||
         std::getenv("PMIX_RANK") != nullptr;
}

int run_mpi(const h::preset& p, h::run_options opts, bool threads_given, bool check) {
  mpi_session session;
  int rank = 0, world = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  if (!threads_given) opts.threads = 1;  // one thread per rank unless --threads says more

  // Every rank must have loaded the same preset (same bytes, same grid).
  const std::uint64_t mine = core::stable_hash(p.text + (p.quick ? "|quick" : "|full"));
  std::uint64_t lo = 0, hi = 0;
  MPI_Allreduce(&mine, &lo, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&mine, &hi, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  if (lo != hi) {
    throw std::invalid_argument("the ranks loaded different presets (files differ between hosts?)");
  }
  if (rank != 0) {
    try {
      return run_worker(p, opts.threads);
    } catch (const std::exception& e) {
      std::cerr << "dpx run: error on rank " << rank << ": " << e.what() << " (aborting)\n";
      MPI_Abort(MPI_COMM_WORLD, exit_failure);
      return exit_failure;
    }
  }

  mpi_executor ex(world, opts.threads);
  if (world > 1) opts.remote = &ex;
  h::run_result r;
  try {
    r = h::run_preset(p, opts);
  } catch (const std::exception& e) {
    if (!ex.all_stopped()) {
      std::cerr << "dpx run: error on rank 0: " << e.what() << " (aborting all ranks)\n";
      MPI_Abort(MPI_COMM_WORLD, exit_failure);
    }
    throw;
  }
  if (r.status == h::run_status::interrupted) {
    std::cerr << "dpx run: " << r.experiment << " interrupted: " << r.counts.computed
              << " blocks computed and saved, " << r.counts.cached << " cached, of "
              << r.counts.blocks << "; rerun (e.g. with --resume) to continue\n";
    return exit_interrupted;
  }
  std::cout << r.experiment << ": " << r.counts.cells << " cells, " << r.counts.replications
            << " replications, blocks " << r.counts.computed << " computed + " << r.counts.cached
            << " cached (" << world << " MPI ranks x " << opts.threads << " threads), "
            << r.counts.failed << " failed replications; rate checks passed " << r.rates_passed
            << "/" << r.rates_checked << "; report: " << r.report_path.string() << "\n";
  if (r.counts.failed > 0) return exit_failure;
  if (check && !r.rates_ok()) return exit_failure;
  return exit_ok;
}

}  // namespace dpx::cli
