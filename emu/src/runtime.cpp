// CPU backend: the runtime calls and the block executor behind emu/include/wb_emu/runtime.hpp.
#include <wb_emu/runtime.hpp>
#include <wb_emu/instrument.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <new>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

namespace wb_emu {
namespace {

// ---- errors: configuration errors are returned once, faults stay (as on a GPU) ----
std::mutex error_mutex;
cudaError_t last_error = cudaSuccess;
cudaError_t sticky_error = cudaSuccess;

cudaError_t record(cudaError_t e) {
  if (e != cudaSuccess) {
    std::lock_guard<std::mutex> lock(error_mutex);
    last_error = e;
  }
  return e;
}

cudaError_t sticky() {
  std::lock_guard<std::mutex> lock(error_mutex);
  return sticky_error;
}

// ---- emulated device memory: host allocations, tracked so that misuse is reported ----
std::mutex alloc_mutex;
std::map<std::uintptr_t, std::size_t> allocations;       // base -> bytes (cudaMalloc)
std::map<std::uintptr_t, std::size_t> host_allocations;  // base -> bytes (cudaMallocHost: kernels may use it)

bool in_allocation(const void* p, std::size_t bytes) {
  auto a = reinterpret_cast<std::uintptr_t>(p);
  std::lock_guard<std::mutex> lock(alloc_mutex);
  auto it = allocations.upper_bound(a);
  if (it == allocations.begin()) return false;
  --it;
  return a >= it->first && a + bytes <= it->first + it->second;
}

// ---- the executor: a pool of worker threads that run blocks ----
class Pool {
 public:
  explicit Pool(int n) {
    for (int i = 0; i < n; ++i) workers_.emplace_back([this] { loop(); });
  }
  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(m_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : workers_) t.join();
  }
  int size() const { return static_cast<int>(workers_.size()); }

  /// Runs job(worker) on every worker and waits for all of them.
  void run_on_all(const std::function<void()>& job) {
    std::unique_lock<std::mutex> lock(m_);
    job_ = &job;
    pending_ = size();
    ++generation_;
    cv_.notify_all();
    done_cv_.wait(lock, [this] { return pending_ == 0; });
    job_ = nullptr;
  }

 private:
  void loop() {
    std::uint64_t seen = 0;
    for (;;) {
      const std::function<void()>* job;
      {
        std::unique_lock<std::mutex> lock(m_);
        cv_.wait(lock, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
        job = job_;
      }
      (*job)();
      {
        std::lock_guard<std::mutex> lock(m_);
        if (--pending_ == 0) done_cv_.notify_all();
      }
    }
  }
  std::vector<std::thread> workers_;
  std::mutex m_;
  std::condition_variable cv_, done_cv_;
  const std::function<void()>* job_ = nullptr;
  int pending_ = 0;
  std::uint64_t generation_ = 0;
  bool stop_ = false;
};

Pool& pool() {
  static Pool p(worker_count());
  return p;
}

// ---- fibers: a hand-written context switch (x86-64 System V), stacks with a guard page ----
}  // namespace
}  // namespace wb_emu

extern "C" void wb_emu_switch(void** save_sp, void* load_sp);
extern "C" void wb_emu_fiber_start();
#if defined(__x86_64__)
// Saves the callee-saved registers and the FP control words on the current stack, stores the
// stack pointer in *save_sp, and resumes the context whose stack pointer is load_sp.
asm(R"(
  .text
  .globl wb_emu_switch
  .hidden wb_emu_switch
  .type wb_emu_switch,@function
wb_emu_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size wb_emu_switch,.-wb_emu_switch

  .globl wb_emu_fiber_start
  .hidden wb_emu_fiber_start
  .type wb_emu_fiber_start,@function
wb_emu_fiber_start:
  movq %r12, %rdi
  andq $-16, %rsp
  callq *%r13
  ud2
  .size wb_emu_fiber_start,.-wb_emu_fiber_start
)");
#else
#error "the CPU backend's fibers need an x86-64 context switch (port wb_emu_switch to this architecture)"
#endif

namespace wb_emu {
namespace {

constexpr std::size_t kStackBytes = 256 * 1024;

struct Fiber {
  void* sp = nullptr;
  unsigned char* mapping = nullptr;
  std::size_t mapped = 0;
  bool idle = true;
};

void fiber_main(void* self);

// (Re)starts `f` at fiber_main(f), discarding whatever it was running.
void fiber_reset(Fiber* f) {
  auto top = reinterpret_cast<std::uintptr_t>(f->mapping + f->mapped) & ~std::uintptr_t(15);
  void** sp = reinterpret_cast<void**>(top);
  *--sp = nullptr;                                          // alignment slot
  *--sp = reinterpret_cast<void*>(&wb_emu_fiber_start);     // return address of the first switch
  *--sp = nullptr;                                          // rbp
  *--sp = nullptr;                                          // rbx
  *--sp = f;                                                // r12: the argument
  *--sp = reinterpret_cast<void*>(&fiber_main);             // r13: the entry point
  *--sp = nullptr;                                          // r14
  *--sp = nullptr;                                          // r15
  *--sp = reinterpret_cast<void*>(std::uintptr_t(0x1F80) | (std::uintptr_t(0x037F) << 32));  // mxcsr, x87 cw
  f->sp = sp;
  f->idle = true;
}

Fiber* fiber_new() {
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGE_SIZE));
  auto* f = new Fiber;
  f->mapped = kStackBytes + page;
  void* m = mmap(nullptr, f->mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) {
    std::fprintf(stderr, "wb_emu: cannot map a fiber stack\n");
    std::abort();
  }
  mprotect(m, page, PROT_NONE);  // guard page: a kernel that overflows its stack faults here
  f->mapping = static_cast<unsigned char*>(m);
  fiber_reset(f);
  return f;
}

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

