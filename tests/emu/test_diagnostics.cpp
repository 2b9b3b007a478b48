// What instrumented builds report beyond races and bounds (tests/emu/diagnostics.cu is built with
// INSTRUMENT): misaligned vector accesses, reads of shared memory no thread of the block wrote (faults),
// threads that exit before a barrier the rest of the block reaches (a warning). Each message names
// the line, the block and the thread. And the count of shared-memory bank conflicts per warp request.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <fstream>
#include <string>

#include "diagnostics.hpp"
#include "support.hpp"

#include <wb_emu/diagnostics.hpp>
#include <wb_emu/launch.hpp>

using Catch::Matchers::ContainsSubstring;

namespace {

// "<dir>/diagnostics.cu:<line>" of the line marked `// line: <marker>`.
std::string at(const char* marker) {
  const std::string file = std::string(EMU_TEST_DIR) + "/diagnostics.cu";
  std::ifstream in(file);
  std::string text;
  for (int line = 1; std::getline(in, text); ++line)
    if (text.find(std::string("// line: ") + marker) != std::string::npos) return file + ":" + std::to_string(line);
  FAIL("marker not found: " << marker);
  return "";
}

// Runs `launch`, which must fault; returns the fault's text (stderr, the sticky error and
// last_fault_message() agreeing), and resets the device.
template <class F>
std::string fault_of(F launch) {
  cudaError_t e = cudaSuccess;
  const std::string err = capture_stderr([&] { e = launch(); });
  CHECK(e == cudaErrorLaunchFailure);
  CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
  CHECK(wb_emu::last_fault_message() + "\n" == without_order_note(err));
  REQUIRE(cudaDeviceReset() == cudaSuccess);
  return err;
}

// The shared-memory statistics of the most recent launch at the line marked `marker`.
wb_emu::SharedLineStats shared_line(const char* marker, bool store) {
  const std::string where = at(marker);
  for (const wb_emu::SharedLineStats& l : wb_emu::last_launch_shared_stats().lines)
    if (l.file + ":" + std::to_string(l.line) == where && l.store == store) return l;
  FAIL("no shared-memory statistics for " << where);
  return {};
}

// Runs `launch`, which must succeed; returns what it printed.
template <class F>
std::string no_fault(F launch) {
  cudaError_t e = cudaErrorUnknown;
  const std::string err = capture_stderr([&] { e = launch(); });
  CHECK(e == cudaSuccess);
  return err;
}

}  // namespace

TEST_CASE("a float4 access that is not 16-byte aligned is a fault naming the type, the line and the thread",
          "[emu][instrument][misaligned]") {
  const int n = 64 + 4;
  float* in = device_array<float>(n, 1.0f);
  float* out = device_array<float>(n, 0.0f);
  // aligned: offset 0 and 4
  CHECK(no_fault([&] { return emu_test::copy_float4_at(in, out, 0, 16); }).empty());
  CHECK(no_fault([&] { return emu_test::copy_float4_at(in, out, 4, 16); }).empty());
  CHECK(out[67] == 1.0f);

  std::string err = fault_of([&] { return emu_test::copy_float4_at(in, out, 1, 16); });
  CHECK_THAT(err, ContainsSubstring("kernel fault in float4_offset_kernel"));
  CHECK_THAT(err, ContainsSubstring("misaligned read of 16 bytes (one access, such as a float4's) at " + at("float4 load") +
                                    ", block (0,0,0), thread (0,0,0): its address 0x"));
  CHECK_THAT(err, ContainsSubstring(" is 4 bytes past a multiple of 16, byte 4 of the 272-byte cudaMalloc allocation at 0x"));
  CHECK_THAT(err, ContainsSubstring("A GPU stops such a kernel with a misaligned address (cudaErrorMisalignedAddress)"));

  // in an array whose logical extent a grader gave: placed from the array
  wb_emu::set_logical_extent(out + 2, 64 * sizeof(float), sizeof(float), "grade.cpp", 7);
  err = fault_of([&] { return emu_test::copy_float4_at(out + 2, out + 2, 0, 8); });
  CHECK_THAT(err, ContainsSubstring("misaligned read of 16 bytes (one access, such as a float4's) at " + at("float4 load") +
                                    ", block (0,0,0), thread (0,0,0): its address 0x"));
  CHECK_THAT(err, ContainsSubstring(" is 8 bytes past a multiple of 16, byte 0 of the 64-element array allocated at "
                                    "grade.cpp:7 (inside its element 0 of 4 bytes)"));
  cudaFree(in);
  cudaFree(out);
}

