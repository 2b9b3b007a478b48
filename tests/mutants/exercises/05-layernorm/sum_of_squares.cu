// Planted bug: the variance as E[x^2] - E[x]^2, from a sum and a sum of squares in float32: right
// for rows with a mean near 0, lost to cancellation when the mean is large next to the spread.
// expect: loses the variance to cancellation
#include "layernorm.cuh"

namespace student {

constexpr int kThreads = 256;

__global__ void layernorm_naive(const float* __restrict__ x, const float* __restrict__ gamma,
                                const float* __restrict__ beta, float* __restrict__ y, float* __restrict__ mean,
                                float* __restrict__ rstd, int cols, float eps) {
  __shared__ float sums[kThreads];
  __shared__ float squares[kThreads];
  const int t = threadIdx.x;
  auto row_x = x + (long long)blockIdx.x * cols;
  auto row_y = y + (long long)blockIdx.x * cols;
  float s = 0.0f, q = 0.0f;
  for (int c = t; c < cols; c += kThreads) {
    const float v = row_x[c];
    s += v;
    q += v * v;
  }
  sums[t] = s;
  squares[t] = q;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (t < half) {
      sums[t] += sums[t + half];
      squares[t] += squares[t + half];
    }
    __syncthreads();
  }
  const float m = sums[0] / cols, var = squares[0] / cols - m * m;
  const float rs = rsqrtf(var + eps);
  if (t == 0) {
    mean[blockIdx.x] = m;
    rstd[blockIdx.x] = rs;
  }
  for (int c = t; c < cols; c += kThreads) row_y[c] = (row_x[c] - m) * rs * gamma[c] + beta[c];
}

void layernorm(const float* x, const float* gamma, const float* beta, float* y, float* mean, float* rstd, int rows,
               int cols, float eps) {
  if (rows == 0) return;
  layernorm_naive<<<rows, kThreads>>>(x, gamma, beta, y, mean, rstd, cols, eps);
}

}  // namespace student
