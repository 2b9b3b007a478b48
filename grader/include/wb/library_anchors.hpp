/// \file
/// \brief Library versions of the exercises' kernels, timed beside the learner's and the
/// solution's (CUDA backend only): CUB's scan and histogram, cuBLAS's SGEMM, SGEMV and half-precision
/// GEMM, and PyTorch's softmax, layer norm, conv1d, row reductions, conv2d, top-k and attention
/// where libtorch is available to the build. Linked only into
/// graders that ask for them (`ANCHORS`, `TORCH_ANCHORS` in workbook_add_exercise); libtorch's
/// headers stay in their own translation unit (grader/anchors/torch_anchors.cpp), compiled once.
/// Every function launches on the default stream and returns without synchronising.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>

#include "wb/speed.hpp"

struct __half;  // CUDA's 16-bit float (cuda_fp16.h), for the half-precision GEMM anchor

namespace wb::anchors {

/// out[i] = in[0] + ... + in[i] through cub::DeviceScan::InclusiveSum (temporary storage
/// allocated at the first call and kept).
void cub_inclusive_sum(const float* in, float* out, std::int64_t n);

/// hist[b] = how many of in[0..n) equal b (256 bins) through cub::DeviceHistogram::HistogramEven
/// (levels 0, 1, ..., 256; temporary storage kept).
void cub_histogram_bytes(const std::uint8_t* in, std::int64_t n, unsigned int* hist);

/// C = A B for row-major A (M x K), B (K x N), C (M x N) through cublasSgemm, in plain fp32
/// (CUBLAS_DEFAULT_MATH: no TF32). The handle is created at the first call and kept.
void cublas_sgemm(int M, int N, int K, const float* A, const float* B, float* C);

/// True when this build has libtorch with CUDA for the torch_* anchors.
bool torch_available();
/// Why the torch_* anchors are missing ("" when torch_available()).
std::string torch_missing_reason();

/// A PyTorch anchor's row for wb::SpeedCase::anchor(): `run` where torch_available(), otherwise
/// a missing row that says why ("PyTorch anchor not available: ...").
inline Anchor torch_anchor(std::string name, std::function<void()> run) {
  if (!torch_available()) return {std::move(name), nullptr, torch_missing_reason()};
  return {std::move(name), std::move(run), ""};
}

/// out = torch.softmax(in, dim=1) for a row-major rows x cols matrix (at::_softmax_out).
void torch_softmax(const float* in, float* out, int rows, int cols);

/// y, mean, rstd = torch.native_layer_norm(x, [cols], gamma, beta, eps) for a row-major rows x
/// cols matrix; mean and rstd have `rows` elements (at::native_layer_norm_out).
void torch_layer_norm(const float* x, const float* gamma, const float* beta, float* y, float* mean, float* rstd,
                      int rows, int cols, float eps);

/// torch.nn.functional.conv1d of one signal of n floats with one filter of 2 radius + 1 taps
/// (device memory), padding `radius`: sum_k filter[k] in[i + k - radius]. The result is
/// allocated by torch's caching allocator and dropped (an out= variant would only add a copy).
/// With `cudnn` false, cuDNN is switched off for the call (PyTorch's own kernels).
void torch_conv1d(const float* in, std::int64_t n, const float* filter, int radius, bool cudnn);

/// y = A x for a row-major A (rows x cols) through cublasSgemv, fp32 (cuBLAS is column-major:
/// the row-major A is the column-major A^T, so this is A^T's transpose times x).
void cublas_sgemv(int rows, int cols, const float* A, const float* x, float* y);

/// C = A B for row-major half-precision A (M x K), B (K x N) and a float C (M x N), accumulated in
/// float, through cublasGemmEx (CUBLAS_COMPUTE_32F: tensor cores).
void cublas_gemm_f16_f32(int M, int N, int K, const __half* A, const __half* B, float* C);

/// row_max = torch.amax(in, 1), row_sum = torch.sum(in, 1), out = in - row_max[:, None] for a
/// row-major rows x cols matrix: three of PyTorch's kernels (amax_out, sum_out, sub_out).
void torch_row_max_sum(const float* in, float* row_max, float* row_sum, float* out, int rows, int cols);

/// torch.nn.functional.conv2d of one height x width image with one 3 x 3 filter (device memory,
/// 9 floats, row-major), padding 1 (zeros outside the image). The result is allocated by torch's
/// caching allocator and dropped.
void torch_conv2d_3x3(const float* in, int height, int width, const float* filter);

/// torch.topk(in, k, dim=1) for a row-major rows x cols matrix (largest, sorted); the values and
/// (int64) indices are allocated by torch's caching allocator and dropped.
void torch_topk(const float* in, int rows, int cols, int k);

/// o = torch.nn.functional.scaled_dot_product_attention(q, k, v) for one head: q, k, v and o are
/// row-major n x d (PyTorch picks its kernel, as it would for a model: fp32 rules out its flash
/// kernel). The result is copied into o.
void torch_attention(const float* q, const float* k, const float* v, float* o, int n, int d);

/// keys_out, values_out = the n pairs sorted by key (ascending, unsigned, stable) through
/// cub::DeviceRadixSort::SortPairs over all 32 bits (temporary storage allocated at the first call
/// and kept).
void cub_radix_sort_pairs(const std::uint32_t* keys_in, const std::uint32_t* values_in, std::uint32_t* keys_out,
                          std::uint32_t* values_out, std::int64_t n);

/// out[0..*count) = the elements of in[0..n) greater than `threshold`, in their order, and
/// *count = how many (device memory), through cub::DeviceSelect::If (temporary storage kept).
void cub_select_greater(const float* in, std::int64_t n, float threshold, float* out, std::int64_t* count);
/// out = resid + scale * gelu(x + bias) for row-major rows x cols x, resid and out and a bias of
/// cols elements, as eager PyTorch runs the chain: add (bias broadcast over the rows), gelu
/// (approximate='none', the exact one), mul, add (add_out into out): four kernels, three
/// temporaries from torch's caching allocator.
void torch_bias_gelu_residual(const float* x, const float* bias, const float* resid, float* out, int rows, int cols,
                              float scale);

}  // namespace wb::anchors
