/// \file
/// \brief Exercise 10's interface: the k largest elements of every row, with their columns. Your
/// version (namespace student) and the solution (namespace solution) both provide it; the grader
/// calls both.
#pragma once

#include <cuda_runtime.h>

/// The largest k the exercise asks for: one per lane of a warp.
inline constexpr int kMaxTopK = 32;

namespace student {
/// For every row r of the row-major rows x cols matrix `in` (element (r, c) is in[r * cols + c]):
/// values[r * k + j] = the (j + 1)-th largest element of the row and indices[r * k + j] = its column,
/// for j from 0 to k - 1 (so values[r * k] is the row's maximum). Of two equal values, the one in
/// the lower column counts as the larger (it comes first, and wins the last place when they tie).
/// 1 <= k <= kMaxTopK, k <= cols, rows >= 0; `in` holds no NaN (infinities are allowed) and is not
/// changed. All pointers are device memory. Launch configuration and scratch memory are yours.
void topk(const float* in, int rows, int cols, int k, float* values, int* indices);
}  // namespace student

namespace solution {
/// The reference version of student::topk.
void topk(const float* in, int rows, int cols, int k, float* values, int* indices);
}  // namespace solution
