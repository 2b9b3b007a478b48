// Atomics from many blocks (run in parallel on the worker threads) must give exact counts.
#include "kernels.hpp"

namespace emu_test {

__global__ void counters_kernel(Counters* c) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(&c->i, 1);
  atomicAdd(&c->u, 2u);
  atomicAdd(&c->ull, 3ull);
  atomicAdd(&c->f, 1.0f);
  atomicAdd(&c->d, 0.5);
  atomicSub(&c->sub, 1);
  atomicMax(&c->max, t);
  atomicMin(&c->min, -t);
  // an increment written with compare-and-swap
  unsigned old = c->cas_count, seen;
  while ((seen = atomicCAS(&c->cas_count, old, old + 1)) != old) old = seen;
  const int prev = atomicExch(&c->exch_seen, t);
  (void)prev;
  __threadfence();
}

cudaError_t atomic_counters(Counters* c, int blocks, int threads) {
  counters_kernel<<<blocks, threads>>>(c);
  return cudaDeviceSynchronize();
}

}  // namespace emu_test
