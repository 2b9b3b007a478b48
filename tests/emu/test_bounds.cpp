// Out-of-bounds accesses in instrumented builds (tests/emu/bounds.cu is built with INSTRUMENT):
// an index past a __shared__ array's extent or past the launch's dynamic shared memory, and a
// global access outside every allocation, are kernel faults naming the line, the array and the
// block and thread; correct kernels raise none.
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


// "<dir>/bounds.cu:<line>" of the line marked `// line: <marker>`.
std::string at(const char* marker) {
  const std::string file = std::string(EMU_TEST_DIR) + "/bounds.cu";
  std::ifstream in(file);
  std::string text;
  for (int line = 1; std::getline(in, text); ++line)
    if (text.find(std::string("// line: ") + marker) != std::string::npos) return file + ":" + std::to_string(line);
  FAIL("marker not found: " << marker);
  return "";
}

// Runs `launch`, which must fault; returns the fault's text after checking that stderr, the
// error code and last_fault_message() agree, and resets the device.
template <class F>
std::string fault_of(F launch) {
  cudaError_t e = cudaSuccess;
  const std::string err = capture_stderr([&] { e = launch(); });
  CHECK(e == cudaErrorLaunchFailure);
  CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);  // sticky, as on a GPU
  CHECK(wb_emu::last_fault_message() + "\n" == without_order_note(err));
  REQUIRE(cudaDeviceReset() == cudaSuccess);
  return err;
}

// Runs `launch`, which must succeed without a word on stderr.
template <class F>
void no_fault(F launch) {
  cudaError_t e = cudaErrorUnknown;
  const std::string err = capture_stderr([&] { e = launch(); });
  CHECK(e == cudaSuccess);
  CHECK(err.empty());
}

}  // namespace

TEST_CASE("an index that leaves a __shared__ array names the array, the line and the thread",
          "[emu][instrument][bounds]") {
  float* out = device_array<float>(1, 0.0f);
  // column 32 is the padding: in bounds, but no thread wrote it (the fill covers columns 0-31)
  std::string err = fault_of([&] { return emu_test::tile_access(out, 3, 32, false); });
  CHECK_THAT(err, ContainsSubstring("read of `tile` at byte offset 524 (element 131 of 4 bytes), which no thread of "
                                    "the block has written, at " + at("tile read") + ", block (0,0,0), thread (5,3,0)"));
  no_fault([&] { return emu_test::tile_access(out, 3, 31, false); });
  CHECK(*out == static_cast<float>(3 * 33 + 31));
  // The compiler reports addresses, not subscripts: tile[3][40] is tile[4][7]'s bytes, as on a GPU
  // (and under compute-sanitizer), so only an index that leaves the array's bytes is a fault.
  no_fault([&] { return emu_test::tile_access(out, 3, 40, false); });
  CHECK(*out == static_cast<float>(4 * 33 + 7));

  err = fault_of([&] { return emu_test::tile_access(out, 32, 0, true); });
  CHECK_THAT(err, ContainsSubstring("kernel fault in tile_kernel"));
  CHECK_THAT(err, ContainsSubstring("write of 4 bytes just past the end of `tile` (its 4224 bytes), in no __shared__ "
                                    "array, at " + at("tile write") + ", block (0,0,0), thread (5,3,0)"));
  CHECK_THAT(err, ContainsSubstring("An index must be from 0 to its extent - 1"));

  err = fault_of([&] { return emu_test::tile_access(out, -1, 7, false); });
  CHECK_THAT(err, ContainsSubstring("read of 4 bytes 104 bytes before the first __shared__ array, in no __shared__ "
                                    "array, at " + at("tile read")));

  int* values = device_array<int>(256, -1);
  err = fault_of([&] { return emu_test::shifted_values(values, 1); });
  CHECK_THAT(err, ContainsSubstring("read of 4 bytes just past the end of `values` (its 1024 bytes), in no __shared__ "
                                    "array, at " + at("values read") + ", block (0,0,0), thread (255,0,0)"));
  no_fault([&] { return emu_test::shifted_values(values, 0); });
  CHECK(values[255] == 255);
  cudaFree(out);
  cudaFree(values);
}

TEST_CASE("a pointer into a __shared__ array that leaves every array is a fault", "[emu][instrument][bounds]") {
  float* out = device_array<float>(1, 0.0f);
  no_fault([&] { return emu_test::tile_through_pointer(out, 0); });
  CHECK(*out == 1.0f);
  // tile[31] + 33 is the first byte after the tile: no __shared__ array is there
  const std::string err = fault_of([&] { return emu_test::tile_through_pointer(out, 33); });
  CHECK_THAT(err, ContainsSubstring("read of 4 bytes just past the end of `tile` (its 4224 bytes), in no __shared__ "
                                    "array, at " + at("through pointer") + ", block (0,0,0), thread (0,0,0)"));
  cudaFree(out);
}

