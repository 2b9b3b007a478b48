// Kernels built instrumented (wb_add_emu_test_kernel(... INSTRUMENT)): global-memory requests and
// sectors, and the shared-memory race check. Lines marked `// line: <name>` are looked up by the tests.
#include "kernels.hpp"

namespace emu_test {

// Each warp reads 32 consecutive floats of a row: 4 sectors per request.
__global__ void rows_kernel(const float* __restrict__ in, float* __restrict__ out, int n) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  out[y * n + x] = in[y * n + x];  // line: rows
}

// Each warp reads 32 floats of a column of a row-major matrix: 32 sectors per request.
__global__ void columns_kernel(const float* __restrict__ in, float* __restrict__ out, int n) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  out[y * n + x] = in[x * n + y];  // line: columns
}

cudaError_t access_rows(const float* in, float* out, int n, bool columns) {
  const dim3 block(32, 8), grid(n / 32, n / 8);
  if (columns)
    columns_kernel<<<grid, block>>>(in, out, n);
  else
    rows_kernel<<<grid, block>>>(in, out, n);
  return cudaDeviceSynchronize();
}

__global__ void copy4_kernel(const float4* in, float4* out, int n4) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) out[i] = in[i];  // line: float4
}

__global__ void stride2_kernel(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[2 * i];  // line: stride2
}

cudaError_t copy_float4(const float4* in, float4* out, int n4) {
  copy4_kernel<<<(n4 + 127) / 128, 128>>>(in, out, n4);
  return cudaDeviceSynchronize();
}

cudaError_t copy_stride2(const float* in, float* out, int n) {
  stride2_kernel<<<(n + 127) / 128, 128>>>(in, out, n);
  return cudaDeviceSynchronize();
}

// y[i] += x[i]: two loads and a store on one line; a grid-stride loop with `sum += in[i]` too.
__global__ void axpy_sum_kernel(const float* x, float* y, int n, float* sums) {
  float sum = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    y[i] += x[i];  // line: axpy
    sum += x[i];   // line: sum
  }
  atomicAdd(&sums[0], sum);
}

cudaError_t axpy_sum(const float* x, float* y, int n, float* sums) {
  axpy_sum_kernel<<<2, 64>>>(x, y, n, sums);
  return cudaDeviceSynchronize();
}

constexpr int kTile = 32, kRows = 8;

__global__ void transpose_naive_kernel(const float* __restrict__ in, float* __restrict__ out, int n) {
  const int x = blockIdx.x * kTile + threadIdx.x, y = blockIdx.y * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows) out[x * n + (y + j)] = in[(y + j) * n + x];  // line: naive
}

__global__ void transpose_tiled_kernel(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[kTile][kTile + 1];
  int x = blockIdx.x * kTile + threadIdx.x, y = blockIdx.y * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];  // line: tile load
  __syncthreads();
  x = blockIdx.y * kTile + threadIdx.x;
  y = blockIdx.x * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows) out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];  // line: tile store
}

cudaError_t transpose(const float* in, float* out, int n, bool tiled) {
  const dim3 block(kTile, kRows), grid(n / kTile, n / kTile);
  if (tiled)
    transpose_tiled_kernel<<<grid, block>>>(in, out, n);
  else
    transpose_naive_kernel<<<grid, block>>>(in, out, n);
  return cudaDeviceSynchronize();
}

// Tree reductions in shared memory: `variant` 0 is correct, 1 has no barrier in the loop, 2 has
// its only barrier after the loop, 3 has no barrier between the store and the loop.
__global__ void reduce_kernel(const float* in, float* out, int n, int variant) {
  extern __shared__ float sdata[];
  const unsigned tid = threadIdx.x;
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = i < n ? in[i] : 0.0f;  // line: reduce store
  if (variant != 3) __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];  // line: reduce add
    if (variant == 0 || variant == 3) __syncthreads();
  }
  if (variant == 2) __syncthreads();
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

cudaError_t reduce(const float* in, float* out, int n, int threads, int variant) {
  reduce_kernel<<<(n + threads - 1) / threads, threads, threads * sizeof(float)>>>(in, out, n, variant);
  return cudaDeviceSynchronize();
}

