#include "wb/watchdog.hpp"

#include <csignal>
#include <cstdio>
#include <cstdlib>

#include <unistd.h>

#include "wb/device.hpp"  // first: the CUDA runtime's header, or the CPU backend's, which defines WB_EMU
#include "wb/flow.hpp"
#include "wb/report.hpp"

#ifdef WB_EMU
#include <wb_emu/diagnostics.hpp>
#endif

namespace {

// The last words when the report itself never ends: write(2) and _exit only, which need no lock.
const char kStuckReport[] =
    "watchdog: the grader's own report did not end within its time: its memory may no longer be sound (a kernel "
    "that wrote outside its arrays may have written into the grader's own data). The grader ends here, without "
    "a verdict.\n";

extern "C" void wb_watchdog_report_stuck(int) {
  const ssize_t r = ::write(2, kStuckReport, sizeof kStuckReport - 1);
  (void)r;
  std::_Exit(3);
}

unsigned report_seconds() {
  if (const char* env = std::getenv("WB_WATCHDOG_REPORT_SECONDS")) {
    const long v = std::strtol(env, nullptr, 10);
    if (v > 0) return static_cast<unsigned>(v);
  }
  return 10;
}

}  // namespace

namespace wb {

std::chrono::seconds Watchdog::default_seconds() {
  if (const char* env = std::getenv("WB_WATCHDOG_SECONDS")) {
    long v = std::strtol(env, nullptr, 10);
    if (v > 0) return std::chrono::seconds(v);
  }
  return std::chrono::seconds(30);  // on both backends (docs/grading.md)
}

Watchdog::Watchdog(std::string what) : Watchdog(std::move(what), default_seconds()) {}

Watchdog::Watchdog(std::string what, std::chrono::seconds limit)
    : what_(std::move(what)),
      limit_(limit),
      first_line_("\nwatchdog: " + what_ + " did not finish within " + std::to_string(limit_.count()) + " s.\n") {
  const unsigned stuck_after = report_seconds();
  const bool test_stuck = std::getenv("WB_WATCHDOG_TEST_STUCK_REPORT") != nullptr;  // tests/unit: a report that hangs
  thread_ = std::thread([this, stuck_after, test_stuck] {
    std::unique_lock<std::mutex> lock(m_);
    if (cv_.wait_for(lock, limit_, [this] { return done_; })) return;
    // First what needs no allocation, and a deadline for the rest.
    const ssize_t r = ::write(2, first_line_.data(), first_line_.size());
    (void)r;
    struct sigaction sa {};
    sa.sa_handler = wb_watchdog_report_stuck;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, nullptr);
    alarm(stuck_after);
    if (test_stuck)
      for (;;) pause();
    // On the CPU backend a block may have faulted while another, already running, never ends:
    // the launch would print the fault when it ends, which it never does. Name it here.
#ifdef WB_EMU
    wb_emu::Fault record;
    const bool faulted = wb_emu::running_launch_fault(&record);
    const std::string fault = faulted ? wb_emu::describe(record) : std::string();
    std::string wait;  // a block still running while the one it may wait for had not started
    const std::string blocks = wb_emu::running_launch_blocks(&wait);
#else
    const std::string fault, blocks, wait;
#endif
    if (!fault.empty()) std::fprintf(stderr, "%s\n", fault.c_str());
    std::fprintf(stderr,
                 "  A kernel that never ends: does every loop advance its index (a grid-stride loop adds the "
                 "stride), and does every thread reach the end?\n");
    if (!fault.empty())
      std::fprintf(stderr,
                   "  Before that, a block of this launch had the kernel fault above: the CPU backend starts no "
                   "block after a fault but waits for the blocks already running, and one of them never ended.\n");
    if (!blocks.empty()) std::fprintf(stderr, "%s\n", blocks.c_str());
    std::fprintf(stderr, "  The grader stops here (WB_WATCHDOG_SECONDS sets the limit).\n");
    std::string never = "the kernel never finished (" + what_ + ")";
    if (!wait.empty()) never = "the kernel never finished: " + wait + " (" + what_ + ")";
    if (fault.empty()) {
      finish_report("wrong\t" + never);
    } else {  // the fault leads (the more precise diagnosis), then the case
      const std::string then = "; then the kernel never finished", in = " (" + what_ + ")";
#ifdef WB_EMU
      const std::string headline = fault_headline(record);
#else
      const std::string headline = fault;
#endif
      finish_report("wrong\t" + headline + then + in);
    }
    std::fflush(nullptr);
    std::_Exit(3);
  });
}

Watchdog::~Watchdog() {
  {
    std::lock_guard<std::mutex> lock(m_);
    done_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

}  // namespace wb
