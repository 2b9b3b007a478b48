// A kernel for the watchdog test (tests/unit/watchdog_test.cpp), rewritten and compiled
// instrumented for the CPU backend as a chapter's is: block 0 writes past the end of its output,
// but only once block 1 is running, and block 1 never ends. The launch never ends, and the fault
// is recorded while it runs.
#include <cuda_runtime.h>

namespace watchdog_fixture {

// state[0]: block 1 has started; state[1] stays 0, so block 1 waits forever.
__global__ void fault_then_spin_kernel(float* out, int n, int* state) {
  if (blockIdx.x == 1) {
    atomicExch(&state[0], 1);
    while (atomicAdd(&state[1], 0) == 0) {
    }
  } else {
    while (atomicAdd(&state[0], 0) == 0) {  // until block 1 runs: it is never left unstarted
    }
    out[n] = 1.0f;  // one element past the end
  }
}

void fault_then_spin(float* out, int n, int* state) { fault_then_spin_kernel<<<2, 1>>>(out, n, state); }

}  // namespace watchdog_fixture

namespace watchdog_fixture {

// A chained scan written naively: block b spins until block b-1 has published its prefix. A GPU
// starts blocks in no promised order, and so does the CPU backend: a running block waits for one
// that cannot start, and the launch never ends.
__global__ void naive_chain_kernel(const int* in, long long* prefix, volatile int* flag) {
  const int b = blockIdx.x;
  long long before = 0;
  if (b > 0) {
    while (flag[b - 1] == 0) {  // the bug: block b-1 may not have started
    }
    __threadfence();
    before = prefix[b - 1];
  }
  prefix[b] = before + in[b];
  __threadfence();
  flag[b] = 1;
}

// The same scan the GPU way: the block's place in the chain is a ticket it takes when it starts.
__global__ void ticket_chain_kernel(const int* in, long long* prefix, volatile int* flag, unsigned* tickets) {
  const unsigned c = atomicAdd(tickets, 1u);
  long long before = 0;
  if (c > 0) {
    while (flag[c - 1] == 0) {  // block c-1 took its ticket before this one: it has started
    }
    __threadfence();
    before = prefix[c - 1];
  }
  prefix[c] = before + in[c];
  __threadfence();
  flag[c] = 1;
}

void naive_chain(const int* in, long long* prefix, int* flag, int blocks) {
  naive_chain_kernel<<<blocks, 1>>>(in, prefix, flag);
}
void ticket_chain(const int* in, long long* prefix, int* flag, unsigned* tickets, int blocks) {
  ticket_chain_kernel<<<blocks, 1>>>(in, prefix, flag, tickets);
}

}  // namespace watchdog_fixture
