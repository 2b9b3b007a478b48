// Exercise 11: attention forward for one head. This is your file: fill in the TODOs, then grade
// it with
//   bash cmake/workbook.sh grade x11
// The task is exercises/11-attention/README.md.
// Keep the `//! [name]` lines: they mark what the page shows of this file (the docs need them).
#include "attention.cuh"

#include <cmath>
#include <cstddef>

namespace student {

//! [kernels]
// s[i][j] = (Q[i] . K[j]) / sqrt(d) for every query i and key j (s is n x n, row-major).
__global__ void scores_kernel(const float* __restrict__ Q, const float* __restrict__ K, float* __restrict__ s,
                              int n, int d) {
  // TODO: one thread per (i, j): a dot product of length d, scaled by 1 / sqrt(d).
}

// Each row of s in place: s[i][j] <- exp(s[i][j] - m_i) / sum over j' of exp(s[i][j'] - m_i), m_i the row's max.
__global__ void softmax_kernel(float* __restrict__ s, int n) {
  // TODO: one row per warp (exercise 07) or per block (exercise 04's reduction): the row's
  //       maximum, the sum of exp(s - max), then each element divided by the sum.
}

// O[i][c] = sum over j of s[i][j] V[j][c].
__global__ void output_kernel(const float* __restrict__ s, const float* __restrict__ V, float* __restrict__ O, int n,
                              int d) {
  // TODO: one thread per (i, c).
}
//! [kernels]

//! [launch]
void attention(const float* Q, const float* K, const float* V, float* O, int n, int d) {
  // Scratch memory for the n x n scores, kept from call to call (grown when n grows).
  static float* s = nullptr;
  static std::size_t capacity = 0;
  const std::size_t need = std::size_t(n) * n;
  if (need > capacity) {
    cudaFree(s);
    cudaMalloc(&s, need * sizeof(float));
    capacity = need;
  }
  // TODO: launch the three kernels in order, each with enough threads for its work (2-D grids
  //       suit the first and the last).
  scores_kernel<<<1, 1>>>(Q, K, s, n, d);
  softmax_kernel<<<1, 1>>>(s, n);
  output_kernel<<<1, 1>>>(s, V, O, n, d);
}
//! [launch]

}  // namespace student