// ---- instrumentation (files built with WB_EMU_INSTRUMENT): per-worker records ----
struct SiteKey {
  const char* file;
  int line;
  bool store;
  bool operator==(const SiteKey& o) const { return file == o.file && line == o.line && store == o.store; }
};
struct SiteKeyHash {
  std::size_t operator()(const SiteKey& k) const {
    return std::hash<const void*>()(k.file) * 31 + static_cast<std::size_t>(k.line) * 2 + k.store;
  }
};
struct Site {
  SiteKey key;
  int bytes;
  AccessStats stats;
};
// One global access waiting for the rest of its warp: the thread's k-th access at `site`.
struct Event {
  std::uint32_t site, k;
  std::uint32_t bytes, pad;
  std::uintptr_t addr;
};
// What the race check knows of one 4-byte word of shared memory in the current interval (the
// accesses since the last __syncthreads()): its last writer and up to two readers.
struct Shadow {
  std::uint64_t interval = 0;
  int writer = -1;
  int wline = 0;
  const char* wfile = nullptr;
  std::uint32_t wepoch = 0;
  int reader[2] = {-1, -1};
  int rline[2] = {0, 0};
  const char* rfile[2] = {nullptr, nullptr};
  std::uint32_t repoch[2] = {0, 0};
};
struct Instr {
  // global memory: sites of this launch, per-thread access counters and per-warp pending accesses
  std::vector<Site> sites;
  std::unordered_map<SiteKey, std::uint32_t, SiteKeyHash> site_index;
  std::vector<std::uint32_t> kcount;  // [site * n + thread]
  std::vector<std::vector<Event>> warp_events;
  std::vector<unsigned> warp_live;
  std::vector<std::uint64_t> segments;  // scratch
  // shared memory: the race check
  std::vector<Shadow> shadow = std::vector<Shadow>(kSharedLimit / 4 + 16);
  std::uint64_t interval = 0;
  std::vector<std::uint32_t> wsync;  // __syncwarp()s each thread has passed
};
struct SharedName {
  std::size_t offset, bytes;
  const char* name;
};

struct Worker {
  // the block being run
  const Grid* g = nullptr;
  std::uint64_t block_linear = 0;
  unsigned n = 0, next = 0, live = 0;
  int current = -1;
  std::vector<ThreadRec> th;
  std::deque<unsigned> ready;
  void* sched_sp = nullptr;
  bool fault = false;
  std::string message;
  // reused across blocks
  std::vector<Fiber*> fibers;      // all of this worker's fibers
  std::vector<Fiber*> idle_list;   // those parked with no thread to run
  unsigned char* shared = nullptr;  // the arena (see kSharedSlack)
  std::size_t shared_used = 0;     // static storage carved so far, from the arena's start
  std::size_t dynamic_base = kSharedLimit;  // where the launch's dynamic region starts in the arena
  // instrumentation: `instr_active` once the running block has recorded an access
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
};

unsigned char* map_shared_arena() {
  void* m = mmap(nullptr, kSharedSlack + kSharedLimit + kSharedSlack, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) {
    std::fprintf(stderr, "wb_emu: cannot map shared memory\n");
    std::abort();
  }
  return static_cast<unsigned char*>(m) + kSharedSlack;
}

thread_local Worker* tls_worker = nullptr;

Worker& worker() {
  if (!tls_worker) {  // one per OS thread, kept for the process
    tls_worker = new Worker;
    tls_worker->shared = map_shared_arena();
  }
  return *tls_worker;
}

void set_thread_index(const Worker& w, unsigned t) {
  const unsigned bx = w.g->block.x, by = w.g->block.y;
  threadIdx = uint3{t % bx, (t / bx) % by, t / (bx * by)};
}

void instr_thread_done(Worker& w, unsigned t);
void instr_barrier_released(Worker& w);
void instr_flush_all(Worker& w);

// The body of every fiber: starts the block's threads one after another until none is left,
// then parks until the scheduler hands it the next block.
void fiber_main(void* arg) {
  auto* self = static_cast<Fiber*>(arg);
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
    wb_emu_switch(&self->sp, w.sched_sp);
  }
}

// Suspends the running thread (its state says why) and returns when the scheduler resumes it.
void suspend(Worker& w) {
  Fiber* self = w.th[static_cast<std::size_t>(w.current)].fiber;
  wb_emu_switch(&self->sp, w.sched_sp);
}

std::string where(const char* file, int line) { return std::string(file ? file : "?") + ":" + std::to_string(line); }

std::string thread_list(const std::vector<unsigned>& ids) {
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

std::string hex(unsigned v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%08x", v);
  return b;
}

// Records a fault of the running block; the scheduler stops the block.
void raise_fault(Worker& w, const std::string& what) {
  if (!w.fault) {
    w.fault = true;
    w.message = what;
  }
}

// Called on a kernel thread: records the fault and never returns to the kernel.
[[noreturn]] void fault_here(Worker& w, const std::string& what) {
  raise_fault(w, what);
  suspend(w);
  std::abort();  // a faulted block is never resumed
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
      raise_fault(w, "lanes of warp " + std::to_string(t / 32) + " meet at different warp operations with mask " +
                         hex(mask) + ": " + op_name(me.kind) + " at " + where(me.file, me.line) + " (lane " +
                         std::to_string(t - base) + ") and " + op_name(r.kind) + " at " + where(r.file, r.line) +
                         " (lane " + std::to_string(l) + ")");
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
        if (w.instr_active) ++w.instr->wsync[base + l];
        break;
    }
    if (base + l != t) {
      r.st = St::ready;
      w.ready.push_back(base + l);
    }
  }
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
    raise_fault(w, why);
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
  raise_fault(w, why);
}

void resume(Worker& w, Fiber* f) {
  f->idle = false;
  wb_emu_switch(&w.sched_sp, f->sp);
}

Fiber* idle_fiber(Worker& w) {
  if (!w.idle_list.empty()) {
    Fiber* f = w.idle_list.back();
    w.idle_list.pop_back();
    return f;
  }
  w.fibers.push_back(fiber_new());
  return w.fibers.back();
}

// ---- instrumentation: global-memory requests and sectors, shared-memory races ----

// The running block's first recorded access: set up its per-thread and per-warp records.
Instr& instr_begin_block(Worker& w) {
  if (!w.instr) w.instr = new Instr;
  Instr& I = *w.instr;
  w.instr_active = true;
  const unsigned warps = (w.n + 31) / 32;
  if (I.warp_events.size() < warps) I.warp_events.resize(warps);
  for (unsigned i = 0; i < warps; ++i) I.warp_events[i].clear();
  I.warp_live.assign(warps, 0);
  for (unsigned t = 0; t < w.n; ++t)
    if (w.th[t].st != St::done) ++I.warp_live[t / 32];
  I.kcount.assign(I.sites.size() * w.n, 0);
  I.wsync.assign(w.n, 0);
  ++I.interval;  // a new block: no shared access of an earlier one counts
  return I;
}

