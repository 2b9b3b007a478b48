/// \file
/// \brief Chapter 01's interface: your version (namespace student) and the solution (namespace
/// solution) both provide it, and the grader calls both.
#pragma once

#include <cuda_runtime.h>

namespace student {
/// c[i] = a[i] + b[i] for every i in [0, n): one thread per element, `threads_per_block`
/// threads in each block, launched on the default stream. n may be 0.
void naive_add(const float* a, const float* b, float* c, int n, int threads_per_block);
}  // namespace student

namespace solution {
/// The reference version of student::naive_add.
void naive_add(const float* a, const float* b, float* c, int n, int threads_per_block);
}  // namespace solution
