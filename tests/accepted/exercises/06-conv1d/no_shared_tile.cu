// Accepted: no shared-memory tile: each thread reads its 2 radius + 1 neighbours straight from
// global memory (neighbouring threads read neighbouring elements, and the caches serve the
// overlap), the filter from constant memory.
#include "conv1d.cuh"

namespace student {

__constant__ float taps[2 * kConvMaxRadius + 1];

__global__ void conv1d_direct(const float* __restrict__ in, float* __restrict__ out, int n, int radius) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)blockDim.x * gridDim.x) {
    float s = 0.0f;
    for (int k = 0; k <= 2 * radius; ++k) {
      const long long j = i + k - radius;
      if (j >= 0 && j < n) s += taps[k] * in[j];
    }
    out[i] = s;
  }
}

void conv1d(const float* in, float* out, int n, const float* filter, int radius) {
  if (n == 0) return;
  cudaMemcpyToSymbol(taps, filter, sizeof(float) * (2 * radius + 1), 0, cudaMemcpyDeviceToDevice);
  const int blocks = (n + 255) / 256 < 4096 ? (n + 255) / 256 : 4096;
  conv1d_direct<<<blocks, 256>>>(in, out, n, radius);
}

}  // namespace student