// Turns the pending accesses of warp `wi` into requests: the lanes that made their k-th access
// at one site form one request, whose sectors are the distinct 32-byte segments they touch.
void flush_warp(Instr& I, unsigned wi) {
  std::vector<Event>& ev = I.warp_events[wi];
  if (ev.empty()) return;
  std::sort(ev.begin(), ev.end(),
            [](const Event& a, const Event& b) { return a.site != b.site ? a.site < b.site : a.k < b.k; });
  for (std::size_t i = 0; i < ev.size();) {
    std::size_t j = i;
    std::uint64_t bytes = 0;
    I.segments.clear();
    for (; j < ev.size() && ev[j].site == ev[i].site && ev[j].k == ev[i].k; ++j) {
      bytes += ev[j].bytes;
      for (std::uintptr_t seg = ev[j].addr >> 5; seg <= (ev[j].addr + ev[j].bytes - 1) >> 5; ++seg)
        I.segments.push_back(seg);
    }
    std::sort(I.segments.begin(), I.segments.end());
    const auto distinct = std::unique(I.segments.begin(), I.segments.end()) - I.segments.begin();
    AccessStats& st = I.sites[ev[i].site].stats;
    st.requests += 1;
    st.sectors += static_cast<std::uint64_t>(distinct);
    st.ideal_sectors += (bytes + 31) / 32;
    i = j;
  }
  ev.clear();
}

void instr_flush_all(Worker& w) {
  Instr& I = *w.instr;
  for (unsigned i = 0; i < (w.n + 31) / 32; ++i) flush_warp(I, i);
}

void instr_thread_done(Worker& w, unsigned t) {
  Instr& I = *w.instr;
  if (--I.warp_live[t / 32] == 0) flush_warp(I, t / 32);
}

// A __syncthreads() let the block go on: a new interval for the race check, and no request
// spans a barrier.
void instr_barrier_released(Worker& w) {
  instr_flush_all(w);
  ++w.instr->interval;
}

std::string describe_thread(const Worker& w, int t) {
  std::string s = "thread " + std::to_string(t);
  const unsigned bx = w.g->block.x, by = w.g->block.y;
  if (by > 1 || w.g->block.z > 1) {
    const unsigned u = static_cast<unsigned>(t);
    s += " (threadIdx " + std::to_string(u % bx) + "," + std::to_string(u / bx % by) + "," +
         std::to_string(u / (bx * by)) + ")";
  }
  return s;
}

[[noreturn]] void report_race(Worker& w, std::size_t offset, unsigned bytes, int u, bool u_store, const char* ufile,
                              int uline, int t, bool t_store, const char* file, int line) {
  std::string name = "shared memory";
  std::size_t base = 0;
  for (const SharedName& n : w.shared_names)
    if (offset >= n.offset && offset < n.offset + n.bytes) {
      name = std::string("`") + n.name + "`";
      base = n.offset;
    }
  if (offset >= w.dynamic_base) {
    name = w.dynamic_name ? std::string("`") + w.dynamic_name + "` (extern __shared__)" : "extern __shared__ memory";
    base = w.dynamic_base;
  }
  const std::size_t in = offset - base;
  std::string why = "shared-memory race on " + name + " at byte offset " + std::to_string(in) + " (element " +
                    std::to_string(in / (bytes ? bytes : 4)) + " of " + std::to_string(bytes) +
                    " bytes): two threads touch it between the same two __syncthreads(), one of them writing:";
  why += "\n    " + describe_thread(w, u) + (u_store ? " wrote it at " : " read it at ") + where(ufile, uline);
  why += "\n    " + describe_thread(w, t) + (t_store ? " writes it at " : " reads it at ") + where(file, line);
  why += "\n  Threads run in no particular order between barriers: put a __syncthreads() (reached by every thread "
         "of the block) between one thread's write and another thread's access, or use an atomic.";
  fault_here(w, why);
}

// ---- instrumentation: accesses out of bounds ----

std::string triple(unsigned x, unsigned y, unsigned z) {
  return "(" + std::to_string(x) + "," + std::to_string(y) + "," + std::to_string(z) + ")";
}

// "at file:line, block (x,y,z), thread (x,y,z)": where the running kernel thread is.
std::string at_thread(const char* file, int line) {
  return "at " + where(file, line) + ", block " + triple(blockIdx.x, blockIdx.y, blockIdx.z) + ", thread " +
         triple(threadIdx.x, threadIdx.y, threadIdx.z);
}

std::string hex_address(std::uintptr_t a) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(a));
  return b;
}

// "N bytes past the end of", or "just past the end of" when N is 0.
std::string past_end(std::uintptr_t n) {
  return n == 0 ? "just past the end of" : std::to_string(n) + " bytes past the end of";
}

const char* kDynamicHint =
    "\n  The third launch argument is the size in bytes of the extern __shared__ array: give it enough for every "
    "element the kernel uses (kernel<<<grid, block, count * sizeof(T)>>>), or keep the index below that count.";

const char* kIndexHint =
    "\n  An index must be from 0 to its extent - 1: check the bounds of the index that is out of range "
    "(a GPU does not check them: it reads or overwrites other data, or stops with an illegal address).";

