// Kernels built instrumented that index out of bounds (the out-of-bounds checks of
// instrumented builds, tests/emu/test_bounds.cpp). Lines marked `// line: <name>` are looked up
// by the tests.
#include "kernels.hpp"

namespace emu_test {

// A 32x33 tile filled by a 32x4 block; then thread (5,3) reads or writes tile[row][col].
__global__ void tile_kernel(float* out, int row, int col, int write) {
  __shared__ float tile[32][33];
  for (int r = threadIdx.y; r < 32; r += blockDim.y) tile[r][threadIdx.x] = static_cast<float>(r * 33 + threadIdx.x);
  __syncthreads();
  if (threadIdx.x == 5 && threadIdx.y == 3) {
    if (write)
      tile[row][col] = 1.0f;  // line: tile write
    else
      out[0] = tile[row][col];  // line: tile read
  }
}

cudaError_t tile_access(float* out, int row, int col, bool write) {
  tile_kernel<<<1, dim3(32, 4)>>>(out, row, col, write);
  return cudaDeviceSynchronize();
}

// values[i] for the thread's i = threadIdx.x + shift, in a 1-D __shared__ array of 256 ints.
__global__ void values_kernel(int* out, int shift) {
  __shared__ int values[256];
  values[threadIdx.x] = static_cast<int>(threadIdx.x);
  __syncthreads();
  out[threadIdx.x] = values[threadIdx.x + shift];  // line: values read
}

cudaError_t shifted_values(int* out, int shift) {
  values_kernel<<<1, 256>>>(out, shift);
  return cudaDeviceSynchronize();
}

// A __device__ function reading through a row of the tile, decayed to a pointer.
__device__ float element(const float* row, int i) {
  return row[i];  // line: through pointer
}

__global__ void tile_pointer_kernel(float* out, int i) {
  __shared__ float tile[32][33];
  tile[threadIdx.x][0] = 1.0f;
  __syncthreads();
  if (threadIdx.x == 0) out[0] = element(tile[31], i);
}

cudaError_t tile_through_pointer(float* out, int i) {
  tile_pointer_kernel<<<1, 32>>>(out, i);
  return cudaDeviceSynchronize();
}

// Each thread stores its value in buf[threadIdx.x], then reads its right neighbour's: the last
// thread reads one element past the launch's dynamic shared memory.
__global__ void neighbour_kernel(const float* in, float* out) {
  extern __shared__ float buf[];
  buf[threadIdx.x] = in[threadIdx.x];  // line: buf write
  __syncthreads();
  out[threadIdx.x] = buf[threadIdx.x + 1];  // line: buf read
}

cudaError_t neighbours(const float* in, float* out, int threads, int shared_bytes) {
  if (shared_bytes < 0)
    neighbour_kernel<<<1, threads>>>(in, out);  // no third argument
  else
    neighbour_kernel<<<1, threads, shared_bytes>>>(in, out);
  return cudaDeviceSynchronize();
}

// A copy without its bounds check: threads with i >= n read past `in`.
__global__ void unguarded_kernel(const float* in, float* out, int n, int offset) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i + offset];  // line: unguarded
}

cudaError_t unguarded_copy(const float* in, float* out, int n, int offset, int blocks, int threads) {
  unguarded_kernel<<<blocks, threads>>>(in, out, n, offset);
  return cudaDeviceSynchronize();
}

// Every block reads past the end of `in`; block 0 first spins `spin` steps, so that on several
// workers the other blocks fault before it does.
__global__ void late_first_fault_kernel(const float* in, float* out, int n, int spin) {
  float s = 0.0f;
  if (blockIdx.x == 0)
    for (int k = 0; k < spin; ++k) s += in[k % n];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s + in[n + threadIdx.x];  // line: late fault
}

cudaError_t late_first_fault(const float* in, float* out, int n, int blocks, int spin) {
  late_first_fault_kernel<<<blocks, 32>>>(in, out, n, spin);
  return cudaDeviceSynchronize();
}

// Writes out[i] for i <= n: one past n, into a grader-style guard zone (inside the allocation): a
// fault only when the array's logical extent was given.
__global__ void guard_zone_kernel(float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) out[i] = 1.0f;  // line: one past
}

cudaError_t write_one_past(float* out, int n) {
  guard_zone_kernel<<<(n + 64) / 64, 64>>>(out, n);
  return cudaDeviceSynchronize();
}

// Chapter 01's index with gridDim.x for blockDim.x, built instrumented (barriers.cu has it plain):
// from block 32768 of a grid of 65537 the index is negative, far before the array.
__global__ void overflowing_index_instr_kernel(int* out, int n) {
  const int i = blockIdx.x * gridDim.x + threadIdx.x;
  if (i < n) out[i] = 1;  // line: instrumented overflowing index
}

cudaError_t overflowing_index_instrumented(int* out, int n) {
  overflowing_index_instr_kernel<<<n, 1>>>(out, n);
  return cudaDeviceSynchronize();
}

}  // namespace emu_test
