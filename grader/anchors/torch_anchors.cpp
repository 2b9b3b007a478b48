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

void torch_row_max_sum(const float* in, float* row_max, float* row_sum, float* out, int rows, int cols) {
  const at::Tensor x = view(in, {rows, cols});
  at::Tensor tmax = view(row_max, {rows}), tsum = view(row_sum, {rows}), tout = view(out, {rows, cols});
  at::amax_out(tmax, x, {1});
  at::sum_out(tsum, x, {1});
  at::sub_out(tout, x, tmax.unsqueeze(1));
}

void torch_conv2d_3x3(const float* in, int height, int width, const float* filter) {
  at::Tensor result = at::conv2d(view(in, {1, 1, height, width}), view(filter, {1, 1, 3, 3}), {}, 1, 1);
}

void torch_topk(const float* in, int rows, int cols, int k) {
  auto result = at::topk(view(in, {rows, cols}), k, 1, true, true);
}

void torch_attention(const float* q, const float* k, const float* v, float* o, int n, int d) {
  at::Tensor result = at::scaled_dot_product_attention(view(q, {1, 1, n, d}), view(k, {1, 1, n, d}),
                                                       view(v, {1, 1, n, d}));
  view(o, {1, 1, n, d}).copy_(result);
}

void torch_bias_gelu_residual(const float* x, const float* bias, const float* resid, float* out, int rows, int cols,
                              float scale) {
  at::Tensor tout = view(out, {rows, cols});
  const at::Tensor g = at::gelu(at::add(view(x, {rows, cols}), view(bias, {cols})));
  at::add_out(tout, view(resid, {rows, cols}), at::mul(g, scale));
}

}  // namespace wb::anchors
