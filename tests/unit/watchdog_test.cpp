// The watchdog, in a grader executable (grader/src/report.cpp's main and summary): a test that
// never ends must be stopped with a message and a "wrong" verdict; one that ends in time must not.
#include <catch2/catch_test_macros.hpp>

#include <chrono>
#include <thread>

#include "wb/watchdog.hpp"

TEST_CASE("a test that never ends is stopped by the watchdog", "[spins]") {
  wb::Watchdog dog("a kernel that spins", std::chrono::seconds(1));
  for (volatile unsigned long spins = 0;; spins = spins + 1) {
  }
}

TEST_CASE("a watchdog destroyed within its limit stays quiet", "[in-time]") {
  for (int k = 0; k < 3; ++k) {
    wb::Watchdog dog("a kernel that ends", std::chrono::seconds(1));
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
  }
  SUCCEED("three 0.4 s runs under a 1 s limit, 1.2 s in all");
}
