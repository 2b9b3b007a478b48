// Fixture of the launch rewriter's unit test (tests/unit/rewriter_test.cpp): every form of launch
// a chapter writes, in code the test both reads rewritten and compiles and runs on the CPU backend.
// The test names lines of this file by number: change them together.
#include <cuda_runtime.h>

namespace fixture {
namespace inner {
__global__ void fill_kernel(float* out, int n, float value) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = value + float(i);
}
}  // namespace inner

template <class T, int Scale>
__global__ void scale_kernel(T* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] *= T(Scale);
}

// Each thread stages its element in dynamic shared memory and adds one on the way back.
__global__ void through_shared_kernel(float* out, int n) {
  extern __shared__ float stage[];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  stage[threadIdx.x] = i < n ? out[i] : 0.0f;
  if (i < n) out[i] = stage[threadIdx.x] + 1.0f;
}

// out[i] = (0.5 + i) * 2 * 3 + 1, in four launches. Returns the line of the statement after the
// launch split over three lines.
int fill(float* out, int n, int threads) {
  const int blocks = (n + threads - 1) / threads;
  cudaStream_t stream = nullptr;
  // inner::fill_kernel<<<1, 1>>>(out, 0, 9.0f); a launch in a comment is not rewritten
  /* scale_kernel<float, 5><<<blocks, threads>>>(out, n); nor one in a block comment */
  const char* note = "scale_kernel<float, 7><<<blocks, threads>>>(out, n)";
  (void)note;
  inner::fill_kernel<<<blocks,
                       threads>>>(out, n,
                                  0.5f);
  const int line_after_split_launch = __LINE__;
  scale_kernel<float, 2><<<blocks, threads>>>(out, n);  // doubles: the next launch follows a comment
  ::fixture::scale_kernel<float, 3><<<blocks, threads, 0, stream>>>(out, n);
  through_shared_kernel<<<blocks, threads, threads * sizeof(float)>>>(out, n);
  return line_after_split_launch;
}

}  // namespace fixture
