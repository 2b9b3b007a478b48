// Host entry points of the CPU backend's test kernels (tests/emu/*.cu); each returns the
// launch's cudaDeviceSynchronize() result.
#pragma once
#include <cuda_runtime.h>

namespace emu_test {
// barriers.cu
cudaError_t block_sums(const int* in, int n, long long* total, int threads);  // shared tree reduction + atomicAdd
cudaError_t early_return_rotate(const int* in, int* out, int n, int threads);
cudaError_t divergent_barrier();  // faults at the lines marked `// barrier A` and `// barrier B`
cudaError_t syncthreads_count(int* out, int threads);
cudaError_t barrier_never_reached();  // faults: lane 5 at `// barrier C`, the rest at `// shuffle C`
cudaError_t stack_arrays(long long* out, int threads);  // a 192 KiB local array per thread, across a barrier
cudaError_t stack_overflow();  // thread 0 writes 320 KiB of locals: dies on its stack's guard page
cudaError_t stack_overflow_big_array();  // a 400 KB local array in block 2 of 4, thread 5: dies
cudaError_t stack_overflow_recursion();  // recursion 100000 deep in thread 7: dies
cudaError_t stack_overflow_everywhere();  // a 400 KB local array in every thread of 64 blocks: dies
cudaError_t null_write();  // block 2, thread 5 writes through a null pointer: the launch's illegal address
cudaError_t wild_write(int* out, long long offset);  // thread 0 writes out[offset]
cudaError_t shared_wild_write(int* out, long long index);  // thread 0 writes s[index] of a __shared__ int s[32]
cudaError_t spin_forever(int* flag);  // <<<1, 1>>> spins while *flag == 0
cudaError_t overflowing_index(int* out, int n);  // <<<n, 1>>>: out[blockIdx.x * gridDim.x + threadIdx.x] if < n
// shared_memory.cu
cudaError_t shared_first_reads(unsigned* static_first, unsigned* dynamic_first, int blocks);
cudaError_t shared_broadcast(int* out, int blocks, int threads);
cudaError_t shared_use(float* out, int variant);  // 0: static + dynamic, 1: static in some blocks, 2: none
// warp_ops.cu
cudaError_t shuffles(int* out, int threads, int variants);  // out[variant * threads + t]
cudaError_t votes(unsigned* ballot, int* any, int* all, int threads);
cudaError_t warp_reduce(const float* in, float* out, int n);
cudaError_t bad_shuffle_mask();  // faults at the line marked `// bad mask`: lane 20 has exited
// atomics.cu
struct Counters {
  int i;
  unsigned u;
  unsigned long long ull;
  float f;
  double d;
  int sub;
  int max;
  int min;
  unsigned cas_count;
  int exch_seen;
};
cudaError_t atomic_counters(Counters* c, int blocks, int threads);
// intrinsics.cu
cudaError_t fast_math(const float* in, float* out, int n);  // out[9 i + k]: __expf, __exp10f, __logf, ... of in[i]
}  // namespace emu_test

// instrumented.cu (built instrumented)
namespace emu_test {
cudaError_t access_rows(const float* in, float* out, int n, bool columns);  // n a multiple of 32
cudaError_t copy_float4(const float4* in, float4* out, int n4);
cudaError_t copy_stride2(const float* in, float* out, int n);  // in has 2n floats
cudaError_t axpy_sum(const float* x, float* y, int n, float* sums);
cudaError_t transpose(const float* in, float* out, int n, bool tiled);  // n a multiple of 32
cudaError_t reduce(const float* in, float* out, int n, int threads, int variant);
cudaError_t shared_count(const int* in, int* out, int n);
cudaError_t syncwarp_exchange(int* out);
cudaError_t warp_flag(int* out, bool distinct);  // 64 threads; lanes 0-31 store one shared flag
cudaError_t shared_scalar(int* out, int variant);  // 64 threads; races on shared scalars (instrumented.cu)
}  // namespace emu_test

// bounds.cu (built instrumented): accesses out of bounds
namespace emu_test {
cudaError_t tile_access(float* out, int row, int col, bool write);  // by thread (5,3) of blocks of 32x4
cudaError_t shifted_values(int* out, int shift);                     // values[threadIdx.x + shift], 256 threads
cudaError_t tile_through_pointer(float* out, int i);                 // tile[31] as a pointer, element i
cudaError_t neighbours(const float* in, float* out, int threads, int shared_bytes);  // < 0: no third argument
cudaError_t unguarded_copy(const float* in, float* out, int n, int offset, int blocks, int threads);
cudaError_t late_first_fault(const float* in, float* out, int n, int blocks, int spin);
cudaError_t write_one_past(float* out, int n);
cudaError_t overflowing_index_instrumented(int* out, int n);  // overflowing_index(), built instrumented
// block_order.cu
// block b waits (at most patience_ns) for block b-1's prefix: counts the waits that gave up
cudaError_t naive_chained_scan(const int* in, long long* prefix, int* flag, int blocks, int chunk,
                               long long patience_ns, int* gave_up);
// each block takes a ticket (order[ticket] = blockIdx.x) and waits only for lower tickets
cudaError_t ticket_chained_scan(const int* in, long long* prefix, int* flag, int blocks, int chunk,
                                unsigned* tickets, int* order);
cudaError_t all_blocks_trap(int blocks, int* started);  // every block calls __trap()
}  // namespace emu_test
