// Exercise 12, reference solution: C = A B on the tensor cores through WMMA (16 x 16 x 16 tiles,
// half in, float accumulate). A block computes a kBM x kBN tile of C with kWarpsM x kWarpsN warps,
// each a (kBM / kWarpsM) x (kBN / kWarpsN) patch of 16 x 16 accumulator fragments held in
// registers. The K dimension is walked kBK at a time: the block's kBM x kBK slice of A and
// kBK x kBN slice of B are staged in shared memory (16-byte loads from global memory, rows padded
// by 8 halves so that the fragment loads of neighbouring rows fall on different banks), double
// buffered: the next slice's global loads are issued into registers before the tensor cores work
// on the current one, and stored into the other buffer after. Slices past M, N or K are zeros.
#include "wmma_gemm.cuh"

#include <mma.h>

#include <cstdint>

namespace solution {

using namespace nvcuda;

// ---- kernels ----
namespace {

constexpr int kPad = 8;  // halves of padding per shared row: 16 bytes

}  // namespace

//! [kernel]
template <int kBM, int kBN, int kBK, int kWarpsM, int kWarpsN>
__global__ void __launch_bounds__(kWarpsM * kWarpsN * 32)
    wmma_gemm_kernel(const __half* __restrict__ A, const __half* __restrict__ B, float* __restrict__ C, int M, int N,
                     int K) {
  constexpr int kThreads = kWarpsM * kWarpsN * 32;
  constexpr int kFragsM = kBM / kWarpsM / 16, kFragsN = kBN / kWarpsN / 16;  // fragments per warp
  constexpr int kChunksA = kBM * kBK / 8, kChunksB = kBK * kBN / 8;            // 16-byte chunks per slice
  constexpr int kLoadsA = kChunksA / kThreads, kLoadsB = kChunksB / kThreads;
  static_assert(kChunksA % kThreads == 0 && kChunksB % kThreads == 0, "every thread loads whole chunks");
  __shared__ __align__(32) __half sa[2][kBM][kBK + kPad];  // (buffer, row, k)
  __shared__ __align__(32) __half sb[2][kBK][kBN + kPad];  // (buffer, k, column)

  const int warp = threadIdx.x / 32, wm = warp / kWarpsN, wn = warp % kWarpsN;
  const int m0 = blockIdx.y * kBM, n0 = blockIdx.x * kBN;

  // One slice's global loads, into registers: chunk c of A is row c / (kBK / 8), halves 8 (c % (kBK / 8)) + 0..7.
  uint4 ra[kLoadsA], rb[kLoadsB];
  auto load_slice = [&](int k0) {
#pragma unroll
    for (int l = 0; l < kLoadsA; ++l) {
      const int c = threadIdx.x + l * kThreads, r = c / (kBK / 8), k = k0 + 8 * (c % (kBK / 8));
      ra[l] = m0 + r < M && k < K ? *reinterpret_cast<const uint4*>(A + std::int64_t(m0 + r) * K + k)
                                  : make_uint4(0, 0, 0, 0);
    }
#pragma unroll
    for (int l = 0; l < kLoadsB; ++l) {
      const int c = threadIdx.x + l * kThreads, r = c / (kBN / 8), n = n0 + 8 * (c % (kBN / 8));
      rb[l] = k0 + r < K && n < N ? *reinterpret_cast<const uint4*>(B + std::int64_t(k0 + r) * N + n)
                                  : make_uint4(0, 0, 0, 0);
    }
  };
  auto store_slice = [&](int buf) {
#pragma unroll
    for (int l = 0; l < kLoadsA; ++l) {
      const int c = threadIdx.x + l * kThreads;
      *reinterpret_cast<uint4*>(&sa[buf][c / (kBK / 8)][8 * (c % (kBK / 8))]) = ra[l];
    }
#pragma unroll
    for (int l = 0; l < kLoadsB; ++l) {
      const int c = threadIdx.x + l * kThreads;
      *reinterpret_cast<uint4*>(&sb[buf][c / (kBN / 8)][8 * (c % (kBN / 8))]) = rb[l];
    }
  };

  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[kFragsM][kFragsN];
#pragma unroll
  for (int i = 0; i < kFragsM; ++i)
#pragma unroll
    for (int j = 0; j < kFragsN; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

  load_slice(0);
  store_slice(0);
  __syncthreads();
  int buf = 0;
  for (int k0 = 0; k0 < K; k0 += kBK) {
    const bool more = k0 + kBK < K;
    if (more) load_slice(k0 + kBK);  // in flight while the tensor cores work on this slice
#pragma unroll
    for (int kk = 0; kk < kBK; kk += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a[kFragsM];
      wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b[kFragsN];
#pragma unroll
      for (int i = 0; i < kFragsM; ++i)
        wmma::load_matrix_sync(a[i], &sa[buf][(wm * kFragsM + i) * 16][kk], kBK + kPad);
#pragma unroll
      for (int j = 0; j < kFragsN; ++j)
        wmma::load_matrix_sync(b[j], &sb[buf][kk][(wn * kFragsN + j) * 16], kBN + kPad);
#pragma unroll
      for (int i = 0; i < kFragsM; ++i)
#pragma unroll
        for (int j = 0; j < kFragsN; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
    }
    if (more) store_slice(buf ^ 1);  // the other buffer: nobody reads it during this slice
    __syncthreads();                 // the next slice is in place, and this one is no longer read
    buf ^= 1;
  }

  // M and N are multiples of 16: a fragment of C is wholly inside the matrix or wholly outside.
#pragma unroll
  for (int i = 0; i < kFragsM; ++i)
#pragma unroll
    for (int j = 0; j < kFragsN; ++j) {
      const int row = m0 + (wm * kFragsM + i) * 16, col = n0 + (wn * kFragsN + j) * 16;
      if (row < M && col < N)
        wmma::store_matrix_sync(C + std::int64_t(row) * N + col, acc[i][j], N, wmma::mem_row_major);
    }
}
//! [kernel]

// ---- launcher ----
//! [launch]
template <int kBM, int kBN, int kBK, int kWarpsM, int kWarpsN>
void wmma_gemm_tiled(const __half* A, const __half* B, float* C, int M, int N, int K) {
  const dim3 grid((N + kBN - 1) / kBN, (M + kBM - 1) / kBM);
  wmma_gemm_kernel<kBM, kBN, kBK, kWarpsM, kWarpsN><<<grid, kWarpsM * kWarpsN * 32>>>(A, B, C, M, N, K);
}

void wmma_gemm(const __half* A, const __half* B, float* C, int M, int N, int K) {
  // 128 x 128 tiles of C, 8 warps of 64 x 32 (4 x 2 fragments each), 32-wide slices of K.
  wmma_gemm_tiled<128, 128, 32, 2, 4>(A, B, C, M, N, K);
}
//! [launch]

}  // namespace solution
