// Fixture: a __shared__ variable with an initializer, which CUDA refuses (rewriter_test.cpp).
#include <cuda_runtime.h>
__global__ void init(float* out) {
  __shared__ float x = 1.0f;
  out[0] = x;
}