TEST_CASE("a misaligned float4 read of a __shared__ array is a fault naming the array", "[emu][instrument][misaligned]") {
  float* out = device_array<float>(4, 0.0f);
  CHECK(no_fault([&] { return emu_test::shared_float4_at(out, 4); }).empty());
  CHECK(out[3] == 7.0f);
  const std::string err = fault_of([&] { return emu_test::shared_float4_at(out, 2); });
  CHECK_THAT(err, ContainsSubstring("misaligned read of 16 bytes (one access, such as a float4's) at " + at("shared float4") +
                                    ", block (0,0,0), thread (0,0,0): its address 0x"));
  CHECK_THAT(err, ContainsSubstring(" is 8 bytes past a multiple of 16, byte 8 of `tile` (its 256 bytes)"));
  cudaFree(out);
}

TEST_CASE("a read of shared memory that no thread of the block wrote is a fault naming the array, line, block "
          "and thread", "[emu][instrument][uninit]") {
  float* out = device_array<float>(4 * 64, 0.0f);
  CHECK(no_fault([&] { return emu_test::partial_tile(out, 4, 4, 0); }).empty());
  CHECK(out[3 * 64 + 63] == 63.0f);
  // blocks 0-2 write every element, block 3 only the first 60: shadow state is per block
  std::string err = fault_of([&] { return emu_test::partial_tile(out, 4, 3, 60); });
  CHECK_THAT(err, ContainsSubstring("kernel fault in partial_tile_kernel"));
  CHECK_THAT(err, ContainsSubstring("in block (3,0,0):\n  read of `tile` at byte offset 240 (element 60 of 4 bytes), "
                                    "which no thread of the block has written, at " + at("tile read") +
                                    ", block (3,0,0), thread (60,0,0)"));
  CHECK_THAT(err, ContainsSubstring("neither a GPU nor compute-sanitizer says so"));

  int* in = device_array<int>(32, 1);
  int* acc = device_array<int>(32, 0);
  err = fault_of([&] { return emu_test::accumulate_uncleared(in, acc); });
  CHECK_THAT(err, ContainsSubstring("read of `acc` (extern __shared__) at byte offset 0 (element 0 of 4 bytes), which "
                                    "no thread of the block has written, at " + at("accumulate") +
                                    ", block (0,0,0), thread (0,0,0)"));
  // written by an atomic only: not unwritten
  CHECK(no_fault([&] { return emu_test::atomic_counter(acc); }).empty());
  CHECK(acc[31] == 32);
  cudaFree(out);
  cudaFree(in);
  cudaFree(acc);
}

TEST_CASE("a read of an element another thread writes later between the same barriers is a race, not an unwritten "
          "read", "[emu][instrument][uninit][race]") {
  int* out = device_array<int>(32, 0);
  const std::string err = fault_of([&] { return emu_test::neighbour_no_barrier(out); });
  CHECK_THAT(err, ContainsSubstring("shared-memory race on `s` at byte offset 4"));
  CHECK_THAT(err, ContainsSubstring("thread 0 read it at " + at("neighbour read")));
  CHECK_THAT(err, ContainsSubstring("thread 1 writes it at " + at("neighbour write")));
  cudaFree(out);
}

