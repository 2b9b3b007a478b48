// Chapter 05, reference solution: SiLU's forward and backward kernels, their libtorch launchers,
// and the autograd Function that ties them together.
#include "silu.cuh"

#include <c10/cuda/CUDAException.h>  // C10_CUDA_KERNEL_LAUNCH_CHECK
#include <c10/cuda/CUDAStream.h>     // c10::cuda::getCurrentCUDAStream

#include <algorithm>
#include <cstdint>

namespace solution {

// ---- kernels ----
//! [kernels]
// expf for float, exp for double, named explicitly: an unqualified exp(float) can resolve to the
// double exp, and double arithmetic is far slower than float on most GPUs.
__device__ __forceinline__ float exp_neg(float x) { return expf(-x); }
__device__ __forceinline__ double exp_neg(double x) { return exp(-x); }

template <class T>
__device__ __forceinline__ T silu_of(T x) {
  return x / (T(1) + exp_neg(x));  // x * sigmoid(x), one rounding fewer
}
// d/dx [x s(x)] = s(x) + x s(x) (1 - s(x)) = s(x) (1 + x (1 - s(x)))
template <class T>
__device__ __forceinline__ T silu_grad(T grad_y, T x) {
  const T s = T(1) / (T(1) + exp_neg(x));
  return grad_y * s * (T(1) + x * (T(1) - s));
}

// W elements of T that one instruction loads or stores: with W * sizeof(T) = 16 bytes (four
// floats, two doubles), one 128-bit access, when the address is a multiple of 16. W = 1 is the
// plain scalar access.
template <class T, int W>
struct alignas(W * sizeof(T)) Pack {
  T v[W];
};

// n must be a multiple of W (the launcher hands the rest to the W = 1 kernel). One pack per
// thread per step of the grid-stride loop.
template <class T, int W>
__global__ void silu_forward_kernel(const T* __restrict__ x, T* __restrict__ y, std::int64_t n) {
  using P = Pack<T, W>;
  const std::int64_t packs = n / W;
  const std::int64_t stride = std::int64_t(blockDim.x) * gridDim.x;
  // unroll 1: unrolling this loop makes every thread first work out its trip count, a 64-bit
  // division that costs more than the loop itself when each thread takes one step.
#pragma unroll 1
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < packs; i += stride) {
    P p = reinterpret_cast<const P*>(x)[i];
#pragma unroll
    for (int k = 0; k < W; ++k) p.v[k] = silu_of(p.v[k]);
    reinterpret_cast<P*>(y)[i] = p;
  }
}

template <class T, int W>
__global__ void silu_backward_kernel(const T* __restrict__ grad_y, const T* __restrict__ x, T* __restrict__ grad_x,
                                     std::int64_t n) {
  using P = Pack<T, W>;
  const std::int64_t packs = n / W;
  const std::int64_t stride = std::int64_t(blockDim.x) * gridDim.x;
#pragma unroll 1
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < packs; i += stride) {
    P g = reinterpret_cast<const P*>(grad_y)[i];
    const P v = reinterpret_cast<const P*>(x)[i];
#pragma unroll
    for (int k = 0; k < W; ++k) g.v[k] = silu_grad(g.v[k], v.v[k]);
    reinterpret_cast<P*>(grad_x)[i] = g;
  }
}
//! [kernels]

