/// \file
/// \brief Grading libtorch ops (chapters with TORCH): random tensors, calls into the learner's
/// op checked as kernel launches are, and tensor comparison with the grader's diagnoses. Linked
/// only into graders that use libtorch (wb::grader_torch_<backend>).
#pragma once

#include <cuda_runtime.h>  // first: under the CPU backend, its stand-in defines WB_EMU

#include <torch/autograd.h>
#include <torch/types.h>

#include <cstdint>
#include <functional>
#include <string>

#include "wb/compare.hpp"
#include "wb/python_check.hpp"  // the op from Python, for the same graders

namespace wb {

/// The device the kernels run on: CUDA on a GPU; the CPU under the CPU backend, which runs the
/// same kernels on the host (so there, CPU tensors are the ones an op accepts).
#ifdef WB_EMU
inline constexpr c10::DeviceType torch_device = c10::DeviceType::CPU;
#else
inline constexpr c10::DeviceType torch_device = c10::DeviceType::CUDA;
#endif

/// "float32 tensor of shape [3, 4]", with its strides when it is not contiguous.
std::string describe(const torch::Tensor& t);

/// A tensor of `shape` and `dtype` on wb::torch_device, uniform in [lo, hi), from the run's
/// seed and `stream` (wb::random_floats).
torch::Tensor random_tensor(at::IntArrayRef shape, torch::ScalarType dtype, std::uint64_t stream, float lo, float hi);

/// Explains an exception from the learner's op in the chapter's terms, or returns "" to keep the
/// generic "<what> threw: <message>". `message` is its first line.
using TorchErrorHint = std::function<std::string(const std::string& what, const std::string& message)>;

/// Runs `op` (a call into the learner's op) under the watchdog and waits for its kernels, so a
/// fault is reported as this call's. A c10::Error or another exception fails the test case with
/// `hint`'s explanation; a CUDA error as wb::fail_with_cuda_error does; autograd's "undefined
/// tensor" (forward or backward returned none) fails it as *not started*.
torch::Tensor run_op(const std::string& what, const std::function<torch::Tensor()>& op,
                     const TorchErrorHint& hint = {});

/// A comparison that says `what` returned no tensor: the exercise is not started.
Comparison returned_nothing(const std::string& what, const std::string& context);

/// `got` against `expected` (any device, any dtype; compared in float64 on the host): `got`
/// must be a `dtype` tensor of expected's shape on wb::torch_device, within float32's or
/// float64's tolerance for a few roundings of exp and division. The generic diagnosis.
Comparison compare_tensors(const std::string& array, const torch::Tensor& expected, const torch::Tensor& got,
                           torch::ScalarType dtype, const std::string& context);

/// Checks that the learner's op left the tensor `name` as it was (`before` is a clone taken
/// before the call), and fails the test case otherwise: "<op> changed its input <name> (k
/// elements differ): <advice>".
void require_unchanged(const std::string& op, const std::string& name, const torch::Tensor& now,
                       const torch::Tensor& before, const std::string& context, const std::string& advice);

}  // namespace wb