// Static shared memory, the early-return idiom, and an atomic counter in shared memory.
__global__ void shared_count_kernel(const int* in, int* out, int n) {
  __shared__ int values[256];
  __shared__ int count[1];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0) count[0] = 0;
  __syncthreads();
  if (i >= n) return;
  values[threadIdx.x] = in[i];
  if (in[i] % 2 == 0) atomicAdd(&count[0], 1);
  __syncthreads();
  const int active = min(static_cast<int>(blockDim.x), n - static_cast<int>(blockIdx.x * blockDim.x));
  out[i] = values[(threadIdx.x + 1) % active] + 1000 * count[0];
}

cudaError_t shared_count(const int* in, int* out, int n) {
  shared_count_kernel<<<(n + 255) / 256, 256>>>(in, out, n);
  return cudaDeviceSynchronize();
}

// A warp-level step through shared memory, ordered by __syncwarp(): not a race.
__global__ void syncwarp_kernel(int* out) {
  __shared__ int s[64];
  const int t = threadIdx.x;
  s[t] = t;
  __syncwarp();
  const int v = s[t ^ 1];
  __syncwarp();
  s[t] = v;
  __syncthreads();
  out[t] = s[t];
}

cudaError_t syncwarp_exchange(int* out) {
  syncwarp_kernel<<<1, 64>>>(out);
  return cudaDeviceSynchronize();
}

// Every lane of the block stores to one shared flag: the same value (a warp-uniform store, correct
// on a GPU) or, with `distinct`, each lane its own index (which lane's store a GPU keeps is not
// defined: a race).
__global__ void flag_kernel(int* out, int distinct) {
  __shared__ int flag;
  if (threadIdx.x == 0) flag = -1;
  __syncthreads();
  if (threadIdx.x < 32) flag = distinct ? static_cast<int>(threadIdx.x) : 7;  // line: flag store
  __syncthreads();
  out[threadIdx.x] = flag;
}

cudaError_t warp_flag(int* out, bool distinct) {
  flag_kernel<<<1, 64>>>(out, distinct ? 1 : 0);
  return cudaDeviceSynchronize();
}

// A shared scalar written by one thread and read or written by another in the same interval
// (between the same two barriers), for each way a kernel declares and uses one. `variant`:
//   0  thread 0 writes `total`, then every thread reads it after a barrier (correct)
//   1  thread 0 writes `total`, thread 40 (another warp) reads it with no barrier between (a race)
//   2  threads 0 and 40 write different values to `total` (a race)
//   3  as 1, for a double
//   4  as 1, through a helper that takes the scalar by reference
//   5  as 2, for `second` of `__shared__ int first, second;`
//   6  as 1, with the read first in the source and the write after it
//   7  as 1, for a field of a struct scalar
//   8  as 1, for a volatile scalar (a flag)
struct Pair {
  int a;
  float b;
};
__device__ void put(int& where, int v) { where = v; }  // line: scalar helper
__global__ void scalar_kernel(int* out, int variant) {
  __shared__ int total;
  __shared__ double wide;
  __shared__ int first, second;
  __shared__ Pair pair;
  __shared__ volatile int ready;
  const int t = static_cast<int>(threadIdx.x);
  if (t == 0) {
    total = 5;
    wide = 1.0;
    first = second = 0;
    pair.a = 0;
    pair.b = 0.0f;
    ready = 0;
  }
  __syncthreads();
  int v = 0;
  switch (variant) {
    case 0:
      if (t == 0) total = 7;
      __syncthreads();
      v = total;
      break;
    case 1:
      if (t == 0) total = 7;  // line: scalar write
      if (t == 40) v = total;  // line: scalar read
      break;
    case 2:
      if (t == 0 || t == 40) total = t;  // line: scalar write write
      break;
    case 3:
      if (t == 0) wide = 2.0;
      if (t == 40) v = static_cast<int>(wide);  // line: scalar double read
      break;
    case 4:
      if (t == 0) put(total, 9);
      if (t == 40) v = total;  // line: scalar read after helper
      break;
    case 5:
      if (t == 0 || t == 40) second = t;  // line: scalar second
      break;
    case 6:
      if (t == 40) v = total;  // line: scalar read of a later write
      if (t == 0) total = 3;
      break;
    case 7:
      if (t == 0) pair.b = 2.0f;
      if (t == 40) v = static_cast<int>(pair.b);  // line: scalar struct read
      break;
    case 8:
      if (t == 0) ready = 1;
      if (t == 40) v = ready;  // line: scalar volatile read
      break;
  }
  __syncthreads();
  out[t] = v + total + second;
}

cudaError_t shared_scalar(int* out, int variant) {
  scalar_kernel<<<1, 64>>>(out, variant);
  return cudaDeviceSynchronize();
}

}  // namespace emu_test
