// The CUDA that programs write beyond the chapters, on the CPU backend: cooperative groups, half
// and bfloat16, the vector types and intrinsics, and the runtime calls of tests/emu/compat*.hpp.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "compat.hpp"
#include "compat_half.hpp"
#include "compat_runtime.hpp"
#include "support.hpp"

// CUDA's numbers, as the CUDA Runtime API reference gives them.
static_assert(cudaErrorInvalidPitchValue == 12 && cudaErrorInvalidDeviceFunction == 98, "error numbers");
static_assert(cudaErrorUnsupportedLimit == 215 && cudaErrorHostMemoryAlreadyRegistered == 712, "error numbers");
static_assert(cudaErrorHostMemoryNotRegistered == 713 && cudaErrorCooperativeLaunchTooLarge == 720, "error numbers");
static_assert(cudaDevAttrMaxBlockDimY == 3 && cudaDevAttrMaxGridDimZ == 7 && cudaDevAttrClockRate == 13, "attributes");
static_assert(cudaDevAttrComputeMode == 20 && cudaDevAttrConcurrentKernels == 31, "attributes");
static_assert(cudaDevAttrMaxRegistersPerBlock == 12 && cudaDevAttrCooperativeLaunch == 95, "attributes");
static_assert(cudaDevAttrMaxSharedMemoryPerBlockOptin == 97 && cudaDevAttrManagedMemory == 83, "attributes");
static_assert(cudaLimitMallocHeapSize == 2 && cudaFuncAttributeMaxDynamicSharedMemorySize == 8, "limits");
static_assert(cudaStreamNonBlocking == 1 && cudaEventDisableTiming == 2 && cudaEventBlockingSync == 1, "flags");
static_assert(cudaMemoryTypeManaged == 3 && cudaComputeModeProhibited == 2, "enums");

namespace {


int worker_blocks() {
  int sms = 0;
  REQUIRE(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0) == cudaSuccess);
  return sms;
}

