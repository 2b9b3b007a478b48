// CPU backend: the scheduler. It runs a block's threads on its worker thread: one after another
// as plain calls on one fiber until a thread reaches __syncthreads() or a warp operation, then as
// fibers that wait there until every thread the operation needs has arrived (or exited). It owns
// the block's shared memory (the worker's arena, carved per block and poisoned), the barriers,
// the warp operations, and the faults that name which threads wait where.
#include "instrument.hpp"
#include "stack_guard.hpp"
#include "worker.hpp"

#include <wb_emu/block.hpp>
#include <wb_emu/launch.hpp>

#include <cstdio>
#include <cstdlib>
#include <atomic>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

namespace wb_emu::internal {
thread_local Worker* tls_worker = nullptr;
namespace {

// Every worker's shared memory lies in one range reserved without memory behind it (PROT_NONE), far
// from the host's memory where the system allows it (kSharedHint, away from the device arena's: see
// memory.cpp), one slot of kSharedSlot bytes per worker with its mapping in the middle (past the
// 512th worker, a mapping of its own anywhere, as before). A plain
// build's index far past a __shared__ array (a global index used for a block's tile) then faults,
// the launch's illegal address, instead of overwriting a thread's stack or malloc's heap next to
// the mapping; a slot's PROT_NONE margins keep a near miss out of the next worker's memory too.
constexpr std::size_t kSharedWindow = kSharedSlack + kSharedArena + kSharedSlack;
// (8 MiB slots: an index lands in another worker's memory only about 3% of the time when it is past
// the margins; 512 of them, 4 GiB of address space, which an emulator such as qemu-user records per page.)
constexpr std::size_t kSharedSlot = std::size_t(8) << 20;
constexpr std::size_t kSharedSlots = 512;
#if UINTPTR_MAX > 0xffffffffu
constexpr std::uintptr_t kSharedHint = std::uintptr_t(24) << 40;
#else
constexpr std::uintptr_t kSharedHint = 0;
#endif
static_assert(kSharedWindow < kSharedSlot, "a worker's shared memory fits its slot");

unsigned char* map_shared_arena() {
  static unsigned char* const region = [] {
    void* r = mmap(reinterpret_cast<void*>(kSharedHint), kSharedSlot * kSharedSlots, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return r == MAP_FAILED ? nullptr : static_cast<unsigned char*>(r);
  }();
  static std::atomic<std::size_t> next_slot{0};
  if (region) {
    const std::size_t slot = next_slot.fetch_add(1);
    const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGE_SIZE));
    unsigned char* const m = region + slot * kSharedSlot + (kSharedSlot - kSharedWindow) / 2 / page * page;
    if (slot < kSharedSlots && mprotect(m, kSharedWindow, PROT_READ | PROT_WRITE) == 0) return m + kSharedSlack;
  }
  void* m = mmap(nullptr, kSharedWindow, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) {
    std::fprintf(stderr, "wb_emu: cannot map shared memory\n");
    std::abort();
  }
  return static_cast<unsigned char*>(m) + kSharedSlack;
}
}  // namespace

Worker& worker() {
  if (!tls_worker) {  // one per OS thread, kept for the process
    tls_worker = new Worker;
    tls_worker->shared = map_shared_arena();
    tls_worker->thread = pthread_self();
    register_worker(tls_worker);
  }
  return *tls_worker;
}

Worker* current_worker() { return tls_worker; }

namespace {
void set_thread_index(const Worker& w, unsigned t) {
  const unsigned bx = w.g->block.x, by = w.g->block.y;
  threadIdx = uint3{t % bx, (t / bx) % by, t / (bx * by)};
}

// Suspends the running thread (its state says why) and returns when the scheduler resumes it.
void suspend(Worker& w) {
  w.th[static_cast<std::size_t>(w.current)].fiber->suspend();
}

const char* op_name(detail::WarpKind k) {
  switch (k) {
    case detail::WarpKind::syncwarp: return "__syncwarp";
    case detail::WarpKind::shfl: return "__shfl_sync";
    case detail::WarpKind::shfl_up: return "__shfl_up_sync";
    case detail::WarpKind::shfl_down: return "__shfl_down_sync";
    case detail::WarpKind::shfl_xor: return "__shfl_xor_sync";
    case detail::WarpKind::ballot: return "__ballot_sync";
    case detail::WarpKind::any: return "__any_sync";
    case detail::WarpKind::all: return "__all_sync";
    case detail::WarpKind::reduce_add: return "__reduce_add_sync";
    case detail::WarpKind::reduce_min: return "__reduce_min_sync";
    case detail::WarpKind::reduce_max: return "__reduce_max_sync";
  }
  return "warp operation";
}
}  // namespace

