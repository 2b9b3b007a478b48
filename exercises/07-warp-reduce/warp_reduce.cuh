/// \file
/// \brief Exercise 07's interface: each row's maximum and sum with one warp per row and warp
/// shuffles only, and the row shifted by its maximum. Your version (namespace student) and the
/// solution (namespace solution) both provide it; the grader calls both.
#pragma once

#include <cuda_runtime.h>

namespace student {
/// For every row r of the row-major rows x cols matrix `in` (element (r, c) is in[r * cols + c]):
///   row_max[r] = the largest in[r][c], row_sum[r] = the sum of in[r][c] over c, and
///   out[r][c] = in[r][c] - row_max[r] for every c.
/// One warp per row; the lanes combine their values with warp shuffles, without shared memory.
/// All pointers are device memory (row_max and row_sum have `rows` elements, out rows x cols);
/// rows >= 0, cols >= 1; in holds finite values and is not changed. Launch configuration is yours.
void row_max_sum(const float* in, int rows, int cols, float* row_max, float* row_sum, float* out);
}  // namespace student

namespace solution {
/// The reference version of student::row_max_sum.
void row_max_sum(const float* in, int rows, int cols, float* row_max, float* row_sum, float* out);
}  // namespace solution
