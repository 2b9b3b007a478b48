// The CPU backend's barriers, shared memory, warp operations and atomics, checked through
// small kernels compiled as the chapters' kernels are (tests/emu/*.cu).
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "kernels.hpp"
#include "support.hpp"

namespace {

// Device (emulated) memory: plain host memory on this backend, so tests read it directly.


}  // namespace

TEST_CASE("a shared-memory tree reduction with barriers gives the exact sum", "[emu][barrier]") {
  for (int threads : {32, 256, 1024}) {
    const int n = 100003;
    int* in = device_array<int>(n);
    for (int i = 0; i < n; ++i) in[i] = (i * 7919) % 1000 - 300;
    long long* total = device_array<long long>(1, 0);
    REQUIRE(emu_test::block_sums(in, n, total, threads) == cudaSuccess);
    long long expect = 0;
    for (int i = 0; i < n; ++i) expect += in[i];
    CHECK(*total == expect);
    cudaFree(in);
    cudaFree(total);
  }
}

TEST_CASE("threads that return before a barrier count as arrived", "[emu][barrier]") {
  const int n = 300, threads = 128;
  int* in = device_array<int>(n);
  int* out = device_array<int>(n, -1);
  for (int i = 0; i < n; ++i) in[i] = 5 * i;
  REQUIRE(emu_test::early_return_rotate(in, out, n, threads) == cudaSuccess);
  for (int i = 0; i < n; ++i) {
    const int block_start = i / threads * threads;
    const int active = std::min(threads, n - block_start);
    CHECK(out[i] == in[block_start + (i - block_start + 1) % active]);
  }
  cudaFree(in);
  cudaFree(out);
}

TEST_CASE("__syncthreads_count counts the block's predicates", "[emu][barrier]") {
  int* out = device_array<int>(100, -1);
  REQUIRE(emu_test::syncthreads_count(out, 100) == cudaSuccess);
  for (int t = 0; t < 100; ++t) CHECK(out[t] == 34);
  cudaFree(out);
}

TEST_CASE("__syncthreads in a divergent branch is a fault naming both barriers, not a hang", "[emu][barrier]") {
  cudaError_t e = cudaSuccess;
  const std::string err = capture_stderr([&] { e = emu_test::divergent_barrier(); });
  CHECK(e == cudaErrorLaunchFailure);
  CHECK(cudaGetLastError() == cudaErrorLaunchFailure);
  const std::string a = "barriers.cu:" + std::to_string(line_of("barriers.cu", "// barrier A")) + ": threads 0-15";
  const std::string b = "barriers.cu:" + std::to_string(line_of("barriers.cu", "// barrier B")) + ": threads 16-63";
  CHECK_THAT(err, Catch::Matchers::ContainsSubstring(a));
  CHECK_THAT(err, Catch::Matchers::ContainsSubstring(b));
  CHECK_THAT(err, Catch::Matchers::ContainsSubstring("divergent_barrier_kernel"));
  // both blocks fault; with several workers either may be the one reported
  CHECK((err.find("in block (0,0,0)") != std::string::npos || err.find("in block (1,0,0)") != std::string::npos));
  CHECK_THAT(err, Catch::Matchers::ContainsSubstring("different __syncthreads() barriers"));
  // the fault is sticky until the device is reset, as on a GPU
  CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
  REQUIRE(cudaDeviceReset() == cudaSuccess);
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
}

TEST_CASE("a faulted block's fibers start afresh: the next launch with barriers is exact", "[emu][barrier]") {
  capture_stderr([] { CHECK(emu_test::divergent_barrier() == cudaErrorLaunchFailure); });
  REQUIRE(cudaDeviceReset() == cudaSuccess);
  const int n = 5000;
  int* in = device_array<int>(n, 3);
  long long* total = device_array<long long>(1, 0);
  REQUIRE(emu_test::block_sums(in, n, total, 256) == cudaSuccess);
  CHECK(*total == 3LL * n);
  cudaFree(in);
  cudaFree(total);
}

TEST_CASE("every kernel thread has a 256 KiB stack of its own: 192 KiB of locals survive a barrier",
          "[emu][barrier][stack]") {
  const int threads = 64;
  long long* out = device_array<long long>(threads, -1);
  REQUIRE(emu_test::stack_arrays(out, threads) == cudaSuccess);
  long long base = 0;
  for (int i = 0; i < 48 * 1024; ++i) base += i % 1000;
  for (int t = 0; t < threads; ++t) CHECK(out[t] == base + 48LL * 1024 * t);
  cudaFree(out);
}

