// Exercise 03, reference solution: C = A B for row-major float32 matrices of any shape.
//
// A block of 256 threads computes a 128 x 128 tile of C. It walks K in slices of 8: the slice of
// A (128 rows x 8) and of B (8 x 128 columns) go to shared memory, and each thread multiplies
// them into its own 8 x 8 outputs, kept in registers (register tiling). Per slice, a thread
// reads 16 floats from shared memory and does 64 multiply-adds with them; the block reads each
// float of A and B from global memory once per 128 outputs that use it.
//
// Shared memory holds two copies of the slices: while the block multiplies one, each thread
// has already loaded its share of the next into registers, and stores it into the other copy,
// so one barrier per slice is enough. A's slice is stored transposed (As[k][row]), so that the
// 8 values of A a thread needs at one k lie next to each other, like B's.
//
// Edges: loads outside A or B give 0 (a partial tile multiplies zeros in), and stores outside
// C are skipped, so M, N and K are any numbers. When K and N are multiples of 4 and the pointers
// are 16-byte aligned, the loads and stores move float4s.
#include "sgemm.cuh"

#include <cstdint>

namespace solution {

namespace {

constexpr int kTile = 128;    // rows and columns of C per block
constexpr int kSlice = 8;     // K per step
constexpr int kThreads = 256; // 16 x 16 threads, 8 x 8 outputs each

}  // namespace

//! [kernel]
// kVec: K % 4 == 0, N % 4 == 0 and the pointers 16-byte aligned (float4 loads and stores).
template <bool kVec>
__global__ void __launch_bounds__(kThreads, 2)
    sgemm_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N,
                 int K) {
  __shared__ __align__(16) float As[2][kSlice][kTile];  // As[.][k][i] = A[row0 + i][k0 + k]
  __shared__ __align__(16) float Bs[2][kSlice][kTile];  // Bs[.][k][j] = B[k0 + k][col0 + j]
  const int tid = threadIdx.x;
  const int row0 = blockIdx.y * kTile, col0 = blockIdx.x * kTile;

  // This thread's share of a slice: 4 consecutive floats of A (row a_row, columns k0 + a_k ..
  // + 3) and 4 of B (row k0 + b_k, columns col0 + b_col .. + 3).
  const int a_row = tid / 2, a_k = (tid % 2) * 4;
  const int b_k = tid / 32, b_col = (tid % 32) * 4;
  float a_next[4], b_next[4];
  auto load = [&](int k0) {
    const int ar = row0 + a_row, ak = k0 + a_k, bk = k0 + b_k, bc = col0 + b_col;
    if (kVec) {  // a float4 is all inside or all outside: K and N are multiples of 4
      float4 a = make_float4(0.0f, 0.0f, 0.0f, 0.0f), b = a;
      if (ar < M && ak < K) a = reinterpret_cast<const float4*>(A)[(std::int64_t(ar) * K + ak) / 4];
      if (bk < K && bc < N) b = reinterpret_cast<const float4*>(B)[(std::int64_t(bk) * N + bc) / 4];
      a_next[0] = a.x, a_next[1] = a.y, a_next[2] = a.z, a_next[3] = a.w;
      b_next[0] = b.x, b_next[1] = b.y, b_next[2] = b.z, b_next[3] = b.w;
    } else {
#pragma unroll
      for (int u = 0; u < 4; ++u) {
        a_next[u] = ar < M && ak + u < K ? A[std::int64_t(ar) * K + ak + u] : 0.0f;
        b_next[u] = bk < K && bc + u < N ? B[std::int64_t(bk) * N + bc + u] : 0.0f;
      }
    }
  };
  auto store = [&](int buf) {
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      As[buf][a_k + u][a_row] = a_next[u];
      Bs[buf][b_k][b_col + u] = b_next[u];
    }
  };

  // The thread's outputs: rows ty*4 + {0..3} and 64 + ty*4 + {0..3} of the tile, columns
  // tx*4 + {0..3} and 64 + tx*4 + {0..3}: the 16 threads of a half-warp read 16 consecutive
  // float4s of Bs, without bank conflicts.
  const int tx = tid % 16, ty = tid / 16;
  float acc[8][8];
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;

  const int slices = (K + kSlice - 1) / kSlice;
  load(0);
  store(0);
  __syncthreads();
  for (int s = 0; s < slices; ++s) {
    const int buf = s % 2;
    if (s + 1 < slices) load((s + 1) * kSlice);  // in flight while this slice is multiplied
#pragma unroll
    for (int k = 0; k < kSlice; ++k) {
      const auto as = reinterpret_cast<const float4*>(As[buf][k]);  // 16-byte loads from shared memory
      const auto bs = reinterpret_cast<const float4*>(Bs[buf][k]);
      const float4 a0 = as[ty], a1 = as[16 + ty], b0 = bs[tx], b1 = bs[16 + tx];
      const float a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
      const float b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    if (s + 1 < slices) store(1 - buf);  // the other copy: nobody reads it during this slice
    __syncthreads();
  }

#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int r = row0 + (i < 4 ? ty * 4 + i : 64 + ty * 4 + i - 4);
    if (r >= M) continue;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int c = col0 + h * 64 + tx * 4;
      if (kVec) {
        if (c < N)
          reinterpret_cast<float4*>(C)[(std::int64_t(r) * N + c) / 4] =
              make_float4(acc[i][h * 4], acc[i][h * 4 + 1], acc[i][h * 4 + 2], acc[i][h * 4 + 3]);
      } else {
#pragma unroll
        for (int u = 0; u < 4; ++u)
          if (c + u < N) C[std::int64_t(r) * N + c + u] = acc[i][h * 4 + u];
      }
    }
  }
}
//! [kernel]

//! [launch]
void sgemm(const float* A, const float* B, float* C, int M, int N, int K) {
  if (M == 0 || N == 0) return;
  const dim3 grid((N + kTile - 1) / kTile, (M + kTile - 1) / kTile);
  auto aligned = [](const float* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  if (K % 4 == 0 && N % 4 == 0 && aligned(A) && aligned(B) && aligned(C)) {
    sgemm_kernel<true><<<grid, kThreads>>>(A, B, C, M, N, K);
  } else {
    sgemm_kernel<false><<<grid, kThreads>>>(A, B, C, M, N, K);
  }
}
//! [launch]

}  // namespace solution
