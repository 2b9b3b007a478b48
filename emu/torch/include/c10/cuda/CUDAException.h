// CPU backend: stands in for libtorch's <c10/cuda/CUDAException.h> in chapter 05. The checks
// throw c10::Error with the CUDA error's name and text, as libtorch's do.
#pragma once
#include <cuda_runtime.h>

#include <c10/util/Exception.h>

#define C10_CUDA_CHECK(EXPR)                                                                        \
  do {                                                                                              \
    const cudaError_t wb_c10_err_ = (EXPR);                                                         \
    TORCH_CHECK(wb_c10_err_ == cudaSuccess, "CUDA error: ", cudaGetErrorString(wb_c10_err_), " (", \
                cudaGetErrorName(wb_c10_err_), ") from ", #EXPR);                                   \
  } while (0)

/// After a kernel launch: throws when the launch failed (a bad configuration, a fault).
#define C10_CUDA_KERNEL_LAUNCH_CHECK() C10_CUDA_CHECK(cudaGetLastError())
