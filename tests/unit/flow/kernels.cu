// Kernels for the grading-flow test (tests/unit/flow_test.cpp), rewritten and compiled for the
// CPU backend as a chapter's are: one that faults, one that fills its output.
#include <cuda_runtime.h>

namespace flow_fixture {

// Half the block waits at one barrier, half at another: a kernel fault on the CPU backend.
__global__ void divergent_barrier_kernel(float* out) {
  if (threadIdx.x < 16) {
    __syncthreads();
  } else {
    __syncthreads();
  }
  out[threadIdx.x] = 1.0f;
}

__global__ void fill_kernel(float* out, int n, float value) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = value;
}

// The same fault in a kernel template launched with explicit arguments: the summary names it whole.
template <class T, int N>
__global__ void divergent_template_kernel(T* out) {
  if (threadIdx.x < N) {
    __syncthreads();
  } else {
    __syncthreads();
  }
  out[threadIdx.x] = T(N);
}

void fault(float* out) { divergent_barrier_kernel<<<1, 32>>>(out); }

void fault_in_template(float* out) { divergent_template_kernel<float, 4><<<1, 32>>>(out); }

void fill(float* out, int n, float value) {
  if (n > 0) fill_kernel<<<(n + 63) / 64, 64>>>(out, n, value);
}

}  // namespace flow_fixture
