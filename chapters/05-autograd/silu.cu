// Chapter 05: an autograd wrapper. This is your file: fill in the TODOs, then grade it with
//   bash cmake/workbook.sh grade 05
// The lesson is chapters/05-autograd/README.md. SiLU: y = x * sigmoid(x), sigmoid(x) = 1 / (1 + e^-x).
// Keep the `//! [name]` lines: they mark what the page shows of this file (the docs need them).
#include "silu.cuh"

#include <c10/cuda/CUDAException.h>  // C10_CUDA_KERNEL_LAUNCH_CHECK
#include <c10/cuda/CUDAStream.h>     // c10::cuda::getCurrentCUDAStream

#include <algorithm>
#include <cstdint>

namespace student {

// ---- kernels ----
//! [kernels]
template <class T>
__global__ void silu_forward_kernel(const T* __restrict__ x, T* __restrict__ y, std::int64_t n) {
  // TODO: y[i] = x[i] * sigmoid(x[i]) for every i < n, in a grid-stride loop (chapter 02).
}

template <class T>
__global__ void silu_backward_kernel(const T* __restrict__ grad_y, const T* __restrict__ x, T* __restrict__ grad_x,
                                     std::int64_t n) {
  // TODO: grad_x[i] = grad_y[i] * (dy/dx at x[i]) for every i < n. Work dy/dx out on paper first
  //       (the product rule, and sigmoid'(x) = sigmoid(x) * (1 - sigmoid(x))).
}
//! [kernels]

// ---- launchers ----
//! [forward launcher]
torch::Tensor silu_forward_launch(const torch::Tensor& x) {
  // TODO: refuse what the kernels cannot take, with TORCH_CHECK and a message that names silu,
  //       what it expected and what it got: x on wb_ch05::kernel_device, float32 or float64.
  // TODO: a contiguous x (x.contiguous() copies only when needed), a new y like it, then
  //       launch silu_forward_kernel<float> or silu_forward_kernel<double> (name the type:
  //       kernel<float><<<...>>>) on the current stream (c10::cuda::getCurrentCUDAStream());
  //       launch nothing for an empty x, and check the launch (C10_CUDA_KERNEL_LAUNCH_CHECK()).
  return {};
}
//! [forward launcher]

//! [backward launcher]
torch::Tensor silu_backward_launch(const torch::Tensor& grad_y, const torch::Tensor& x) {
  // TODO: as silu_forward, for grad_y and x (grad_y may have any strides, even 0), launching
  //       silu_backward_kernel into a new grad_x.
  return {};
}
//! [backward launcher]

// ---- the autograd Function ----
//! [function]
struct SiluFunction : public torch::autograd::Function<SiluFunction> {
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x) {
    // TODO: save what backward will need (ctx->save_for_backward), then compute y.
    return silu_forward_launch(x);
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_outputs) {
    // TODO: get back what forward saved (ctx->get_saved_variables()), and return one gradient
    //       per input of forward.
    return {torch::Tensor()};
  }
};

torch::Tensor silu(const torch::Tensor& x) { return SiluFunction::apply(x); }
//! [function]

}  // namespace student
