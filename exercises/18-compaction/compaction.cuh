/// \file
/// \brief Exercise 18's interface: stream compaction, keeping the elements of an array that are
/// greater than a threshold, in their order, for any n, with scratch memory the caller provides.
/// Your version (namespace student) and the solution (namespace solution) both provide it; the
/// grader calls both.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace student {
/// How many bytes of device scratch memory select_greater() needs for n elements (0 is fine).
std::size_t select_scratch_bytes(std::int64_t n);

/// out[0..k) = the elements of in[0..n) with in[i] > threshold, in the order they have in `in`,
/// and *count = k. `in`, `out` and `count` are device memory; `out` has room for n elements, and
/// out[k..n) is left as it was. `in` is left unchanged; n may be 0 (then *count = 0).
/// `scratch` is select_scratch_bytes(n) bytes of device memory holding whatever it held before
/// (not zeros).
void select_greater(const float* in, std::int64_t n, float threshold, float* out, std::int64_t* count, void* scratch);
}  // namespace student

namespace solution {
/// The reference version of student::select_scratch_bytes.
std::size_t select_scratch_bytes(std::int64_t n);
/// The reference version of student::select_greater.
void select_greater(const float* in, std::int64_t n, float threshold, float* out, std::int64_t* count, void* scratch);
}  // namespace solution
