/// \file
/// \brief Ends a grader whose kernel never finishes, with a message instead of a hang.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace wb {

/// While alive, watches the calling test: if it is not destroyed within the time limit, the
/// grader prints what was running, writes its summary and exits with failure. A kernel cannot
/// be stopped from the host on a GPU, so ending the process is the only way out.
/// On the CPU backend, a kernel fault already recorded in the launch that never ends (a block
/// that faulted while another, already running, never ends; wb_emu::running_launch_fault()) is
/// printed first, as the launch would have printed it, and leads the verdict.
/// The limit is `WB_WATCHDOG_SECONDS` when set, else `default_seconds()`.
/// The first line of its message is written at once with write(2), from a text made when the
/// watchdog started; if the rest of the report (which allocates) has not ended the process
/// within 10 s (`WB_WATCHDOG_REPORT_SECONDS`), as when a wild write of the kernel left the
/// heap's lock held or the heap corrupt, a SIGALRM handler says so with write(2) and ends the
/// process: never a hang.
class Watchdog {
 public:
  /// Starts watching with the default limit; `what` names the case in the message, e.g.
  /// "naive_add (n = 1000)".
  explicit Watchdog(std::string what);
  /// Starts watching with an explicit limit (WB_WATCHDOG_SECONDS does not apply).
  Watchdog(std::string what, std::chrono::seconds limit);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  /// `WB_WATCHDOG_SECONDS` when set, else 30 s (both backends).
  static std::chrono::seconds default_seconds();

 private:
  std::string what_;
  std::chrono::seconds limit_;
  std::string first_line_;  // made when the watchdog starts: written with no allocation when it fires
  std::mutex m_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

}  // namespace wb
