// CPU backend: stands in for libtorch's <c10/cuda/CUDAStream.h> in chapter 05 (emu/torch/include
// comes before libtorch's headers on the include path). Kernels run on the host and complete
// before the launch returns, so there is one stream; this gives it the CUDA build's names.
#pragma once
#include <cuda_runtime.h>

#include <c10/core/Device.h>

namespace c10::cuda {

/// The stream a kernel launch should use: on the CPU backend always the one (null) stream.
class CUDAStream {
 public:
  cudaStream_t stream() const { return nullptr; }
  operator cudaStream_t() const { return nullptr; }
  c10::Device device() const { return c10::Device(c10::DeviceType::CPU); }
};

inline CUDAStream getCurrentCUDAStream(c10::DeviceIndex = -1) { return {}; }

}  // namespace c10::cuda

namespace at::cuda {
using c10::cuda::CUDAStream;
using c10::cuda::getCurrentCUDAStream;
}  // namespace at::cuda
