// The CPU backend's instrumented mode (tests/emu/instrumented.cu is built with INSTRUMENT):
// global-memory requests and sectors per launch and per line, and the shared-memory race check.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>

#include "kernels.hpp"
#include "support.hpp"

using Catch::Matchers::ContainsSubstring;

namespace {


int line_of(const char* marker) {
  std::ifstream in(std::string(EMU_TEST_DIR) + "/instrumented.cu");
  std::string text;
  for (int line = 1; std::getline(in, text); ++line)
    if (text.find(std::string("// line: ") + marker) != std::string::npos) return line;
  FAIL("marker not found: " << marker);
  return 0;
}

const wb_emu::LineStats* find_line(const wb_emu::MemoryStats& s, const char* marker, bool store) {
  const int line = line_of(marker);
  for (const auto& l : s.lines)
    if (l.line == line && l.store == store) return &l;
  return nullptr;
}

void check(const wb_emu::AccessStats& a, std::uint64_t requests, std::uint64_t sectors, std::uint64_t ideal) {
  CHECK(a.requests == requests);
  CHECK(a.sectors == sectors);
  CHECK(a.ideal_sectors == ideal);
}

}  // namespace

TEST_CASE("a warp reading a row takes 4 sectors per request, reading a column 32", "[emu][instrument]") {
  const int n = 64;  // 64x64 floats: 128 warps, one request each per direction
  float* in = device_array<float>(n * n);
  for (int i = 0; i < n * n; ++i) in[i] = static_cast<float>(i);
  float* out = device_array<float>(n * n);

  REQUIRE(emu_test::access_rows(in, out, n, false) == cudaSuccess);
  auto rows = wb_emu::last_launch_memory_stats();
  CHECK(rows.instrumented);
  check(rows.loads, 128, 512, 512);
  check(rows.stores, 128, 512, 512);
  CHECK(out[5 * n + 7] == in[5 * n + 7]);

  REQUIRE(emu_test::access_rows(in, out, n, true) == cudaSuccess);
  auto cols = wb_emu::last_launch_memory_stats();
  check(cols.loads, 128, 128 * 32, 512);
  check(cols.stores, 128, 512, 512);
  CHECK(out[5 * n + 7] == in[7 * n + 5]);
  REQUIRE(cols.lines.size() == 2);
  // most sectors first: the column read, at its line
  CHECK(cols.lines[0].line == line_of("columns"));
  CHECK(!cols.lines[0].store);
  CHECK(cols.lines[0].bytes == 4);
  CHECK_THAT(cols.lines[0].file, ContainsSubstring("instrumented.cu"));
  check(cols.lines[0].stats, 128, 4096, 512);
  cudaFree(in);
  cudaFree(out);
}

TEST_CASE("float4 rows are ideal, a stride of 2 floats takes twice the sectors", "[emu][instrument]") {
  const int n4 = 1024;
  float4* in4 = device_array<float4>(n4, float4{1, 2, 3, 4});
  float4* out4 = device_array<float4>(n4);
  REQUIRE(emu_test::copy_float4(in4, out4, n4) == cudaSuccess);
  auto s = wb_emu::last_launch_memory_stats();
  check(s.loads, 32, 32 * 16, 32 * 16);  // 16 sectors per request: 32 lanes x 16 bytes
  CHECK(s.loads.sectors == s.loads.ideal_sectors);
  CHECK(out4[17].w == 4.0f);

  const int n = 1024;
  float* in = device_array<float>(2 * n, 3.0f);
  float* out = device_array<float>(n);
  REQUIRE(emu_test::copy_stride2(in, out, n) == cudaSuccess);
  s = wb_emu::last_launch_memory_stats();
  check(s.loads, 32, 32 * 8, 32 * 4);
  check(s.stores, 32, 32 * 4, 32 * 4);
  const auto* l = find_line(s, "stride2", false);
  REQUIRE(l != nullptr);
  CHECK(l->stats.sectors == 2 * l->stats.ideal_sectors);
  cudaFree(in4);
  cudaFree(out4);
  cudaFree(in);
  cudaFree(out);
}

TEST_CASE("y[i] += x[i] is two loads and a store of its line; sum += x[i] one load", "[emu][instrument]") {
  const int n = 1000;  // 32 chunks of 32 elements (the last one 8), over a grid-stride loop
  float* x = device_array<float>(n, 2.0f);
  float* y = device_array<float>(n, 1.0f);
  float* sums = device_array<float>(1, 0.0f);
  REQUIRE(emu_test::axpy_sum(x, y, n, sums) == cudaSuccess);
  CHECK(y[999] == 3.0f);
  CHECK(*sums == 2.0f * n);
  const auto s = wb_emu::last_launch_memory_stats();
  const auto* load = find_line(s, "axpy", false);
  const auto* store = find_line(s, "axpy", true);
  const auto* sum = find_line(s, "sum", false);
  REQUIRE(load != nullptr);
  REQUIRE(store != nullptr);
  REQUIRE(sum != nullptr);
  // 31 requests of 32 lanes (4 sectors each) and one of 8 lanes (1 sector), per access
  check(load->stats, 64, 2 * 125, 2 * 125);
  check(store->stats, 32, 125, 125);
  check(sum->stats, 32, 125, 125);
  CHECK(s.lines.size() == 3);  // the atomicAdd is not counted
  cudaFree(x);
  cudaFree(y);
  cudaFree(sums);
}

