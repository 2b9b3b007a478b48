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
