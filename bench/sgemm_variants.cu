// Developer benchmark (CUDA backend only): exercise x03's SGEMM designs against cuBLAS's
// cublasSgemm (fp32, no TF32), at 4096^3: the solution (128x128 tiles, 8x8 per thread), the
// accepted 64x64 variant (4x4 per thread), a 16x16 shared-memory tile with one output per thread
// (tiling without register blocking) and a thread per output straight from global memory: the
// figures behind the exercise's speed bar (x03's grade.cpp, kMinSpeed).
//   build/gpu/bench/bench-sgemm-variants (WB_BENCH_SIZE=<M = N = K>; a Catch2 program on the graders' main)
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "../solutions/exercises/03-sgemm/sgemm.cu"
#define student accepted_64x64
#include "../tests/accepted/exercises/03-sgemm/tiles_64x64.cu"
#undef student
#define student thread_per_output
#include "../tests/mutants/exercises/03-sgemm/thread_per_output.cu"
#undef student
#include "wb/grader.hpp"
#include "wb/library_anchors.hpp"

namespace {

// One output per thread, 16 x 16 tiles of A and B in shared memory (the textbook tiled kernel).
__global__ void sgemm_shared16(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M,
                               int N, int K) {
  __shared__ float a[16][16], b[16][17];
  const int tx = threadIdx.x, ty = threadIdx.y, i = blockIdx.y * 16 + ty, j = blockIdx.x * 16 + tx;
  float s = 0.0f;
  for (int k0 = 0; k0 < K; k0 += 16) {
    a[ty][tx] = i < M && k0 + tx < K ? A[(long long)i * K + k0 + tx] : 0.0f;
    b[ty][tx] = k0 + ty < K && j < N ? B[(long long)(k0 + ty) * N + j] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < 16; ++k) s += a[ty][k] * b[k][tx];
    __syncthreads();
  }
  if (i < M && j < N) C[(long long)i * N + j] = s;
}

__global__ void fill_ints(float* p, std::int64_t n, unsigned seed) {
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += std::int64_t(blockDim.x) * gridDim.x)
    p[i] = float(int((std::uint64_t(i) * 2654435761u + seed) % 13) - 4);
}

}  // namespace

TEST_CASE("SGEMM designs against cuBLAS", "[bench]") {
  WB_REQUIRE_GPU("a benchmark times a GPU");
  const char* env = std::getenv("WB_BENCH_SIZE");
  const int n = env ? std::atoi(env) : 4096;
  wb::DeviceBuffer<float> a(std::size_t(n) * n), b(std::size_t(n) * n), c(std::size_t(n) * n);
  fill_ints<<<1024, 256>>>(a.data(), std::int64_t(n) * n, 1);
  WB_CUDA_CHECK(cudaGetLastError());
  fill_ints<<<1024, 256>>>(b.data(), std::int64_t(n) * n, 2);
  WB_CUDA_CHECK(cudaGetLastError());
  WB_CUDA_CHECK(cudaDeviceSynchronize());
  const float *A = a.data(), *B = b.data();
  float* C = c.data();
  const std::vector<wb::Timed> v{
      {"solution (128x128, 8x8 per thread)", [=] { solution::sgemm(A, B, C, n, n, n); }},
      {"accepted 64x64, 4x4 per thread", [=] { accepted_64x64::sgemm(A, B, C, n, n, n); }},
      {"16x16 shared tiles, 1 per thread",
       [=] { sgemm_shared16<<<dim3((n + 15) / 16, (n + 15) / 16), dim3(16, 16)>>>(A, B, C, n, n, n); }},
      {"thread per output (no tiles)", [=] { thread_per_output::sgemm(A, B, C, n, n, n); }},
      {"cuBLAS sgemm", [=] { wb::anchors::cublas_sgemm(n, n, n, A, B, C); }}};
  wb::TimingOptions o;
  o.budget_s = 20;
  o.max_samples = 30;
  const wb::Work work = wb::fp32_bound(2.0 * n * double(n) * n, 3.0 * 4 * double(n) * n);
  const auto t = wb::time_interleaved(v, work.bytes, o);
  std::cout << wb::format_speed_table("C = A B, " + std::to_string(n) + "^3 floats", t,
                                      "solution (128x128, 8x8 per thread)", work, wb::device_peaks(), wb::device_name());
}
