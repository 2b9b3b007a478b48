/// \file
/// \brief Exercise 04's interface: a numerically stable softmax of every row of a row-major
/// matrix. Your version (namespace student) and the solution (namespace solution) both provide
/// it; the grader calls both.
#pragma once

#include <cuda_runtime.h>

namespace student {
/// out[r][c] = exp(in[r][c] - m_r) / sum over c' of exp(in[r][c'] - m_r), m_r = the largest
/// element of row r, for row-major rows x cols matrices in and out (element (r, c) is
/// in[r * cols + c]). Correct for any finite inputs: exp() of in itself overflows float32 above
/// 88.7. All pointers are device memory; in is not changed; whatever out held is overwritten.
/// rows >= 0 (0: nothing to do), cols >= 1; the pointers need not be 16-byte aligned.
/// Launch configuration is yours.
void softmax(const float* in, float* out, int rows, int cols);
}  // namespace student

namespace solution {
/// The reference version of student::softmax.
void softmax(const float* in, float* out, int rows, int cols);
}  // namespace solution
