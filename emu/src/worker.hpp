// CPU backend: the state of one worker thread and of the block it runs (threads, fibers, shared
// memory), shared by the scheduler, the instrumentation and the bounds checks; and the small
// helpers their messages are written with.
#pragma once

#include "fiber.hpp"

#include <wb_emu/block.hpp>
#include <wb_emu/fault.hpp>
#include <wb_emu/launch.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <string>
#include <vector>

#include <pthread.h>

namespace wb_emu::internal {

// ---- per-block state ----
enum class St : std::uint8_t { unstarted, running, ready, at_barrier, at_warp, done };

struct ThreadRec {
  St st = St::unstarted;
  Fiber* fiber = nullptr;
  const char* file = nullptr;  // where it waits
  int line = 0;
  detail::WarpKind kind{};
  unsigned mask = 0;
  int arg = 0, width = 32, pred = 0;
  std::uint64_t value = 0, result = 0;
};

struct Grid {
  dim3 grid, block;
  std::size_t shared_bytes;
  void (*body)(void*);
  void* ctx;
  const LaunchSite* site;
};

constexpr std::size_t kSharedLimit = 48 * 1024;
// Each worker's shared memory is a mapping of its own: kSharedSlack bytes, the kSharedLimit-byte
// arena, kSharedSlack bytes. Static __shared__ arrays are carved from the arena's start, the
// launch's dynamic region ends at its end, so an index past the dynamic region lands in the slack
// after it, where no allocation can be: instrumented accesses there are reported as past the bytes
// the launch gave (and a plain build reads or writes unused memory instead of the worker's state).
constexpr std::size_t kSharedSlack = 64 * 1024;
// The arena itself is larger than the 48 KiB a block may use: static arrays are carved from its
// start with kSharedGap bytes between them, where no array is, so that an index that runs off the
// end of one array lands in no array (a fault in instrumented builds) rather than in the next; what
// a block may declare is still counted against kSharedLimit (Worker::shared_declared).
constexpr std::size_t kSharedArena = 2 * kSharedLimit;
constexpr std::size_t kSharedGap = 128;  // a multiple of 32 banks of 4 bytes: banks are as without it

/// Where a fault happened, as far as the code that finds it knows: the faulting thread of the block
/// (linear: threadIdx.x + threadIdx.y*blockDim.x + ...; -1 when no one thread is the faulting one,
/// as for a barrier that part of the block waits at) and the source line of the access or operation
/// (file nullptr or "?" and line 0 when not known). The fault's record is made of it (launch.cpp).
struct FaultAt {
  int thread = -1;
  const char* file = nullptr;
  int line = 0;
};

struct Instr;  // instrument.hpp
struct SharedName {
  std::size_t offset, bytes;
  const char* name;
};

struct Worker {
  // the block being run
  const Grid* g = nullptr;
  std::uint64_t block_linear = 0;
  std::uint64_t block_position = 0;  // its place in the launch's start order (<wb_emu/block_order.hpp>)
  std::uint64_t block_seed = 0;      // the process's block-order seed when that order is scrambled, else 0
  unsigned n = 0, next = 0, live = 0;
  int current = -1;
  std::vector<ThreadRec> th;
  std::deque<unsigned> ready;
  bool fault = false;
  std::string message;  // the fault's explanation (wb_emu::Fault::explanation)
  FaultKind fault_kind = FaultKind::other;
  FaultAt fault_at;
  cudaError_t fault_code = cudaErrorLaunchFailure;  // what the launch returns for it (illegal address...)
  // reused across blocks
  std::vector<Fiber*> fibers;      // all of this worker's fibers
  std::vector<Fiber*> idle_list;   // those parked with no thread to run
  Fiber* running = nullptr;        // the fiber executing now (nullptr: the scheduler is)
  pthread_t thread{};              // the OS thread this worker state belongs to
  unsigned char* shared = nullptr;  // the arena (see kSharedSlack)
  std::size_t shared_used = 0;     // static storage carved so far, from the arena's start (gaps included)
  std::size_t shared_declared = 0;  // the bytes of static storage declared (alignment, no gaps)
  std::size_t dynamic_base = kSharedArena;  // where the launch's dynamic region starts in the arena
  // instrumentation: `instr_launch` while a block of an instrumented launch runs here; `instr_active`
  // once that block has recorded an access
  bool instr_launch = false;
  bool instr_active = false;
  Instr* instr = nullptr;
  std::vector<SharedName> shared_names;
  const char* dynamic_name = nullptr;
  // instrumentation: allocations recently found to hold an access (cleared at every launch)
  struct Range {
    std::uintptr_t lo = 0, hi = 0;
  };
  Range alloc_cache[4];
  unsigned alloc_cache_next = 0;
  // instrumented launches: the first barrier of this worker's blocks that some threads of the
  // block had exited before (a warning, never a fault); cleared at every launch
  struct ExitNote {
    bool set = false;
    std::uint64_t block = 0;  // the block's linear number
    std::uint64_t position = 0;  // its place in the launch's start order
    uint3 block_idx{0, 0, 0};
    const char* file = nullptr;  // the barrier
    int line = 0;
    std::vector<unsigned> exited;  // the threads that had exited
  };
  ExitNote exit_note;
};

/// This OS thread's worker state, made on first use and kept for the process.
Worker& worker();
/// This OS thread's worker state, or nullptr when it has none yet.
Worker* current_worker();
/// The same, for the instrumentation's quick first test of every access (access.cpp).
extern thread_local Worker* tls_worker;

/// Runs all threads of block `linear` of `g` on the calling thread; returns false (message in the
/// worker) when the block faulted.
bool run_block(const Grid& g, std::uint64_t linear);

/// Records a fault of the running block (unless it has one already): its kind, its explanation
/// and, where known, the thread and source line; the scheduler stops the block.
void raise_fault(Worker& w, FaultKind kind, const std::string& what, FaultAt at = {});
/// Called on a kernel thread: records the fault and never returns to the kernel.
[[noreturn]] void fault_here(Worker& w, FaultKind kind, const std::string& what, FaultAt at = {});
/// Called on a kernel thread of a block that has faulted already (raise_fault): never returns.
[[noreturn]] void stop_here(Worker& w);
/// The running kernel thread, at `file`:`line` (an operation whose line the call names).
inline FaultAt at_this_thread(const Worker& w, const char* file, int line) { return FaultAt{w.current, file, line}; }

// ---- message helpers ----
inline std::string where(const char* file, int line) {
  return std::string(file ? file : "?") + ":" + std::to_string(line);
}

/// "threads 0-15, 20" (or "thread 3").
inline std::string thread_list(const std::vector<unsigned>& ids) {
  std::string out;
  std::size_t i = 0;
  while (i < ids.size()) {
    std::size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    if (!out.empty()) out += ", ";
    out += std::to_string(ids[i]);
    if (j > i) out += "-" + std::to_string(ids[j]);
    i = j + 1;
  }
  return (ids.size() == 1 ? "thread " : "threads ") + out;
}

/// 0x0000ffff
inline std::string hex(unsigned v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%08x", v);
  return b;
}

/// (x,y,z)
inline std::string triple(unsigned x, unsigned y, unsigned z) {
  return "(" + std::to_string(x) + "," + std::to_string(y) + "," + std::to_string(z) + ")";
}
}  // namespace wb_emu::internal
