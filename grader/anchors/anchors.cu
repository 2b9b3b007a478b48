#include "wb/anchors.hpp"

#include <cub/device/device_reduce.cuh>
#include <cuda/std/functional>
#include <thrust/execution_policy.h>
#include <thrust/transform.h>

#include "wb/cuda_check.hpp"

namespace wb::anchors {

void thrust_add_inplace(const float* x, float* y, std::int64_t n) {
  // par_nosync: no synchronisation after the algorithm, as with a plain kernel launch
  thrust::transform(thrust::cuda::par_nosync, x, x + n, y, y, cuda::std::plus<float>{});
}

void cub_reduce_sum(const float* in, float* sum, std::int64_t n) {
  static void* temp = nullptr;
  static std::size_t temp_bytes = 0;
  std::size_t need = 0;
  WB_CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, need, in, sum, n));
  if (need > temp_bytes) {
    WB_CUDA_CHECK(cudaFree(temp));
    WB_CUDA_CHECK(cudaMalloc(&temp, need));
    temp_bytes = need;
  }
  WB_CUDA_CHECK(cub::DeviceReduce::Sum(temp, temp_bytes, in, sum, n));
}

void device_copy(const float* src, float* dst, std::int64_t n) {
  WB_CUDA_CHECK(cudaMemcpyAsync(dst, src, sizeof(float) * n, cudaMemcpyDeviceToDevice));
}

}  // namespace wb::anchors