void raise_fault(Worker& w, FaultKind kind, const std::string& what, FaultAt at) {
  if (!w.fault) {
    w.fault = true;
    w.message = what;
    w.fault_kind = kind;
    w.fault_at = at;
  }
}

void stop_here(Worker& w) {
  suspend(w);
  std::abort();  // a faulted block is never resumed
}

void fault_here(Worker& w, FaultKind kind, const std::string& what, FaultAt at) {
  raise_fault(w, kind, what, at);
  stop_here(w);
}

namespace {
// The body of every fiber: starts the block's threads one after another until none is left,
// then parks until the scheduler hands it the next block.
void fiber_main(Fiber* self) {
  for (;;) {
    Worker& w = *tls_worker;
    while (w.next < w.n) {
      const unsigned t = w.next++;
      ThreadRec& r = w.th[t];
      r.st = St::running;
      r.fiber = self;
      w.current = static_cast<int>(t);
      set_thread_index(w, t);
      w.g->body(w.g->ctx);
      w.th[t].st = St::done;
      --w.live;
      if (w.instr_active) instr_thread_done(w, t);
    }
    self->idle = true;
    w.idle_list.push_back(self);
    self->suspend();
  }
}

std::string describe_wait(const Worker& w, unsigned tid) {
  const ThreadRec& r = w.th[tid];
  switch (r.st) {
    case St::done: return "has exited";
    case St::at_barrier: return "waits at __syncthreads() at " + where(r.file, r.line);
    case St::at_warp:
      return "waits at " + std::string(op_name(r.kind)) + " at " + where(r.file, r.line) + " with mask " + hex(r.mask);
    default: return "is running";
  }
}

// All lanes named by the mask of thread t have arrived: compute everyone's result, wake them.
void complete_warp_op(Worker& w, unsigned t) {
  const unsigned base = t / 32 * 32;
  const ThreadRec& me = w.th[t];
  const unsigned mask = me.mask;
  for (unsigned l = 0; l < 32; ++l) {
    if (!(mask >> l & 1u)) continue;
    ThreadRec& r = w.th[base + l];
    if (r.kind != me.kind) {
      raise_fault(w, FaultKind::warp,
                  "lanes of warp " + std::to_string(t / 32) + " meet at different warp operations with mask " +
                      hex(mask) + ": " + op_name(me.kind) + " at " + where(me.file, me.line) + " (lane " +
                      std::to_string(t - base) + ") and " + op_name(r.kind) + " at " + where(r.file, r.line) +
                      " (lane " + std::to_string(l) + ")",
                  FaultAt{static_cast<int>(t), me.file, me.line});
      return;
    }
  }
  unsigned votes = 0;
  std::uint64_t sum = 0, mn = ~std::uint64_t(0), mx = 0;
  for (unsigned l = 0; l < 32; ++l)
    if (mask >> l & 1u) {
      const std::uint64_t v = w.th[base + l].value;
      if (v) votes |= 1u << l;
      sum += v;
      mn = v < mn ? v : mn;
      mx = v > mx ? v : mx;
    }
  for (unsigned l = 0; l < 32; ++l) {
    if (!(mask >> l & 1u)) continue;
    ThreadRec& r = w.th[base + l];
    const unsigned width = static_cast<unsigned>(r.width);
    const unsigned seg = l & ~(width - 1);  // first lane of this lane's segment
    long src = l;
    switch (r.kind) {
      case detail::WarpKind::shfl: src = seg + (static_cast<unsigned>(r.arg) & (width - 1)); break;
      case detail::WarpKind::shfl_up:
        src = (l - seg) >= static_cast<unsigned>(r.arg) ? long(l) - r.arg : long(l);
        break;
      case detail::WarpKind::shfl_down:
        src = (l - seg) + static_cast<unsigned>(r.arg) < width ? long(l) + r.arg : long(l);
        break;
      case detail::WarpKind::shfl_xor: {
        const unsigned x = l ^ static_cast<unsigned>(r.arg);
        src = x < seg + width ? long(x) : long(l);
        break;
      }
      default: break;
    }
    switch (r.kind) {
      case detail::WarpKind::shfl:
      case detail::WarpKind::shfl_up:
      case detail::WarpKind::shfl_down:
      case detail::WarpKind::shfl_xor:
        // a source lane outside the mask takes no part: the lane keeps its own value
        r.result = (src >= 0 && src < 32 && (mask >> src & 1u)) ? w.th[base + unsigned(src)].value : r.value;
        break;
      case detail::WarpKind::ballot: r.result = votes; break;
      case detail::WarpKind::any: r.result = votes != 0; break;
      case detail::WarpKind::all: r.result = votes == mask; break;
      case detail::WarpKind::reduce_add: r.result = static_cast<std::uint32_t>(sum); break;
      case detail::WarpKind::reduce_min: r.result = mn; break;
      case detail::WarpKind::reduce_max: r.result = mx; break;
      case detail::WarpKind::syncwarp:
        r.result = 0;
        if (w.instr_active) instr_syncwarp_passed(w, base + l);
        break;
    }
    if (base + l != t) {
      r.st = St::ready;
      w.ready.push_back(base + l);
    }
  }
}

// Instrumented launches: the barrier at file:line releases while some threads of the block have
// exited. Correct, on a GPU as here (an exited thread counts as arrived); noted once per worker and
// launch, and the launch prints one warning (launch.cpp).
void note_exit_before_barrier(Worker& w, const char* file, int line) {
  if (w.exit_note.set || !w.g->site->instrumented) return;
  Worker::ExitNote& e = w.exit_note;
  e.set = true;
  e.block = w.block_linear;
  e.position = w.block_position;
  e.block_idx = blockIdx;
  e.file = file;
  e.line = line;
  e.exited.clear();
  for (unsigned t = 0; t < w.n; ++t)
    if (w.th[t].st == St::done) e.exited.push_back(t);
}

// Every live thread waits: release the barrier, or report why the block can never go on.
void resolve_block(Worker& w) {
  for (unsigned t = 0; t < w.n; ++t) {
    const ThreadRec& r = w.th[t];
    if (r.st != St::at_warp) continue;
    const unsigned base = t / 32 * 32;
    std::vector<unsigned> waiting, exited, exited_threads;
    for (unsigned l = 0; l < 32; ++l)
      if ((r.mask >> l & 1u) && w.th[base + l].st == St::at_warp && w.th[base + l].mask == r.mask) waiting.push_back(l);
    std::string why = std::string(op_name(r.kind)) + " at " + where(r.file, r.line) + ", warp " +
                      std::to_string(t / 32) + ", mask " + hex(r.mask) + ": " + thread_list(waiting).replace(0, 6, "lane") +
                      " wait for lanes that never come:";
    for (unsigned l = 0; l < 32; ++l) {
      if (!(r.mask >> l & 1u)) continue;
      const ThreadRec& o = w.th[base + l];
      if (o.st == St::at_warp && o.mask == r.mask) continue;
      if (o.st == St::done) {
        exited.push_back(l);
        exited_threads.push_back(base + l);
        continue;
      }
      why += "\n    lane " + std::to_string(l) + " (thread " + std::to_string(base + l) + ") " + describe_wait(w, base + l);
    }
    if (!exited.empty())
      why += "\n    the mask names " + thread_list(exited).replace(0, 6, "lane") + " (" + thread_list(exited_threads) +
             "), which " + (exited.size() == 1 ? "has" : "have") + " exited";
    why += "\n  A warp operation's mask must name only lanes that reach it; __activemask() or __ballot_sync() "
           "before the branch gives the lanes still running.";
    raise_fault(w, FaultKind::warp, why, FaultAt{-1, r.file, r.line});  // the lanes that wait, not one thread
    return;
  }
  // all live threads are at barriers: the common case, one barrier, is checked first
  const char* file0 = nullptr;
  int line0 = 0;
  bool same = true;
  for (unsigned t = 0; t < w.n && same; ++t) {
    const ThreadRec& r = w.th[t];
    if (r.st != St::at_barrier) continue;
    if (!file0) {
      file0 = r.file;
      line0 = r.line;
    } else {
      same = r.line == line0 && (r.file == file0 || std::strcmp(r.file, file0) == 0);
    }
  }
  std::map<std::pair<std::string, int>, std::vector<unsigned>> sites;
  if (same) {
    int count = 0;
    for (unsigned t = 0; t < w.n; ++t)
      if (w.th[t].st == St::at_barrier) count += w.th[t].pred != 0;
    for (unsigned t = 0; t < w.n; ++t)
      if (w.th[t].st == St::at_barrier) {
        w.th[t].st = St::ready;
        w.th[t].result = static_cast<std::uint64_t>(count);
        w.ready.push_back(t);
      }
    if (w.live < w.n) note_exit_before_barrier(w, file0, line0);
    if (w.instr_active) instr_barrier_released(w);
    return;
  }
  for (unsigned t = 0; t < w.n; ++t)
    if (w.th[t].st == St::at_barrier) sites[{w.th[t].file ? w.th[t].file : "?", w.th[t].line}].push_back(t);
  std::string why = "threads of the block wait at different __syncthreads() barriers, so none can go on (a GPU "
                    "would hang or give wrong results):";
  for (const auto& s : sites)
    why += "\n    " + s.first.first + ":" + std::to_string(s.first.second) + ": " + thread_list(s.second);
  std::vector<unsigned> exited;
  for (unsigned t = 0; t < w.n; ++t)
    if (w.th[t].st == St::done) exited.push_back(t);
  if (!exited.empty()) why += "\n    (exited, counted as arrived: " + thread_list(exited) + ")";
  why += "\n  Every thread of a block that has not exited must reach the same __syncthreads(); a barrier inside "
         "a branch that only part of the block takes is the usual cause.";
  if (w.g->block.y > 1 || w.g->block.z > 1)
    why += "\n  (thread numbers are linear: threadIdx.x + threadIdx.y*blockDim.x + threadIdx.z*blockDim.x*blockDim.y)";
  // No one thread is at fault; the line is the barrier the lowest waiting thread is at.
  FaultAt at;
  for (unsigned t = 0; t < w.n && !at.file; ++t)
    if (w.th[t].st == St::at_barrier) at = FaultAt{-1, w.th[t].file, w.th[t].line};
  raise_fault(w, FaultKind::barrier, why, at);
}

void resume(Worker& w, Fiber* f) {
  f->idle = false;
  w.running = f;  // for the stack-overflow report (stack_guard.cpp)
  f->resume();
  w.running = nullptr;
}

Fiber* idle_fiber(Worker& w) {
  if (!w.idle_list.empty()) {
    Fiber* f = w.idle_list.back();
    w.idle_list.pop_back();
    return f;
  }
  w.fibers.push_back(new Fiber(&fiber_main));
  return w.fibers.back();
}

}  // namespace

