// Planted bug: every kept element takes its place from an atomicAdd on one counter in global
// memory: the right elements, and the right count, but in whatever order the threads and blocks
// run (the CPU backend starts blocks in a scrambled order, a GPU in none that is promised).
// expect: not in their order
#include "compaction.cuh"

namespace student {

__global__ void compact_kernel(const float* in, std::int64_t n, float threshold, float* out,
                               unsigned long long* count) {
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n && in[i] > threshold) out[atomicAdd(count, 1ull)] = in[i];
}

__global__ void copy_count(const unsigned long long* from, std::int64_t* to) { *to = std::int64_t(*from); }

std::size_t select_scratch_bytes(std::int64_t) { return sizeof(unsigned long long); }

void select_greater(const float* in, std::int64_t n, float threshold, float* out, std::int64_t* count, void* scratch) {
  auto* counter = static_cast<unsigned long long*>(scratch);
  cudaMemsetAsync(counter, 0, sizeof(unsigned long long));
  const int threads = 256;
  if (n > 0) compact_kernel<<<unsigned((n + threads - 1) / threads), threads>>>(in, n, threshold, out, counter);
  copy_count<<<1, 1>>>(counter, count);
}

}  // namespace student
