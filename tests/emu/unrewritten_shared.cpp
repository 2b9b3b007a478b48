// A __shared__ declaration in a file the launch rewriter did not rewrite (a .cpp file, or a header
// outside the kernel file's folder): it must not compile (tests/emu/CMakeLists.txt), since without
// the rewriter it would be a variable of each thread and compute garbage silently.
#include <cuda_runtime.h>

__device__ float block_first(float v) {
  __shared__ float first[32];
  if (threadIdx.x == 0) first[0] = v;
  __syncthreads();
  return first[0];
}
