// Planted bug (speed): no privatisation: every sample is one atomicAdd on hist in global memory,
// where all the GPU's threads contend for 256 addresses. Right, but far slower.
// expect: (too slow|right but runs at)
// gpu-only: only a GPU's timing shows it; the counts are right
#include "histogram.cuh"

namespace student {

__global__ void histogram_kernel(const std::uint8_t* __restrict__ in, std::int64_t n, unsigned int* __restrict__ hist) {
  const std::int64_t stride = std::int64_t(blockDim.x) * gridDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    atomicAdd(&hist[in[i]], 1u);
}

void histogram(const std::uint8_t* in, std::int64_t n, unsigned int* hist) {
  cudaMemsetAsync(hist, 0, kHistogramBins * sizeof(unsigned int));
  if (n == 0) return;
  const int threads = 256;
  const std::int64_t blocks = (n + threads - 1) / threads;
  histogram_kernel<<<static_cast<int>(blocks < 8192 ? blocks : 8192), threads>>>(in, n, hist);
}

}  // namespace student
