// The exercises' PyTorch anchors (CUDA backend, libtorch with CUDA): see wb/library_anchors.hpp.
// The only translation unit of the exercises that includes libtorch's headers.
#include <ATen/ATen.h>
#include <ATen/Context.h>

#include "wb/library_anchors.hpp"

namespace wb::anchors {
namespace {

// A tensor over device memory the grader owns (no copy, no ownership).
at::Tensor view(const float* p, at::IntArrayRef shape) {
  return at::from_blob(const_cast<float*>(p), shape, at::TensorOptions().dtype(at::kFloat).device(at::kCUDA));
}

}  // namespace

bool torch_available() { return true; }
std::string torch_missing_reason() { return ""; }

void torch_softmax(const float* in, float* out, int rows, int cols) {
  at::Tensor y = view(out, {rows, cols});
  at::_softmax_out(y, view(in, {rows, cols}), 1, false);
}

void torch_layer_norm(const float* x, const float* gamma, const float* beta, float* y, float* mean, float* rstd,
                      int rows, int cols, float eps) {
  at::Tensor ty = view(y, {rows, cols}), tmean = view(mean, {rows, 1}), trstd = view(rstd, {rows, 1});
  at::native_layer_norm_out(ty, tmean, trstd, view(x, {rows, cols}), {cols}, view(gamma, {cols}), view(beta, {cols}),
                            eps);
}

void torch_conv1d(const float* in, std::int64_t n, const float* filter, int radius, bool cudnn) {
  const bool was = at::globalContext().userEnabledCuDNN();
  at::globalContext().setUserEnabledCuDNN(cudnn);
  at::Tensor result = at::conv1d(view(in, {1, 1, n}), view(filter, {1, 1, 2 * radius + 1}), {}, 1, radius);
  at::globalContext().setUserEnabledCuDNN(was);
}

}  // namespace wb::anchors