// ---- a reference for the 16-bit formats, independent of the backend's conversion ----
// The value of a half pattern, from the format's definition.
double half_value(std::uint16_t h) {
  const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  const double v = e == 0 ? std::ldexp(m, -24) : std::ldexp(1024 + m, e - 25);
  return (h & 0x8000) ? -v : v;
}
// The nearest finite half to a finite float, ties to the even pattern; 0x7c00 past the rounding edge.
std::uint16_t nearest_half(float f) {
  const double a = std::fabs(static_cast<double>(f));
  const std::uint16_t sign = std::signbit(f) ? 0x8000 : 0;
  if (a >= 65520.0) return sign | 0x7c00;  // the halfway point past 65504 rounds to the even: infinity
  std::uint16_t lo = 0, hi = 0x7bff;       // positive finite patterns are ordered as their values
  while (lo < hi) {
    const std::uint16_t mid = static_cast<std::uint16_t>((lo + hi + 1) / 2);
    if (half_value(mid) <= a) lo = mid; else hi = static_cast<std::uint16_t>(mid - 1);
  }
  std::uint16_t best = lo;
  if (lo < 0x7bff) {
    const double below = a - half_value(lo), above = half_value(static_cast<std::uint16_t>(lo + 1)) - a;
    if (above < below || (above == below && (lo & 1))) best = static_cast<std::uint16_t>(lo + 1);
  }
  return sign | best;
}
float float_of_bits(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
std::uint32_t bits_of(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

}  // namespace

// ---- cooperative groups ----
TEST_CASE("cg::reduce over tiles of 32 sums, mins, maxes and xors exactly, partial warps included", "[emu][cg]") {
  const int n = 100003;
  std::vector<int> host(n);
  std::mt19937 rng(7);
  for (int& v : host) v = static_cast<int>(rng() % 20001) - 10000;
  int* in = device_array<int>(n);
  std::copy(host.begin(), host.end(), in);
  long long expect_sum = 0;
  int expect_min = host[0], expect_max = host[0];
  unsigned expect_xor = 0;
  for (int v : host) {
    expect_sum += v;
    expect_min = std::min(expect_min, v);
    expect_max = std::max(expect_max, v);
    expect_xor ^= static_cast<unsigned>(v);
  }
  for (bool instrumented : {false, true}) {
    for (int threads : {100, 256, 33}) {
      CAPTURE(threads, instrumented);
      long long* sum = device_array<long long>(1, 0);
      int* mn = device_array<int>(1, std::numeric_limits<int>::max());
      int* mx = device_array<int>(1, std::numeric_limits<int>::min());
      unsigned* x = device_array<unsigned>(1, 0);
      const cudaError_t e = instrumented ? compat_instr::tile_reductions(in, n, threads, sum, mn, mx, x)
                                         : compat_plain::tile_reductions(in, n, threads, sum, mn, mx, x);
      REQUIRE(e == cudaSuccess);
      CHECK(*sum == expect_sum);
      CHECK(*mn == expect_min);
      CHECK(*mx == expect_max);
      CHECK(*x == expect_xor);
      cudaFree(sum);
      cudaFree(mn);
      cudaFree(mx);
      cudaFree(x);
    }
  }
  cudaFree(in);
}

TEST_CASE("a tile of 16 shuffles, votes and ranks as CUDA's thread_block_tile<16>, its last tile partial",
          "[emu][cg]") {
  const int threads = 40;  // tiles 0-15, 16-31 and 32-39 (8 threads)
  for (bool instrumented : {false, true}) {
    CAPTURE(instrumented);
    int* out = device_array<int>(12 * threads, -1);
    REQUIRE((instrumented ? compat_instr::tile16_facts(out, threads) : compat_plain::tile16_facts(out, threads)) ==
            cudaSuccess);
    auto v = [](int t) { return 100 * t + 7; };
    for (int t = 0; t < threads; ++t) {
      CAPTURE(t);
      const int rank = t % 16, base = t - rank, members = std::min(16, threads - base);
      auto exists = [&](int u) { return u >= base && u < base + members; };
      CHECK(out[0 * threads + t] == rank);
      CHECK(out[1 * threads + t] == t / 16);
      CHECK(out[2 * threads + t] == 3);
      CHECK(out[3 * threads + t] == v(base + 3));
      CHECK(out[4 * threads + t] == (rank + 1 < 16 && exists(t + 1) ? v(t + 1) : v(t)));
      CHECK(out[5 * threads + t] == (rank >= 2 ? v(t - 2) : v(t)));
      CHECK(out[6 * threads + t] == (exists(base + (rank ^ 5)) ? v(base + (rank ^ 5)) : v(t)));
      unsigned ballot = 0;
      for (int r = 0; r < members; ++r)
        if (r % 3 == 0) ballot |= 1u << r;
      CHECK(static_cast<unsigned>(out[7 * threads + t]) == ballot);
      CHECK(out[8 * threads + t] == (base == 16 ? 1 : 0));
      CHECK(out[9 * threads + t] == (base == 16 ? 0 : 1));
      CHECK(out[10 * threads + t] == 16);
      CHECK(out[11 * threads + t] == v(base + 1));
    }
    cudaFree(out);
  }
}

TEST_CASE("tiles of 1, 2, 4, 8, 16 and 32 threads each reduce over their own threads", "[emu][cg]") {
  for (int threads : {64, 50, 7}) {
    CAPTURE(threads);
    for (bool instrumented : {false, true}) {
      int* out = device_array<int>(2 * threads, -1);
      REQUIRE((instrumented ? compat_instr::tile_sizes(out, threads) : compat_plain::tile_sizes(out, threads)) ==
              cudaSuccess);
      for (int t = 0; t < threads; ++t) {
        CAPTURE(t, instrumented);
        auto expect = [&](int size) {
          const int m = std::min(size, threads - t / size * size);
          return m * (m + 1) / 2;
        };
        CHECK((out[2 * t] & 1023) == expect(1));
        CHECK((out[2 * t] >> 10 & 1023) == expect(2));
        CHECK((out[2 * t] >> 20 & 1023) == expect(4));
        CHECK((out[2 * t + 1] & 1023) == expect(8));
        CHECK((out[2 * t + 1] >> 10 & 1023) == expect(16));
        CHECK((out[2 * t + 1] >> 20 & 1023) == expect(32));
      }
      cudaFree(out);
    }
  }
}

TEST_CASE("cg::inclusive_scan and exclusive_scan over tiles of 8 match a host scan", "[emu][cg]") {
  const int threads = 45;
  for (bool instrumented : {false, true}) {
    CAPTURE(instrumented);
    int* inc = device_array<int>(threads, -1);
    int* exc = device_array<int>(threads, -1);
    REQUIRE((instrumented ? compat_instr::tile_scans(inc, exc, threads) : compat_plain::tile_scans(inc, exc, threads)) ==
            cudaSuccess);
    int running = 0;
    for (int t = 0; t < threads; ++t) {
      if (t % 8 == 0) running = 0;
      CHECK(exc[t] == running);
      running += t % 7 + 1;
      CHECK(inc[t] == running);
    }
    cudaFree(inc);
    cudaFree(exc);
  }
}

TEST_CASE("a thread_block of 3 dimensions ranks its threads x first and syncs as __syncthreads", "[emu][cg]") {
  const dim3 block(8, 4, 3);
  const int n = 96;
  for (bool instrumented : {false, true}) {
    int* out = device_array<int>(n, -1);
    int* ranks = device_array<int>(n, -1);
    REQUIRE((instrumented ? compat_instr::block_group(out, ranks, block) : compat_plain::block_group(out, ranks, block)) ==
            cudaSuccess);
    for (int r = 0; r < n; ++r) {
      CHECK(out[r] == 3 * (n - 1 - r));
      const int x = r % 8, y = r / 8 % 4, z = r / 32;
      CHECK(ranks[r] == (x + 10 * y + 100 * z) * 1000 + n);
    }
    cudaFree(out);
    cudaFree(ranks);
  }
}

TEST_CASE("match_any gives the ranks of the tile's threads with the same value", "[emu][cg]") {
  const int threads = 64;
  unsigned* out = device_array<unsigned>(threads, 0);
  REQUIRE(compat_plain::tile_match(out, threads) == cudaSuccess);
  for (int t = 0; t < threads; ++t) {
    unsigned expect = 0;
    for (int r = 0; r < 32; ++r)
      if ((t / 32 * 32 + r) / 3 % 4 == t / 3 % 4) expect |= 1u << r;
    CHECK(out[t] == expect);
  }
  cudaFree(out);
}

TEST_CASE("cg::memcpy_async and cg::wait stage a block's data in shared memory", "[emu][cg]") {
  const int n = 257, blocks = 3;
  float* in = device_array<float>(n * blocks);
  float* out = device_array<float>(n * blocks, -1.0f);
  for (int i = 0; i < n * blocks; ++i) in[i] = 0.5f * i;
  REQUIRE(compat_plain::block_memcpy_async(in, out, n, blocks, 96) == cudaSuccess);
  for (int b = 0; b < blocks; ++b)
    for (int i = 0; i < n; ++i) CHECK(out[b * n + i] == in[b * n + n - 1 - i]);
  cudaFree(in);
  cudaFree(out);
}

TEST_CASE("this_grid() ranks threads across blocks, and is not valid outside a cooperative launch", "[emu][cg]") {
  const int blocks = 3, threads = 50;
  auto* out = device_array<unsigned long long>(3 * blocks * threads, 7);
  REQUIRE(compat_plain::grid_facts(out, blocks, threads) == cudaSuccess);
  for (int r = 0; r < blocks * threads; ++r) {
    CHECK(out[3 * r] == static_cast<unsigned long long>(r));
    CHECK(out[3 * r + 1] == static_cast<unsigned long long>(blocks * threads));
    CHECK(out[3 * r + 2] == 0);
  }
  cudaFree(out);
}

TEST_CASE("grid.sync() in a cooperative launch orders every block's writes before any block's reads", "[emu][cg]") {
  const int blocks = std::min(4, worker_blocks()), threads = 64, n = blocks * threads;
  CAPTURE(blocks);
  int* a = device_array<int>(n, -1);
  int* b = device_array<int>(n, -1);
  REQUIRE(compat_plain::grid_exchange(a, b, blocks, threads) == cudaSuccess);
  for (int i = 0; i < n; ++i) {
    CHECK(b[i] == 5 * ((i + threads) % n) + 1);
    CHECK(a[i] == 5 * (((i + 1) % n + threads) % n) + 1);
  }
  cudaFree(a);
  cudaFree(b);
}

TEST_CASE("a cooperative grid larger than the blocks that can run at once is refused as CUDA refuses it",
          "[emu][cg]") {
  int* a = device_array<int>(64 * 64, 0);
  int* b = device_array<int>(64 * 64, 0);
  cudaError_t e = cudaSuccess;
  const std::string err = capture_stderr([&] { e = compat_plain::grid_exchange(a, b, worker_blocks() + 1, 64); });
  CHECK(e == cudaErrorCooperativeLaunchTooLarge);
  CHECK(cudaGetLastError() == cudaErrorCooperativeLaunchTooLarge);
  CHECK(cudaGetLastError() == cudaSuccess);
  CHECK_THAT(err, Catch::Matchers::ContainsSubstring("cannot run all at once on the CPU backend"));
  cudaFree(a);
  cudaFree(b);
}

TEST_CASE("grid.sync() in a <<<>>> launch is a fault that says to launch cooperatively", "[emu][cg]") {
  cudaError_t e = cudaSuccess;
  const std::string err = capture_stderr([&] { e = compat_plain::grid_sync_in_plain_launch(); });
  CHECK(e == cudaErrorLaunchFailure);
  const std::string at = "coop_groups.cu:" + std::to_string(line_of("coop_groups.cu", "// grid sync plain"));
  CHECK_THAT(err, Catch::Matchers::ContainsSubstring("grid_group::sync() at "));
  CHECK_THAT(err, Catch::Matchers::ContainsSubstring(at + " is not supported on the CPU backend in a kernel launched with <<<...>>>"));
  CHECK_THAT(err, Catch::Matchers::ContainsSubstring("cudaLaunchCooperativeKernel"));
  cudaDeviceReset();
}

TEST_CASE("a block that ends without reaching grid.sync() is a fault, not a hang", "[emu][cg]") {
  if (worker_blocks() < 2) SKIP("one worker thread: a cooperative grid has one block");
  cudaError_t e = cudaSuccess;
  const std::string err = capture_stderr([&] { e = compat_plain::grid_sync_block_exits(2); });
  CHECK(e == cudaErrorLaunchFailure);
  const std::string at = "coop_groups.cu:" + std::to_string(line_of("coop_groups.cu", "// grid sync exit"));
  CHECK_THAT(err, Catch::Matchers::ContainsSubstring(at + ": block (0,0,0) has ended without reaching it"));
  cudaDeviceReset();
}

TEST_CASE("cudaLaunchKernel passes its argument array to the kernel", "[emu][cg]") {
  const int n = 100;
  int* out = device_array<int>(n, -1);
  REQUIRE(compat_plain::launch_kernel_api(out, n) == cudaSuccess);
  for (int i = 0; i < n; ++i) CHECK(out[i] == 3 * i);
  // It returns its own launch's result and leaves an earlier error for cudaGetLastError, as CUDA does.
  REQUIRE(cudaSetDevice(5) == cudaErrorInvalidDevice);
  CHECK(compat_plain::launch_kernel_api(out, n) == cudaSuccess);
  CHECK(cudaGetLastError() == cudaErrorInvalidDevice);
  CHECK(cudaGetLastError() == cudaSuccess);
  CHECK(compat_plain::launch_kernel_api(out, 0) == cudaErrorInvalidValue);  // a grid of 0 blocks
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
  cudaFree(out);
}

// ---- half and bfloat16 ----
TEST_CASE("float to half rounds to nearest even, subnormals, halfway cases, infinities and NaN included",
          "[emu][half]") {
  // Exact halfway cases first: 1 + 2^-11 lies between 1 and its successor (even: 1), 1 + 3 * 2^-11
  // between 0x3c01 and 0x3c02 (even: 0x3c02), 2^-25 halfway to the least subnormal (0), 3 * 2^-25
  // halfway between subnormals 1 and 2 (2), 65520 halfway past the largest finite half (infinity).
  CHECK(__float2half(1.00048828125f).__x == 0x3c00);
  CHECK(__float2half(1.00146484375f).__x == 0x3c02);
  CHECK(__float2half(std::ldexp(1.0f, -25)).__x == 0x0000);
  CHECK(__float2half(std::ldexp(3.0f, -25)).__x == 0x0002);
  CHECK(__float2half(65520.0f).__x == 0x7c00);
  CHECK(__float2half(65519.99f).__x == 0x7bff);
  CHECK(__float2half(-0.0f).__x == 0x8000);
  CHECK(__float2half(std::numeric_limits<float>::infinity()).__x == 0x7c00);
  CHECK(__float2half(-std::numeric_limits<float>::infinity()).__x == 0xfc00);
  CHECK(std::isnan(__half2float(__float2half(std::nanf("")))));
  CHECK(std::isinf(__half2float(__ushort_as_half(0xfc00))));
  CHECK(std::signbit(__half2float(__ushort_as_half(0x8000))));
  // Every half pattern converts to float and back unchanged (NaNs stay NaNs).
  for (unsigned h = 0; h < 0x10000; ++h) {
    const __half x = __ushort_as_half(static_cast<unsigned short>(h));
    const float f = __half2float(x);
    if (std::isnan(f)) {
      CHECK((h & 0x7c00) == 0x7c00);
      continue;
    }
    if (__half_as_ushort(__float2half(f)) != h) FAIL("half 0x" << std::hex << h << " does not round-trip");
    const bool inf = (h & 0x7fff) == 0x7c00;
    if (inf ? !std::isinf(f) : f != static_cast<float>(half_value(static_cast<std::uint16_t>(h))))
      FAIL("half 0x" << std::hex << h << " has the wrong value");
  }
  // Random floats over the half range, subnormals included, against the reference.
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> exponent(-27.0f, 16.5f);
  for (int i = 0; i < 20000; ++i) {
    const float f = std::exp2(exponent(rng)) * ((rng() & 1) ? -1.0f : 1.0f);
    const std::uint16_t got = __float2half_rn(f).__x, want = nearest_half(f);
    if (got != want) FAIL(f << ": 0x" << std::hex << got << " instead of 0x" << want);
  }
}

TEST_CASE("float to bfloat16 rounds to nearest even, NaN, infinities and -0 included", "[emu][half]") {
  CHECK(__float2bfloat16(float_of_bits(0x3f808000u)).__x == 0x3f80);  // halfway, even below
  CHECK(__float2bfloat16(float_of_bits(0x3f818000u)).__x == 0x3f82);  // halfway, even above
  CHECK(__float2bfloat16(float_of_bits(0x3f808001u)).__x == 0x3f81);  // past halfway
  CHECK(__float2bfloat16(float_of_bits(0x3f80ffffu)).__x == 0x3f81);
  CHECK(__float2bfloat16(float_of_bits(0x00018000u)).__x == 0x0002);  // a float subnormal, halfway
  CHECK(__float2bfloat16(float_of_bits(0x7f7fffffu)).__x == 0x7f80);  // the largest float rounds to infinity
  CHECK(__float2bfloat16(float_of_bits(0x7f7f7fffu)).__x == 0x7f7f);
  CHECK(__float2bfloat16(-0.0f).__x == 0x8000);
  CHECK(__float2bfloat16(-std::numeric_limits<float>::infinity()).__x == 0xff80);
  CHECK(std::isnan(__bfloat162float(__float2bfloat16(std::nanf("")))));
  CHECK(__float2bfloat16_rz(float_of_bits(0x3f80ffffu)).__x == 0x3f80);
  // Every bfloat16 is the upper half of a float: each converts exactly, and back.
  for (unsigned h = 0; h < 0x10000; ++h) {
    const float f = __bfloat162float(__ushort_as_bfloat16(static_cast<unsigned short>(h)));
    if (bits_of(f) != h << 16) FAIL("bfloat16 0x" << std::hex << h << " converts to the wrong float");
    if (!std::isnan(f) && __float2bfloat16(f).__x != h) FAIL("bfloat16 0x" << std::hex << h << " does not round-trip");
  }
  // Random floats: the nearer of the two bfloat16 neighbours, ties to the even one.
  std::mt19937 rng(5);
  for (int i = 0; i < 20000; ++i) {
    const std::uint32_t b = rng() & 0x7f7fffffu;
    const float f = float_of_bits(b);
    const std::uint16_t lo = static_cast<std::uint16_t>(b >> 16);
    const double below = double(f) - double(float_of_bits(std::uint32_t(lo) << 16));
    const double above = double(float_of_bits(std::uint32_t(lo + 1) << 16)) - double(f);
    const std::uint16_t want = (above < below || (above == below && (lo & 1))) ? std::uint16_t(lo + 1) : lo;
    if (__float2bfloat16_rn(f).__x != want) FAIL(f << ": 0x" << std::hex << __float2bfloat16_rn(f).__x << " instead of 0x" << want);
  }
}

TEST_CASE("half and bfloat16 arithmetic in a kernel rounds each result once", "[emu][half]") {
  const int n = 200;
  for (bool instrumented : {false, true}) {
    CAPTURE(instrumented);
    auto* a = device_array<__half>(n);
    auto* b = device_array<__half>(n);
    for (int i = 0; i < n; ++i) {
      a[i] = __float2half(1.0f + i * 0.001953125f);       // 1 + i * 2^-9: exact halves
      b[i] = __float2half(0.75f - (i % 13) * 0.0625f);
    }
    auto* sum = device_array<__half>(n);
    auto* fma_out = device_array<__half>(n);
    auto* pair = device_array<__half2>(n);
    auto* bsum = device_array<__nv_bfloat16>(n);
    auto* back = device_array<float>(n);
    REQUIRE((instrumented ? compat_instr::half_math(a, b, sum, fma_out, pair, bsum, back, n)
                          : compat_plain::half_math(a, b, sum, fma_out, pair, bsum, back, n)) == cudaSuccess);
    for (int i = 0; i < n; ++i) {
      CAPTURE(i);
      const float fa = __half2float(a[i]), fb = __half2float(b[i]);
      CHECK(sum[i].__x == nearest_half(fa + fb));  // the float sum of two halves is exact
      CHECK(fma_out[i].__x == nearest_half(static_cast<float>(double(fa) * double(fb) + 0.5)));
      CHECK(__low2float(pair[i]) == 2 * fa);
      CHECK(__high2float(pair[i]) == 2 * fb);
      // bfloat16 keeps 8 bits: a rounds to a multiple of 2^-7 (error up to 2^-8), the sum near 2 to
      // one of 2^-6 (up to 2^-7 more)
      const float bf = __bfloat162float(bsum[i]);
      CHECK(std::fabs(bf - (fa + 1.0f)) <= 3 * std::ldexp(1.0f, -8));
      CHECK(bits_of(bf) == bits_of(__bfloat162float(__float2bfloat16(__bfloat162float(__float2bfloat16(fa)) + 1.0f))));
      CHECK(back[i] == 2 * fa - 2 * fb + (fa != fb ? 1000.0f : 0.0f));
    }
    for (void* p : {static_cast<void*>(a), static_cast<void*>(b), static_cast<void*>(sum), static_cast<void*>(fma_out),
                    static_cast<void*>(pair), static_cast<void*>(bsum), static_cast<void*>(back)})
      cudaFree(p);
  }
}

TEST_CASE("warp shuffles move halves, half pairs and bfloat16s, and cg::reduce sums halves", "[emu][half]") {
  const int threads = 64;
  for (bool instrumented : {false, true}) {
    CAPTURE(instrumented);
    auto* out_h = device_array<__half>(threads);
    auto* out_h2 = device_array<__half2>(threads);
    auto* out_b = device_array<__nv_bfloat16>(threads);
    auto* warp_sum = device_array<float>(2, -1.0f);
    REQUIRE((instrumented ? compat_instr::half_shuffles(out_h, out_h2, out_b, warp_sum, threads)
                          : compat_plain::half_shuffles(out_h, out_h2, out_b, warp_sum, threads)) == cudaSuccess);
    for (int t = 0; t < threads; ++t) {
      CAPTURE(t);
      CHECK(__half2float(out_h[t]) == static_cast<float>(t ^ 1));
      const int src = t % 32 + 3 < 32 ? t + 3 : t;
      CHECK(__half2float(out_h2[t].x) == static_cast<float>(src));
      CHECK(__half2float(out_h2[t].y) == -0.5f * src);
      CHECK(__bfloat162float(out_b[t]) == 1.5f * (t / 32 * 32 + 7));
    }
    // 0.25 * (0 + ... + 31) = 124 and 0.25 * (32 + ... + 63) = 380: exact in half at every step
    CHECK(warp_sum[0] == 124.0f);
    CHECK(warp_sum[1] == 380.0f);
    for (void* p : {static_cast<void*>(out_h), static_cast<void*>(out_h2), static_cast<void*>(out_b),
                    static_cast<void*>(warp_sum)})
      cudaFree(p);
  }
}

TEST_CASE("half operators compare and combine as CUDA's, __hmax and __hmin skip a NaN", "[emu][half]") {
  const __half one = 1.0f, two = __float2half(2.0f), nan = __ushort_as_half(0x7fff);
  CHECK(one < two);
  CHECK(two >= one);
  CHECK(!(nan == nan));
  CHECK(nan != nan);
  CHECK(__half2float(__hmax(one, nan)) == 1.0f);
  CHECK(__half2float(__hmin(nan, two)) == 2.0f);
  CHECK(__half2float(-two) == -2.0f);
  CHECK(__half2float(__habs(-two)) == 2.0f);
  CHECK(__half2float(hsqrt(__float2half(4.0f))) == 2.0f);
  CHECK(__hisinf(__float2half(1e6f)) == 1);
  CHECK(__hisnan(nan));
  __half x = one;
  x += two;
  x *= two;
  CHECK(__half2float(x) == 6.0f);
  CHECK(__half2float(__hadd_sat(two, two)) == 1.0f);
  const __half2 p = __floats2half2_rn(1.0f, -3.0f);
  CHECK(__half2float(__low2half(p)) == 1.0f);
  CHECK(__half2float(__high2half(__lowhigh2highlow(p))) == 1.0f);
  const __nv_bfloat162 q = __floats2bfloat162_rn(0.5f, 8.0f);
  const float2 qf = __bfloat1622float2(__hmul2(q, q));
  CHECK(qf.x == 0.25f);
  CHECK(qf.y == 64.0f);
}

// ---- vector types and intrinsics ----
TEST_CASE("vector types load, build and sum in a kernel as CUDA's", "[emu][vector]") {
  const int n = 37;
  auto* f = device_array<float4>(n);
  auto* i4 = device_array<int4>(n);
  auto* d = device_array<double2>(n);
  auto* u = device_array<uchar4>(n);
  auto* s = device_array<short2>(n);
  auto* ll = device_array<longlong2>(n);
  auto* out = device_array<compat_plain::VectorSums>(n);
  for (int i = 0; i < n; ++i) {
    f[i] = make_float4(i, 0.5f, -1.0f, 2.0f);
    i4[i] = make_int4(i, -2 * i, 3, 4);
    d[i] = make_double2(0.25 * i, 1e10);
    u[i] = make_uchar4(static_cast<unsigned char>(200 + i), 1, 2, 3);
    s[i] = make_short2(static_cast<short>(-300 * i), 7);
    ll[i] = make_longlong2(1LL << 40, -i);
  }
  REQUIRE(compat_plain::vector_sums(f, i4, d, u, s, ll, out, n) == cudaSuccess);
  for (int i = 0; i < n; ++i) {
    CAPTURE(i);
    CHECK(out[i].f4 == i + 1.5f);
    CHECK(out[i].i4 == 7 - i);
    CHECK(out[i].d2 == 0.25 * i + 1e10);
    CHECK(out[i].u4 == static_cast<unsigned>(200 + i + 6));
    CHECK(out[i].s2 == -300 * i + 7);
    CHECK(out[i].ll2 == (1LL << 40) - i);
  }
  for (void* p : {static_cast<void*>(f), static_cast<void*>(i4), static_cast<void*>(d), static_cast<void*>(u),
                  static_cast<void*>(s), static_cast<void*>(ll), static_cast<void*>(out)})
    cudaFree(p);
}

TEST_CASE("integer, rounding and math intrinsics give CUDA's documented results", "[emu][intrinsics]") {
  auto* out = device_array<unsigned long long>(30, 0xdeadULL);
  REQUIRE(compat_plain::intrinsics(out) == cudaSuccess);
  const unsigned long long expect[30] = {
      static_cast<unsigned long long>(-15LL), 3, 2, 0xfffffffeULL, 8, 9, 0x44332211ULL, 0x55667788ULL, 0x23456789ULL,
      0x6789abcdULL, 0x89abcdefULL, 0x23456789ULL, 63, 9, 16, 0x8000000000000000ULL, 2,
      static_cast<unsigned long long>(-4LL), 0x3ff0000000000000ULL, 0x40400000ULL, 0xffffffffULL, 2, 1, 0x3fb504f3ULL,
      1, 0x3dcccccdULL, 0x4b800000ULL, 1, 1, 1};
  for (int k = 0; k < 30; ++k) {
    CAPTURE(k);
    CHECK(out[k] == expect[k]);
  }
  cudaFree(out);
}

TEST_CASE("__trap() in a kernel is a fault naming its line", "[emu][intrinsics]") {
  cudaError_t e = cudaSuccess;
  const std::string err = capture_stderr([&] { e = compat_plain::trap_in_kernel(); });
  CHECK(e == cudaErrorLaunchFailure);
  const std::string at = "vector_intrinsics.cu:" + std::to_string(line_of("vector_intrinsics.cu", "// trap here"));
  CHECK_THAT(err, Catch::Matchers::ContainsSubstring("__trap() at "));
  CHECK_THAT(err, Catch::Matchers::ContainsSubstring(at + ": the kernel stopped itself"));
  cudaDeviceReset();
}

// ---- runtime calls ----
TEST_CASE("streams with flags, events with flags, cudaStreamWaitEvent and cudaEventQuery follow CUDA's rules",
          "[emu][runtime]") {
  const int n = 300;
  int* a = device_array<int>(n, 0);
  int* b = device_array<int>(n, 0);
  const compat_plain::StreamEventResult r = compat_plain::streams_and_events(a, b, n);
  REQUIRE(r.create == cudaSuccess);
  CHECK(r.query_before_record == cudaSuccess);  // an event never recorded stands for no work
  CHECK(r.record == cudaSuccess);
  CHECK(r.wait == cudaSuccess);
  CHECK(r.launch == cudaSuccess);
  CHECK(r.query_after_record == cudaSuccess);
  CHECK(r.sync == cudaSuccess);
  CHECK(r.elapsed == cudaSuccess);
  CHECK(r.elapsed_ms >= 0.0f);
  CHECK(r.elapsed_no_timing == cudaErrorInvalidResourceHandle);
  CHECK(r.producer_flags == cudaStreamNonBlocking);
  CHECK(r.use_destroyed_stream == cudaErrorInvalidResourceHandle);
  CHECK(r.use_destroyed_event == cudaErrorInvalidResourceHandle);
  CHECK(r.destroy_twice == cudaErrorInvalidResourceHandle);
  CHECK(r.last_error == cudaErrorInvalidResourceHandle);
  for (int i = 0; i < n; ++i) CHECK(b[i] == 41 + i);
  cudaStream_t s = nullptr;
  CHECK(cudaStreamCreateWithFlags(&s, 4) == cudaErrorInvalidValue);
  cudaEvent_t e = nullptr;
  CHECK(cudaEventCreateWithFlags(&e, cudaEventInterprocess) == cudaErrorInvalidValue);  // needs DisableTiming
  CHECK(cudaEventQuery(nullptr) == cudaErrorInvalidResourceHandle);
  int least = 9, greatest = 9;
  CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest) == cudaSuccess);
  CHECK(least >= greatest);
  cudaGetLastError();
  cudaFree(a);
  cudaFree(b);
}

