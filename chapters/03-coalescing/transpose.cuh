/// \file
/// \brief Chapter 03's interface: your version (namespace student) and the solution (namespace
/// solution) both provide it, and the grader calls both.
#pragma once

#include <cuda_runtime.h>

namespace student {
/// out = the transpose of in: `in` is rows × cols and `out` is cols × rows, both row-major
/// (element (r, c) of in is in[r * cols + c]). Either size may be 0 or 1.
void transpose(const float* in, float* out, int rows, int cols);
}  // namespace student

namespace solution {
/// The reference version of student::transpose.
void transpose(const float* in, float* out, int rows, int cols);
}  // namespace solution
