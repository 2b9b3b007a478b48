/// \file
/// \brief Exercise 02's interface: an inclusive prefix sum of n floats, for any n, with scratch
/// memory the caller provides. Your version (namespace student) and the solution (namespace
/// solution) both provide it; the grader calls both.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace student {
/// How many bytes of device scratch memory inclusive_scan() needs for n elements (0 is fine).
std::size_t inclusive_scan_scratch_bytes(std::int64_t n);

/// out[i] = in[0] + in[1] + ... + in[i] for every i from 0 to n - 1, in float32.
/// `in` and `out` are device memory from cudaMalloc (16-byte aligned) and do not overlap; n may be 0.
/// `scratch` is inclusive_scan_scratch_bytes(n) bytes of device memory holding whatever it held
/// before (not zeros): the call sets up what it needs in it, every time.
void inclusive_scan(const float* in, float* out, std::int64_t n, void* scratch);
}  // namespace student

namespace solution {
/// The reference version of student::inclusive_scan_scratch_bytes.
std::size_t inclusive_scan_scratch_bytes(std::int64_t n);
/// The reference version of student::inclusive_scan.
void inclusive_scan(const float* in, float* out, std::int64_t n, void* scratch);
}  // namespace solution
