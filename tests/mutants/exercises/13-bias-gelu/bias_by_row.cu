// Planted bug: a thread per element that takes the bias by row, bias[i / cols], not by column:
// wrong wherever rows > 1, and a read past the bias's end where rows > cols.
// expect: (the bias is taken by row|bias.*outside its array|outside its array.*bias)
#include "bias_gelu.cuh"

#include <cmath>

namespace student {

__global__ void bias_gelu_kernel(const float* __restrict__ x, const float* __restrict__ bias,
                                 const float* __restrict__ resid, float* __restrict__ out, long long n, int cols,
                                 float scale) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float v = x[i] + bias[i / cols];
  out[i] = resid[i] + scale * 0.5f * v * (1.0f + erff(v * 0.70710678f));
}

void bias_gelu_residual(const float* x, const float* bias, const float* resid, float* out, int rows, int cols,
                        float scale) {
  const long long n = static_cast<long long>(rows) * cols;
  if (n == 0) return;
  bias_gelu_kernel<<<static_cast<unsigned>((n + 255) / 256), 256>>>(x, bias, resid, out, n, cols, scale);
}

}  // namespace student