// An access to shared memory at `offset` from the arena's start (negative: before it) that is in
// no static __shared__ array and not in the launch's dynamic region.
[[noreturn]] void shared_out_of_bounds(Worker& w, std::ptrdiff_t offset, unsigned bytes, bool store, const char* file,
                                       int line) {
  const std::string access = store ? "write" : "read";
  const auto dyn = static_cast<std::ptrdiff_t>(w.dynamic_base);
  const std::size_t given = w.g->shared_bytes;
  const std::string dname = w.dynamic_name ? w.dynamic_name : "extern __shared__ memory";
  const unsigned size = bytes ? bytes : 1;
  // the nearest static array below the access, if any
  const SharedName* below = nullptr;
  for (const SharedName& n : w.shared_names)
    if (static_cast<std::ptrdiff_t>(n.offset) <= offset && (!below || n.offset > below->offset)) below = &n;
  const std::ptrdiff_t past_static = below ? offset - static_cast<std::ptrdiff_t>(below->offset + below->bytes) : -1;
  std::string why;
  const char* hint = kIndexHint;
  if (offset >= dyn || (given > 0 && w.dynamic_name && (past_static < 0 || dyn - offset <= past_static)))
    hint = kDynamicHint;
  if (offset >= dyn && given == 0) {
    why = access + " of " + dname + "[" + std::to_string((offset - dyn) / size) +
          "]: the launch gave no dynamic shared memory (its third argument, kernel<<<grid, block, bytes>>>, is 0 or "
          "missing) " + at_thread(file, line);
  } else if (offset >= dyn) {
    const std::ptrdiff_t in = offset - dyn;
    why = access + " of " + dname + "[" + std::to_string(in / size) + "]: byte " + std::to_string(in) +
          " is past the " + std::to_string(given) + " bytes the launch gave (its third argument) " +
          at_thread(file, line);
  } else if (given > 0 && w.dynamic_name && (past_static < 0 || dyn - offset <= past_static)) {
    const std::ptrdiff_t in = dyn - offset;
    why = access + " of " + dname + "[-" + std::to_string((in + size - 1) / size) + "]: " + std::to_string(in) +
          " bytes before the start of the " + std::to_string(given) + " bytes the launch gave " + at_thread(file, line);
  } else if (below) {
    why = access + " of " + std::to_string(bytes) + " bytes " + past_end(static_cast<std::uintptr_t>(past_static)) + " `" +
          below->name + "` (its " + std::to_string(below->bytes) + " bytes), in no __shared__ array, " +
          at_thread(file, line);
  } else {
    why = access + " of " + std::to_string(bytes) + " bytes " + std::to_string(-offset) +
          " bytes before the first __shared__ array, in no __shared__ array, " + at_thread(file, line);
  }
  fault_here(w, why + hint);
}

// Whether [offset, offset + bytes) of the arena is inside the dynamic region or one static array.
bool shared_in_bounds(const Worker& w, std::ptrdiff_t offset, unsigned bytes) {
  if (offset < 0) return false;
  const auto o = static_cast<std::size_t>(offset);
  if (o >= w.dynamic_base) return o + bytes <= w.dynamic_base + w.g->shared_bytes;
  for (const SharedName& n : w.shared_names)
    if (o >= n.offset && o + bytes <= n.offset + n.bytes) return true;
  return false;
}

// An access outside every allocation: say where it is from the nearest one.
[[noreturn]] void global_out_of_bounds(Worker& w, std::uintptr_t a, unsigned bytes, bool store, const char* file,
                                       int line) {
  std::uintptr_t base = 0;
  std::size_t size = 0;
  const char* kind = "cudaMalloc";
  bool found = false;
  {
    std::lock_guard<std::mutex> lock(alloc_mutex);
    auto consider = [&](const std::map<std::uintptr_t, std::size_t>& m, const char* k) {
      auto distance = [a](std::uintptr_t lo, std::size_t n) { return a < lo ? lo - a : a - (lo + n); };
      auto it = m.upper_bound(a);
      if (it != m.end() && (!found || distance(it->first, it->second) < distance(base, size))) {
        base = it->first, size = it->second, kind = k, found = true;
      }
      if (it != m.begin()) {
        --it;
        if (!found || distance(it->first, it->second) < distance(base, size))
          base = it->first, size = it->second, kind = k, found = true;
      }
    };
    consider(allocations, "cudaMalloc");
    consider(host_allocations, "cudaMallocHost");
  }
  const unsigned n = bytes ? bytes : 1;
  std::string why = std::string(store ? "write" : "read") + " of " + std::to_string(bytes) +
                    " bytes outside every cudaMalloc allocation " + at_thread(file, line) + ": ";
  if (a < 65536) {
    why += "the address is " + hex_address(a) + ", a null pointer (plus an index)";
  } else if (found && a >= base + size && a - (base + size) <= (std::uintptr_t(1) << 30)) {
    why += "it is " + past_end(a - (base + size)) + " the " + std::to_string(size) +
           "-byte " + kind + " allocation at " + hex_address(base) + " (index " + std::to_string((a - base) / n) +
           " of " + std::to_string(n) + "-byte elements from its start, which has " + std::to_string(size / n) + ")";
  } else if (found && a < base && base - a <= (std::uintptr_t(1) << 30)) {
    why += "it is " + std::to_string(base - a) + " bytes before the start of the " + std::to_string(size) + "-byte " +
           kind + " allocation at " + hex_address(base) + " (index -" + std::to_string((base - a + n - 1) / n) + " of " +
           std::to_string(n) + "-byte elements)";
  } else {
    why += "the address " + hex_address(a) + " is far from every allocation (a host pointer, a freed allocation or "
           "a wild index)";
  }
  why += "\n  A GPU stops such a kernel with an illegal address (cudaErrorIllegalAddress) or lets it read or "
         "overwrite another array; check the index against the array's size.";
  fault_here(w, why);
}

}  // namespace
}  // namespace wb_emu

// The program's own static data (`__device__` and `__constant__` variables live there on this backend).
extern "C" char etext[], end[];  // NOLINT: the linker's names