TEST_CASE("threads that exit before a barrier the rest of the block reaches: one warning naming the barrier, "
          "never an error", "[emu][instrument][barrier]") {
  int* in = device_array<int>(64, 0);
  for (int i = 0; i < 64; ++i) in[i] = i;
  int* out = device_array<int>(64, -1);
  CHECK(no_fault([&] { return emu_test::early_exit(in, out, 64, 64); }).empty());
  CHECK(wb_emu::last_launch_warning().empty());

  const std::string first = no_fault([&] { return emu_test::early_exit(in, out, 50, 64); });
  CHECK(out[49] == 0);
  CHECK(out[0] == 1);
  const std::string launch = at("early exit launch");
  const std::string expected =
      launch + ": warning: in early_exit_kernel, launched here with grid (1,1,1) and block (64,1,1); in block "
      "(0,0,0):\n  threads 50-63 have exited before the __syncthreads() at " + at("early exit barrier") +
      " that the rest of the block reached\n  This is correct (an exited thread counts as arrived at a barrier, on a "
      "GPU as here) and is not an error";
  CHECK_THAT(first, ContainsSubstring(expected));
  CHECK(first.find("warning:") == first.rfind("warning:"));  // once per launch, not per thread
  CHECK(wb_emu::last_launch_warning() + "\n" == first);
  // the same launch site and barrier again: kept for last_launch_warning(), not printed again
  CHECK(no_fault([&] { return emu_test::early_exit(in, out, 40, 64); }).empty());
  CHECK_THAT(wb_emu::last_launch_warning(), ContainsSubstring("threads 40-63 have exited"));
  CHECK(cudaGetLastError() == cudaSuccess);
  cudaFree(in);
  cudaFree(out);
}

TEST_CASE("bank conflicts per warp request: stride 1 and a broadcast are free, stride 32 is 32-way, a padded "
          "stride of 33 is free", "[emu][instrument][banks]") {
  float* out = device_array<float>(32, 0.0f);
  struct Case {
    int stride;
    unsigned ways;
  };
  for (const Case c : {Case{1, 1}, Case{0, 1}, Case{2, 2}, Case{32, 32}, Case{33, 1}, Case{16, 16}}) {
    CAPTURE(c.stride);
    REQUIRE(no_fault([&] { return emu_test::bank_read(out, c.stride); }).empty());
    CHECK(out[31] == static_cast<float>(31 * c.stride));
    const wb_emu::SharedMemoryStats stats = wb_emu::last_launch_shared_stats();
    CHECK(stats.instrumented);
    const wb_emu::SharedLineStats read = shared_line("bank read", false);
    CHECK(read.bytes == 4);
    CHECK(read.stats.requests == 1);
    CHECK(read.stats.wavefronts == c.ways);
    CHECK(read.stats.ideal_wavefronts == 1);
    CHECK(read.stats.max_ways == c.ways);
    // the fill: 33 rows of 32 consecutive floats, one wavefront each
    const wb_emu::SharedLineStats fill = shared_line("bank fill", true);
    CHECK(fill.stats.requests == 33);
    CHECK(fill.stats.wavefronts == 33);
    CHECK(fill.stats.max_ways == 1);
    CHECK(stats.loads.wavefronts == c.ways);
    CHECK(stats.stores.ideal_wavefronts == 33);
    // the global store of out is not counted as shared
    CHECK(wb_emu::last_launch_memory_stats().stores.requests == 1);
    CHECK(stats.lines.size() == 2);
  }
  cudaFree(out);
}

TEST_CASE("16-byte shared accesses are served a quarter-warp at a time", "[emu][instrument][banks]") {
  float* out = device_array<float>(32, 0.0f);
  REQUIRE(no_fault([&] { return emu_test::bank_read_float4(out, 1); }).empty());
  wb_emu::SharedLineStats l = shared_line("bank float4", false);
  CHECK(l.bytes == 16);
  CHECK(l.stats.requests == 1);
  CHECK(l.stats.wavefronts == 4);  // 4 phases of 8 lanes x 16 bytes = 128 bytes: no conflict
  CHECK(l.stats.ideal_wavefronts == 4);
  // every other float4: the 8 lanes of a phase span 256 bytes, two words per bank
  REQUIRE(no_fault([&] { return emu_test::bank_read_float4(out, 2); }).empty());
  l = shared_line("bank float4", false);
  CHECK(l.stats.wavefronts == 8);
  CHECK(l.stats.ideal_wavefronts == 4);
  CHECK(l.stats.max_ways == 2);
  cudaFree(out);
}
