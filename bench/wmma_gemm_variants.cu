// Developer benchmark (CUDA backend only): tile shapes of exercise x12's WMMA GEMM (the solution's
// own kernel template) against cuBLAS's cublasGemmEx (half in, float accumulate), at 4096^3.
//   build/gpu/bench/bench-wmma-gemm-variants (WB_BENCH_SIZE=<M = N = K>; a Catch2 program on the graders' main)
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "../solutions/exercises/12-wmma-gemm/wmma_gemm.cu"
#include "wb/grader.hpp"
#include "wb/library_anchors.hpp"

namespace {

__global__ void fill_halves(__half* p, std::int64_t n, unsigned seed) {
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += std::int64_t(blockDim.x) * gridDim.x)
    p[i] = __float2half(float(int((std::uint64_t(i) * 2654435761u + seed) % 17) - 8) / 4);
}

template <int kBM, int kBN, int kBK, int kWarpsM, int kWarpsN>
wb::Timed variant(const __half* A, const __half* B, float* C, int n) {
  return {std::to_string(kBM) + "x" + std::to_string(kBN) + "x" + std::to_string(kBK) + ", " +
              std::to_string(kWarpsM) + "x" + std::to_string(kWarpsN) + " warps",
          [=] { solution::wmma_gemm_tiled<kBM, kBN, kBK, kWarpsM, kWarpsN>(A, B, C, n, n, n); }};
}

}  // namespace

TEST_CASE("tile shapes against cuBLAS", "[bench]") {
  WB_REQUIRE_GPU("a benchmark times a GPU");
  const char* env = std::getenv("WB_BENCH_SIZE");
  const int n = env ? std::atoi(env) : 4096;
  wb::DeviceBuffer<__half> a(std::size_t(n) * n), b(std::size_t(n) * n);
  wb::DeviceBuffer<float> c(std::size_t(n) * n);
  fill_halves<<<1024, 256>>>(a.data(), std::int64_t(n) * n, 1);
  WB_CUDA_CHECK(cudaGetLastError());
  fill_halves<<<1024, 256>>>(b.data(), std::int64_t(n) * n, 2);
  WB_CUDA_CHECK(cudaGetLastError());
  WB_CUDA_CHECK(cudaDeviceSynchronize());
  const __half *A = a.data(), *B = b.data();
  float* C = c.data();
  const std::vector<wb::Timed> v{
      variant<128, 128, 32, 2, 4>(A, B, C, n), variant<128, 128, 32, 4, 2>(A, B, C, n),
      variant<128, 64, 32, 2, 2>(A, B, C, n),  variant<64, 128, 32, 2, 2>(A, B, C, n),
      variant<64, 64, 32, 2, 2>(A, B, C, n),   variant<128, 128, 16, 2, 4>(A, B, C, n),
      variant<64, 64, 64, 2, 2>(A, B, C, n),
      {"cuBLAS cublasGemmEx", [=] { wb::anchors::cublas_gemm_f16_f32(n, n, n, A, B, C); }}};
  wb::TimingOptions o;
  o.budget_s = 20;
  o.max_samples = 60;
  const wb::Work work = wb::tensor_bound(2.0 * n * double(n) * n, 2.0 * 2 * double(n) * n + 4.0 * double(n) * n);
  const auto t = wb::time_interleaved(v, work.bytes, o);
  std::cout << wb::format_speed_table("C = A B, " + std::to_string(n) + "^3, half in, float out", t,
                                      "cuBLAS cublasGemmEx", work, wb::device_peaks(), wb::device_name());
}
