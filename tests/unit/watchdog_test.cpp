// The watchdog, in a grader executable (grader/src/report.cpp's main and summary): a test that
// never ends must be stopped with a message and a "wrong" verdict; one that ends in time must not;
// on the CPU backend, a fault of a launch that never ends is named as well.
#include <catch2/catch_test_macros.hpp>

#include <chrono>
#include <thread>

#include "wb/grader.hpp"
#include "wb/watchdog.hpp"

namespace watchdog_fixture {
void fault_then_spin(float* out, int n, int* state);
void naive_chain(const int* in, long long* prefix, int* flag, int blocks);
void ticket_chain(const int* in, long long* prefix, int* flag, unsigned* tickets, int blocks);
}  // namespace watchdog_fixture

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

// Needs two workers (WB_EMU_THREADS=2): block 0 faults only once block 1 runs, which never ends.
TEST_CASE("a launch that faults in one block while another never ends names the fault", "[fault-then-spin]") {
  wb::DeviceBuffer<float> out(4);
  wb::DeviceBuffer<int> state(std::vector<int>{0, 0});
  wb::run_launch("fault_then_spin (n = 4)", [&] { watchdog_fixture::fault_then_spin(out.data(), 4, state.data()); },
                 std::chrono::seconds(2));
  FAIL("the launch ended: block 1 should spin forever");
}

// A chained scan whose block b waits for block b-1 (no ticket): in the CPU backend's scrambled block
// order a running block waits for one not started, and the watchdog names both and the seed.
TEST_CASE("a chained scan that waits for block b-1 hangs and is named", "[naive-chain]") {
  const int blocks = 64;
  wb::DeviceBuffer<int> in(std::vector<int>(blocks, 1));
  wb::DeviceBuffer<long long> prefix(blocks);
  wb::DeviceBuffer<int> flag(std::vector<int>(blocks, 0));
  wb::run_launch("naive_chain (64 blocks)",
                 [&] { watchdog_fixture::naive_chain(in.data(), prefix.data(), flag.data(), blocks); },
                 std::chrono::seconds(2));
  const std::vector<long long> got = prefix.download();
  for (int b = 0; b < blocks; ++b) REQUIRE(got[b] == b + 1);
}

// The same scan with tickets ends, and is right, whatever the order.
TEST_CASE("a chained scan that waits only for lower tickets ends", "[ticket-chain]") {
  const int blocks = 64;
  wb::DeviceBuffer<int> in(std::vector<int>(blocks, 1));
  wb::DeviceBuffer<long long> prefix(blocks);
  wb::DeviceBuffer<int> flag(std::vector<int>(blocks, 0));
  wb::DeviceBuffer<unsigned> tickets(std::vector<unsigned>{0});
  wb::run_launch("ticket_chain (64 blocks)",
                 [&] { watchdog_fixture::ticket_chain(in.data(), prefix.data(), flag.data(), tickets.data(), blocks); },
                 std::chrono::seconds(20));
  const std::vector<long long> got = prefix.download();
  for (int b = 0; b < blocks; ++b) REQUIRE(got[b] == b + 1);
}
