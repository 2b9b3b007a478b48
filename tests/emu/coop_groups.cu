// Cooperative groups on the CPU backend: thread blocks, tiles of 1 to 32 threads and their
// shuffles, votes, reductions and scans, and the grid (plain and cooperative launches).
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>

#include "compat.hpp"

namespace cg = cooperative_groups;

#ifndef COMPAT_NS
#define COMPAT_NS compat_plain
#endif

namespace COMPAT_NS {

__global__ void tile_reduction_kernel(const int* in, int n, long long* sum, int* mn, int* mx, unsigned* x) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int v = i < n ? in[i] : 0;  // every thread takes part: the tile's mask names it
  const int s = cg::reduce(tile, v, cg::plus<int>());
  const int lo = cg::reduce(tile, i < n ? v : 2147483647, cg::less<int>());
  const int hi = cg::reduce(tile, i < n ? v : -2147483647, cg::greater<int>());
  const unsigned bits = cg::reduce(tile, static_cast<unsigned>(v), cg::bit_xor<unsigned>());
  if (tile.thread_rank() == 0) {
    atomicAdd(reinterpret_cast<unsigned long long*>(sum), static_cast<unsigned long long>(static_cast<long long>(s)));
    atomicMin(mn, lo);
    atomicMax(mx, hi);
    atomicXor(x, bits);
  }
}

cudaError_t tile_reductions(const int* in, int n, int threads, long long* sum, int* mn, int* mx, unsigned* x) {
  tile_reduction_kernel<<<(n + threads - 1) / threads, threads>>>(in, n, sum, mn, mx, x);
  return cudaDeviceSynchronize();
}

__global__ void tile16_kernel(int* out) {
  auto block = cg::this_thread_block();
  auto tile = cg::tiled_partition<16>(block);
  const int t = block.thread_rank(), n = block.size();
  const int v = 100 * t + 7;
  out[0 * n + t] = tile.thread_rank();
  out[1 * n + t] = tile.meta_group_rank();
  out[2 * n + t] = tile.meta_group_size();
  out[3 * n + t] = tile.shfl(v, 3);
  out[4 * n + t] = tile.shfl_down(v, 1);
  out[5 * n + t] = tile.shfl_up(v, 2);
  out[6 * n + t] = tile.shfl_xor(v, 5);
  out[7 * n + t] = static_cast<int>(tile.ballot(tile.thread_rank() % 3 == 0));
  out[8 * n + t] = tile.any(t == 20);
  out[9 * n + t] = tile.all(t != 20);
  out[10 * n + t] = static_cast<int>(tile.size());
  tile.sync();
  out[11 * n + t] = tile.shfl(v, 17);  // the source rank is taken modulo 16
}

cudaError_t tile16_facts(int* out, int threads) {
  tile16_kernel<<<1, threads>>>(out);
  return cudaDeviceSynchronize();
}

template <unsigned N>
__device__ int rank_sum(const cg::thread_block& block) {
  const auto tile = cg::tiled_partition<N>(block);
  return cg::reduce(tile, static_cast<int>(tile.thread_rank()) + 1, cg::plus<int>());
}

__global__ void tile_sizes_kernel(int* out) {
  auto block = cg::this_thread_block();
  // each sum fits in 10 bits: (1), (3), (10), (36), (136), (528) for full tiles
  const int a = rank_sum<1>(block), b = rank_sum<2>(block), c = rank_sum<4>(block);
  const int d = rank_sum<8>(block), e = rank_sum<16>(block), f = rank_sum<32>(block);
  out[2 * block.thread_rank()] = a | b << 10 | c << 20;
  out[2 * block.thread_rank() + 1] = d | e << 10 | f << 20;
}

cudaError_t tile_sizes(int* out, int threads) {
  tile_sizes_kernel<<<1, threads>>>(out);
  return cudaDeviceSynchronize();
}

__global__ void tile_scan_kernel(int* inc, int* exc) {
  auto block = cg::this_thread_block();
  auto tile = cg::tiled_partition<8>(block);
  const int t = block.thread_rank();
  const int v = t % 7 + 1;
  inc[t] = cg::inclusive_scan(tile, v, cg::plus<int>());
  exc[t] = cg::exclusive_scan(tile, v);
}

cudaError_t tile_scans(int* inc, int* exc, int threads) {
  tile_scan_kernel<<<1, threads>>>(inc, exc);
  return cudaDeviceSynchronize();
}

__global__ void block_group_kernel(int* out, int* ranks) {
  __shared__ int values[512];
  cg::thread_block block = cg::this_thread_block();
  const unsigned r = block.thread_rank(), n = block.num_threads();
  values[r] = static_cast<int>(r * 3);
  block.sync();
  out[r] = values[n - 1 - r];
  cg::sync(block);
  const dim3 idx = block.thread_index(), dim = block.group_dim();
  ranks[r] = static_cast<int>(idx.x + 10 * idx.y + 100 * idx.z) * 1000 + static_cast<int>(dim.x * dim.y * dim.z) +
             static_cast<int>(block.group_index().x) * 1000000;
}

