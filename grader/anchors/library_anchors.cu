// The exercises' CUB and cuBLAS anchors (CUDA backend): see wb/library_anchors.hpp.
#include "wb/library_anchors.hpp"

#include <cublas_v2.h>
#include <cuda_fp16.h>

#include <cstddef>
#include <stdexcept>
#include <string>

#include <cub/device/device_histogram.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include "wb/cuda_check.hpp"

namespace wb::anchors {
namespace {

// Temporary storage for one CUB algorithm, grown when a call needs more and kept.
struct Scratch {
  void* ptr = nullptr;
  std::size_t bytes = 0;
  void* at_least(std::size_t need) {
    if (need > bytes) {
      WB_CUDA_CHECK(cudaFree(ptr));
      WB_CUDA_CHECK(cudaMalloc(&ptr, need));
      bytes = need;
    }
    return ptr;
  }
};

void cublas_check(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string("cuBLAS: ") + what + " failed with status " + std::to_string(int(status)));
}

}  // namespace

void cub_inclusive_sum(const float* in, float* out, std::int64_t n) {
  static Scratch scratch;
  std::size_t need = 0;
  WB_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, need, in, out, n));
  WB_CUDA_CHECK(cub::DeviceScan::InclusiveSum(scratch.at_least(need), need, in, out, n));
}

void cub_histogram_bytes(const std::uint8_t* in, std::int64_t n, unsigned int* hist) {
  static Scratch scratch;
  std::size_t need = 0;
  // 257 levels 0, 1, ..., 256: bin b holds the samples in [b, b + 1)
  WB_CUDA_CHECK(cub::DeviceHistogram::HistogramEven(nullptr, need, in, hist, 257, 0, 256, n));
  WB_CUDA_CHECK(cub::DeviceHistogram::HistogramEven(scratch.at_least(need), need, in, hist, 257, 0, 256, n));
}

void cublas_sgemm(int M, int N, int K, const float* A, const float* B, float* C) {
  static cublasHandle_t handle = [] {
    cublasHandle_t h = nullptr;
    cublas_check(cublasCreate(&h), "cublasCreate");
    cublas_check(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");  // fp32, no TF32
    return h;
  }();
  const float one = 1.0f, zero = 0.0f;
  // cuBLAS is column-major: row-major C = A B is column-major C^T = B^T A^T, i.e. the
  // column-major product of B (N x K, leading dimension N) and A (K x M, leading dimension K).
  cublas_check(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, N, A, K, &zero, C, N), "cublasSgemm");
}

namespace {
// The handle the anchors below share, created at the first call (default math: fp32 stays fp32;
// the half-precision GEMM asks for tensor cores through its compute type).
cublasHandle_t shared_handle() {
  static cublasHandle_t handle = [] {
    cublasHandle_t h = nullptr;
    cublas_check(cublasCreate(&h), "cublasCreate");
    cublas_check(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
    return h;
  }();
  return handle;
}
}  // namespace

void cublas_sgemv(int rows, int cols, const float* A, const float* x, float* y) {
  const float one = 1.0f, zero = 0.0f;
  // Row-major A (rows x cols) is column-major A^T (cols x rows, leading dimension cols): y = (A^T)^T x.
  cublas_check(cublasSgemv(shared_handle(), CUBLAS_OP_T, cols, rows, &one, A, cols, x, 1, &zero, y, 1),
               "cublasSgemv");
}

void cublas_gemm_f16_f32(int M, int N, int K, const __half* A, const __half* B, float* C) {
  const float one = 1.0f, zero = 0.0f;
  // As in cublas_sgemm: row-major C = A B is column-major C^T = B^T A^T.
  cublas_check(cublasGemmEx(shared_handle(), CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, CUDA_R_16F, N, A, CUDA_R_16F,
                            K, &zero, C, CUDA_R_32F, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
               "cublasGemmEx");
}

void cub_radix_sort_pairs(const std::uint32_t* keys_in, const std::uint32_t* values_in, std::uint32_t* keys_out,
                          std::uint32_t* values_out, std::int64_t n) {
  static Scratch scratch;
  std::size_t need = 0;
  WB_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, need, keys_in, keys_out, values_in, values_out, n));
  WB_CUDA_CHECK(
      cub::DeviceRadixSort::SortPairs(scratch.at_least(need), need, keys_in, keys_out, values_in, values_out, n));
}

namespace {
// The predicate of cub_select_greater.
struct GreaterThan {
  float threshold;
  __host__ __device__ bool operator()(const float& x) const { return x > threshold; }
};
}  // namespace

void cub_select_greater(const float* in, std::int64_t n, float threshold, float* out, std::int64_t* count) {
  static Scratch scratch;
  std::size_t need = 0;
  WB_CUDA_CHECK(cub::DeviceSelect::If(nullptr, need, in, out, count, n, GreaterThan{threshold}));
  WB_CUDA_CHECK(cub::DeviceSelect::If(scratch.at_least(need), need, in, out, count, n, GreaterThan{threshold}));
}

}  // namespace wb::anchors