namespace wb_emu {
namespace {

// Whether a global access lies in an allocation (cudaMalloc, cudaMallocHost) or the program's
// static data; the allocations found are cached per worker for the launch.
bool global_in_bounds(Worker& w, std::uintptr_t a, unsigned bytes) {
  const std::uintptr_t e = a + (bytes ? bytes : 1);
  for (const Worker::Range& r : w.alloc_cache)
    if (a >= r.lo && e <= r.hi) return true;
  if (a >= reinterpret_cast<std::uintptr_t>(::etext) && e <= reinterpret_cast<std::uintptr_t>(::end)) return true;
  std::lock_guard<std::mutex> lock(alloc_mutex);
  for (const auto* m : {&allocations, &host_allocations}) {
    auto it = m->upper_bound(a);
    if (it == m->begin()) continue;
    --it;
    if (e <= it->first + it->second) {
      w.alloc_cache[w.alloc_cache_next++ % 4] = Worker::Range{it->first, it->first + it->second};
      return true;
    }
  }
  return false;
}

// One shared-memory access of the running thread, checked against the others' accesses since
// the last barrier.
void shared_access(Worker& w, std::size_t offset, unsigned bytes, bool store, const char* file, int line) {
  Instr& I = w.instr_active ? *w.instr : instr_begin_block(w);
  const int t = w.current;
  auto unordered = [&](int u, std::uint32_t epoch) {
    return u >= 0 && u != t && !(u / 32 == t / 32 && I.wsync[static_cast<unsigned>(u)] > epoch);
  };
  const std::size_t last = (offset + (bytes ? bytes : 1) - 1) / 4;
  for (std::size_t word = offset / 4; word <= last && word < I.shadow.size(); ++word) {
    Shadow& s = I.shadow[word];
    if (s.interval != I.interval) {
      s = Shadow{};
      s.interval = I.interval;
    }
    if (unordered(s.writer, s.wepoch)) report_race(w, offset, bytes, s.writer, true, s.wfile, s.wline, t, store, file, line);
    const std::uint32_t epoch = I.wsync[static_cast<unsigned>(t)];
    if (store) {
      for (int r = 0; r < 2; ++r)
        if (unordered(s.reader[r], s.repoch[r]))
          report_race(w, offset, bytes, s.reader[r], false, s.rfile[r], s.rline[r], t, true, file, line);
      s.writer = t;
      s.wfile = file;
      s.wline = line;
      s.wepoch = epoch;
      s.reader[0] = s.reader[1] = -1;
    } else {
      const int slot = (s.reader[0] < 0 || s.reader[0] == t) ? 0 : (s.reader[1] < 0 || s.reader[1] == t) ? 1 : -1;
      if (slot >= 0) {
        s.reader[slot] = t;
        s.rfile[slot] = file;
        s.rline[slot] = line;
        s.repoch[slot] = epoch;
      }
    }
  }
}

// Runs all threads of block `linear` on the calling thread; returns false (message in the
// worker) when the block faulted.
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
  w.th.assign(w.n, ThreadRec{});
  w.ready.clear();
  ++detail::block_generation;
  w.instr_active = false;
  w.shared_names.clear();
  w.dynamic_name = nullptr;
  // Fresh for every block, and not zero: a read before any write shows up as garbage.
  w.shared_used = 0;
  w.dynamic_base = kSharedLimit - (g.shared_bytes + 15) / 16 * 16;
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
  if (w.fault) {
    // Threads left suspended are abandoned: their fibers start afresh for the next block.
    for (Fiber* f : w.fibers)
      if (!f->idle) {
        fiber_reset(f);
        w.idle_list.push_back(f);
      }
    return false;
  }
  return true;
}

// What CUDA says to a launch it refuses: the error, and why (nullptr when the launch is valid).
// A grid with a 0 dimension is refused with cudaErrorInvalidValue (seen on an H200 with CUDA 13),
// the other limits with cudaErrorInvalidConfiguration.
struct ConfigProblem {
  cudaError_t error;
  const char* why;
};

ConfigProblem config_problem(dim3 grid, dim3 block, std::size_t shared_bytes) {
  if (grid.x == 0 || grid.y == 0 || grid.z == 0) return {cudaErrorInvalidValue, "a grid dimension is 0 (no blocks to run)"};
  if (block.x == 0 || block.y == 0 || block.z == 0) return {cudaErrorInvalidConfiguration, "a block dimension is 0"};
  if (block.x > 1024 || block.y > 1024 || block.z > 64)
    return {cudaErrorInvalidConfiguration, "a block dimension is over its limit (1024, 1024, 64)"};
  if (std::uint64_t(block.x) * block.y * block.z > 1024)
    return {cudaErrorInvalidConfiguration, "more than 1024 threads per block"};
  if (grid.x > 2147483647u || grid.y > 65535u || grid.z > 65535u)
    return {cudaErrorInvalidConfiguration, "a grid dimension is over its limit (2^31-1, 65535, 65535)"};
  if (shared_bytes > 48 * 1024)
    return {cudaErrorInvalidConfiguration, "more than 48 KiB of dynamic shared memory per block"};
  return {cudaSuccess, nullptr};
}

}  // namespace

int worker_count() {
  static const int n = [] {
    if (const char* env = std::getenv("WB_EMU_THREADS")) {
      int v = std::atoi(env);
      if (v > 0) return v;
    }
    unsigned hc = std::thread::hardware_concurrency();
    return hc ? static_cast<int>(hc) : 1;
  }();
  return n;
}

void* dynamic_shared_base() {
  Worker* w = tls_worker;
  return w && w->g && w->g->shared_bytes ? w->shared + w->dynamic_base : nullptr;
}