TEST_CASE("a naive transpose stores 32 sectors per request, a padded shared-memory tile is ideal", "[emu][instrument]") {
  const int n = 64;  // 4 blocks of 32x8 threads, 4 rows each: 128 requests per direction
  float* in = device_array<float>(n * n);
  for (int i = 0; i < n * n; ++i) in[i] = static_cast<float>(i);
  float* out = device_array<float>(n * n);

  REQUIRE(emu_test::transpose(in, out, n, false) == cudaSuccess);
  auto naive = wb_emu::last_launch_memory_stats();
  check(naive.loads, 128, 512, 512);
  check(naive.stores, 128, 4096, 512);
  REQUIRE(!naive.lines.empty());
  CHECK(naive.lines[0].line == line_of("naive"));
  CHECK(naive.lines[0].store);
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c) REQUIRE(out[c * n + r] == in[r * n + c]);

  std::fill(out, out + n * n, -1.0f);
  REQUIRE(emu_test::transpose(in, out, n, true) == cudaSuccess);
  auto tiled = wb_emu::last_launch_memory_stats();
  check(tiled.loads, 128, 512, 512);
  check(tiled.stores, 128, 512, 512);
  const auto* load = find_line(tiled, "tile load", false);
  const auto* store = find_line(tiled, "tile store", true);
  REQUIRE(load != nullptr);
  REQUIRE(store != nullptr);
  CHECK(tiled.lines.size() == 2);  // shared memory is not global traffic
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c) REQUIRE(out[c * n + r] == in[r * n + c]);
  cudaFree(in);
  cudaFree(out);
}

TEST_CASE("a launch of a file not built instrumented says so", "[emu][instrument]") {
  const int n = 1000;
  int* in = device_array<int>(n, 1);
  long long* total = device_array<long long>(1, 0);
  REQUIRE(emu_test::block_sums(in, n, total, 256) == cudaSuccess);
  const auto s = wb_emu::last_launch_memory_stats();
  CHECK(!s.instrumented);
  CHECK(s.lines.empty());
  CHECK(s.loads.requests == 0);
  cudaFree(in);
  cudaFree(total);
}

TEST_CASE("a correct shared-memory tree reduction is no race", "[emu][instrument][race]") {
  const int n = 5000, threads = 256;
  float* in = device_array<float>(n, 1.0f);
  float* out = device_array<float>((n + threads - 1) / threads, 0.0f);
  std::string err;
  err = capture_stderr([&] { REQUIRE(emu_test::reduce(in, out, n, threads, 0) == cudaSuccess); });
  CHECK(err.empty());
  CHECK(out[0] == 256.0f);
  CHECK(out[19] == static_cast<float>(n - 19 * 256));
  cudaFree(in);
  cudaFree(out);
}

TEST_CASE("a tree reduction without its barriers is a race naming both threads and lines", "[emu][instrument][race]") {
  const int n = 512, threads = 256;
  float* in = device_array<float>(n, 1.0f);
  float* out = device_array<float>(2, 0.0f);
  const std::string add = std::string(EMU_TEST_DIR) + "/instrumented.cu:" + std::to_string(line_of("reduce add"));
  const std::string store = std::string(EMU_TEST_DIR) + "/instrumented.cu:" + std::to_string(line_of("reduce store"));
  for (int variant : {1, 2}) {
    INFO("variant " << variant);
    cudaError_t e = cudaSuccess;
    const std::string err = capture_stderr([&] { e = emu_test::reduce(in, out, n, threads, variant); });
    CHECK(e == cudaErrorLaunchFailure);
    CHECK_THAT(err, ContainsSubstring("kernel fault in reduce_kernel"));
    CHECK_THAT(err, ContainsSubstring("shared-memory race on `sdata` (extern __shared__) at byte offset 4 (element 1"));
    CHECK_THAT(err, ContainsSubstring("thread 0 read it at " + add));
    CHECK_THAT(err, ContainsSubstring("thread 1 writes it at " + add));
    CHECK(wb_emu::last_fault_message() + "\n" == without_order_note(err));
    REQUIRE(cudaDeviceReset() == cudaSuccess);
  }
  // no barrier between the store and the loop: thread 128's store comes after thread 0 read the word
  cudaError_t e = cudaSuccess;
  const std::string err = capture_stderr([&] { e = emu_test::reduce(in, out, n, threads, 3); });
  CHECK(e == cudaErrorLaunchFailure);
  CHECK_THAT(err, ContainsSubstring("thread 0 read it at " + add));
  CHECK_THAT(err, ContainsSubstring("thread 128 writes it at " + store));
  CHECK_THAT(wb_emu::last_fault_message(), ContainsSubstring("thread 128 writes it at " + store));
  REQUIRE(cudaDeviceReset() == cudaSuccess);
  cudaFree(in);
  cudaFree(out);
}

