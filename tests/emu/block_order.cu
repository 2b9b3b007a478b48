// Scans whose blocks wait on one another (test_block_order.cpp): a GPU starts blocks in no promised
// order, and so does the CPU backend (<wb_emu/block_order.hpp>).
#include "kernels.hpp"

namespace emu_test {

// The naive chained scan: block b waits for block b-1 to publish its inclusive prefix. It needs
// block b-1 to have started, which no GPU promises. Here the wait gives up after `patience_ns`
// (a real one would spin forever, tests/unit/watchdog/kernels.cu) and counts it in *gave_up.
__global__ void naive_chained_scan_kernel(const int* in, long long* prefix, volatile int* flag, int chunk,
                                          long long patience_ns, int* gave_up) {
  __shared__ long long sum;
  const int b = blockIdx.x;
  if (threadIdx.x == 0) sum = 0;
  __syncthreads();
  for (int i = threadIdx.x; i < chunk; i += blockDim.x) atomicAdd(&sum, static_cast<long long>(in[b * chunk + i]));
  __syncthreads();
  if (threadIdx.x == 0) {
    long long before = 0;
    if (b > 0) {
      const long long start = clock64();
      while (flag[b - 1] == 0) {  // the bug: block b-1 may not have started
        if (clock64() - start > patience_ns) {
          atomicAdd(gave_up, 1);
          break;
        }
      }
      __threadfence();
      before = prefix[b - 1];
    }
    prefix[b] = before + sum;
    __threadfence();
    flag[b] = 1;
  }
}

// The same scan written the GPU way: each block takes a ticket when it starts and scans chunk
// `ticket`, so the chunk it waits for belongs to a block that took a lower ticket, which has started
// (and, running, will finish).
__global__ void ticket_chained_scan_kernel(const int* in, long long* prefix, volatile int* flag, int chunk,
                                           unsigned* tickets, int* order) {
  __shared__ long long sum;
  __shared__ unsigned ticket;
  if (threadIdx.x == 0) {
    sum = 0;
    ticket = atomicAdd(tickets, 1u);
    order[ticket] = blockIdx.x;
  }
  __syncthreads();
  const unsigned c = ticket;
  for (int i = threadIdx.x; i < chunk; i += blockDim.x) atomicAdd(&sum, static_cast<long long>(in[c * chunk + i]));
  __syncthreads();
  if (threadIdx.x == 0) {
    long long before = 0;
    if (c > 0) {
      while (flag[c - 1] == 0) {
      }
      __threadfence();
      before = prefix[c - 1];
    }
    prefix[c] = before + sum;
    __threadfence();
    flag[c] = 1;
  }
}

cudaError_t naive_chained_scan(const int* in, long long* prefix, int* flag, int blocks, int chunk,
                               long long patience_ns, int* gave_up) {
  naive_chained_scan_kernel<<<blocks, 32>>>(in, prefix, flag, chunk, patience_ns, gave_up);
  return cudaDeviceSynchronize();
}

cudaError_t ticket_chained_scan(const int* in, long long* prefix, int* flag, int blocks, int chunk,
                                unsigned* tickets, int* order) {
  ticket_chained_scan_kernel<<<blocks, 32>>>(in, prefix, flag, chunk, tickets, order);
  return cudaDeviceSynchronize();
}

// Every block faults (a __trap()): the report names the first block in start order.
__global__ void all_blocks_trap_kernel(int* started) {
  if (threadIdx.x == 0) atomicAdd(started, 1);
  __trap();
}

cudaError_t all_blocks_trap(int blocks, int* started) {
  all_blocks_trap_kernel<<<blocks, 4>>>(started);
  return cudaDeviceSynchronize();
}

}  // namespace emu_test
