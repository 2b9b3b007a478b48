#include "wb/watchdog.hpp"

#include <cstdio>
#include <cstdlib>

#include "wb/device.hpp"
#include "wb/report.hpp"

namespace wb {

std::chrono::seconds Watchdog::default_seconds() {
  if (const char* env = std::getenv("WB_WATCHDOG_SECONDS")) {
    long v = std::strtol(env, nullptr, 10);
    if (v > 0) return std::chrono::seconds(v);
  }
  return std::chrono::seconds(30);  // on both backends (docs/grading.md)
}

Watchdog::Watchdog(std::string what) : Watchdog(std::move(what), default_seconds()) {}

Watchdog::Watchdog(std::string what, std::chrono::seconds limit) : what_(std::move(what)), limit_(limit) {
  thread_ = std::thread([this] {
    std::unique_lock<std::mutex> lock(m_);
    if (cv_.wait_for(lock, limit_, [this] { return done_; })) return;
    std::fprintf(stderr,
                 "\nwatchdog: %s did not finish within %lld s.\n"
                 "  A kernel that never ends: does every loop advance its index (a grid-stride loop adds the "
                 "stride), and does every thread reach the end?\n"
                 "  The grader stops here (WB_WATCHDOG_SECONDS sets the limit).\n",
                 what_.c_str(), static_cast<long long>(limit_.count()));
    finish_report("wrong\tthe kernel never finished (" + what_ + ")");
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