// Run as their own processes by ctest (tests/emu/CMakeLists.txt), which expects each to die by a
// signal after the backend's message: hidden from the normal run.
TEST_CASE("a kernel thread that overflows its stack faults on the guard page", "[.stack-overflow]") {
  std::printf("overflowing a kernel thread's stack\n");
  std::fflush(stdout);
  emu_test::stack_overflow();
  std::printf("the overflow went unnoticed\n");
}

TEST_CASE("a kernel thread with a local array larger than its stack dies explained", "[.stack-overflow-array]") {
  std::printf("a 400 KB local array\n");
  std::fflush(stdout);
  emu_test::stack_overflow_big_array();
  std::printf("the overflow went unnoticed\n");
}

TEST_CASE("kernel threads on every worker that overflow their stacks at once die with one message",
          "[.stack-overflow-everywhere]") {
  std::printf("a 400 KB local array in every thread\n");
  std::fflush(stdout);
  emu_test::stack_overflow_everywhere();
  std::printf("the overflow went unnoticed\n");
}

TEST_CASE("a kernel thread's access the system refuses is the launch's illegal address, and the program goes on",
          "[emu][faults]") {
  const auto line = [](const char* marker) {
    return std::string(EMU_TEST_DIR) + "/barriers.cu:" + std::to_string(line_of("barriers.cu", marker));
  };
  cudaError_t e = cudaSuccess;
  std::string err = capture_stderr([&] { e = emu_test::null_write(); });
  CHECK(e == cudaErrorIllegalAddress);
  CHECK(cudaGetLastError() == cudaErrorIllegalAddress);  // sticky, as on a GPU
  CHECK_THAT(err, Catch::Matchers::ContainsSubstring("error: kernel fault in null_write_kernel"));
  CHECK_THAT(err, Catch::Matchers::ContainsSubstring(" at 0x0 at " + line("// line: null write") +
                                                     ", block (2,0,0), thread (5,0,0): a null pointer (plus an index)"));
#if defined(__linux__) && defined(__x86_64__)
  CHECK_THAT(err, Catch::Matchers::ContainsSubstring("illegal address: a write at 0x0"));  // the page fault says so
#else
  CHECK_THAT(err, Catch::Matchers::ContainsSubstring("illegal address: an access at 0x0"));
#endif
  REQUIRE(cudaDeviceReset() == cudaSuccess);

  // Past the last page of a 128-byte allocation: the unmapped space the backend keeps after each one.
  int* out = nullptr;
  REQUIRE(cudaMalloc(&out, 128) == cudaSuccess);
  err = capture_stderr([&] { e = emu_test::wild_write(out, 1024); });
  CHECK(e == cudaErrorIllegalAddress);
  CHECK_THAT(err, Catch::Matchers::ContainsSubstring(line("// line: wild write") + ", block (0,0,0), thread (0,0,0): it is 3968 "
                                                     "bytes past the end of the 128-byte cudaMalloc allocation"));
  REQUIRE(cudaDeviceReset() == cudaSuccess);
  // and the next launch runs as usual
  CHECK(emu_test::wild_write(out, 3) == cudaSuccess);
  CHECK(out[3] == 1);
  cudaFree(out);
}

TEST_CASE("a kernel thread that recurses too deep overflows its stack and dies explained", "[.stack-overflow-recursion]") {
  std::printf("recursion 100000 deep\n");
  std::fflush(stdout);
  emu_test::stack_overflow_recursion();
  std::printf("the overflow went unnoticed\n");
}

TEST_CASE("a warp waiting for a lane that waits at a __syncthreads() is a fault naming both, not a hang",
          "[emu][barrier]") {
  cudaError_t e = cudaSuccess;
  const std::string err = capture_stderr([&] { e = emu_test::barrier_never_reached(); });
  CHECK(e == cudaErrorLaunchFailure);
  const std::string shuffle = "__shfl_xor_sync at " + std::string(EMU_TEST_DIR) + "/barriers.cu:" +
                              std::to_string(line_of("barriers.cu", "// shuffle C"));
  const std::string barrier = "waits at __syncthreads() at " + std::string(EMU_TEST_DIR) + "/barriers.cu:" +
                              std::to_string(line_of("barriers.cu", "// barrier C"));
  CHECK_THAT(err, Catch::Matchers::ContainsSubstring(shuffle + ", warp 0, mask 0xffffffff: lanes 0-4, 6-31 wait for "
                                                               "lanes that never come:"));
  CHECK_THAT(err, Catch::Matchers::ContainsSubstring("lane 5 (thread 5) " + barrier));
  CHECK(wb_emu::last_fault_message() + "\n" == without_order_note(err));
  REQUIRE(cudaDeviceReset() == cudaSuccess);
}

