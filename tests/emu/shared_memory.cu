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

// Shared memory in only some blocks: block 1 declares 3 floats more than the others.
__global__ void some_blocks_shared_kernel(float* out) {
  if (blockIdx.x == 1) {
    __shared__ float wide[67];
    wide[threadIdx.x] = 1.0f;
    out[threadIdx.x] = wide[threadIdx.x];
  } else {
    __shared__ float narrow[64];
    narrow[threadIdx.x] = 2.0f;
    out[threadIdx.x] = narrow[threadIdx.x];
  }
}

// No shared memory at all: a warp-shuffle sum.
__global__ void shuffle_only_kernel(float* out) {
  float v = 1.0f;
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  if (threadIdx.x == 0) *out = v;
}

cudaError_t shared_use(float* out, int variant) {
  if (variant == 0) first_read_kernel<<<2, 64, 64 * sizeof(unsigned)>>>(reinterpret_cast<unsigned*>(out),
                                                                       reinterpret_cast<unsigned*>(out) + 2);
  if (variant == 1) some_blocks_shared_kernel<<<3, 32>>>(out);
  if (variant == 2) shuffle_only_kernel<<<1, 32>>>(out);
  return cudaDeviceSynchronize();
}

}  // namespace emu_test