TEST_CASE("extern __shared__ is sized by the launch's third argument: reading past it is a fault",
          "[emu][instrument][bounds]") {
  const int threads = 256;
  float* in = device_array<float>(threads, 2.0f);
  float* out = device_array<float>(threads, 0.0f);
  std::string err = fault_of([&] { return emu_test::neighbours(in, out, threads, threads * sizeof(float)); });
  CHECK_THAT(err, ContainsSubstring("kernel fault in neighbour_kernel"));
  CHECK_THAT(err, ContainsSubstring("read of buf[256]: byte 1024 is past the 1024 bytes the launch gave (its third "
                                    "argument) at " + at("buf read") + ", block (0,0,0), thread (255,0,0)"));

  // one float more: thread 255 reads an element in bounds that no thread wrote
  err = fault_of([&] { return emu_test::neighbours(in, out, threads, (threads + 1) * sizeof(float)); });
  CHECK_THAT(err, ContainsSubstring("read of `buf` (extern __shared__) at byte offset 1024 (element 256 of 4 bytes), "
                                    "which no thread of the block has written, at " + at("buf read") +
                                    ", block (0,0,0), thread (255,0,0)"));

  err = fault_of([&] { return emu_test::neighbours(in, out, threads, -1); });
  CHECK_THAT(err, ContainsSubstring("write of buf[0]: the launch gave no dynamic shared memory (its third argument, "
                                    "kernel<<<grid, block, bytes>>>, is 0 or missing) at " + at("buf write") +
                                    ", block (0,0,0), thread (0,0,0)"));
  cudaFree(in);
  cudaFree(out);
}

TEST_CASE("a global access outside every cudaMalloc allocation is a fault; a guard zone is not",
          "[emu][instrument][bounds]") {
  const int n = 40;
  float* in = device_array<float>(n, 1.0f);
  float* out = device_array<float>(64, 0.0f);
  std::string err = fault_of([&] { return emu_test::unguarded_copy(in, out, n, 0, 1, 64); });
  CHECK_THAT(err, ContainsSubstring("kernel fault in unguarded_kernel"));
  CHECK_THAT(err, ContainsSubstring("read of 4 bytes outside every cudaMalloc allocation at " + at("unguarded") +
                                    ", block (0,0,0), thread (40,0,0): it is just past the end of the 160-byte "
                                    "cudaMalloc allocation at "));
  CHECK_THAT(err, ContainsSubstring("(index 40 of 4-byte elements from its start, which has 40)"));

  {
    // block 0's thread 0 reads 3 elements before the start, block 1's thread 11 just past the end:
    // the report is the first faulting block in start order, block 0 in index order
    BlockSeed index_order(0);
    err = fault_of([&] { return emu_test::unguarded_copy(in, out, n, -3, 2, 32); });
  }
  CHECK_THAT(err, ContainsSubstring("read of 4 bytes outside every cudaMalloc allocation at " + at("unguarded") +
                                    ", block (0,0,0), thread (0,0,0): it is 12 bytes before the start of the "
                                    "160-byte cudaMalloc allocation"));

  err = fault_of([&] { return emu_test::unguarded_copy(nullptr, out, n, 0, 1, 32); });
  CHECK_THAT(err, ContainsSubstring("the address is 0x0, a null pointer (plus an index)"));

  // inside the allocation, past n: the grader's guard zones catch such writes, not the backend
  float* guarded = device_array<float>(n + 1024, 0.0f);
  no_fault([&] { return emu_test::write_one_past(guarded, n); });
  CHECK(guarded[n] == 1.0f);
  // cudaMallocHost memory is usable from a kernel too
  float* pinned = nullptr;
  REQUIRE(cudaMallocHost(&pinned, 64 * sizeof(float)) == cudaSuccess);
  no_fault([&] { return emu_test::unguarded_copy(pinned, out, 64, 0, 1, 64); });
  cudaFreeHost(pinned);
  cudaFree(in);
  cudaFree(out);
  cudaFree(guarded);
}