cudaError_t block_group(int* out, int* ranks, dim3 block) {
  block_group_kernel<<<1, block>>>(out, ranks);
  return cudaDeviceSynchronize();
}

}  // namespace COMPAT_NS

// What only the plain build has: the grid and its cooperative launches, which the instrumented
// copy would only repeat.
#if !defined(WB_EMU_INSTRUMENT)
namespace compat_plain {

__global__ void grid_facts_kernel(unsigned long long* out) {
  cg::grid_group grid = cg::this_grid();
  const unsigned long long r = grid.thread_rank();
  out[3 * r] = r;
  out[3 * r + 1] = grid.size();
  out[3 * r + 2] = grid.is_valid() ? 1 : 0;
}

cudaError_t grid_facts(unsigned long long* out, int blocks, int threads) {
  grid_facts_kernel<<<blocks, threads>>>(out);
  return cudaDeviceSynchronize();
}

__global__ void grid_exchange_kernel(int* a, int* b, int n) {
  cg::grid_group grid = cg::this_grid();
  const int i = static_cast<int>(grid.thread_rank());
  a[i] = i * 5 + 1;
  grid.sync();
  // the element after this block's last one belongs to the next block, written before the sync
  b[i] = a[(i + blockDim.x) % n];
  grid.sync();
  a[i] = b[(i + 1) % n] + (grid.is_valid() ? 0 : 1000000);
}

cudaError_t grid_exchange(int* a, int* b, int blocks, int threads) {
  int n = blocks * threads;
  void* args[] = {&a, &b, &n};
  cudaError_t e = cudaLaunchCooperativeKernel(grid_exchange_kernel, dim3(blocks), dim3(threads), args, 0, nullptr);
  if (e != cudaSuccess) return e;
  return cudaDeviceSynchronize();
}

__global__ void grid_sync_plain_kernel(int* out) {
  out[threadIdx.x] = 1;
  cg::this_grid().sync();  // grid sync plain
}

cudaError_t grid_sync_in_plain_launch() {
  int* out = nullptr;
  cudaMalloc(&out, 64 * sizeof(int));
  grid_sync_plain_kernel<<<2, 32>>>(out);
  cudaError_t e = cudaDeviceSynchronize();
  cudaFree(out);
  return e;
}

__global__ void grid_sync_exit_kernel(int* out) {
  if (blockIdx.x == 0) return;
  out[blockIdx.x * blockDim.x + threadIdx.x] = 1;
  cg::this_grid().sync();  // grid sync exit
}

cudaError_t grid_sync_block_exits(int blocks) {
  int* out = nullptr;
  cudaMalloc(&out, blocks * 32 * sizeof(int));
  void* args[] = {&out};
  cudaError_t e = cudaLaunchCooperativeKernel(grid_sync_exit_kernel, dim3(blocks), dim3(32), args, 0, nullptr);
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  cudaFree(out);
  return e;
}

__global__ void three_args_kernel(int* out, int n, float scale) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = static_cast<int>(static_cast<float>(i) * scale);
}

cudaError_t launch_kernel_api(int* out, int n) {
  float scale = 3.0f;
  void* args[] = {&out, &n, &scale};
  cudaError_t e = cudaLaunchKernel(three_args_kernel, dim3((n + 63) / 64), dim3(64), args, 0, nullptr);
  if (e != cudaSuccess) return e;
  return cudaDeviceSynchronize();
}

__global__ void tile_match_kernel(unsigned* out) {
  auto tile = cg::tiled_partition<32>(cg::this_thread_block());
  const int t = cg::this_thread_block().thread_rank();
  out[t] = tile.match_any(t / 3 % 4);
}

cudaError_t tile_match(unsigned* out, int threads) {
  tile_match_kernel<<<1, threads>>>(out);
  return cudaDeviceSynchronize();
}

__global__ void memcpy_async_kernel(const float* in, float* out, int n) {
  __shared__ float staged[300];
  cg::thread_block block = cg::this_thread_block();
  cg::memcpy_async(block, staged, in + blockIdx.x * n, sizeof(float) * n);
  cg::wait(block);
  for (int i = threadIdx.x; i < n; i += blockDim.x) out[blockIdx.x * n + i] = staged[n - 1 - i];
}

cudaError_t block_memcpy_async(const float* in, float* out, int n, int blocks, int threads) {
  memcpy_async_kernel<<<blocks, threads>>>(in, out, n);
  return cudaDeviceSynchronize();
}

}  // namespace compat_plain
#endif
