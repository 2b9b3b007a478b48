#include "wb/anchors.hpp"

#include <cuda/std/functional>
#include <thrust/execution_policy.h>
#include <thrust/transform.h>

#include "wb/cuda_check.hpp"

namespace wb::anchors {

void thrust_add_inplace(const float* x, float* y, std::int64_t n) {
  // par_nosync: no synchronisation after the algorithm, as with a plain kernel launch
  thrust::transform(thrust::cuda::par_nosync, x, x + n, y, y, cuda::std::plus<float>{});
}

void device_copy(const float* src, float* dst, std::int64_t n) {
  WB_CUDA_CHECK(cudaMemcpyAsync(dst, src, sizeof(float) * n, cudaMemcpyDeviceToDevice));
}

}  // namespace wb::anchors
