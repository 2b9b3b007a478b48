/// \file
/// \brief Chapter 04's interface: your version (namespace student) and the solution (namespace
/// solution) both provide it, and the grader calls both.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace student {
/// *sum = in[0] + ... + in[n - 1], in float32. `sum` points to one float in device memory, and
/// whatever it held before is overwritten. Blocks have `threads` threads: any count from 32 to
/// 1024, not only powers of two; how many blocks is yours to choose. n may be 0 (the sum is 0).
void reduce_sum_launch(const float* in, float* sum, std::int64_t n, int threads);
/// The same sum with a launch configuration of your choosing: this one is timed.
void reduce_sum(const float* in, float* sum, std::int64_t n);
}  // namespace student

namespace solution {
/// The reference version of student::reduce_sum_launch.
void reduce_sum_launch(const float* in, float* sum, std::int64_t n, int threads);
/// The reference version of student::reduce_sum.
void reduce_sum(const float* in, float* sum, std::int64_t n);
}  // namespace solution
