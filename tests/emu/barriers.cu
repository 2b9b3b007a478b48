// Barrier tests for the CPU backend.
#include "kernels.hpp"

namespace emu_test {

// The classic shared-memory tree reduction: exact for ints.
__global__ void block_sum_kernel(const int* in, int n, long long* total) {
  __shared__ int partial[1024];
  const int t = threadIdx.x;
  const int i = blockIdx.x * blockDim.x + t;
  partial[t] = i < n ? in[i] : 0;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (t < stride) partial[t] += partial[t + stride];
    __syncthreads();
  }
  if (t == 0) atomicAdd(reinterpret_cast<unsigned long long*>(total), static_cast<unsigned long long>(partial[0]));
}

cudaError_t block_sums(const int* in, int n, long long* total, int threads) {
  block_sum_kernel<<<(n + threads - 1) / threads, threads>>>(in, n, total);
  return cudaDeviceSynchronize();
}

// `if (i >= n) return;` before a barrier: exited threads count as arrived.
__global__ void early_return_kernel(const int* in, int* out, int n) {
  extern __shared__ int s[];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  s[threadIdx.x] = in[i];
  __syncthreads();
  const int active = min(static_cast<int>(blockDim.x), n - static_cast<int>(blockIdx.x * blockDim.x));
  out[i] = s[(threadIdx.x + 1) % active];
}

cudaError_t early_return_rotate(const int* in, int* out, int n, int threads) {
  early_return_kernel<<<(n + threads - 1) / threads, threads, threads * sizeof(int)>>>(in, out, n);
  return cudaDeviceSynchronize();
}

__global__ void divergent_barrier_kernel(int* out) {
  if (threadIdx.x < 16) {
    __syncthreads();  // barrier A
  } else {
    __syncthreads();  // barrier B
  }
  out[threadIdx.x] = 1;
}

cudaError_t divergent_barrier() {
  int* out = nullptr;
  cudaMalloc(&out, 64 * sizeof(int));
  divergent_barrier_kernel<<<2, 64>>>(out);
  cudaError_t e = cudaDeviceSynchronize();
  cudaFree(out);
  return e;
}

// Lane 5 waits at a __syncthreads() that the other lanes of its warp never reach: they wait at
// a shuffle that lane 5 never reaches.
__global__ void stuck_kernel(int* out) {
  int v = static_cast<int>(threadIdx.x);
  if (threadIdx.x == 5)
    __syncthreads();  // barrier C
  else
    v = __shfl_xor_sync(0xffffffffu, v, 1);  // shuffle C
  out[threadIdx.x] = v;
}

cudaError_t barrier_never_reached() {
  int* out = nullptr;
  cudaMalloc(&out, 32 * sizeof(int));
  stuck_kernel<<<1, 32>>>(out);
  cudaError_t e = cudaDeviceSynchronize();
  cudaFree(out);
  return e;
}

__global__ void syncthreads_count_kernel(int* out) {
  const int c = __syncthreads_count(threadIdx.x % 3 == 0);
  out[threadIdx.x] = c;
}

cudaError_t syncthreads_count(int* out, int threads) {
  syncthreads_count_kernel<<<1, threads>>>(out);
  return cudaDeviceSynchronize();
}

}  // namespace emu_test

namespace emu_test {
// Each thread of the block fills a 192 KiB local array on its fiber's stack, waits at a barrier
// (every thread suspended with its array live), then sums it.
__global__ void stack_array_kernel(long long* out) {
  constexpr int words = 48 * 1024;
  volatile int local[words];
  for (int i = 0; i < words; ++i) local[i] = i % 1000 + static_cast<int>(threadIdx.x);
  __syncthreads();
  long long sum = 0;
  for (int i = 0; i < words; ++i) sum += local[i];
  out[threadIdx.x] = sum;
}

cudaError_t stack_arrays(long long* out, int threads) {
  stack_array_kernel<<<1, threads>>>(out);
  return cudaDeviceSynchronize();
}

// Thread 0 waits at a barrier on its fiber while the other threads run and exit on a second
// fiber, whose stack is mapped next to (below) the first; then thread 0 writes a 320 KiB local
// array from its top down: past its 256 KiB stack. Without a guard page between them, it would
// write into the second fiber's stack (which never runs again) and finish.
// (The array is in a function of its own, so that the kernel's frame is small until the call.)
__device__ __attribute__((noinline)) int overflow_the_stack() {
  constexpr int words = 80 * 1024;
  volatile int local[words];
  for (int i = words - 1; i >= 0; --i) local[i] = i;
  return local[7];
}

__global__ void stack_overflow_kernel(int* out) {
  if (threadIdx.x != 0) return;
  __syncthreads();
  out[0] = overflow_the_stack();
}

cudaError_t stack_overflow() {
  int* out = nullptr;
  cudaMalloc(&out, sizeof(int));
  stack_overflow_kernel<<<1, 64>>>(out);
  return cudaDeviceSynchronize();
}
}  // namespace emu_test
