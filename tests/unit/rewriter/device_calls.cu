// Fixture: calls that nvcc accepts, which the rewriter's checks must accept too: __device__ and
// __host__ __device__ functions from kernels, a host function (with a __device__ overload of the
// same name) from the host, printf, members, a lambda.
#include <cuda_runtime.h>
#include <cstdio>
struct Pair {
  float a, b;
  __host__ __device__ float sum() const { return a + b; }
};
__host__ __device__ float square(float x) { return x * x; }
__device__ float clamp01(float x) { return fminf(fmaxf(x, 0.0f), 1.0f); }
float scale(float x) { return 2.0f * x; }
__device__ float scale(float x, int) { return 2.0f * x; }
__global__ void k(float* d, int n) {
  __shared__ float tile[32];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  auto twice = [](float x) { return 2.0f * x; };
  Pair p{1.0f, 2.0f};
  tile[threadIdx.x % 32] = i < n ? d[i] : 0.0f;
  __syncthreads();
  if (i < n) d[i] = clamp01(square(tile[threadIdx.x % 32])) + p.sum() + twice(1.0f) + scale(1.0f, 0);
  if (i == 0) printf("%f\n", d[0]);
}
float host_side(float x) { return scale(square(x)); }
void launch(float* d, int n) { k<<<(n + 31) / 32, 32>>>(d, n); }