TEST_CASE("atomics on shared memory, the early-return idiom and __syncwarp are no race", "[emu][instrument][race]") {
  const int n = 1000;
  int* in = device_array<int>(n);
  for (int i = 0; i < n; ++i) in[i] = i * 3;
  int* out = device_array<int>(n, -1);
  const std::string err = capture_stderr([&] { REQUIRE(emu_test::shared_count(in, out, n) == cudaSuccess); });
  // no fault: only the warning for the threads of the last block that return before the barrier
  CHECK(err.find("error:") == std::string::npos);
  CHECK_THAT(err, ContainsSubstring("warning: in shared_count_kernel"));
  CHECK_THAT(err, ContainsSubstring("threads 232-255 have exited before the __syncthreads() at "));
  for (int i = 0; i < n; ++i) {
    const int start = i / 256 * 256, active = std::min(256, n - start);
    int even = 0;
    for (int j = start; j < start + active; ++j) even += in[j] % 2 == 0;
    REQUIRE(out[i] == in[start + (i - start + 1) % active] + 1000 * even);
  }
  int* w = device_array<int>(64, -1);
  REQUIRE(emu_test::syncwarp_exchange(w) == cudaSuccess);
  for (int t = 0; t < 64; ++t) CHECK(w[t] == (t ^ 1));
  cudaFree(in);
  cudaFree(out);
  cudaFree(w);
}

TEST_CASE("a warp's lanes storing one value to a shared word is no race; different values are",
          "[emu][instrument][race]") {
  int* out = device_array<int>(64, 0);
  cudaError_t e = cudaErrorUnknown;
  std::string err = capture_stderr([&] { e = emu_test::warp_flag(out, false); });
  CHECK(e == cudaSuccess);
  CHECK(err.empty());
  CHECK(out[63] == 7);
  err = capture_stderr([&] { e = emu_test::warp_flag(out, true); });
  CHECK(e == cudaErrorLaunchFailure);
  CHECK_THAT(err, ContainsSubstring("shared-memory race on `flag` at byte offset 0"));
  CHECK_THAT(err, ContainsSubstring("two lanes of one warp store different values to it with one instruction"));
  CHECK_THAT(err, ContainsSubstring("thread 0 wrote it at " + std::string(EMU_TEST_DIR) + "/instrumented.cu:" +
                                    std::to_string(line_of("flag store"))));
  REQUIRE(cudaDeviceReset() == cudaSuccess);
  cudaFree(out);
}

TEST_CASE("last_fault_message() gives a barrier fault's text", "[emu][instrument]") {
  cudaError_t e = cudaSuccess;
  const std::string err = capture_stderr([&] { e = emu_test::divergent_barrier(); });
  CHECK(e == cudaErrorLaunchFailure);
  CHECK_THAT(wb_emu::last_fault_message(), ContainsSubstring("different __syncthreads() barriers"));
  CHECK(wb_emu::last_fault_message() + "\n" == without_order_note(err));
  REQUIRE(cudaDeviceReset() == cudaSuccess);
}

TEST_CASE("shared scalars are race-checked as arrays are: read-write and write-write between two barriers",
          "[emu][instrument][race][scalar]") {
  int* out = device_array<int>(64, 0);
  cudaError_t e = cudaErrorUnknown;
  // one thread writes, every thread reads after a barrier: correct, no report
  std::string err = capture_stderr([&] { e = emu_test::shared_scalar(out, 0); });
  CHECK(e == cudaSuccess);
  CHECK(err.empty());
  CHECK(out[63] == 7 + 7);
  const struct {
    int variant;
    const char* name;
    const char* line;
  } races[] = {{1, "total", "scalar read"},       {2, "total", "scalar write write"},
               {3, "wide", "scalar double read"}, {4, "total", "scalar read after helper"},
               {5, "second", "scalar second"},    {6, "total", "scalar read of a later write"},
               {7, "pair", "scalar struct read"},    {8, "ready", "scalar volatile read"}};
  for (const auto& r : races) {
    CAPTURE(r.variant);
    err = capture_stderr([&] { e = emu_test::shared_scalar(out, r.variant); });
    CHECK(e == cudaErrorLaunchFailure);
    CHECK_THAT(err, ContainsSubstring(std::string("shared-memory race on `") + r.name + "`"));
    CHECK_THAT(err, ContainsSubstring(std::string(EMU_TEST_DIR) + "/instrumented.cu:" + std::to_string(line_of(r.line))));
    REQUIRE(cudaDeviceReset() == cudaSuccess);
  }
  cudaFree(out);
}