bool run_block(const Grid& g, std::uint64_t linear) {
  Worker& w = worker();
  const std::uint64_t gx = g.grid.x, gy = g.grid.y;
  blockIdx = uint3{static_cast<unsigned>(linear % gx), static_cast<unsigned>((linear / gx) % gy),
                   static_cast<unsigned>(linear / (gx * gy))};
  w.g = &g;
  w.block_linear = linear;
  w.n = g.block.x * g.block.y * g.block.z;
  w.next = 0;
  w.live = w.n;
  w.current = -1;
  w.fault = false;
  w.fault_code = cudaErrorLaunchFailure;
  w.th.assign(w.n, ThreadRec{});
  w.ready.clear();
  ++detail::block_generation;
  w.instr_launch = g.site->instrumented;
  w.instr_active = false;
  w.shared_names.clear();
  w.dynamic_name = nullptr;
  // Fresh for every block, and not zero: a read before any write shows up as garbage.
  w.shared_used = 0;
  w.shared_declared = 0;
  w.dynamic_base = kSharedArena - (g.shared_bytes + 15) / 16 * 16;
  if (g.shared_bytes) std::memset(w.shared + w.dynamic_base, shared_poison_byte, g.shared_bytes);
  for (;;) {
    if (w.fault) break;
    if (!w.ready.empty()) {
      const unsigned t = w.ready.front();
      w.ready.pop_front();
      w.th[t].st = St::running;
      w.current = static_cast<int>(t);
      set_thread_index(w, t);
      resume(w, w.th[t].fiber);
      continue;
    }
    if (w.next < w.n) {
      resume(w, idle_fiber(w));
      continue;
    }
    if (w.live == 0) break;
    resolve_block(w);
  }
  if (w.instr_active) instr_flush_all(w);
  w.instr_launch = false;
  if (w.fault) {
    // Threads left suspended are abandoned: their fibers start afresh for the next block.
    for (Fiber* f : w.fibers)
      if (!f->idle) {
        f->restart();
        f->idle = true;
        w.idle_list.push_back(f);
      }
    return false;
  }
  return true;
}

}  // namespace wb_emu::internal

