// Accepted: the textbook version, three passes over the row with a block of 256 threads per row:
// the row's maximum (a shared-memory tree), then the sum of exp(x - max) (another tree), then the
// write pass. No online rescaling: the maximum is known before any exp().
#include "softmax.cuh"

#include <cmath>

namespace student {

constexpr int kThreads = 256;

__global__ void softmax_three_passes(const float* __restrict__ in, float* __restrict__ out, int cols) {
  __shared__ float tree[kThreads];
  const int t = threadIdx.x;
  auto row_in = in + (long long)blockIdx.x * cols;
  auto row_out = out + (long long)blockIdx.x * cols;

  float m = -INFINITY;
  for (int c = t; c < cols; c += kThreads) m = fmaxf(m, row_in[c]);
  tree[t] = m;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (t < half) tree[t] = fmaxf(tree[t], tree[t + half]);
    __syncthreads();
  }
  m = tree[0];
  __syncthreads();  // everyone has read the maximum before the tree is reused

  float s = 0.0f;
  for (int c = t; c < cols; c += kThreads) s += expf(row_in[c] - m);
  tree[t] = s;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (t < half) tree[t] += tree[t + half];
    __syncthreads();
  }
  s = tree[0];

  for (int c = t; c < cols; c += kThreads) row_out[c] = expf(row_in[c] - m) / s;
}

void softmax(const float* in, float* out, int rows, int cols) {
  if (rows == 0) return;
  softmax_three_passes<<<rows, kThreads>>>(in, out, cols);
}

}  // namespace student
