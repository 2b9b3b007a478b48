// Host entry points of tests/emu/runtime_calls.cu and vector_intrinsics.cu.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>

namespace compat_plain {
// runtime_calls.cu
struct StreamEventResult {
  cudaError_t create, query_before_record, record, wait, launch, query_after_record, sync, elapsed,
      elapsed_no_timing, use_destroyed_stream, use_destroyed_event, destroy_twice, last_error;
  float elapsed_ms;
  unsigned producer_flags;
};
// a on a non-blocking stream (40 + i), b = a + 1 on another stream that waits for an event
StreamEventResult streams_and_events(int* a, int* b, int n);
// host_in (width x height, packed) to a pitched image, +1000 * row by a kernel, back to host_out
// with `out_pitch` bytes per row; the image's pitch in *pitch
cudaError_t pitched_roundtrip(const int* host_in, int* host_out, int width, int height, std::size_t out_pitch,
                              std::size_t* pitch);
cudaError_t square_in_place(float* v, int n);  // v[i] *= v[i], in any memory a kernel may use
struct KernelAttributeResult {
  cudaError_t set_max, set_past_optin, after_past_optin, cache, get, launch;
  int max_threads;
};
KernelAttributeResult kernel_attributes(float* out);  // out[t] = 255 - t through 1 KiB of dynamic shared memory

// vector_intrinsics.cu
struct VectorSums {
  float f4;
  int i4;
  double d2;
  unsigned u4;
  int s2;
  long long ll2;
};
// per thread i < n: the components of element i of each array summed (make_ and __ldg of vectors)
cudaError_t vector_sums(const float4* f, const int4* i4, const double2* d, const uchar4* u, const short2* s,
                        const longlong2* ll, VectorSums* out, int n);
cudaError_t intrinsics(unsigned long long* out);  // out[k]: the k-th value listed in vector_intrinsics.cu
cudaError_t trap_in_kernel();                      // faults at `// trap here`
}  // namespace compat_plain
