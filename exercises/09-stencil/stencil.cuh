/// \file
/// \brief Exercise 09's interface: one step of a 2-D 5-point stencil, with halo tiles in shared
/// memory. Your version (namespace student) and the solution (namespace solution) both provide
/// it; the grader calls both.
#pragma once

#include <cuda_runtime.h>

namespace student {
/// For every cell (y, x) of the row-major height x width grid `in` (cell (y, x) is in[y * width + x]):
///   out[y][x] = center * in[y][x] + side * (in[y-1][x] + in[y+1][x] + in[y][x-1] + in[y][x+1]),
/// where a neighbour outside the grid counts as 0 (so the first and last rows and columns have
/// fewer neighbours; in[y][-1] is not in[y-1][width-1]).
/// `in` and `out` are device memory, different arrays; `in` is not changed. width >= 1, height >= 1.
/// Launch configuration and shared memory are yours.
void stencil5(const float* in, float* out, int height, int width, float center, float side);
}  // namespace student

namespace solution {
/// The reference version of student::stencil5.
void stencil5(const float* in, float* out, int height, int width, float center, float side);
}  // namespace solution
