/// \file
/// \brief Exercise 01's interface: a 256-bin histogram of bytes. Your version (namespace
/// student) and the solution (namespace solution) both provide it; the grader calls both.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

/// Bins of the histogram: one per byte value.
inline constexpr int kHistogramBins = 256;

namespace student {
/// hist[b] = how many of in[0], ..., in[n - 1] equal b, for every b from 0 to 255.
/// `in` and `hist` are device memory; `in` may start at any byte (not only on a 16-byte
/// boundary); `hist` has 256 elements, and whatever they held before is overwritten.
/// n may be 0 (every bin is then 0). Launch configuration and scratch memory are yours.
void histogram(const std::uint8_t* in, std::int64_t n, unsigned int* hist);
}  // namespace student

namespace solution {
/// The reference version of student::histogram.
void histogram(const std::uint8_t* in, std::int64_t n, unsigned int* hist);
}  // namespace solution
