// Fixture: a kernel calls a host function, which nvcc rejects. The rewriter must stop at line 7.
#include <cuda_runtime.h>
float host_square(float x) { return x * x; }
__global__ void __launch_bounds__(256) square_all(float* d, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  d[i] = host_square(d[i]);
}
void launch(float* d, int n) { square_all<<<(n + 255) / 256, 256>>>(d, n); }