TEST_CASE("cudaMallocPitch, cudaMemset2D and cudaMemcpy2D copy rows apart from their padding", "[emu][runtime]") {
  const int width = 37, height = 5;
  const std::size_t out_pitch = 50 * sizeof(int);
  std::vector<int> in(width * height), out(50 * height, -7);
  for (int i = 0; i < width * height; ++i) in[i] = i;
  std::size_t pitch = 0;
  REQUIRE(compat_plain::pitched_roundtrip(in.data(), out.data(), width, height, out_pitch, &pitch) == cudaSuccess);
  CHECK(pitch >= width * sizeof(int));
  CHECK(pitch % 512 == 0);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < 50; ++x) {
      CAPTURE(x, y);
      CHECK(out[y * 50 + x] == (x < width ? y * width + x + 1000 * y : -7));
    }
  int* d = nullptr;
  REQUIRE(cudaMalloc(&d, 1024) == cudaSuccess);
  CHECK(cudaMemcpy2D(d, 16, in.data(), 64, 32, 2, cudaMemcpyHostToDevice) == cudaErrorInvalidPitchValue);
  CHECK(cudaMemcpy2D(d, 64, in.data(), 64, 32, 100, cudaMemcpyHostToDevice) == cudaErrorInvalidValue);  // past the end
  CHECK(cudaMemset2D(d, 64, 0, 32, 16) == cudaSuccess);
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
  cudaFree(d);
}

