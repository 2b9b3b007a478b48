// Shared-memory tests for the CPU backend: poisoned, per block, fresh for every block.
#include "kernels.hpp"

namespace emu_test {

__global__ void first_read_kernel(unsigned* static_first, unsigned* dynamic_first) {
  __shared__ unsigned s[64];
  extern __shared__ unsigned d[];
  if (threadIdx.x == 0) {
    static_first[blockIdx.x] = s[5];  // read before any write: shows the poison
    dynamic_first[blockIdx.x] = d[3];
  }
  __syncthreads();
  s[threadIdx.x] = blockIdx.x + 1;  // written in every block: the next block must not see it
  d[threadIdx.x] = blockIdx.x + 1;
}

cudaError_t shared_first_reads(unsigned* static_first, unsigned* dynamic_first, int blocks) {
  first_read_kernel<<<blocks, 64, 64 * sizeof(unsigned)>>>(static_first, dynamic_first);
  return cudaDeviceSynchronize();
}

// Thread 0 writes, every thread of the block reads after the barrier.
__global__ void broadcast_kernel(int* out) {
  __shared__ int value;
  __shared__ float2 pad[3];  // a second declaration gets its own storage
  if (threadIdx.x == 0) {
    value = 1000 * blockIdx.x + 7;
    pad[2] = make_float2(-1.0f, -1.0f);
  }
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = value + static_cast<int>(pad[2].x) + 1;
}

cudaError_t shared_broadcast(int* out, int blocks, int threads) {
  broadcast_kernel<<<blocks, threads>>>(out);
  return cudaDeviceSynchronize();
}

}  // namespace emu_test