namespace detail {

void record_access(const volatile void* addr, unsigned bytes, bool store, const char* file, int line) {
  Worker* wp = tls_worker;
  if (!wp || wp->current < 0 || !wp->g) return;  // not inside a kernel
  Worker& w = *wp;
  const auto a = reinterpret_cast<std::uintptr_t>(addr);
  const auto sh = reinterpret_cast<std::uintptr_t>(w.shared);
  if (a + kSharedSlack >= sh && a < sh + kSharedLimit + kSharedSlack) {
    const auto offset = static_cast<std::ptrdiff_t>(a - sh);
    if (!shared_in_bounds(w, offset, bytes)) shared_out_of_bounds(w, offset, bytes, store, file, line);
    shared_access(w, static_cast<std::size_t>(offset), bytes, store, file, line);
    return;
  }
  const unsigned t = static_cast<unsigned>(w.current);
  if (const Fiber* f = w.th[t].fiber) {
    const auto lo = reinterpret_cast<std::uintptr_t>(f->mapping);
    if (a >= lo && a < lo + f->mapped) return;  // the thread's own stack (local arrays)
  }
  if (!global_in_bounds(w, a, bytes)) global_out_of_bounds(w, a, bytes, store, file, line);
  Instr& I = w.instr_active ? *w.instr : instr_begin_block(w);
  const SiteKey key{file, line, store};
  auto it = I.site_index.find(key);
  std::uint32_t site;
  if (it != I.site_index.end()) {
    site = it->second;
  } else {
    site = static_cast<std::uint32_t>(I.sites.size());
    I.sites.push_back(Site{key, static_cast<int>(bytes), AccessStats{}});
    I.site_index.emplace(key, site);
    I.kcount.resize(I.kcount.size() + w.n, 0);
  }
  const std::uint32_t k = I.kcount[std::size_t(site) * w.n + t]++;
  I.warp_events[t / 32].push_back(Event{site, k, bytes, 0, a});
}

void* name_dynamic_shared(const char* name) {
  Worker* w = tls_worker;
  if (!w || !w->g) return nullptr;
  w->dynamic_name = name;
  return w->shared + w->dynamic_base;
}

SharedSubscript* keep_bad_subscript(const SharedSubscript& s) {
  thread_local SharedSubscript slots[8];
  thread_local unsigned next = 0;
  SharedSubscript* slot = &slots[next++ % 8];
  *slot = s;
  return slot;
}

void shared_index_fault(const SharedSubscript& s, const char* access, const char* file, int line) {
  static const char* const ordinal[] = {"first", "second", "third", "fourth"};
  std::string text = std::string(access) + " of " + (s.name ? s.name : "a __shared__ array");
  for (int i = 0; i < s.count; ++i) text += i < 4 ? "[" + std::to_string(s.index[i]) + "]" : std::string("[..]");
  text += ": the ";
  if (s.rank > 1) text += std::string(s.bad < 4 ? ordinal[s.bad] : "next") + " ";
  text += "index ";
  const std::ptrdiff_t bad = s.bad < 4 ? s.index[s.bad] : 0;
  text += bad < 0 ? "is negative " : "is past its extent " + std::to_string(s.extent) + " ";
  Worker* w = tls_worker;
  if (!w || w->current < 0 || !w->g) {
    std::fprintf(stderr, "wb_emu: %s at %s\n", text.c_str(), where(file, line).c_str());
    std::abort();
  }
  fault_here(*w, text + at_thread(file, line) + kIndexHint);
}

void* shared_alloc(std::size_t bytes, std::size_t align, const char* what, const char* name) {
  Worker& w = worker();
  const std::size_t at = (w.shared_used + align - 1) / align * align;
  if (align > 64 || at + bytes > w.dynamic_base)
    fault_here(w, std::string(what) + " storage of this block needs more than " + std::to_string(kSharedLimit / 1024) +
                      " KiB of shared memory (dynamic " + std::to_string(w.g->shared_bytes) + " bytes + static " +
                      std::to_string(at + bytes) + " bytes)");
  std::memset(w.shared + at, shared_poison_byte, bytes);
  w.shared_used = at + bytes;
  if (name) w.shared_names.push_back(SharedName{at, bytes, name});
  return w.shared + at;
}

int barrier(const char* file, int line, int pred) {
  Worker& w = worker();
  if (w.current < 0) return pred != 0;  // not inside a kernel
  ThreadRec& r = w.th[static_cast<std::size_t>(w.current)];
  if (w.live == 1 && w.next >= w.n) {  // the only live thread: nothing to wait for
    if (w.instr_active) instr_barrier_released(w);
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
  if (width < 1 || width > 32 || (width & (width - 1)))
    fault_here(w, op() + ": width " + std::to_string(width) + " is not a power of 2 from 1 to 32");
  if (!(mask >> lane & 1u)) fault_here(w, op() + ": the mask " + hex(mask) + " does not name the calling lane");
  for (unsigned l = 0; l < 32; ++l) {
    if (!(mask >> l & 1u)) continue;
    if (base + l >= w.n)
      fault_here(w, op() + ": the mask " + hex(mask) + " names lane " + std::to_string(l) +
                        ", which does not exist (the block has " + std::to_string(w.n) + " threads)");
    if (w.th[base + l].st == St::done)
      fault_here(w, op() + ": the mask " + hex(mask) + " names lane " + std::to_string(l) + " (thread " +
                        std::to_string(base + l) + "), which has exited");
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
    if (w.fault) fault_here(w, w.message);
    r.st = St::running;
    return r.result;
  }
  suspend(w);
  return w.th[t].result;
}

}  // namespace detail

namespace {
std::mutex stats_mutex;
MemoryStats last_stats;
std::string last_fault;

// The per-line statistics of one launch, merged from its workers.
struct LaunchRecords {
  std::mutex m;
  std::map<std::tuple<std::string, int, bool>, LineStats> lines;

  void merge(Instr& I) {
    std::lock_guard<std::mutex> lock(m);
    for (const Site& site : I.sites) {
      LineStats& l = lines[{site.key.file ? site.key.file : "?", site.key.line, site.key.store}];
      if (l.bytes == 0) {
        l.file = site.key.file ? site.key.file : "?";
        l.line = site.key.line;
        l.store = site.key.store;
        l.bytes = site.bytes;
      }
      l.stats.requests += site.stats.requests;
      l.stats.sectors += site.stats.sectors;
      l.stats.ideal_sectors += site.stats.ideal_sectors;
    }
    I.sites.clear();
    I.site_index.clear();
  }
};
}  // namespace

void launch(dim3 grid, dim3 block, std::size_t shared_bytes, cudaStream_t, const LaunchSite& site,
            void (*body)(void*), void* ctx) {
  {
    std::lock_guard<std::mutex> lock(stats_mutex);
    last_stats = MemoryStats{};
  }
  if (sticky() != cudaSuccess) {
    record(sticky());
    return;
  }
  if (const ConfigProblem p = config_problem(grid, block, shared_bytes); p.why) {
    if (std::getenv("WB_EMU_VERBOSE"))
      std::fprintf(stderr, "%s:%d: launch of %s rejected: %s (grid %u,%u,%u block %u,%u,%u)\n", site.file, site.line,
                   site.kernel, p.why, grid.x, grid.y, grid.z, block.x, block.y, block.z);
    record(p.error);
    return;
  }
  const Grid g{grid, block, shared_bytes, body, ctx, &site};
  const std::uint64_t blocks = std::uint64_t(grid.x) * grid.y * grid.z;
  std::atomic<bool> failed{false};
  LaunchRecords records;
  auto work = [&g, &failed, &records, blocks](std::atomic<std::uint64_t>* next) {
    gridDim = g.grid;
    blockDim = g.block;
    for (Worker::Range& r : worker().alloc_cache) r = Worker::Range{};  // allocations may have changed
    for (std::uint64_t b; !failed.load(std::memory_order_relaxed) &&
                          (b = next->fetch_add(1, std::memory_order_relaxed)) < blocks;) {
      if (run_block(g, b)) continue;
      if (failed.exchange(true)) break;  // report only the first fault of a launch
      Worker& w = worker();
      auto triple = [](unsigned x, unsigned y, unsigned z) {
        return "(" + std::to_string(x) + "," + std::to_string(y) + "," + std::to_string(z) + ")";
      };
      const std::string text = where(g.site->file, g.site->line) + ": error: kernel fault in " + g.site->kernel +
                               ", launched here with grid " + triple(g.grid.x, g.grid.y, g.grid.z) + " and block " +
                               triple(g.block.x, g.block.y, g.block.z) + "; in block " +
                               triple(blockIdx.x, blockIdx.y, blockIdx.z) + ":\n  " + w.message;
      std::fprintf(stderr, "%s\n", text.c_str());
      std::fflush(stderr);
      std::lock_guard<std::mutex> lock(error_mutex);
      sticky_error = last_error = cudaErrorLaunchFailure;
      last_fault = text;
    }
    Worker& w = worker();
    if (w.instr && !w.instr->sites.empty()) records.merge(*w.instr);
    w.g = nullptr;
    w.current = -1;
  };
  std::atomic<std::uint64_t> next{0};
  if (blocks == 1 || worker_count() == 1) {
    work(&next);
  } else {
    static std::mutex launch_mutex;  // one grid at a time, as on a single stream
    std::lock_guard<std::mutex> lock(launch_mutex);
    pool().run_on_all([&] { work(&next); });
  }
  if (site.instrumented || !records.lines.empty()) {
    MemoryStats stats;
    stats.instrumented = true;
    for (auto& entry : records.lines) {
      const LineStats& l = entry.second;
      AccessStats& sum = l.store ? stats.stores : stats.loads;
      sum.requests += l.stats.requests;
      sum.sectors += l.stats.sectors;
      sum.ideal_sectors += l.stats.ideal_sectors;
      stats.lines.push_back(l);
    }
    std::stable_sort(stats.lines.begin(), stats.lines.end(),
                     [](const LineStats& a, const LineStats& b) { return a.stats.sectors > b.stats.sectors; });
    std::lock_guard<std::mutex> lock(stats_mutex);
    last_stats = std::move(stats);
  }
}

MemoryStats last_launch_memory_stats() {
  std::lock_guard<std::mutex> lock(stats_mutex);
  return last_stats;
}

std::string last_fault_message() {
  std::lock_guard<std::mutex> lock(error_mutex);
  return last_fault;
}

}  // namespace wb_emu

