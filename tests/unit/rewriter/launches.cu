// Fixture of the launch rewriter's unit test (tests/unit/rewriter_test.cpp): the forms of launch
// nvcc accepts beyond a plain name, built plain and instrumented (the namespace LAUNCHES_NS names
// the build) and run. Each launch adds its own step to out[i], so a launch that ran the wrong
// kernel, or none, shows in the sum.
#include <cuda_runtime.h>

namespace LAUNCHES_NS {

// A kernel template whose argument the launch deduces: twice<<<b, t>>>(p, n) with p a float* or
// an int*.
template <class T>
__global__ void twice(T* d, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) d[i] *= T(2);
}

namespace inner {
template <class T, int Add>
__global__ void add(T* d, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) d[i] += T(Add);
}
__global__ void add_one(float* d, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) d[i] += 1.0f;
}
}  // namespace inner

// An instrumented build records the accesses through local pointers declared after a comment, in
// a for loop's init, and several in one declaration.
__global__ void rows(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  // the element of this thread, and the one before it (or itself)
  const float* row = in + i;
  const float *here = row, *before = i > 0 ? row - 1 : row;
  float sum = 0.0f;
  for (const float* p = here; p != here + 1; ++p) sum += *p;
  float* dst = out + i;
  dst[0] += sum - before[0] * 0.0f;
}

#define WB_FIXTURE_LAUNCH(kernel, data, count) \
  kernel<<<((count) + 31) / 32,                \
           32>>>(data, count)

#define WB_FIXTURE_PASTE(space, suffix, data, count) space::add_##suffix<<<1, 1024>>>(data, count)

struct Table {
  void (*kernel)(float*, int);
};

// Steps, in order: +1 (add_one), x2 (twice), +3 (add<float, 3>), +1 (through fp), +1 ((*fp)),
// x2 (table[1]), +1 (t.kernel), +1 (pt->kernel), x2 (macro), +1 (macro, qualified name), +1 (macro, pasted name), and
// out[i] += in[i] (rows). Returns __LINE__ of the line after the macro's launches.
int run(float* d, int* counts, const float* in, int n) {
  const int blocks = (n + 63) / 64;
  inner::add_one<<<blocks, 64>>>(d, n);
  twice<<<blocks, 64>>>(d, n);
  twice<<<blocks, 64>>>(counts, n);
  inner::add<float, 3><<<blocks, 64>>>(d, n);
  void (*fp)(float*, int) = inner::add_one;
  fp<<<blocks, 64>>>(d, n);
  (*fp)<<<blocks, 64>>>(d, n);
  void (*table[2])(float*, int) = {inner::add_one, twice<float>};
  table[1]<<<blocks, 64>>>(d, n);
  Table t{inner::add_one};
  const Table* pt = &t;
  t.kernel<<<blocks, 64>>>(d, n);
  pt->kernel<<<blocks, 64>>>(d, n);
  WB_FIXTURE_LAUNCH(twice, d, n);
  WB_FIXTURE_LAUNCH(inner::add_one, d, n);
  WB_FIXTURE_PASTE(inner, one, d, n);
  const int line = __LINE__;
  rows<<<blocks, 64>>>(in, d, n);
  return line;
}

// A kernel template launched with explicit arguments whose threads wait at different barriers:
// its fault names it whole.
template <class T, int N>
__global__ void divergent(T* d) {
  if (threadIdx.x < N) {
    __syncthreads();
  } else {
    __syncthreads();
  }
  d[threadIdx.x] = T(N);
}

void fault(float* d) { divergent<float, 4><<<1, 32>>>(d); }

}  // namespace LAUNCHES_NS