TEST_CASE("managed, asynchronous and registered memory is memory a kernel can use", "[emu][runtime]") {
  const int n = 70;
  float* managed = nullptr;
  REQUIRE(cudaMallocManaged(&managed, n * sizeof(float)) == cudaSuccess);
  for (int i = 0; i < n; ++i) managed[i] = static_cast<float>(i);
  REQUIRE(compat_plain::square_in_place(managed, n) == cudaSuccess);
  for (int i = 0; i < n; ++i) CHECK(managed[i] == static_cast<float>(i * i));
  cudaPointerAttributes attr{};
  REQUIRE(cudaPointerGetAttributes(&attr, managed + 5) == cudaSuccess);
  CHECK(attr.type == cudaMemoryTypeManaged);
  CHECK(cudaMemPrefetchAsync(managed, n * sizeof(float), 0) == cudaSuccess);
  CHECK(cudaFree(managed) == cudaSuccess);

  cudaStream_t s = nullptr;
  REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
  float* async = nullptr;
  REQUIRE(cudaMallocAsync(&async, n * sizeof(float), s) == cudaSuccess);
  REQUIRE(cudaMemsetAsync(async, 0, n * sizeof(float), s) == cudaSuccess);
  REQUIRE(cudaPointerGetAttributes(&attr, async) == cudaSuccess);
  CHECK(attr.type == cudaMemoryTypeDevice);
  CHECK(cudaFreeAsync(async, s) == cudaSuccess);
  cudaStreamDestroy(s);
  CHECK(cudaMallocAsync(&async, 16, s) == cudaErrorInvalidResourceHandle);  // a destroyed stream

  std::vector<float> host(n, 3.0f);
  REQUIRE(cudaHostRegister(host.data(), n * sizeof(float), cudaHostRegisterDefault) == cudaSuccess);
  CHECK(cudaHostRegister(host.data() + 1, 4, cudaHostRegisterDefault) == cudaErrorHostMemoryAlreadyRegistered);
  REQUIRE(cudaPointerGetAttributes(&attr, host.data()) == cudaSuccess);
  CHECK(attr.type == cudaMemoryTypeHost);
  float* device_view = nullptr;
  REQUIRE(cudaHostGetDevicePointer(&device_view, host.data(), 0) == cudaSuccess);
  REQUIRE(compat_plain::square_in_place(device_view, n) == cudaSuccess);
  CHECK(host[n - 1] == 9.0f);
  CHECK(cudaHostUnregister(host.data()) == cudaSuccess);
  CHECK(cudaHostUnregister(host.data()) == cudaErrorHostMemoryNotRegistered);
  REQUIRE(cudaPointerGetAttributes(&attr, host.data()) == cudaSuccess);
  CHECK(attr.type == cudaMemoryTypeUnregistered);

  float* pinned = nullptr;
  REQUIRE(cudaHostAlloc(&pinned, n * sizeof(float), cudaHostAllocMapped) == cudaSuccess);
  CHECK(cudaHostAlloc(&pinned, 4, 64) == cudaErrorInvalidValue);
  cudaFreeHost(pinned);
  cudaGetLastError();
}