namespace wb_emu {
using namespace internal;

void* dynamic_shared_base() {
  Worker* w = tls_worker;
  return w && w->g && w->g->shared_bytes ? w->shared + w->dynamic_base : nullptr;
}


namespace detail {
void* shared_alloc(std::size_t bytes, std::size_t align, const char* what, const char* name) {
  Worker& w = worker();
  const std::size_t at = (w.shared_used + (w.shared_used ? kSharedGap : 0) + align - 1) / align * align;
  const std::size_t declared = (w.shared_declared + align - 1) / align * align + bytes;
  if (align > 64 || declared + w.g->shared_bytes > kSharedLimit || at + bytes > w.dynamic_base)
    fault_here(w, FaultKind::resources,
               std::string(what) + " storage of this block needs more than " + std::to_string(kSharedLimit / 1024) +
                   " KiB of shared memory (dynamic " + std::to_string(w.g->shared_bytes) + " bytes + static " +
                   std::to_string(declared) + " bytes)",
               FaultAt{w.current, nullptr, 0});
  std::memset(w.shared + at, shared_poison_byte, bytes);
  w.shared_used = at + bytes;
  w.shared_declared = declared;
  if (name) w.shared_names.push_back(SharedName{at, bytes, name});
  return w.shared + at;
}

int barrier(const char* file, int line, int pred) {
  Worker& w = worker();
  if (w.current < 0) return pred != 0;  // not inside a kernel
  ThreadRec& r = w.th[static_cast<std::size_t>(w.current)];
  if (w.live == 1 && w.next >= w.n) {  // the only live thread: nothing to wait for
    if (w.n > 1) note_exit_before_barrier(w, file, line);
    if (w.instr_active) instr_barrier_released(w);
    if (w.fault) stop_here(w);  // a read of unwritten shared memory before this barrier
    return pred != 0;
  }
  r.st = St::at_barrier;
  r.file = file;
  r.line = line;
  r.pred = pred;
  suspend(w);
  return static_cast<int>(w.th[static_cast<std::size_t>(w.current)].result);
}

unsigned active_mask() {
  Worker& w = worker();
  if (w.current < 0) return 1u;
  const unsigned base = static_cast<unsigned>(w.current) / 32 * 32;
  unsigned m = 0;
  for (unsigned l = 0; l < 32 && base + l < w.n; ++l)
    if (w.th[base + l].st != St::done) m |= 1u << l;
  return m;
}

std::uint64_t warp_op(WarpKind kind, unsigned mask, std::uint64_t value, int arg, int width, const char* file,
                      int line) {
  Worker& w = worker();
  if (w.current < 0) return value;
  const unsigned t = static_cast<unsigned>(w.current);
  const unsigned base = t / 32 * 32, lane = t - base;
  auto op = [&] {
    return std::string(op_name(kind)) + " at " + where(file, line) + " (warp " + std::to_string(t / 32) + ", lane " +
           std::to_string(lane) + ", thread " + std::to_string(t) + ")";
  };
  const FaultAt here = at_this_thread(w, file, line);
  if (width < 1 || width > 32 || (width & (width - 1)))
    fault_here(w, FaultKind::warp, op() + ": width " + std::to_string(width) + " is not a power of 2 from 1 to 32",
               here);
  if (!(mask >> lane & 1u))
    fault_here(w, FaultKind::warp, op() + ": the mask " + hex(mask) + " does not name the calling lane", here);
  for (unsigned l = 0; l < 32; ++l) {
    if (!(mask >> l & 1u)) continue;
    if (base + l >= w.n)
      fault_here(w, FaultKind::warp,
                 op() + ": the mask " + hex(mask) + " names lane " + std::to_string(l) +
                     ", which does not exist (the block has " + std::to_string(w.n) + " threads)",
                 here);
    if (w.th[base + l].st == St::done)
      fault_here(w, FaultKind::warp,
                 op() + ": the mask " + hex(mask) + " names lane " + std::to_string(l) + " (thread " +
                     std::to_string(base + l) + "), which has exited",
                 here);
  }
  ThreadRec& r = w.th[t];
  r.st = St::at_warp;
  r.kind = kind;
  r.mask = mask;
  r.value = value;
  r.arg = arg;
  r.width = width;
  r.file = file;
  r.line = line;
  bool all_here = true;
  for (unsigned l = 0; l < 32 && all_here; ++l)
    if (mask >> l & 1u) {
      const ThreadRec& o = w.th[base + l];
      all_here = o.st == St::at_warp && o.mask == mask;
    }
  if (all_here) {
    complete_warp_op(w, t);
    if (w.fault) stop_here(w);
    r.st = St::running;
    return r.result;
  }
  suspend(w);
  return w.th[t].result;
}
}  // namespace detail
}  // namespace wb_emu
