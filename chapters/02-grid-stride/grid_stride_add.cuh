/// \file
/// \brief Chapter 02's interface: your version (namespace student) and the solution (namespace
/// solution) both provide it, and the grader calls both.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace student {
/// y[i] += x[i] for every i in [0, n), launched with exactly `blocks` blocks of `threads`
/// threads, whatever n is: a grid-stride loop. n may be 0 or past 2^31.
void add_inplace_launch(const float* x, float* y, std::int64_t n, int blocks, int threads);
/// The same sum, with a launch configuration of your choosing: this one is timed.
void add_inplace(const float* x, float* y, std::int64_t n);
}  // namespace student

namespace solution {
/// The reference version of student::add_inplace_launch.
void add_inplace_launch(const float* x, float* y, std::int64_t n, int blocks, int threads);
/// The reference version of student::add_inplace.
void add_inplace(const float* x, float* y, std::int64_t n);
}  // namespace solution