// ---- launchers ----
namespace {

// Measured on an H200 at 2^28 floats (bench/silu_variants.cu): the forward kernel, with
// its exp and division per element, ran fastest in blocks of 128 threads, the backward kernel,
// with two arrays to read, in blocks of 1024 (as chapter 02's add did).
constexpr int kForwardThreads = 128;
constexpr int kBackwardThreads = 1024;

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

// A grid that covers n elements in one pass, W at a time (as chapter 02 measured), capped: the
// grid-stride loops stay correct with fewer blocks.
int blocks_for(std::int64_t n, int width, int threads) {
  const std::int64_t per_block = std::int64_t(threads) * width;
  return static_cast<int>(std::min<std::int64_t>((n + per_block - 1) / per_block, 2147483647));
}

// 16-byte packs when every pointer is 16-byte aligned (a tensor of its own always is; a view that
// starts at an offset, like x[1:], may not be), then the last n % W elements one at a time.
//! [vector launch]
template <class T>
void forward_kernel(const T* x, T* y, std::int64_t n, cudaStream_t stream) {
  constexpr int w = 16 / sizeof(T);
  std::int64_t done = 0;
  if (aligned16(x) && aligned16(y) && n >= w) {
    done = n / w * w;
    silu_forward_kernel<T, w><<<blocks_for(done, w, kForwardThreads), kForwardThreads, 0, stream>>>(x, y, done);
  }
  if (done < n) silu_forward_kernel<T, 1><<<blocks_for(n - done, 1, kForwardThreads), kForwardThreads, 0, stream>>>(
        x + done, y + done, n - done);
}
//! [vector launch]

template <class T>
void backward_kernel(const T* grad_y, const T* x, T* grad_x, std::int64_t n, cudaStream_t stream) {
  constexpr int w = 16 / sizeof(T);
  std::int64_t done = 0;
  if (aligned16(grad_y) && aligned16(x) && aligned16(grad_x) && n >= w) {
    done = n / w * w;
    silu_backward_kernel<T, w><<<blocks_for(done, w, kBackwardThreads), kBackwardThreads, 0, stream>>>(grad_y, x, grad_x, done);
  }
  if (done < n)
    silu_backward_kernel<T, 1><<<blocks_for(n - done, 1, kBackwardThreads), kBackwardThreads, 0, stream>>>(
        grad_y + done, x + done, grad_x + done, n - done);
}

//! [checks]
void check_input(const torch::Tensor& t, const char* name) {
  TORCH_CHECK(t.device().type() == wb_ch05::kernel_device, "silu: ", name, " must be a tensor on ",
              c10::DeviceTypeName(wb_ch05::kernel_device, /*lower_case=*/true), ", got one on ", t.device());
  TORCH_CHECK(t.scalar_type() == at::kFloat || t.scalar_type() == at::kDouble, "silu: ", name,
              " must be float32 or float64, got ", t.scalar_type());
}
//! [checks]

}  // namespace

//! [forward launcher]
torch::Tensor silu_forward_launch(const torch::Tensor& x) {
  check_input(x, "x");
  const torch::Tensor xc = x.contiguous();  // data_ptr() walks the storage: it must hold x's elements in order
  torch::Tensor y = torch::empty_like(xc);
  const std::int64_t n = xc.numel();
  if (n == 0) return y;  // a grid of 0 blocks is an invalid launch
  cudaStream_t stream = c10::cuda::getCurrentCUDAStream();  // PyTorch's stream: ordered with its other work
  if (xc.scalar_type() == at::kDouble)
    forward_kernel(xc.data_ptr<double>(), y.data_ptr<double>(), n, stream);
  else
    forward_kernel(xc.data_ptr<float>(), y.data_ptr<float>(), n, stream);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return y;
}
//! [forward launcher]

torch::Tensor silu_backward_launch(const torch::Tensor& grad_y, const torch::Tensor& x) {
  check_input(x, "x");
  check_input(grad_y, "grad_y");
  TORCH_CHECK(grad_y.scalar_type() == x.scalar_type(), "silu: grad_y is ", grad_y.scalar_type(), " but x is ",
              x.scalar_type());
  TORCH_CHECK(grad_y.sizes() == x.sizes(), "silu: grad_y has shape ", grad_y.sizes(), " but x has ", x.sizes());
  // grad_y is often not contiguous: after y.sum(), it is one value expanded with stride 0
  const torch::Tensor gc = grad_y.contiguous(), xc = x.contiguous();
  torch::Tensor grad_x = torch::empty_like(xc);
  const std::int64_t n = xc.numel();
  if (n == 0) return grad_x;
  cudaStream_t stream = c10::cuda::getCurrentCUDAStream();
  if (xc.scalar_type() == at::kDouble)
    backward_kernel(gc.data_ptr<double>(), xc.data_ptr<double>(), grad_x.data_ptr<double>(), n, stream);
  else
    backward_kernel(gc.data_ptr<float>(), xc.data_ptr<float>(), grad_x.data_ptr<float>(), n, stream);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return grad_x;
}

// ---- the autograd Function ----
//! [function]
struct SiluFunction : public torch::autograd::Function<SiluFunction> {
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x) {
    ctx->save_for_backward({x});  // backward needs x (not y): the derivative is a function of x
    return silu_forward_launch(x);
  }
  // One gradient per input of forward: forward took x, so one tensor, dL/dx.
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_outputs) {
    const torch::Tensor x = ctx->get_saved_variables()[0];
    return {silu_backward_launch(grad_outputs[0], x)};
  }
};

torch::Tensor silu(const torch::Tensor& x) { return SiluFunction::apply(x); }
//! [function]

}  // namespace solution