TEST_CASE("kernel attributes accept what a GPU accepts and refuse dynamic shared memory past the opt-in limit",
          "[emu][runtime]") {
  float* out = device_array<float>(256, -1.0f);
  const compat_plain::KernelAttributeResult r = compat_plain::kernel_attributes(out);
  CHECK(r.set_max == cudaSuccess);
  CHECK(r.set_past_optin == cudaErrorInvalidValue);
  CHECK(r.after_past_optin == cudaErrorInvalidValue);
  CHECK(r.cache == cudaSuccess);
  CHECK(r.get == cudaSuccess);
  CHECK(r.max_threads == 1024);
  REQUIRE(r.launch == cudaSuccess);
  for (int t = 0; t < 256; ++t) CHECK(out[t] == static_cast<float>(255 - t));
  int optin = 0;
  REQUIRE(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0) == cudaSuccess);
  CHECK(optin == 48 * 1024);
  cudaFree(out);
}

TEST_CASE("device attributes, properties, limits, flags and versions answer as the backend behaves",
          "[emu][runtime]") {
  cudaDeviceProp p{};
  REQUIRE(cudaGetDeviceProperties(&p, 0) == cudaSuccess);
  int v = -1;
  REQUIRE(cudaDeviceGetAttribute(&v, cudaDevAttrComputeMode, 0) == cudaSuccess);
  CHECK(v == cudaComputeModeDefault);
  CHECK(v == p.computeMode);
  REQUIRE(cudaDeviceGetAttribute(&v, cudaDevAttrMaxBlockDimY, 0) == cudaSuccess);
  CHECK(v == 1024);
  REQUIRE(cudaDeviceGetAttribute(&v, cudaDevAttrMaxBlockDimZ, 0) == cudaSuccess);
  CHECK(v == 64);
  REQUIRE(cudaDeviceGetAttribute(&v, cudaDevAttrMaxGridDimY, 0) == cudaSuccess);
  CHECK(v == 65535);
  REQUIRE(cudaDeviceGetAttribute(&v, cudaDevAttrClockRate, 0) == cudaSuccess);
  CHECK(v == p.clockRate);
  CHECK(v > 0);
  REQUIRE(cudaDeviceGetAttribute(&v, cudaDevAttrMaxRegistersPerBlock, 0) == cudaSuccess);
  CHECK(v == p.regsPerBlock);
  REQUIRE(cudaDeviceGetAttribute(&v, cudaDevAttrConcurrentKernels, 0) == cudaSuccess);
  CHECK(v == 0);  // launches run one at a time
  REQUIRE(cudaDeviceGetAttribute(&v, cudaDevAttrCooperativeLaunch, 0) == cudaSuccess);
  CHECK(v == 1);
  CHECK(p.managedMemory == 1);
  CHECK(p.unifiedAddressing == 1);
  CHECK(p.totalConstMem == 64 * 1024);
  CHECK(p.sharedMemPerBlockOptin == 48 * 1024);

  std::size_t stack = 0;
  REQUIRE(cudaDeviceGetLimit(&stack, cudaLimitStackSize) == cudaSuccess);
  CHECK(stack == 256 * 1024);
  CHECK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 64 << 20) == cudaSuccess);
  std::size_t heap = 0;
  REQUIRE(cudaDeviceGetLimit(&heap, cudaLimitMallocHeapSize) == cudaSuccess);
  CHECK(heap == std::size_t(64) << 20);
  CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimeSyncDepth, 4) == cudaErrorUnsupportedLimit);
  CHECK(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync | cudaDeviceMapHost) == cudaSuccess);
  unsigned flags = 0;
  REQUIRE(cudaGetDeviceFlags(&flags) == cudaSuccess);
  CHECK(flags == (cudaDeviceScheduleBlockingSync | cudaDeviceMapHost));
  CHECK(cudaSetDeviceFlags(cudaDeviceScheduleSpin | cudaDeviceScheduleYield) == cudaErrorInvalidValue);
  CHECK(cudaSetDeviceFlags(0) == cudaSuccess);
  CHECK(cudaDeviceSetCacheConfig(cudaFuncCachePreferL1) == cudaSuccess);
  int driver = 0, runtime = 0;
  REQUIRE(cudaDriverGetVersion(&driver) == cudaSuccess);
  REQUIRE(cudaRuntimeGetVersion(&runtime) == cudaSuccess);
  CHECK(runtime == CUDART_VERSION);
  CHECK(driver >= runtime);
  int can = 1;
  REQUIRE(cudaDeviceCanAccessPeer(&can, 0, 0) == cudaSuccess);
  CHECK(can == 0);
  CHECK(cudaDeviceCanAccessPeer(&can, 0, 1) == cudaErrorInvalidDevice);
  CHECK(cudaProfilerStart() == cudaSuccess);
  CHECK(cudaProfilerStop() == cudaSuccess);
  CHECK(std::string(cudaGetErrorName(cudaErrorCooperativeLaunchTooLarge)) == "cudaErrorCooperativeLaunchTooLarge");
  CHECK(std::string(cudaGetErrorString(cudaErrorInvalidPitchValue)) == "invalid pitch argument");
  cudaGetLastError();
}