TEST_CASE("of several faulting blocks the first in start order is reported in any worker order",
          "[emu][instrument][bounds]") {
  const int n = 32, blocks = 16;
  float* in = device_array<float>(n, 1.0f);
  float* out = device_array<float>(n * blocks, 0.0f);
  // Block 0 faults last on several workers; in index order it is still the one reported.
  for (int round = 0; round < 3; ++round) {
    BlockSeed index_order(0);
    const std::string err = fault_of([&] { return emu_test::late_first_fault(in, out, n, blocks, 200000); });
    CHECK_THAT(err, ContainsSubstring("in block (0,0,0):"));
    CHECK_THAT(err, ContainsSubstring(at("late fault") + ", block (0,0,0), thread (0,0,0): it is just past the end"));
  }
  // In a scrambled order the block reported is the same for a seed, however the workers ran.
  for (const std::uint64_t seed : {5, 6}) {
    std::string first;
    for (int round = 0; round < 3; ++round) {
      BlockSeed scrambled(seed);
      std::string err = fault_of([&] { return emu_test::late_first_fault(in, out, n, blocks, 200000); });
      err = without_order_note(err);
      if (round == 0) first = err;
      CHECK(err == first);
    }
  }
  cudaFree(in);
  cudaFree(out);
}

TEST_CASE("an access to a guard zone past an array's logical extent names the array, its size and where it was made",
          "[emu][instrument][bounds]") {
  // as wb::DeviceBuffer lays it out: 16 guard elements, 40 floats, 16 guard elements
  const int n = 40, guard = 16;
  float* in = device_array<float>(n + 2 * guard, 1.0f);
  float* out = device_array<float>(n + 2 * guard, 0.0f);
  wb_emu::set_logical_extent(in + guard, n * sizeof(float), sizeof(float), "grade.cpp", 12);
  wb_emu::set_logical_extent(out + guard, n * sizeof(float), sizeof(float), "grade.cpp", 13);
  // the copy has no bounds check: thread 40 reads in[40], just past the end
  std::string err = fault_of([&] { return emu_test::unguarded_copy(in + guard, out + guard, n, 0, 1, 64); });
  CHECK_THAT(err, ContainsSubstring("kernel fault in unguarded_kernel"));
  CHECK_THAT(err, ContainsSubstring("read of 4 bytes outside its array at " + at("unguarded") +
                                    ", block (0,0,0), thread (40,0,0): it is just past the end of the 40-element "
                                    "array allocated at grade.cpp:12 (index 40; its indices are 0 to 39), in the "
                                    "grader's guard zone after it"));
  CHECK_THAT(err, ContainsSubstring("A GPU lets such an access read or overwrite whatever lies next to the array"));
  // one thread reading 3 elements further
  err = fault_of([&] { return emu_test::unguarded_copy(in + guard, out + guard, n, 43, 1, 1); });
  CHECK_THAT(err, ContainsSubstring("thread (0,0,0): it is 12 bytes past the end of the 40-element array allocated at "
                                    "grade.cpp:12 (index 43; its indices are 0 to 39)"));
  // before the start
  err = fault_of([&] { return emu_test::unguarded_copy(in + guard, out + guard, n, -2, 1, 32); });
  CHECK_THAT(err, ContainsSubstring("thread (0,0,0): it is 8 bytes before the start of the 40-element array allocated "
                                    "at grade.cpp:12 (index -2; its indices are 0 to 39), in the grader's guard zone "
                                    "before it"));
  // a write one past the end of out
  err = fault_of([&] { return emu_test::write_one_past(out + guard, n); });
  CHECK_THAT(err, ContainsSubstring("write of 4 bytes outside its array at " + at("one past") +
                                    ", block (0,0,0), thread (40,0,0): it is just past the end of the 40-element "
                                    "array allocated at grade.cpp:13 (index 40; its indices are 0 to 39)"));
  // inside the extent: no fault
  no_fault([&] { return emu_test::unguarded_copy(in + guard, out + guard, 32, 0, 1, 32); });
  // freed and allocated again: the extent is gone with the allocation
  cudaFree(in);
  in = device_array<float>(n + 2 * guard, 1.0f);
  no_fault([&] { return emu_test::unguarded_copy(in, out + guard, 32, 0, 1, 32); });
  cudaFree(in);
  cudaFree(out);
}

TEST_CASE("correct kernels raise no out-of-bounds fault", "[emu][instrument][bounds]") {
  const int n = 64;
  float* in = device_array<float>(n * n);
  for (int i = 0; i < n * n; ++i) in[i] = static_cast<float>(i);
  float* out = device_array<float>(n * n);
  no_fault([&] { return emu_test::transpose(in, out, n, true); });
  CHECK(out[5 * n + 7] == in[7 * n + 5]);
  no_fault([&] { return emu_test::reduce(in, out, 1000, 256, 0); });
  int* w = device_array<int>(64, -1);
  no_fault([&] { return emu_test::syncwarp_exchange(w); });
  float* copy = device_array<float>(128, 0.0f);
  no_fault([&] { return emu_test::unguarded_copy(in, copy, 128, 0, 2, 64); });
  cudaFree(in);
  cudaFree(out);
  cudaFree(w);
  cudaFree(copy);
}
