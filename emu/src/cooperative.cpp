// CPU backend: cudaLaunchKernel and cudaLaunchCooperativeKernel, and grid_group::sync().
//
// A grid can sync only when all its blocks run at once. The backend runs one block per worker
// thread at a time, so a cooperative launch may have at most as many blocks as there are workers:
// then each block has a worker of its own (the workers take blocks from a shared counter, and a
// block waiting at grid.sync() keeps its worker). grid.sync() is a __syncthreads(), then one thread
// of the block waits on the OS thread until every block has arrived, then a __syncthreads() again,
// so no thread of a block goes on before the whole grid has arrived. A block that can no longer
// arrive (it has ended, or faulted) makes the waiting blocks fault instead of hanging.
#include "errors.hpp"
#include "worker.hpp"

#include <wb_emu/cooperative_groups.hpp>
#include <wb_emu/intrinsics.hpp>
#include <wb_emu/launch.hpp>
#include <wb_emu/launch_kernel.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

namespace wb_emu {
namespace {
struct Cooperative {
  std::mutex m;
  std::condition_variable cv;
  std::uint64_t blocks = 0;
  unsigned threads_per_block = 0;
  std::uint64_t arrived = 0, generation = 0;
  std::vector<internal::Worker*> workers;  // per block: the worker that runs it (nullptr: not started)
  std::vector<unsigned> finished;          // per block: threads that have returned
  bool broken = false;                     // a block faulted at grid.sync(): the others stop too
};
std::atomic<Cooperative*> active{nullptr};

std::uint64_t linear_block() {
  return blockIdx.x + std::uint64_t(gridDim.x) * (blockIdx.y + std::uint64_t(gridDim.y) * blockIdx.z);
}
std::string triple_of(uint3 v) {
  return "(" + std::to_string(v.x) + "," + std::to_string(v.y) + "," + std::to_string(v.z) + ")";
}
uint3 block_index(std::uint64_t b) {
  return uint3{static_cast<unsigned>(b % gridDim.x), static_cast<unsigned>(b / gridDim.x % gridDim.y),
               static_cast<unsigned>(b / (std::uint64_t(gridDim.x) * gridDim.y))};
}

// Per worker: how many threads of the running block still have to pass the current grid.sync()
// after the one that waited for the grid (threads of a block pass it one after another).
struct BlockPass {
  std::uint64_t generation = ~std::uint64_t(0);
  unsigned remaining = 0;
};
thread_local BlockPass pass;

// One thread of the block waits until every block has arrived; a fault if some block never can.
void wait_for_grid(Cooperative& c, internal::Worker& w, const char* file, int line) {
  std::unique_lock<std::mutex> lock(c.m);
  const std::uint64_t me = linear_block(), generation = c.generation;
  if (++c.arrived == c.blocks) {
    c.arrived = 0;
    ++c.generation;
    c.cv.notify_all();
    return;
  }
  const std::string at = "grid_group::sync() at " + internal::where(file, line);
  while (c.generation == generation) {
    c.cv.wait_for(lock, std::chrono::milliseconds(5));
    if (c.generation != generation) break;
    std::string why;
    if (c.broken) why = at + ": another block of the grid faulted while this one waited there";
    for (std::uint64_t b = 0; why.empty() && b < c.blocks; ++b) {
      if (b == me) continue;
      if (c.finished[b] == c.threads_per_block)
        why = at + ": block " + triple_of(block_index(b)) +
              " has ended without reaching it, so the grid can never meet there (a GPU would hang). Every "
              "block of a cooperative launch must reach each grid.sync(), as every thread of a block must reach "
              "a __syncthreads()";
      else if (c.workers[b] && __atomic_load_n(&c.workers[b]->fault, __ATOMIC_RELAXED))
        why = at + ": block " + triple_of(block_index(b)) + " faulted, so the grid can never meet there";
    }
    if (!why.empty()) {
      c.broken = true;
      --c.arrived;
      c.cv.notify_all();
      lock.unlock();
      internal::fault_here(w, FaultKind::cooperative, why, internal::at_this_thread(w, file, line));
    }
  }
}
}  // namespace

namespace detail {
bool in_cooperative_launch() { return active.load() != nullptr; }

void cooperative_thread_begin() {
  Cooperative* c = active.load();
  if (!c) return;
  std::lock_guard<std::mutex> lock(c->m);
  c->workers[linear_block()] = internal::current_worker();
}

void cooperative_thread_end() {
  Cooperative* c = active.load();
  if (!c) return;
  std::lock_guard<std::mutex> lock(c->m);
  ++c->finished[linear_block()];
  c->cv.notify_all();
}

void grid_sync(const char* file, int line) {
  internal::Worker& w = internal::worker();
  Cooperative* c = active.load();
  if (!c)
    internal::fault_here(w, FaultKind::cooperative, "grid_group::sync() at " + internal::where(file, line) +
                                " is not supported on the CPU backend in a kernel launched with <<<...>>>: the grid's "
                                "blocks must all run at once, which only a cooperative launch promises (on a GPU too). "
                                "Launch the kernel with cudaLaunchCooperativeKernel(kernel, grid, block, args), with at "
                                "most as many blocks as cudaDevAttrMultiProcessorCount says",
                         internal::at_this_thread(w, file, line));
  const int live = barrier(file, line, 1);  // the block's threads that have not exited
  if (pass.generation != block_generation) pass = BlockPass{block_generation, 0};
  if (pass.remaining == 0) {
    pass.remaining = static_cast<unsigned>(live) - 1;
    wait_for_grid(*c, w, file, line);
  } else {
    --pass.remaining;
  }
  barrier(file, line, 0);
}

cudaError_t launch_from_api(dim3 grid, dim3 block, std::size_t shared_bytes, cudaStream_t stream, bool cooperative,
                            const char* name, const char* file, int line, bool instrumented, void (*body)(void*),
                            void* ctx) {
  const LaunchSite site{name, file, line, instrumented};
  // The call returns this launch's error: an earlier one, not yet read, is taken out first and put
  // back when this launch leaves none (cudaGetLastError then still reports it, as CUDA's would).
  const cudaError_t earlier = cudaGetLastError();
  auto result = [earlier] {
    const cudaError_t mine = cudaPeekAtLastError();
    if (mine == cudaSuccess && earlier != cudaSuccess) internal::record(earlier);
    return mine;
  };
  if (!cooperative) {
    launch(grid, block, shared_bytes, stream, site, body, ctx);
    return result();
  }
  const std::uint64_t blocks = std::uint64_t(grid.x) * grid.y * grid.z;
  if (blocks > static_cast<std::uint64_t>(worker_count())) {
    std::fprintf(stderr,
                 "%s:%d: cudaLaunchCooperativeKernel of %s: a grid of %llu blocks cannot run all at once on the CPU "
                 "backend, which runs %d blocks at a time (one per worker thread, as cudaDevAttrMultiProcessorCount "
                 "says; WB_EMU_THREADS sets their number): cudaErrorCooperativeLaunchTooLarge\n",
                 file, line, name, static_cast<unsigned long long>(blocks), worker_count());
    internal::record(cudaErrorCooperativeLaunchTooLarge);
    return result();
  }
  static std::mutex one_at_a_time;  // one cooperative grid at a time: `active` names it
  std::lock_guard<std::mutex> lock(one_at_a_time);
  Cooperative c;
  c.blocks = blocks;
  c.threads_per_block = block.x * block.y * block.z;
  c.workers.assign(blocks, nullptr);
  c.finished.assign(blocks, 0);
  active.store(&c);
  launch(grid, block, shared_bytes, stream, site, body, ctx);
  active.store(nullptr);
  return result();
}
}  // namespace detail
}  // namespace wb_emu

void wb_emu::detail::trap(const char* what, const char* file, int line) {
  internal::Worker* w = internal::current_worker();
  const std::string text = std::string(what) + " at " + internal::where(file, line) +
                           ": the kernel stopped itself, as __trap() stops it on a GPU";
  if (!w || w->current < 0) {  // called outside a kernel: nothing to stop but the program
    std::fprintf(stderr, "%s\n", text.c_str());
    std::abort();
  }
  internal::fault_here(*w, FaultKind::other, text, internal::at_this_thread(*w, file, line));
}
