// Must not compile on the CPU backend: coalesced_threads() cannot be emulated (tests/emu/CMakeLists.txt).
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void count(int* n) {
  cg::thread_group active = cg::coalesced_threads();
  if (active.thread_rank() == 0) atomicAdd(n, 1);
}