using namespace wb_emu;

// ---- device ----
cudaError_t cudaGetDeviceCount(int* count) {
  if (!count) return record(cudaErrorInvalidValue);
  *count = 1;
  return cudaSuccess;
}
cudaError_t cudaGetDevice(int* device) {
  if (!device) return record(cudaErrorInvalidValue);
  *device = 0;
  return cudaSuccess;
}
cudaError_t cudaSetDevice(int device) { return device == 0 ? cudaSuccess : record(cudaErrorInvalidDevice); }

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  if (!prop) return record(cudaErrorInvalidValue);
  if (device != 0) return record(cudaErrorInvalidDevice);
  std::memset(prop, 0, sizeof *prop);
  std::snprintf(prop->name, sizeof prop->name, "CPU backend (%d worker threads)", worker_count());
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  prop->totalGlobalMem = pages > 0 && page > 0 ? std::size_t(pages) * std::size_t(page) : 0;
  prop->sharedMemPerBlock = 48 * 1024;
  prop->sharedMemPerMultiprocessor = 100 * 1024;
  prop->regsPerBlock = 65536;
  prop->warpSize = 32;
  prop->maxThreadsPerBlock = 1024;
  prop->maxThreadsDim[0] = 1024;
  prop->maxThreadsDim[1] = 1024;
  prop->maxThreadsDim[2] = 64;
  prop->maxGridSize[0] = 2147483647;
  prop->maxGridSize[1] = 65535;
  prop->maxGridSize[2] = 65535;
  prop->multiProcessorCount = worker_count();
  prop->maxThreadsPerMultiProcessor = 2048;
  return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
  if (!value) return record(cudaErrorInvalidValue);
  if (device != 0) return record(cudaErrorInvalidDevice);
  cudaDeviceProp p;
  cudaGetDeviceProperties(&p, 0);
  switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: *value = p.maxThreadsPerBlock; break;
    case cudaDevAttrMaxBlockDimX: *value = p.maxThreadsDim[0]; break;
    case cudaDevAttrMaxGridDimX: *value = p.maxGridSize[0]; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *value = static_cast<int>(p.sharedMemPerBlock); break;
    case cudaDevAttrWarpSize: *value = 32; break;
    case cudaDevAttrMultiProcessorCount: *value = p.multiProcessorCount; break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *value = p.maxThreadsPerMultiProcessor; break;
    case cudaDevAttrComputeCapabilityMajor: *value = 0; break;
    case cudaDevAttrComputeCapabilityMinor: *value = 0; break;
    // No memory system is modelled: no clock, no bus, no cache.
    case cudaDevAttrMemoryClockRate:
    case cudaDevAttrGlobalMemoryBusWidth:
    case cudaDevAttrL2CacheSize: *value = 0; break;
    default: return record(cudaErrorInvalidValue);
  }
  return cudaSuccess;
}

// ---- memory ----
cudaError_t cudaMalloc(void** ptr, std::size_t bytes) {
  if (!ptr) return record(cudaErrorInvalidValue);
  *ptr = nullptr;
  if (bytes == 0) return cudaSuccess;
  void* p = ::operator new(bytes, std::align_val_t(256), std::nothrow);
  if (!p) return record(cudaErrorMemoryAllocation);
  {
    std::lock_guard<std::mutex> lock(alloc_mutex);
    allocations[reinterpret_cast<std::uintptr_t>(p)] = bytes;
  }
  *ptr = p;
  return cudaSuccess;
}

cudaError_t cudaFree(void* ptr) {
  if (!ptr) return cudaSuccess;
  {
    std::lock_guard<std::mutex> lock(alloc_mutex);
    auto it = allocations.find(reinterpret_cast<std::uintptr_t>(ptr));
    if (it == allocations.end()) return record(cudaErrorInvalidValue);
    allocations.erase(it);
  }
  ::operator delete(ptr, std::align_val_t(256));
  return cudaSuccess;
}

cudaError_t cudaMallocHost(void** ptr, std::size_t bytes) {
  if (!ptr) return record(cudaErrorInvalidValue);
  *ptr = bytes ? std::malloc(bytes) : nullptr;
  if (bytes && !*ptr) return record(cudaErrorMemoryAllocation);
  if (*ptr) {
    std::lock_guard<std::mutex> lock(alloc_mutex);
    host_allocations[reinterpret_cast<std::uintptr_t>(*ptr)] = bytes;
  }
  return cudaSuccess;
}
cudaError_t cudaFreeHost(void* ptr) {
  if (ptr) {
    std::lock_guard<std::mutex> lock(alloc_mutex);
    host_allocations.erase(reinterpret_cast<std::uintptr_t>(ptr));
  }
  std::free(ptr);
  return cudaSuccess;
}

