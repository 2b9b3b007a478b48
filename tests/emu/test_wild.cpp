// A kernel that writes where it must not, in a plain build (barriers.cu): near an array, far from it
// (a negative int index, 32 bits that wrapped), or just past its end inside the allocation's last
// page. Each must end as the launch's illegal address (cudaErrorIllegalAddress, sticky) with a fault
// record that names the kernel, and the block and thread where a faulting access shows them, never
// as a write into the host's memory that breaks the program later. And a program that dies of a
// signal outside every kernel thread says which kernel ran last (the hidden cases below, run in a
// process of their own by tests/emu/CMakeLists.txt).
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>

#include <sys/mman.h>
#include <unistd.h>

#include "kernels.hpp"
#include "support.hpp"

#include <wb_emu/diagnostics.hpp>
#include <wb_emu/fault.hpp>

using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::StartsWith;
using wb_emu::Fault;
using wb_emu::FaultKind;

namespace {
// Runs `launch`, which must end with the launch's illegal address; returns the fault's record and
// resets the device.
template <class F>
Fault illegal(F launch) {
  cudaError_t e = cudaSuccess;
  const std::string err = capture_stderr([&] { e = launch(); });
  CHECK(e == cudaErrorIllegalAddress);
  CHECK(cudaGetLastError() == cudaErrorIllegalAddress);  // sticky
  Fault f;
  REQUIRE(wb_emu::last_fault(&f));
  CHECK(f.kind == FaultKind::illegal_address);
  CHECK_THAT(err, ContainsSubstring(wb_emu::describe(f)));
  REQUIRE(cudaDeviceReset() == cudaSuccess);
  return f;
}

std::string wild_line() {
  return std::string(EMU_TEST_DIR) + "/barriers.cu";
}
}  // namespace

