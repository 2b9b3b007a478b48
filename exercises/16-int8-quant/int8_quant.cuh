/// \file
/// \brief Exercise 16's interface: symmetric per-row int8 quantization of a float32 matrix, and
/// a weight-only int8 GEMV that dequantizes in the kernel. Your version (namespace student) and
/// the solution (namespace solution) both provide them; the grader calls both.
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

namespace student {
/// Quantizes every row r of the row-major rows x cols matrix x (element (r, c) is x[r * cols + c]):
///   m = min(the largest |x[r][c]| of the row, clip);   scale[r] = m / 127 (0 when m is 0);
///   q[r][c] = x[r][c] / scale[r] rounded to the nearest integer, ties to even, clamped to
///             [-127, 127] (so -128 never appears); a row with m = 0 gets q = 0.
/// clip > 0 (INFINITY: the plain absmax). x is finite and not changed; whatever q (rows x cols)
/// and scale (rows) held is overwritten. rows >= 0 (0: nothing to do), cols >= 1; the pointers
/// need not be 16-byte aligned. All pointers are device memory. Launch configuration is yours.
void quantize_rows(const float* x, std::int8_t* q, float* scale, int rows, int cols, float clip);

/// y[r] = scale[r] * (the sum over c of W[r][c] * x[c]): y = (W dequantized) x, for the row-major
/// rows x cols int8 matrix W (element (r, c) is W[r * cols + c]) with one scale per row, as
/// quantize_rows() makes them. W, scale (rows) and x (cols) are not changed; whatever y (rows)
/// held is overwritten. rows >= 0, cols >= 1; the pointers need not be 16-byte aligned. All
/// pointers are device memory. Launch configuration is yours.
void int8_gemv(const std::int8_t* W, const float* scale, const float* x, float* y, int rows, int cols);
}  // namespace student

namespace solution {
/// The reference version of student::quantize_rows.
void quantize_rows(const float* x, std::int8_t* q, float* scale, int rows, int cols, float clip);
/// The reference version of student::int8_gemv.
void int8_gemv(const std::int8_t* W, const float* scale, const float* x, float* y, int rows, int cols);
}  // namespace solution
