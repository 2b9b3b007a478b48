// Accepted variant: the textbook three steps over the whole array, one thread per element:
// a flag per element (1 if kept), an exclusive scan of the flags into places (here by one thread,
// simple and slow), then every kept element written to its place. The count is the last place
// plus the last flag.
#include "compaction.cuh"

namespace student {

__global__ void flag_kernel(const float* in, std::int64_t n, float threshold, std::int64_t* places) {
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) places[i] = in[i] > threshold ? 1 : 0;
}

__global__ void scan_kernel(std::int64_t* places, std::int64_t n, std::int64_t* count) {
  std::int64_t sum = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t flag = places[i];
    places[i] = sum;
    sum += flag;
  }
  *count = sum;
}

__global__ void scatter_kernel(const float* in, std::int64_t n, float threshold, const std::int64_t* places,
                               float* out) {
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n && in[i] > threshold) out[places[i]] = in[i];
}

std::size_t select_scratch_bytes(std::int64_t n) { return sizeof(std::int64_t) * std::size_t(n); }

void select_greater(const float* in, std::int64_t n, float threshold, float* out, std::int64_t* count, void* scratch) {
  auto* places = static_cast<std::int64_t*>(scratch);
  const int threads = 256;
  const unsigned blocks = unsigned((n + threads - 1) / threads);
  if (n > 0) flag_kernel<<<blocks, threads>>>(in, n, threshold, places);
  scan_kernel<<<1, 1>>>(places, n, count);
  if (n > 0) scatter_kernel<<<blocks, threads>>>(in, n, threshold, places, out);
}

}  // namespace student