TEST_CASE("shared memory is poisoned at the start of every block", "[emu][shared]") {
  const int blocks = 64;
  unsigned* s = device_array<unsigned>(blocks);
  unsigned* d = device_array<unsigned>(blocks);
  REQUIRE(emu_test::shared_first_reads(s, d, blocks) == cudaSuccess);
  for (int b = 0; b < blocks; ++b) {
    CHECK(s[b] == 0xFFFFFFFFu);  // wb_emu::shared_poison_byte, four times
    CHECK(d[b] == 0xFFFFFFFFu);
  }
  cudaFree(s);
  cudaFree(d);
}

TEST_CASE("static __shared__ variables are shared by a block and separate per block", "[emu][shared]") {
  const int blocks = 50, threads = 96;
  int* out = device_array<int>(blocks * threads, -1);
  REQUIRE(emu_test::shared_broadcast(out, blocks, threads) == cudaSuccess);
  for (int i = 0; i < blocks * threads; ++i) CHECK(out[i] == 1000 * (i / threads) + 7);
  cudaFree(out);
}

TEST_CASE("a launch's shared memory is known afterwards: static, dynamic, or none", "[emu][shared]") {
  float* out = device_array<float>(64);
  REQUIRE(emu_test::shared_use(out, 0) == cudaSuccess);
  CHECK(wb_emu::last_launch_shared_memory().static_bytes == 64 * sizeof(unsigned));
  CHECK(wb_emu::last_launch_shared_memory().dynamic_bytes == 64 * sizeof(unsigned));
  REQUIRE(emu_test::shared_use(out, 1) == cudaSuccess);  // the largest block's, whichever runs last
  CHECK(wb_emu::last_launch_shared_memory().static_bytes == 67 * sizeof(float));
  CHECK(wb_emu::last_launch_shared_memory().dynamic_bytes == 0);
  REQUIRE(emu_test::shared_use(out, 2) == cudaSuccess);
  CHECK(*out == 32.0f);
  CHECK(wb_emu::last_launch_shared_memory().static_bytes == 0);
  CHECK(wb_emu::last_launch_shared_memory().dynamic_bytes == 0);
  cudaFree(out);
}

namespace {
// CUDA's shuffle rules, for the expected values.
int source_lane(int kind, int lane, int arg, int width) {
  const int seg = lane / width * width;
  switch (kind) {
    case 0: return seg + arg % width;
    case 1: return lane - seg >= arg ? lane - arg : lane;
    case 2: return lane - seg + arg < width ? lane + arg : lane;
    default: return (lane ^ arg) < seg + width ? (lane ^ arg) : lane;
  }
}
}  // namespace

TEST_CASE("every shuffle variant follows CUDA's rules, widths and edge lanes included", "[emu][warp]") {
  const int threads = 64, variants = 13;
  int* out = device_array<int>(threads * variants, -7);
  REQUIRE(emu_test::shuffles(out, threads, variants) == cudaSuccess);
  struct V { int kind, arg, width; };
  const V table[] = {{0, 5, 32}, {0, -1, 32}, {0, 3, 8}, {1, 1, 32}, {1, 3, 16}, {2, 1, 32},
                     {2, 5, 8}, {3, 1, 32}, {3, 16, 32}, {3, 4, 8}, {3, 12, 8}};
  for (int v = 0; v < 11; ++v)
    for (int t = 0; t < threads; ++t) {
      const int lane = t % 32, base = t - lane;
      const int arg = table[v].arg < 0 ? (lane * 7 + 3) % 32 : table[v].arg;
      const int src = base + source_lane(table[v].kind, lane, arg, table[v].width);
      INFO("variant " << v << " thread " << t);
      CHECK(out[v * threads + t] == src * 10 + 1);
    }
  for (int t = 0; t < threads; ++t) {
    CHECK(out[11 * threads + t] == ((t / 32 * 32 + 31) * 10 + 1) * 2 + 1);  // a double moves whole
    const int lane = t % 32;
    CHECK(out[12 * threads + t] == (lane < 16 ? (lane + 2 < 16 ? t + 2 : t) * 10 + 1 : -1));
  }
  cudaFree(out);
}

