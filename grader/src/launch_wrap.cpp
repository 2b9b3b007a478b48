// The CUDA backend's half of launches.cpp: the grader executables are linked with
// `--wrap=<entry point>` for each runtime entry point a `kernel<<<...>>>` reaches, so every
// launch comes here first, is recorded, and goes on to the runtime. CUDA 12 launches through
// cudaLaunchKernel, CUDA 13 through __cudaLaunchKernel (each with a _ptsz twin for per-thread
// default streams); the runtime has some of them, so each real one is a weak reference.
#include <cuda_runtime.h>

#include "wb/launches.hpp"

namespace wb::detail {
void record_launch(const LaunchRecord& r);
void record_graph_launch(cudaStream_t stream);
}

namespace {
thread_local bool inside = false;  // one runtime entry point may call another: record once

template <class Real, class... Args>
cudaError_t recorded(Real real, dim3 grid, dim3 block, std::size_t shared, cudaStream_t stream, Args... args) {
  if (!real) return cudaErrorNotSupported;
  if (!inside) wb::detail::record_launch({grid, block, shared, stream});
  const bool outer = !inside;
  inside = true;
  const cudaError_t e = real(args...);
  if (outer) inside = false;
  return e;
}
}  // namespace

namespace wb::detail {
// The grader's own launches (dirty_shared_memory) are not the learner's: not recorded.
void set_internal_launch(bool on) { inside = on; }
}  // namespace wb::detail

extern "C" {
using LaunchFn = cudaError_t (*)(const void*, dim3, dim3, void**, size_t, cudaStream_t);

cudaError_t __real_cudaLaunchKernel(const void*, dim3, dim3, void**, size_t, cudaStream_t) __attribute__((weak));
cudaError_t __real_cudaLaunchKernel_ptsz(const void*, dim3, dim3, void**, size_t, cudaStream_t) __attribute__((weak));
cudaError_t __real___cudaLaunchKernel(const void*, dim3, dim3, void**, size_t, cudaStream_t) __attribute__((weak));
cudaError_t __real___cudaLaunchKernel_ptsz(const void*, dim3, dim3, void**, size_t, cudaStream_t) __attribute__((weak));

cudaError_t __wrap_cudaLaunchKernel(const void* f, dim3 g, dim3 b, void** a, size_t s, cudaStream_t st) {
  return recorded(&__real_cudaLaunchKernel, g, b, s, st, f, g, b, a, s, st);
}
cudaError_t __wrap_cudaLaunchKernel_ptsz(const void* f, dim3 g, dim3 b, void** a, size_t s, cudaStream_t st) {
  return recorded(&__real_cudaLaunchKernel_ptsz, g, b, s, st, f, g, b, a, s, st);
}
cudaError_t __wrap___cudaLaunchKernel(const void* k, dim3 g, dim3 b, void** a, size_t s, cudaStream_t st) {
  return recorded(&__real___cudaLaunchKernel, g, b, s, st, k, g, b, a, s, st);
}
cudaError_t __wrap___cudaLaunchKernel_ptsz(const void* k, dim3 g, dim3 b, void** a, size_t s, cudaStream_t st) {
  return recorded(&__real___cudaLaunchKernel_ptsz, g, b, s, st, k, g, b, a, s, st);
}

// A CUDA graph's launch (wb::LaunchLog::graph_launches): the kernels it runs reach no entry point above.
using GraphLaunchFn = cudaError_t (*)(cudaGraphExec_t, cudaStream_t);
cudaError_t __real_cudaGraphLaunch(cudaGraphExec_t, cudaStream_t) __attribute__((weak));
cudaError_t __real_cudaGraphLaunch_ptsz(cudaGraphExec_t, cudaStream_t) __attribute__((weak));
cudaError_t __wrap_cudaGraphLaunch(cudaGraphExec_t g, cudaStream_t st) {
  if (!__real_cudaGraphLaunch) return cudaErrorNotSupported;
  if (!inside) wb::detail::record_graph_launch(st);
  return __real_cudaGraphLaunch(g, st);
}
cudaError_t __wrap_cudaGraphLaunch_ptsz(cudaGraphExec_t g, cudaStream_t st) {
  if (!__real_cudaGraphLaunch_ptsz) return cudaErrorNotSupported;
  if (!inside) wb::detail::record_graph_launch(st);
  return __real_cudaGraphLaunch_ptsz(g, st);
}
}
