/// \file
/// \brief Exercise 12's interface: C = A B on the tensor cores (WMMA, 16 x 16 x 16 tiles), half
/// precision in, float accumulation and output. Your version (namespace student) and the
/// solution (namespace solution) both provide it; the grader calls both. CUDA only: the CPU
/// backend has no tensor cores and no <mma.h>.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

/// The WMMA tile edge: M, N and K are multiples of it.
inline constexpr int kWmmaTile = 16;

namespace student {
/// C = A B for row-major A (M x K) and B (K x N) in half precision and row-major C (M x N) in float:
/// C[i][j] = sum over k of A[i][k] B[k][j], the products and the sum in float (tensor cores, WMMA).
/// M, N and K are positive multiples of 16. All pointers are device memory (cudaMalloc'd: 256-byte
/// aligned); A and B are not changed; whatever C held is overwritten. Launch configuration is yours.
void wmma_gemm(const __half* A, const __half* B, float* C, int M, int N, int K);
}  // namespace student

namespace solution {
/// The reference version of student::wmma_gemm.
void wmma_gemm(const __half* A, const __half* B, float* C, int M, int N, int K);
}  // namespace solution