TEST_CASE("ballot, any and all vote over the mask", "[emu][warp]") {
  const int threads = 64;
  unsigned* ballot = device_array<unsigned>(threads);
  int* any = device_array<int>(threads, -1);
  int* all = device_array<int>(threads, -1);
  REQUIRE(emu_test::votes(ballot, any, all, threads) == cudaSuccess);
  for (int t = 0; t < threads; ++t) {
    CHECK(ballot[t] == 0x49249249u);
    CHECK(any[t] == (t >= 32 ? 1 : 0));
    CHECK(all[t] == 2);
  }
  cudaFree(ballot);
  cudaFree(any);
  cudaFree(all);
}

TEST_CASE("a warp-shuffle reduction sums exactly", "[emu][warp]") {
  const int n = 50000;
  float* in = device_array<float>(n);
  for (int i = 0; i < n; ++i) in[i] = static_cast<float>(i % 17);
  float* out = device_array<float>(1, 0.0f);
  REQUIRE(emu_test::warp_reduce(in, out, n) == cudaSuccess);
  double expect = 0;
  for (int i = 0; i < n; ++i) expect += in[i];
  CHECK(*out == static_cast<float>(expect));
  cudaFree(in);
  cudaFree(out);
}

TEST_CASE("a shuffle mask naming an exited lane is a fault", "[emu][warp]") {
  cudaError_t e = cudaSuccess;
  const std::string err = capture_stderr([&] { e = emu_test::bad_shuffle_mask(); });
  CHECK(e == cudaErrorLaunchFailure);
  const std::string at = "__shfl_down_sync at ";
  CHECK_THAT(err, Catch::Matchers::ContainsSubstring(
                      "warp_ops.cu:" + std::to_string(line_of("warp_ops.cu", "// bad mask"))));
  CHECK_THAT(err, Catch::Matchers::ContainsSubstring("__shfl_down_sync"));
  CHECK_THAT(err, Catch::Matchers::ContainsSubstring("the mask names lanes 20-31 (threads 20-31), which have exited"));
  CHECK_THAT(err, Catch::Matchers::ContainsSubstring("bad_mask_kernel"));
  REQUIRE(cudaDeviceReset() == cudaSuccess);
}

TEST_CASE("atomics from many blocks give exact counts", "[emu][atomic]") {
  const int blocks = 600, threads = 128, total = blocks * threads;
  auto* c = device_array<emu_test::Counters>(1);
  *c = emu_test::Counters{0, 0, 0, 0.0f, 0.0, 0, -1, 1, 0, -1};
  REQUIRE(emu_test::atomic_counters(c, blocks, threads) == cudaSuccess);
  CHECK(c->i == total);
  CHECK(c->u == 2u * total);
  CHECK(c->ull == 3ull * total);
  CHECK(c->f == static_cast<float>(total));
  CHECK(c->d == 0.5 * total);
  CHECK(c->sub == -total);
  CHECK(c->max == total - 1);
  CHECK(c->min == -(total - 1));
  CHECK(c->cas_count == static_cast<unsigned>(total));
  CHECK(c->exch_seen >= 0);
  CHECK(c->exch_seen < total);
  cudaFree(c);
}

TEST_CASE("fast-math intrinsics link and give the host's accurate results", "[emu][intrinsics]") {
  const int n = 70;
  auto* in = device_array<float>(n);
  auto* out = device_array<float>(9 * n);
  for (int i = 0; i < n; ++i) in[i] = 0.25f + 0.1f * float(i);
  REQUIRE(emu_test::fast_math(in, out, n) == cudaSuccess);
  for (int i = 0; i < n; ++i) {
    const float x = in[i];
    CAPTURE(i, x);
    CHECK(out[9 * i + 0] == std::exp(x));
    CHECK(out[9 * i + 1] == ::exp10f(x));
    CHECK(out[9 * i + 2] == std::log(x));
    CHECK(out[9 * i + 3] == std::log2(x));
    CHECK(out[9 * i + 4] == std::log10(x));
    CHECK(out[9 * i + 5] == std::sin(x));
    CHECK(out[9 * i + 6] == std::cos(x));
    CHECK(out[9 * i + 7] == std::tan(x));
    CHECK(out[9 * i + 8] == std::pow(x, 1.5f));
  }
  cudaFree(in);
  cudaFree(out);
}
