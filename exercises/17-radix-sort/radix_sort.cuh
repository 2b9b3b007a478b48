/// \file
/// \brief Exercise 17's interface: a stable least-significant-digit radix sort of n 32-bit
/// unsigned keys with their 32-bit values, for any n, with scratch memory the caller provides.
/// Your version (namespace student) and the solution (namespace solution) both provide it; the
/// grader calls both.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace student {
/// How many bytes of device scratch memory radix_sort_pairs() needs for n pairs (0 is fine).
std::size_t radix_sort_scratch_bytes(std::int64_t n);

/// keys_out[0..n) = keys_in[0..n) in ascending order (as unsigned 32-bit integers), and
/// values_out[i] = the value that came with keys_out[i]. Stable: pairs with equal keys keep the
/// order they had in the input. keys_in and values_in are device memory, left unchanged; the
/// outputs are device memory of n elements each, not overlapping the inputs. n may be 0.
/// `scratch` is radix_sort_scratch_bytes(n) bytes of device memory holding whatever it held
/// before (not zeros).
void radix_sort_pairs(const std::uint32_t* keys_in, const std::uint32_t* values_in, std::uint32_t* keys_out,
                      std::uint32_t* values_out, std::int64_t n, void* scratch);
}  // namespace student

namespace solution {
/// The reference version of student::radix_sort_scratch_bytes.
std::size_t radix_sort_scratch_bytes(std::int64_t n);
/// The reference version of student::radix_sort_pairs.
void radix_sort_pairs(const std::uint32_t* keys_in, const std::uint32_t* values_in, std::uint32_t* keys_out,
                      std::uint32_t* values_out, std::int64_t n, void* scratch);
}  // namespace solution
