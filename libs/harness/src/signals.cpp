// SIGINT/SIGTERM handling of runs (interrupt_guard, runner.hpp; docs/presets.md §8).
//
// The first signal sets the stop flag, which the runner reads between blocks, before every
// replication, and in its cache check and merge loops, and arms a deadline of
// interrupt_grace_ms: a stage that reads no flag (grid expansion, a long replication,
// figure rendering) cannot delay the exit past it. The runner cancels the deadline once it has
// stopped computing and only records the interruption (acknowledge_interrupt). A second signal
// exits at once. Every file is written atomically, so an exit at any point corrupts nothing.
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <csignal>

#include "dpx/harness/runner.hpp"
#include "internal.hpp"

namespace dpx::harness {

namespace {
std::atomic<bool> g_stop{false};
std::atomic<bool> g_active{false};  // a guard is installed (its deadline may be armed)
volatile std::sig_atomic_t g_signals = 0;
// The deadline: a POSIX timer raising SIGALRM (timer_settime is async-signal-safe, and allows
// a deadline below one second); alarm() when no timer could be created.
timer_t g_timer{};
std::atomic<bool> g_have_timer{false};

void arm_deadline() {
  if (g_have_timer.load()) {
    struct itimerspec t {};
    t.it_value.tv_sec = interrupt_grace_ms / 1000;
    t.it_value.tv_nsec = static_cast<long>(interrupt_grace_ms % 1000) * 1'000'000L;
    timer_settime(g_timer, 0, &t, nullptr);
  } else {
    alarm(1);
  }
}

void disarm_deadline() {
  if (g_have_timer.load()) {
    struct itimerspec t {};
    timer_settime(g_timer, 0, &t, nullptr);
  } else {
    alarm(0);
  }
}
struct sigaction g_old_int {
}, g_old_term{}, g_old_alarm{};

extern "C" void on_signal(int) {
  g_signals = g_signals + 1;
  if (g_signals >= 2) _exit(130);
  g_stop.store(true);
  arm_deadline();
  static const char msg[] =
      "\ndpx: interrupted: stopping (the blocks finished so far are kept; press Ctrl-C again "
      "to exit now)\n";
  const ssize_t rc = write(STDERR_FILENO, msg, sizeof msg - 1);
  (void)rc;
}

extern "C" void on_deadline(int) {
  static const char msg[] =
      "dpx: interrupted: still busy after the grace period (a long replication or stage); "
      "exiting now\n";
  const ssize_t rc = write(STDERR_FILENO, msg, sizeof msg - 1);
  (void)rc;
  _exit(130);
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
  struct sigaction sd {};
  sd.sa_handler = on_deadline;
  sigemptyset(&sd.sa_mask);
  sd.sa_flags = 0;
  sigaction(SIGALRM, &sd, &g_old_alarm);
  struct sigevent ev {};
  ev.sigev_notify = SIGEV_SIGNAL;
  ev.sigev_signo = SIGALRM;
  g_have_timer.store(timer_create(CLOCK_MONOTONIC, &ev, &g_timer) == 0);
  g_active.store(true);
}

interrupt_guard::~interrupt_guard() {
  g_active.store(false);
  disarm_deadline();
  if (g_have_timer.exchange(false)) timer_delete(g_timer);
  sigaction(SIGINT, &g_old_int, nullptr);
  sigaction(SIGTERM, &g_old_term, nullptr);
  sigaction(SIGALRM, &g_old_alarm, nullptr);
}

const std::atomic<bool>& interrupt_guard::flag() const noexcept { return g_stop; }

namespace detail {
void acknowledge_interrupt() noexcept {
  // Only a guard's own deadline is cancelled (never an alarm of a host program).
  if (g_active.load() && g_stop.load()) disarm_deadline();
}
}  // namespace detail

}  // namespace dpx::harness