cudaError_t cudaMemcpy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind) {
  if (cudaError_t e = sticky()) return record(e);
  if (bytes == 0) return cudaSuccess;
  if (!dst || !src) return record(cudaErrorInvalidValue);
  bool dst_dev = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  bool src_dev = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault) return record(cudaErrorInvalidMemcpyDirection);
  if ((dst_dev && !in_allocation(dst, bytes)) || (src_dev && !in_allocation(src, bytes)))
    return record(cudaErrorInvalidValue);
  std::memmove(dst, src, bytes);
  return cudaSuccess;
}
cudaError_t cudaMemcpyAsync(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind, cudaStream_t) {
  return cudaMemcpy(dst, src, bytes, kind);
}
cudaError_t cudaMemset(void* dst, int value, std::size_t bytes) {
  if (cudaError_t e = sticky()) return record(e);
  if (bytes == 0) return cudaSuccess;
  if (!in_allocation(dst, bytes)) return record(cudaErrorInvalidValue);
  std::memset(dst, value, bytes);
  return cudaSuccess;
}
cudaError_t cudaMemsetAsync(void* dst, int value, std::size_t bytes, cudaStream_t) {
  return cudaMemset(dst, value, bytes);
}
cudaError_t cudaMemGetInfo(std::size_t* free_bytes, std::size_t* total_bytes) {
  if (!free_bytes || !total_bytes) return record(cudaErrorInvalidValue);
  long pages = sysconf(_SC_AVPHYS_PAGES), all = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  *free_bytes = std::size_t(pages) * std::size_t(page);
  *total_bytes = std::size_t(all) * std::size_t(page);
  return cudaSuccess;
}

// ---- synchronisation: launches finish before they return, so these only report errors ----
cudaError_t cudaDeviceSynchronize() { return sticky() ? record(sticky()) : cudaSuccess; }
cudaError_t cudaDeviceReset() {
  std::lock_guard<std::mutex> lock(error_mutex);
  last_error = sticky_error = cudaSuccess;
  return cudaSuccess;
}
cudaError_t cudaStreamCreate(cudaStream_t* stream) {
  if (!stream) return record(cudaErrorInvalidValue);
  *stream = reinterpret_cast<cudaStream_t>(new char);
  return cudaSuccess;
}
cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  delete reinterpret_cast<char*>(stream);
  return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaDeviceSynchronize(); }
cudaError_t cudaStreamQuery(cudaStream_t) { return cudaDeviceSynchronize(); }

// ---- events: host clock readings (CPU-backend times say nothing about a GPU) ----
struct CUevent_st {
  std::chrono::steady_clock::time_point t{};
  bool recorded = false;
};
cudaError_t cudaEventCreate(cudaEvent_t* event) {
  if (!event) return record(cudaErrorInvalidValue);
  *event = new CUevent_st;
  return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t event) {
  delete event;
  return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t) {
  if (!event) return record(cudaErrorInvalidResourceHandle);
  event->t = std::chrono::steady_clock::now();
  event->recorded = true;
  return cudaSuccess;
}
cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  return event ? cudaSuccess : record(cudaErrorInvalidResourceHandle);
}
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  if (!ms || !start || !end) return record(cudaErrorInvalidValue);
  if (!start->recorded || !end->recorded) return record(cudaErrorInvalidResourceHandle);
  *ms = std::chrono::duration<float, std::milli>(end->t - start->t).count();
  return cudaSuccess;
}

// ---- error reporting ----
cudaError_t cudaGetLastError() {
  std::lock_guard<std::mutex> lock(error_mutex);
  cudaError_t e = last_error;
  last_error = sticky_error;
  return e;
}
cudaError_t cudaPeekAtLastError() {
  std::lock_guard<std::mutex> lock(error_mutex);
  return last_error;
}

const char* cudaGetErrorName(cudaError_t e) {
  switch (e) {
#define WB_NAME(x) case x: return #x;
    WB_NAME(cudaSuccess) WB_NAME(cudaErrorInvalidValue) WB_NAME(cudaErrorMemoryAllocation)
    WB_NAME(cudaErrorInitializationError) WB_NAME(cudaErrorInvalidConfiguration)
    WB_NAME(cudaErrorInvalidDevicePointer) WB_NAME(cudaErrorInvalidMemcpyDirection)
    WB_NAME(cudaErrorInsufficientDriver) WB_NAME(cudaErrorNoDevice) WB_NAME(cudaErrorInvalidDevice)
    WB_NAME(cudaErrorInvalidResourceHandle) WB_NAME(cudaErrorNotReady) WB_NAME(cudaErrorIllegalAddress)
    WB_NAME(cudaErrorLaunchOutOfResources) WB_NAME(cudaErrorLaunchTimeout) WB_NAME(cudaErrorAssert) WB_NAME(cudaErrorHardwareStackError) WB_NAME(cudaErrorIllegalInstruction) WB_NAME(cudaErrorMisalignedAddress)
    WB_NAME(cudaErrorLaunchFailure) WB_NAME(cudaErrorNotSupported) WB_NAME(cudaErrorUnknown)
#undef WB_NAME
  }
  return "cudaErrorUnknown";
}

const char* cudaGetErrorString(cudaError_t e) {
  switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInitializationError: return "initialization error";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidDevicePointer: return "invalid device pointer";
    case cudaErrorInvalidMemcpyDirection: return "invalid copy direction for memcpy";
    case cudaErrorInsufficientDriver: return "CUDA driver version is insufficient for CUDA runtime version";
    case cudaErrorNoDevice: return "no CUDA-capable device is detected";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorNotReady: return "device not ready";
    case cudaErrorIllegalAddress: return "an illegal memory access was encountered";
    case cudaErrorLaunchOutOfResources: return "too many resources requested for launch";
    case cudaErrorLaunchTimeout: return "the launch timed out and was terminated";
    case cudaErrorAssert: return "device-side assert triggered";
    case cudaErrorHardwareStackError: return "hardware stack error";
    case cudaErrorIllegalInstruction: return "an illegal instruction was encountered";
    case cudaErrorMisalignedAddress: return "misaligned address";
    case cudaErrorLaunchFailure: return "unspecified launch failure";
    case cudaErrorNotSupported: return "operation not supported";
    case cudaErrorUnknown: return "unknown error";
  }
  return "unknown error";
}