TEST_CASE("a write at a wild index, far before or after its array, is the launch's illegal address",
          "[emu][faults][wild]") {
  // Host memory mapped after the device memory: the system places it below the last mapping, where
  // a negative index from a device array would land if device memory were not kept apart.
  const std::size_t host_bytes = std::size_t(16) << 30;
  void* host = mmap(nullptr, host_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  REQUIRE(host != MAP_FAILED);
  int* out = nullptr;
  REQUIRE(cudaMalloc(&out, 128) == cudaSuccess);
  const auto in_host = [&](long long index) {
    const auto a = reinterpret_cast<std::uintptr_t>(out) + static_cast<std::uintptr_t>(index) * sizeof(int);
    const auto lo = reinterpret_cast<std::uintptr_t>(host);
    return a - lo < host_bytes;
  };
  for (const long long index : {static_cast<long long>(INT_MIN), -(1ll << 28), -1ll, static_cast<long long>(UINT_MAX),
                                1ll << 33}) {
    CAPTURE(index);
    CHECK(!in_host(index));
    const Fault f = illegal([&] { return emu_test::wild_write(out, index); });
    CHECK(f.kernel == "wild_write_kernel");
    CHECK(f.has_block);
    REQUIRE(f.has_thread);
    CHECK(f.thread[0] == 0);
    CHECK(f.file == wild_line());
    CHECK(f.line == line_of("barriers.cu", "// line: wild write"));
    CHECK_THAT(f.explanation, StartsWith("illegal address: "));
    if (index == -1) CHECK_THAT(f.explanation, ContainsSubstring("it is 4 bytes before the start of the 128-byte cudaMalloc"));
  }
  // the next launch runs as usual
  CHECK(emu_test::wild_write(out, 3) == cudaSuccess);
  CHECK(out[3] == 1);
  cudaFree(out);
  munmap(host, host_bytes);
}

TEST_CASE("an int index that overflows (blockIdx.x * gridDim.x) is the launch's illegal address, naming the block",
          "[emu][faults][wild]") {
  // 65537 blocks of 1 thread: from block 32768 on the index is negative (block 65535 writes out[-1]).
  const int n = 65537;
  int* out = nullptr;
  REQUIRE(cudaMalloc(&out, n * sizeof(int)) == cudaSuccess);
  const Fault f = illegal([&] { return emu_test::overflowing_index(out, n); });
  CHECK(f.kernel == "overflowing_index_kernel");
  CHECK(f.grid[0] == 65537u);
  CHECK(f.has_block);
  CHECK(f.block[0] >= 32768u);
  CHECK(f.block[0] < 65536u);
  REQUIRE(f.has_thread);
  CHECK(f.thread[0] == 0u);
  CHECK(f.file == wild_line());
  CHECK(f.line == line_of("barriers.cu", "// line: overflowing index"));
  cudaFree(out);
}

TEST_CASE("an int index that overflows is the launch's illegal address in an instrumented build too",
          "[emu][faults][wild][instrument]") {
  // Blocks in index order: block 32768 faults first, 8 GiB before the array, outside the device
  // memory that the instrumentation checks: the system refuses the access.
  BlockSeed index_order(0);
  const int n = 65537;
  int* out = nullptr;
  REQUIRE(cudaMalloc(&out, n * sizeof(int)) == cudaSuccess);
  const Fault f = illegal([&] { return emu_test::overflowing_index_instrumented(out, n); });
  CHECK(f.kernel == "overflowing_index_instr_kernel");
  CHECK(f.block[0] == 32768u);
  REQUIRE(f.has_thread);
  CHECK(f.thread[0] == 0u);
  CHECK(f.line == line_of("bounds.cu", "// line: instrumented overflowing index"));
  CHECK_THAT(f.explanation, ContainsSubstring("it is far from every allocation"));
  cudaFree(out);
}

TEST_CASE("a write just past an allocation's end, inside its last page, is the launch's illegal address naming it",
          "[emu][faults][wild]") {
  int* out = nullptr;
  REQUIRE(cudaMalloc(&out, 100) == cudaSuccess);  // 25 ints
  Fault f = illegal([&] { return emu_test::wild_write(out, 25); });  // the 4 bytes right after it
  CHECK(f.kernel == "wild_write_kernel");
  CHECK(!f.has_block);  // found when the launch ended
  CHECK(!f.has_thread);
  CHECK_THAT(f.explanation, StartsWith("illegal address: the kernel wrote past the end of the 100-byte cudaMalloc "
                                       "allocation at 0x"));
  CHECK_THAT(f.explanation, ContainsSubstring(": from its first byte past the end, 4 bytes were changed"));
  const std::string text = wb_emu::describe(f);
  CHECK_THAT(text, ContainsSubstring("launched here with grid (1,1,1) and block (32,1,1):\n  illegal address"));
  CHECK_THAT(wb_emu::fault_json(f), ContainsSubstring("\"block\":null"));
  // farther, still in the page: said from where it starts
  f = illegal([&] { return emu_test::wild_write(out, 500); });
  CHECK_THAT(f.explanation, ContainsSubstring(": from 1900 bytes past its end, 4 bytes were changed"));
  // reported once: the next launch that writes inside runs clean
  CHECK(emu_test::wild_write(out, 24) == cudaSuccess);
  CHECK(out[24] == 1);
  cudaFree(out);
}

TEST_CASE("a write far outside a __shared__ array is the launch's illegal address, not a write into the host's memory",
          "[emu][faults][wild]") {
  int* out = nullptr;
  REQUIRE(cudaMalloc(&out, 32 * sizeof(int)) == cudaSuccess);
  // 1 MiB and 1 GiB past the array, 256 KiB and 64 MiB before it: the margins around the worker's
  // shared memory, and the unused slots of other workers (scheduler.cpp)
  for (const long long index : {1ll << 18, 1ll << 28, -(1ll << 16), -(1ll << 24)}) {
    CAPTURE(index);
    const Fault f = illegal([&] { return emu_test::shared_wild_write(out, index); });
    CHECK(f.kernel == "shared_wild_kernel");
    REQUIRE(f.has_thread);
    CHECK(f.thread[0] == 0u);
    CHECK(f.line == line_of("barriers.cu", "// line: shared wild write"));
    if (index == (1ll << 18))
      CHECK_THAT(f.explanation, ContainsSubstring("past the end of the block's shared memory, far past every __shared__ array"));
    if (index == -(1ll << 16))
      CHECK_THAT(f.explanation, ContainsSubstring("before the start of the block's shared memory"));
  }
  // in range, as usual
  CHECK(emu_test::shared_wild_write(out, 5) == cudaSuccess);
  CHECK(out[5] == 2);
  cudaFree(out);
}

// Hidden: run by tests/emu/CMakeLists.txt in a process of their own, which must die of the signal.
TEST_CASE("a host fault after a launch says which kernel ran last", "[.host-fault]") {
  int* out = nullptr;
  REQUIRE(cudaMalloc(&out, 128) == cudaSuccess);
  REQUIRE(emu_test::wild_write(out, 3) == cudaSuccess);
  std::printf("faulting on the host\n");
  std::fflush(stdout);
  volatile int* volatile nowhere = nullptr;
  *nowhere = 1;
  std::printf("the fault went unnoticed\n");
}

TEST_CASE("a host abort after a launch says which kernel ran last", "[.host-abort]") {
  int* out = nullptr;
  REQUIRE(cudaMalloc(&out, 128) == cudaSuccess);
  REQUIRE(emu_test::wild_write(out, 3) == cudaSuccess);
  std::printf("aborting on the host\n");
  std::fflush(stdout);
  std::abort();
}

// A launch that never ends while the grader's watchdog cannot report it: a thread that stands for
// the watchdog waits, from 1 s on, for a lock a dead thread holds (as malloc's would be after a
// fault inside it). The backend's own watch ends the process (WB_WATCHDOG_SECONDS=1: after 6 s).
TEST_CASE("a launch that outlives a stuck watchdog ends the process with a message", "[.backstop]") {
  static std::mutex heap;  // stands for malloc's lock
  heap.lock();
  std::thread([] {
    sleep(1);
    std::lock_guard<std::mutex> never(heap);  // the watchdog's report would be written here
    std::printf("the watchdog reported\n");
  }).detach();
  int* flag = nullptr;
  REQUIRE(cudaMalloc(&flag, sizeof(int)) == cudaSuccess);
  std::printf("spinning\n");
  std::fflush(stdout);
  emu_test::spin_forever(flag);
  std::printf("the launch ended\n");
}
