/// \file
/// \brief Exercise 06's interface: a 1-D convolution (as deep learning uses the word: a
/// correlation) of a signal with a filter of 2 radius + 1 taps, zeros outside the signal. Your
/// version (namespace student) and the solution (namespace solution) both provide it; the grader
/// calls both.
#pragma once

#include <cuda_runtime.h>

/// The largest radius the exercise asks for: a filter of at most 2 * 128 + 1 = 257 taps, which
/// fits in constant memory (64 KiB) many times over.
constexpr int kConvMaxRadius = 128;

namespace student {
/// out[i] = sum over k from 0 to 2 radius of filter[k] * in[i + k - radius], for i from 0 to
/// n - 1, where in[j] is 0 for j < 0 and j >= n (what torch.nn.functional.conv1d computes with
/// padding = radius). in, out and filter (2 radius + 1 floats) are device memory; in and filter
/// are not changed; whatever out held is overwritten. n >= 0 (0: nothing to do),
/// 0 <= radius <= kConvMaxRadius. Launch configuration is yours; the filter goes to
/// `__constant__` memory (cudaMemcpyToSymbol) before the kernel runs.
void conv1d(const float* in, float* out, int n, const float* filter, int radius);
}  // namespace student

namespace solution {
/// The reference version of student::conv1d.
void conv1d(const float* in, float* out, int n, const float* filter, int radius);
}  // namespace solution
