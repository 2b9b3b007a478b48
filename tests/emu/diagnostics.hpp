// Host entry points of tests/emu/diagnostics.cu (built instrumented): kernels with the bugs the
// instrumented CPU backend reports beyond races and bounds (misaligned vector accesses, reads of
// unwritten shared memory, threads that exit before a barrier, shared-memory bank conflicts). Each returns cudaDeviceSynchronize().
#pragma once
#include <cuda_runtime.h>

namespace emu_test {
// float4 copies starting `offset` floats into `in` and `out` (blocks of 32 threads, n4 float4s)
cudaError_t copy_float4_at(const float* in, float* out, int offset, int n4);
// thread 0 reads a float4 of a __shared__ float[64] at element `offset` into out[0..3]
cudaError_t shared_float4_at(float* out, int offset);
// blocks of 64 threads: each block's threads below `filled` (every thread of blocks below
// `full_blocks`) write tile[t] of a __shared__ float[64], then every thread reads tile[t]
cudaError_t partial_tile(float* out, int blocks, int full_blocks, int filled);
// `extern __shared__ int acc[]` of 32 ints that each thread adds its value to without clearing it
cudaError_t accumulate_uncleared(const int* in, int* out);
// one warp: a __shared__ counter cleared with atomicExch, then atomicAdd by every lane, then read
cudaError_t atomic_counter(int* out);
// each thread writes s[t], then (no barrier) reads s[t + 1]: a race, not an unwritten read
cudaError_t neighbour_no_barrier(int* out);
// one block of `threads`: threads with t >= n return, the rest meet at a __syncthreads()
cudaError_t early_exit(const int* in, int* out, int n, int threads);
// one warp: fills a __shared__ float[32 * 33] along rows, then lane l reads element l * stride
cudaError_t bank_read(float* out, int stride);
// one warp: lane l reads float4 number l * stride of a __shared__ float[32 * 33]
cudaError_t bank_read_float4(float* out, int stride);
}  // namespace emu_test
