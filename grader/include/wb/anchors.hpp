/// \file
/// \brief Library kernels timed beside the learner's and the solution's, so every speed is
/// also a ratio to a well-known anchor measured in the same run (CUDA backend only).
#pragma once

#include <cstdint>

namespace wb::anchors {

/// y[i] += x[i] through thrust::transform.
void thrust_add_inplace(const float* x, float* y, std::int64_t n);

/// *sum = in[0] + ... + in[n - 1] through cub::DeviceReduce::Sum (its temporary storage is
/// allocated once, at the first call, and kept).
void cub_reduce_sum(const float* in, float* sum, std::int64_t n);

/// A device-to-device copy of n floats (cudaMemcpyAsync): what the memory system can do for a
/// read plus a write of every element.
void device_copy(const float* src, float* dst, std::int64_t n);

}  // namespace wb::anchors
