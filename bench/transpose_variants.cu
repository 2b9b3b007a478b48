// Developer benchmark (CUDA backend only): tile shapes for chapter 03's transpose, against a
// device-to-device copy of the same bytes.
//   build/gpu/bench/bench-transpose-variants (WB_BENCH_ROWS=<rows> WB_BENCH_COLS=<cols>, default 8192 x 8192; a Catch2 program on the graders' main)
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "wb/anchors.hpp"
#include "wb/buffer.hpp"
#include "wb/device.hpp"
#include "wb/grader.hpp"
#include "wb/timing.hpp"

namespace {

template <int kTile, int kRows>
__global__ void transpose_tiled(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ float tile[kTile][kTile + 1];
  int c = blockIdx.x * kTile + threadIdx.x;
#pragma unroll
  for (int dr = threadIdx.y; dr < kTile; dr += kRows) {
    const int r = blockIdx.y * kTile + dr;
    if (r < rows && c < cols) tile[dr][threadIdx.x] = in[static_cast<long long>(r) * cols + c];
  }
  __syncthreads();
  const int r = blockIdx.y * kTile + threadIdx.x;
#pragma unroll
  for (int dc = threadIdx.y; dc < kTile; dc += kRows) {
    c = blockIdx.x * kTile + dc;
    if (c < cols && r < rows) out[static_cast<long long>(c) * rows + r] = tile[threadIdx.x][dc];
  }
}

__global__ void transpose_naive(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  const int c = blockIdx.x * 32 + threadIdx.x;
  for (int dr = threadIdx.y; dr < 32; dr += 8) {
    const int r = blockIdx.y * 32 + dr;
    if (r < rows && c < cols) out[static_cast<long long>(c) * rows + r] = in[static_cast<long long>(r) * cols + c];
  }
}

template <int kTile, int kRows>
wb::Timed tiled(const float* in, float* out, int rows, int cols) {
  return {"tile " + std::to_string(kTile) + "x" + std::to_string(kTile + 1) + ", " + std::to_string(kTile) + "x" +
              std::to_string(kRows) + " threads",
          [=] {
            const dim3 grid((cols + kTile - 1) / kTile, (rows + kTile - 1) / kTile);
            transpose_tiled<kTile, kRows><<<grid, dim3(kTile, kRows)>>>(in, out, rows, cols);
          }};
}

}  // namespace

TEST_CASE("variants against the library", "[bench]") {
  WB_REQUIRE_GPU("a benchmark times a GPU");
  const char* env_rows = std::getenv("WB_BENCH_ROWS");
  const char* env_cols = std::getenv("WB_BENCH_COLS");
  const int rows = env_rows ? std::atoi(env_rows) : 8192, cols = env_cols ? std::atoi(env_cols) : 8192;
  const std::size_t n = std::size_t(rows) * cols;
  wb::DeviceBuffer<float> in(n), out(n), dst(n);
  WB_CUDA_CHECK(cudaMemset(in.data(), 0x3f, n * sizeof(float)));
  const std::vector<wb::Timed> v{
      {"naive (writes down columns)",
       [&] {
         transpose_naive<<<dim3((cols + 31) / 32, (rows + 31) / 32), dim3(32, 8)>>>(in.data(), out.data(), rows, cols);
       }},
      tiled<32, 8>(in.data(), out.data(), rows, cols),
      tiled<32, 16>(in.data(), out.data(), rows, cols),
      tiled<32, 32>(in.data(), out.data(), rows, cols),
      tiled<32, 4>(in.data(), out.data(), rows, cols),
      tiled<64, 8>(in.data(), out.data(), rows, cols),
      tiled<64, 16>(in.data(), out.data(), rows, cols),
      {"device-to-device copy", [&] { wb::anchors::device_copy(in.data(), dst.data(), std::int64_t(n)); }}};
  wb::TimingOptions o;
  o.budget_s = 20;
  o.max_samples = 60;
  const auto t = wb::time_interleaved(v, 8.0 * n, o);
  std::cout << wb::format_timings("transpose " + std::to_string(rows) + " x " + std::to_string(cols), t,
                                  "device-to-device copy");
}
