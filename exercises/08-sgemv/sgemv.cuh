/// \file
/// \brief Exercise 08's interface: y = A x for a row-major matrix A, coalesced. Your version
/// (namespace student) and the solution (namespace solution) both provide it; the grader calls both.
#pragma once

#include <cuda_runtime.h>

namespace student {
/// y[r] = sum over c of A[r][c] x[c], for r from 0 to rows - 1, where A is row-major rows x cols
/// (element (r, c) is A[r * cols + c]), x has cols elements and y has rows.
/// All pointers are device memory; A and x are not changed; whatever y held is overwritten.
/// rows >= 0, cols >= 1; A's rows need not start on a 16-byte boundary. Launch configuration is yours.
void sgemv(const float* A, const float* x, float* y, int rows, int cols);
}  // namespace student

namespace solution {
/// The reference version of student::sgemv.
void sgemv(const float* A, const float* x, float* y, int rows, int cols);
}  // namespace solution
