// SIGINT/SIGTERM handling of runs (interrupt_guard, runner.hpp; docs/presets.md §8).
#include <unistd.h>

#include <atomic>
#include <csignal>

#include "dpx/harness/runner.hpp"

namespace dpx::harness {

namespace {
std::atomic<bool> g_stop{false};
volatile std::sig_atomic_t g_signals = 0;
struct sigaction g_old_int {
}, g_old_term{};

extern "C" void on_signal(int) {
  g_signals = g_signals + 1;
  if (g_signals >= 2) _exit(130);
  g_stop.store(true);
  static const char msg[] =
      "\ndpx: interrupted: finishing the blocks in flight (press Ctrl-C again to exit now)\n";
  const ssize_t rc = write(STDERR_FILENO, msg, sizeof msg - 1);
  (void)rc;
}
static_assert(std::atomic<bool>::is_always_lock_free);
}  // namespace

interrupt_guard::interrupt_guard() {
  g_stop.store(false);
  g_signals = 0;
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;
  sigaction(SIGINT, &sa, &g_old_int);
  sigaction(SIGTERM, &sa, &g_old_term);
}

interrupt_guard::~interrupt_guard() {
  sigaction(SIGINT, &g_old_int, nullptr);
  sigaction(SIGTERM, &g_old_term, nullptr);
}

const std::atomic<bool>& interrupt_guard::flag() const noexcept { return g_stop; }

}  // namespace dpx::harness
