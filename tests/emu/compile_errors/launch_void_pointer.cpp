// Must not compile on the CPU backend: cudaLaunchKernel needs the kernel's type (tests/emu/CMakeLists.txt).
#include <cuda_runtime.h>
__global__ void k(int* p) { p[0] = 1; }
cudaError_t launch(int* p) {
  void* args[] = {&p};
  return cudaLaunchKernel((const void*)k, dim3(1), dim3(1), args, 0, nullptr);
}
