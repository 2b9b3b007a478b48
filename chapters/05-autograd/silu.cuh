/// \file
/// \brief Chapter 05's interface: SiLU as a libtorch op with autograd. Your version (namespace
/// student) and the solution (namespace solution) both provide it; the grader calls both, and
/// op.cpp registers it as `torch.ops.workbook.silu` for Python.
#pragma once

#include <cuda_runtime.h>  // first: under the CPU backend, its stand-in defines WB_EMU

#include <torch/autograd.h>
#include <torch/types.h>

namespace wb_ch05 {
/// The device your kernels run on: CUDA on a GPU; the CPU under the CPU backend, which runs the
/// same kernels on the host (so there, CPU tensors are the ones your op accepts).
#ifdef WB_EMU
inline constexpr c10::DeviceType kernel_device = c10::DeviceType::CPU;
#else
inline constexpr c10::DeviceType kernel_device = c10::DeviceType::CUDA;
#endif
}  // namespace wb_ch05

namespace student {
/// y = x * sigmoid(x), elementwise, for a float32 or float64 tensor on wb_ch05::kernel_device,
/// of any shape and strides. Returns a new contiguous tensor; x is not changed.
torch::Tensor silu_forward_launch(const torch::Tensor& x);
/// dL/dx = dL/dy * sigmoid(x) * (1 + x * (1 - sigmoid(x))), elementwise: `grad_y` (same shape
/// as x, any strides, possibly stride 0) and the forward's input x.
torch::Tensor silu_backward_launch(const torch::Tensor& grad_y, const torch::Tensor& x);
/// SiLU with autograd: your torch::autograd::Function around the two launchers above.
torch::Tensor silu(const torch::Tensor& x);
}  // namespace student

namespace solution {
/// The reference version of student::silu_forward_launch.
torch::Tensor silu_forward_launch(const torch::Tensor& x);
/// The reference version of student::silu_backward.
torch::Tensor silu_backward_launch(const torch::Tensor& grad_y, const torch::Tensor& x);
/// The reference version of student::silu.
torch::Tensor silu(const torch::Tensor& x);
}  // namespace solution
