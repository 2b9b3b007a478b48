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

// A learner's large local array: 400 KB, more than the whole stack, so the frame's stack pointer
// lands below the guard page at once; written from its first element up. Thread (5,0,0) of block
// (2,0,0) only, on a worker thread of the pool (the launch has 4 blocks).
__device__ __attribute__((noinline)) float big_local_array(int seed) {
  volatile float big[100000];
  for (int i = 0; i < 100000; ++i) big[i] = static_cast<float>(i + seed);
  return big[seed];
}

__global__ void big_array_kernel(float* out) {
  if (blockIdx.x == 2 && threadIdx.x == 5) out[0] = big_local_array(3);
}

cudaError_t stack_overflow_big_array() {
  float* out = nullptr;
  cudaMalloc(&out, sizeof(float));
  big_array_kernel<<<4, 32>>>(out);
  return cudaDeviceSynchronize();
}

// Recursion 100000 calls deep, each frame over 512 bytes: thread (7,0,0) only.
__device__ __attribute__((noinline)) int deep(int n) {
  volatile char pad[512];
  pad[n % 512] = static_cast<char>(n);
  if (n == 0) return pad[0];
  return deep(n - 1) + pad[n % 512];
}

__global__ void recursion_kernel(int* out) {
  if (threadIdx.x == 7) out[0] = deep(100000);
}

// Not a stack overflow: a write through a null pointer, by thread (5,0,0) of block (2,0,0) only,
// on a worker thread of the pool.
__global__ void null_write_kernel(int* out) {
  if (blockIdx.x == 2 && threadIdx.x == 5) out[0] = 1;  // line: null write
}

// Thread 0 writes out[offset]: with an offset past the allocation's last page, into memory that
// is not mapped.
__global__ void wild_write_kernel(int* out, long long offset) {
  if (threadIdx.x == 0) out[offset] = 1;  // line: wild write
}

// Chapter 01's index with gridDim.x for blockDim.x: blockIdx.x * gridDim.x is unsigned and wraps
// past 2^32 for grids of more than 65536 blocks, and as an int it is negative from block 32768 on
// (for a grid of 65537: block 65535's thread 0 has i == -1), so `i < n` lets wild indices through.
__global__ void overflowing_index_kernel(int* out, int n) {
  const int i = blockIdx.x * gridDim.x + threadIdx.x;
  if (i < n) out[i] = 1;  // line: overflowing index
}

// Thread 0 writes s[index] of a 32-element __shared__ array: with an index far out of it (a global
// index), outside the worker's shared memory.
__global__ void shared_wild_kernel(int* out, long long index) {
  __shared__ int s[32];
  s[threadIdx.x] = 1;
  __syncthreads();
  if (threadIdx.x == 0) s[index] = 2;  // line: shared wild write
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];
}

// Spins until *flag is set: a launch that never ends when nothing sets it.
__global__ void spin_forever_kernel(volatile int* flag) {
  while (*flag == 0) {
  }
}

// Every thread of every block has a 400 KB local array: all workers overflow at once.
__global__ void everyone_big_array_kernel(float* out) {
  volatile float big[100000];
  for (int i = 0; i < 100000; ++i) big[i] = static_cast<float>(i);
  out[blockIdx.x * blockDim.x + threadIdx.x] = big[threadIdx.x];
}

cudaError_t stack_overflow_everywhere() {
  float* out = nullptr;
  cudaMalloc(&out, 64 * 32 * sizeof(float));
  everyone_big_array_kernel<<<64, 32>>>(out);
  return cudaDeviceSynchronize();
}

cudaError_t null_write() {
  null_write_kernel<<<4, 32>>>(nullptr);
  return cudaDeviceSynchronize();
}

cudaError_t wild_write(int* out, long long offset) {
  wild_write_kernel<<<1, 32>>>(out, offset);
  return cudaDeviceSynchronize();
}

cudaError_t shared_wild_write(int* out, long long index) {
  shared_wild_kernel<<<1, 32>>>(out, index);
  return cudaDeviceSynchronize();
}

cudaError_t spin_forever(int* flag) {
  spin_forever_kernel<<<1, 1>>>(flag);
  return cudaDeviceSynchronize();
}

cudaError_t overflowing_index(int* out, int n) {
  overflowing_index_kernel<<<n, 1>>>(out, n);
  return cudaDeviceSynchronize();
}

cudaError_t stack_overflow_recursion() {
  int* out = nullptr;
  cudaMalloc(&out, sizeof(int));
  recursion_kernel<<<1, 32>>>(out);
  return cudaDeviceSynchronize();
}
}  // namespace emu_test
