// Host entry points of the CPU backend's compatibility test kernels (tests/emu/coop_groups.cu,
// half_types.cu, runtime_calls.cu, vector_intrinsics.cu); each returns its launches' result.
#pragma once
#include <cuda_runtime.h>

#include <string>

// Built plain and instrumented (COMPAT_NS names the copy).
#define EMU_COMPAT_COOP_GROUPS_API(ns)                                                                          \
  namespace ns {                                                                                                \
  /* per block: the sum, min, max and xor of in[] by cg::reduce over tiles of 32, then atomics */               \
  cudaError_t tile_reductions(const int* in, int n, int threads, long long* sum, int* mn, int* mx, unsigned* x); \
  /* out[k * threads + t]: tile-of-16 facts of thread t (k < 12), in a block of `threads` */                     \
  cudaError_t tile16_facts(int* out, int threads);                                                              \
  /* out[t]: sum over each thread's tile of size 1, 2, 4, 8, 16, 32 of its rank + 1, packed */                  \
  cudaError_t tile_sizes(int* out, int threads);                                                                \
  /* inc[t], exc[t]: cg::inclusive_scan / exclusive_scan of (t % 7 + 1) over tiles of 8 */                      \
  cudaError_t tile_scans(int* inc, int* exc, int threads);                                                      \
  /* a 3D block reverses its values through shared memory with block.sync(); facts of the block */              \
  cudaError_t block_group(int* out, int* ranks, dim3 block);                                                    \
  }
EMU_COMPAT_COOP_GROUPS_API(compat_plain)
EMU_COMPAT_COOP_GROUPS_API(compat_instr)

namespace compat_plain {
// grid_group: out[i] = its rank, size and is_valid() in a <<<>>> launch (3 values per thread)
cudaError_t grid_facts(unsigned long long* out, int blocks, int threads);
// a cooperative launch: b[i] = a[(i + shift) % n] across blocks after grid.sync(), twice
cudaError_t grid_exchange(int* a, int* b, int blocks, int threads);
cudaError_t grid_sync_in_plain_launch();       // faults at `// grid sync plain`
cudaError_t grid_sync_block_exits(int blocks);  // block 0 returns early: faults at `// grid sync exit`
cudaError_t launch_kernel_api(int* out, int n);  // cudaLaunchKernel of a kernel with 3 arguments
// match_any over a tile of 32 of the value t / 3 % 4: out[t] its bits
cudaError_t tile_match(unsigned* out, int threads);
// each block stages its n (<= 300) floats in shared memory with cg::memcpy_async; out reversed per block
cudaError_t block_memcpy_async(const float* in, float* out, int n, int blocks, int threads);
}  // namespace compat_plain
