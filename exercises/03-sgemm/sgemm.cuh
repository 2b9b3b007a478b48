/// \file
/// \brief Exercise 03's interface: C = A B for row-major float32 matrices of any shape, tiled.
/// Your version (namespace student) and the solution (namespace solution) both provide it; the
/// grader calls both.
#pragma once

#include <cuda_runtime.h>

namespace student {
/// C = A B: C[i][j] = sum over k of A[i][k] B[k][j], for row-major A (M x K, element (i, k) is
/// A[i * K + k]), B (K x N, element (k, j) is B[k * N + j]) and C (M x N, element (i, j) is C[i * N + j]).
/// All pointers are device memory; A and B are not changed; whatever C held is overwritten.
/// M >= 0, N >= 0 (either 0: nothing to do), K >= 1. The pointers need not be 16-byte aligned.
/// Launch configuration is yours.
void sgemm(const float* A, const float* B, float* C, int M, int N, int K);
}  // namespace student

namespace solution {
/// The reference version of student::sgemm.
void sgemm(const float* A, const float* B, float* C, int M, int N, int K);
}  // namespace solution
