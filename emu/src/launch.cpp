// CPU backend: a launch. Its configuration is checked as CUDA checks it (a refused launch does
// nothing and leaves the error for cudaGetLastError); then its blocks are spread over the worker
// threads, each taking the next block of the launch's start order (a seeded, scrambled permutation of
// the blocks, <wb_emu/block_order.hpp>) from a shared counter, and the first fault in that order is
// reported (to stderr, and sticky as on a GPU) with the kernel, its launch site and configuration, and the block
// (its record, wb_emu::Fault, is what is kept, printed with describe(), and appended as JSON to the
// file WB_EMU_FAULTS names); so is, in instrumented builds, a warning for threads that exited
// before a barrier.
#include "errors.hpp"
#include "fault_format.hpp"
#include "graph.hpp"
#include "instrument.hpp"
#include "memory.hpp"
#include "pool.hpp"
#include "stack_guard.hpp"
#include "worker.hpp"

#include <wb_emu/block_order.hpp>
#include <wb_emu/diagnostics.hpp>
#include <wb_emu/launch.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <time.h>
#include <unistd.h>

namespace wb_emu {
namespace internal {
namespace {
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

std::mutex log_mutex;
bool logging = false;
std::vector<LaunchConfig> logged;
std::vector<cudaStream_t> logged_graphs;

// The warning of the most recent launch, and the (launch site, barrier) pairs already warned of.
std::mutex warning_mutex;
std::string last_warning;
std::set<std::tuple<std::string, int, std::string, int>> warned;
std::vector<ExitBeforeBarrier> warned_records;  // one per element of `warned`, in the order met

// An instrumented launch whose blocks had threads exit before a barrier the rest reached: one
// warning, for the first such block in start order, printed the first time this launch site and barrier give it.
void warn_exit_before_barrier(const Grid& g, const Worker::ExitNote& e) {
  const std::string text =
      where(g.site->file, g.site->line) + ": warning: in " + g.site->kernel + ", launched here with grid " +
      triple(g.grid.x, g.grid.y, g.grid.z) + " and block " + triple(g.block.x, g.block.y, g.block.z) +
      "; in block " + triple(e.block_idx.x, e.block_idx.y, e.block_idx.z) + ":\n  " + thread_list(e.exited) +
      (e.exited.size() == 1 ? " has" : " have") + " exited before the __syncthreads() at " + where(e.file, e.line) +
      " that the rest of the block reached\n  This is correct (an exited thread counts as arrived at a barrier, "
      "on a GPU as here) and is not an error; but the exited threads take no part in what the barrier orders: no "
      "thread may need a shared-memory element that they would have written. Keeping every thread to the end and "
      "guarding its work with `if (i < n)` avoids the question.";
  std::lock_guard<std::mutex> lock(warning_mutex);
  last_warning = text;
  if (warned.insert({g.site->file ? g.site->file : "?", g.site->line, e.file ? e.file : "?", e.line}).second) {
    warned_records.push_back({g.site->kernel ? g.site->kernel : "?", g.site->file ? g.site->file : "?", g.site->line,
                              e.file ? e.file : "?", e.line, e.block_idx, g.block.x * g.block.y * g.block.z, e.exited});
    std::fprintf(stderr, "%s\n", text.c_str());
    std::fflush(stderr);
  }
}

// The fault of the launch still running, the first faulting block's in start order so far (`running_faulted`):
// a watchdog that gives up on a launch that never ends (a block that faulted, and another, already
// running, that never ends) still names the fault (running_launch_fault()).
std::mutex running_fault_mutex;
bool running_faulted = false;
Fault running_fault;

// The blocks of the launch still running, for a watchdog that gives up on it (running_launch_blocks()):
// its start order, how far the workers have taken it, and per worker the block it runs (linear + 1; 0:
// none). Set and cleared by launch() under running_mutex; the watchdog reads it under the same mutex.
struct Running {
  const Grid* g = nullptr;
  const BlockOrder* order = nullptr;
  const std::atomic<std::uint64_t>* next = nullptr;
  std::unique_ptr<std::atomic<std::uint64_t>[]> slots;
  int slot_count = 0;
  std::atomic<int> slots_taken{0};
};
std::mutex running_mutex;
Running* running = nullptr;

uint3 index_of(const Grid& g, std::uint64_t linear) {
  const std::uint64_t gx = g.grid.x, gy = g.grid.y;
  return uint3{static_cast<unsigned>(linear % gx), static_cast<unsigned>(linear / gx % gy),
               static_cast<unsigned>(linear / (gx * gy))};
}
std::string block_name(const Grid& g, std::uint64_t linear) {
  const uint3 b = index_of(g, linear);
  return triple(b.x, b.y, b.z);
}

// The record of the fault of the block `w` has just run (the running block: blockIdx).
Fault fault_record(const Grid& g, const Worker& w) {
  Fault f;
  f.kind = w.fault_kind;
  f.kernel = g.site->kernel ? g.site->kernel : "";
  f.launch_file = g.site->file ? g.site->file : "";
  f.launch_line = g.site->line;
  const unsigned grid[3] = {g.grid.x, g.grid.y, g.grid.z}, block_dim[3] = {g.block.x, g.block.y, g.block.z},
                 block[3] = {blockIdx.x, blockIdx.y, blockIdx.z};
  for (int i = 0; i < 3; ++i) {
    f.grid[i] = grid[i];
    f.block_dim[i] = block_dim[i];
    f.block[i] = block[i];
  }
  if (w.fault_at.thread >= 0) {
    const unsigned t = static_cast<unsigned>(w.fault_at.thread), bx = g.block.x, by = g.block.y;
    f.has_thread = true;
    f.thread[0] = t % bx;
    f.thread[1] = t / bx % by;
    f.thread[2] = t / (bx * by);
  }
  // "?": the line tables did not say (symbolize.hpp)
  if (w.fault_at.file && std::strcmp(w.fault_at.file, "?") != 0) f.file = w.fault_at.file;
  f.line = w.fault_at.line;
  f.explanation = w.message;
  f.block_seed = w.block_seed;
  return f;
}

// The fault of a launch that wrote past an allocation's end, into the rest of its last page, where
// no access faults (memory.hpp, Overrun): found when the launch ended, so no block or thread is named.
Fault overrun_fault(const Grid& g, const Overrun& o) {
  Fault f;
  f.kind = FaultKind::illegal_address;
  f.kernel = g.site->kernel ? g.site->kernel : "";
  f.launch_file = g.site->file ? g.site->file : "";
  f.launch_line = g.site->line;
  const unsigned grid[3] = {g.grid.x, g.grid.y, g.grid.z}, block_dim[3] = {g.block.x, g.block.y, g.block.z};
  for (int i = 0; i < 3; ++i) {
    f.grid[i] = grid[i];
    f.block_dim[i] = block_dim[i];
  }
  f.has_block = false;
  const Allocation& a = o.allocation;
  char base[32];
  std::snprintf(base, sizeof base, "0x%llx", static_cast<unsigned long long>(a.base));
  const std::size_t changed = o.last - o.first + 1;
  std::string array = "the " + std::to_string(a.bytes) + "-byte " + a.kind + " allocation at " + base;
  if (a.has_extent() && a.file)
    array += " (the array allocated at " + where(a.file, a.line) + " and its guard zones)";
  f.explanation = "illegal address: the kernel wrote past the end of " + array + ": " +
                  (o.first == 0 ? std::string("from its first byte past the end")
                                : "from " + std::to_string(o.first) + " bytes past its end") +
                  ", " + std::to_string(changed) + (changed == 1 ? " byte" : " bytes") +
                  " were changed (found when the launch ended: which block or thread wrote is not known)\n"
                  "  A GPU stops such a kernel with an illegal address (cudaErrorIllegalAddress) or lets it overwrite "
                  "whatever lies after the array; check the index against the array's size before the write (an "
                  "instrumented build, `check`, names the thread and the line).";
  f.block_seed = 0;
  return f;
}

}  // namespace
}  // namespace internal

using namespace internal;

namespace {
// ---- the backstop: a launch that outlives the grader's watchdog ----
// A grader's watchdog (wb::Watchdog) ends a launch that never ends after WB_WATCHDOG_SECONDS (30 s
// unless set). It formats its report with the heap; should a kernel's wild write have broken the
// heap, or a thread died holding malloc's lock, it hangs there, and so does the grader. So the
// backend keeps a watch of its own, which touches neither: a thread that sleeps, and once a launch
// has run for that limit and as long again (at least 5 s more), writes a message made in a fixed
// buffer with write(2) and ends the process with _exit(3), the watchdog's own status.
std::atomic<std::int64_t> backstop_since{0};  // when the running launch started (steady ns), 0: none
std::atomic<const char*> backstop_kernel{nullptr}, backstop_file{nullptr};
std::atomic<int> backstop_line{0};
std::once_flag backstop_once;
char backstop_message[2048];

std::int64_t steady_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return std::int64_t(t.tv_sec) * 1000000000 + t.tv_nsec;
}

void backstop_watch(long limit_s, long grace_s) {
  const std::int64_t after_ns = std::int64_t(limit_s + grace_s) * 1000000000;
  for (;;) {
    const timespec pause{0, 200 * 1000 * 1000};
    nanosleep(&pause, nullptr);
    const std::int64_t since = backstop_since.load();
    if (since == 0 || steady_ns() - since < after_ns) continue;
    BufferSink out(backstop_message, sizeof backstop_message);
    out.put("\nCPU backend: the launch of ");
    const char* kernel = backstop_kernel.load();
    const char* file = backstop_file.load();
    out.put(kernel ? kernel : "?");
    out.put(" at ");
    out.put(file && *file ? file : "?");
    out.put(":");
    out.put_int(backstop_line.load());
    out.put(" has run for ");
    out.put_int(limit_s + grace_s);
    out.put(" s: the grader's watchdog (");
    out.put_int(limit_s);
    out.put(" s, WB_WATCHDOG_SECONDS) should have stopped it ");
    out.put_int(grace_s);
    out.put(" s ago and could not: its report needs memory or a lock that is broken (a kernel that wrote outside "
            "its arrays into the host's memory can do this) or the process is stuck elsewhere.\n"
            "  A kernel that never ends, or one that broke the grader's memory: the process ends here, with no "
            "verdict.\n");
    std::size_t left = out.size();
    for (const char* p = backstop_message; left > 0;) {
      const ssize_t k = write(STDERR_FILENO, p, left);
      if (k <= 0) break;
      p += k;
      left -= static_cast<std::size_t>(k);
    }
    _exit(3);
  }
}

// Starts the watch (once) and marks the launch `site` as running; backstop_end() unmarks it.
bool backstop_begin(const LaunchSite& site) {
  std::call_once(backstop_once, [] {
    long limit = 30;
    if (const char* env = std::getenv("WB_WATCHDOG_SECONDS")) {
      const long v = std::strtol(env, nullptr, 10);
      if (v > 0) limit = v;
    }
    std::thread(backstop_watch, limit, std::max(limit, 5L)).detach();
  });
  backstop_kernel = site.kernel;
  backstop_file = site.file;
  backstop_line = site.line;
  std::int64_t none = 0;
  return backstop_since.compare_exchange_strong(none, steady_ns());  // the first of launches at once
}
void backstop_end(bool mine) {
  if (mine) backstop_since = 0;
}

// WB_EMU_PROFILE=<file>: every instrumented launch appends its memory statistics to the file, one
// tab-separated row per source line and direction: kernel, file, line, load or store, bytes per
// lane, requests, sectors, ideal sectors for global memory; for shared memory the direction is
// shared-load or shared-store and the last two are wavefronts and ideal wavefronts (bank
// conflicts). `bash cmake/workbook.sh profile` reads them.
void append_profile(const char* kernel) {
  const char* path = std::getenv("WB_EMU_PROFILE");
  if (!path || !*path) return;
  const MemoryStats stats = last_launch_memory_stats();
  std::FILE* f = std::fopen(path, "a");
  if (!f) return;
  for (const LineStats& l : stats.lines)
    std::fprintf(f, "%s\t%s\t%d\t%s\t%d\t%llu\t%llu\t%llu\n", kernel, l.file.c_str(), l.line,
                 l.store ? "store" : "load", l.bytes, static_cast<unsigned long long>(l.stats.requests),
                 static_cast<unsigned long long>(l.stats.sectors),
                 static_cast<unsigned long long>(l.stats.ideal_sectors));
  for (const SharedLineStats& l : last_launch_shared_stats().lines)
    std::fprintf(f, "%s\t%s\t%d\t%s\t%d\t%llu\t%llu\t%llu\n", kernel, l.file.c_str(), l.line,
                 l.store ? "shared-store" : "shared-load", l.bytes, static_cast<unsigned long long>(l.stats.requests),
                 static_cast<unsigned long long>(l.stats.wavefronts),
                 static_cast<unsigned long long>(l.stats.ideal_wavefronts));
  std::fclose(f);
}

// The most recent launch's shared memory (last_launch_shared_memory()).
std::atomic<std::size_t> last_static_shared{0}, last_dynamic_shared{0};
}  // namespace

std::string running_launch_blocks(std::string* headline) {
  std::lock_guard<std::mutex> lock(running_mutex);
  if (!running || !running->g) return std::string();
  const Running& r = *running;
  const Grid& g = *r.g;
  const std::uint64_t blocks = r.order->size();
  const std::uint64_t taken = std::min<std::uint64_t>(r.next->load(), blocks);
  std::vector<std::uint64_t> now;  // the blocks still running
  for (int i = 0; i < r.slot_count; ++i)
    if (const std::uint64_t v = r.slots[i].load()) now.push_back(v - 1);
  std::sort(now.begin(), now.end());
  // The blocks not started yet: the lowest few, and which of the running blocks' predecessors.
  std::vector<std::uint64_t> lowest;  // sorted, at most 4
  std::vector<std::uint64_t> waiting_for;  // b - 1 for a running b, not started
  const std::uint64_t scan_end = std::min<std::uint64_t>(blocks, taken + (std::uint64_t(1) << 26));
  for (std::uint64_t p = taken; p < scan_end; ++p) {
    const std::uint64_t b = (*r.order)(p);
    if (std::binary_search(now.begin(), now.end(), b + 1)) waiting_for.push_back(b);
    if (lowest.size() < 4 || b < lowest.back()) {
      lowest.insert(std::upper_bound(lowest.begin(), lowest.end(), b), b);
      if (lowest.size() > 4) lowest.pop_back();
    }
  }
  std::sort(waiting_for.begin(), waiting_for.end());
  const LaunchSite& site = *g.site;
  std::string text = "  When it was stopped, the launch of " + std::string(site.kernel ? site.kernel : "?") + " at " +
                     where(site.file, site.line) + " (grid " + triple(g.grid.x, g.grid.y, g.grid.z) + ", block " +
                     triple(g.block.x, g.block.y, g.block.z) + ") had started " + std::to_string(taken) + " of " +
                     std::to_string(blocks) + (blocks == 1 ? " block" : " blocks");
  if (!now.empty()) {
    text += "; still running: block";
    for (std::size_t i = 0; i < now.size(); ++i) text += (i ? ", " : " ") + block_name(g, now[i]);
  }
  if (taken < blocks) {
    text += "; not started yet: " + std::to_string(blocks - taken) + ", the lowest";
    for (std::size_t i = 0; i < lowest.size(); ++i) text += (i ? ", " : " ") + block_name(g, lowest[i]);
    if (scan_end < blocks) text += " of those looked at";
  }
  text += ".\n";
  // The headline: the first running block with a lower one not started. The backend cannot see what
  // a block spins on, so it is a question: a block that spins for another's flag, or a loop that never
  // ends in any block (which also leaves lower blocks unstarted) both look like this.
  std::string first;
  for (const std::uint64_t b : now) {
    const bool previous = std::binary_search(waiting_for.begin(), waiting_for.end(), b - 1) && b > 0;
    if (!previous && (lowest.empty() || lowest.front() > b)) continue;
    const std::string me = block_name(g, b), other = block_name(g, previous ? b - 1 : lowest.front());
    text += "  Block " + me + " is still running, and block " + other +
            ", below it, has not started: if block " + me + " waits for block " + other +
            " (a flag or a value that block publishes), it waits for a block that cannot start before a running "
            "block ends.\n";
    if (first.empty())
      first = "block " + me + " was still running while block " + other +
              " had not started: does a block wait for another, or a loop never end?";
  }
  if (!first.empty())
    text += "  A GPU starts blocks in no promised order and runs only as many at once as fit, so a block may wait "
            "only for blocks known to have started: take a ticket with atomicAdd(&counter, 1) when the block starts, "
            "use it (not blockIdx) as the block's place in the chain, and wait only for lower tickets.\n";
  text += "  " + block_order_note() + ".";
  if (headline) *headline = first;
  return text;
}

std::string running_launch_fault() {
  Fault f;
  return running_launch_fault(&f) ? describe(f) : std::string();
}

bool running_launch_fault(Fault* out) {
  std::lock_guard<std::mutex> lock(running_fault_mutex);
  if (!running_faulted) return false;
  if (out) *out = running_fault;
  return true;
}

std::string last_launch_warning() {
  std::lock_guard<std::mutex> lock(warning_mutex);
  return last_warning;
}

std::vector<ExitBeforeBarrier> exits_before_barriers() {
  std::lock_guard<std::mutex> lock(warning_mutex);
  return warned_records;
}

SharedUse last_launch_shared_memory() { return {last_static_shared.load(), last_dynamic_shared.load()}; }

void log_launches(bool on) {
  std::lock_guard<std::mutex> lock(log_mutex);
  logging = on;
  if (on) logged.clear(), logged_graphs.clear();
}

std::vector<cudaStream_t> graph_launch_log() {
  std::lock_guard<std::mutex> lock(log_mutex);
  return logged_graphs;
}

void internal::log_graph_launch(cudaStream_t stream) {
  std::lock_guard<std::mutex> lock(log_mutex);
  if (logging) logged_graphs.push_back(stream);
}

std::vector<LaunchConfig> launch_log() {
  std::lock_guard<std::mutex> lock(log_mutex);
  return logged;
}

std::size_t internal::log_launch(dim3 grid, dim3 block, std::size_t shared_bytes, cudaStream_t stream) {
  std::lock_guard<std::mutex> lock(log_mutex);
  if (!logging) return ~std::size_t(0);
  logged.push_back({grid, block, shared_bytes, stream, {}, {}});
  return logged.size() - 1;
}

cudaError_t internal::launch_config_error(dim3 grid, dim3 block, std::size_t shared_bytes) {
  return config_problem(grid, block, shared_bytes).error;
}

void launch(dim3 grid, dim3 block, std::size_t shared_bytes, cudaStream_t stream, const LaunchSite& site,
            void (*body)(void*), void* ctx) {
  // This launch's entry in the launch log (none for a graph's replay: CUDA's runtime sees none).
  const std::size_t log_index =
      internal::replaying_graph() ? ~std::size_t(0) : internal::log_launch(grid, block, shared_bytes, stream);
  // A launch on the legacy stream while another stream is captured (a capturing stream's own
  // launches never get here: wb_emu::Launch records them).
  if (internal::capture_check(stream, false) == internal::CaptureCheck::implicit) {
    record(cudaErrorStreamCaptureImplicit);
    return;
  }
  clear_launch_stats();
  {
    std::lock_guard<std::mutex> lock(warning_mutex);
    last_warning.clear();
  }
  last_static_shared = 0;
  last_dynamic_shared = 0;
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
  last_dynamic_shared = shared_bytes;
  const bool backstop = backstop_begin(site);
  const Grid g{grid, block, shared_bytes, body, ctx, &site};
  const std::uint64_t blocks = std::uint64_t(grid.x) * grid.y * grid.z;
  const BlockOrder order(blocks, next_launch_order_seed());
  const std::uint64_t shown_seed = order.scrambled() ? block_order_seed() : 0;  // what repeats the order
  std::atomic<bool> failed{false};
  LaunchRecords records;
  std::mutex note_mutex;
  Worker::ExitNote note;  // the first block's in start order, of every worker's
  std::mutex fault_mutex;
  std::uint64_t fault_position = 0;
  bool faulted = false;
  Fault fault;  // the first faulting block's in start order
  cudaError_t fault_code = cudaErrorLaunchFailure;
  Running state;
  state.g = &g;
  state.order = &order;
  state.slot_count = worker_count() + 1;
  state.slots.reset(new std::atomic<std::uint64_t>[state.slot_count]);
  for (int i = 0; i < state.slot_count; ++i) state.slots[i] = 0;
  auto work = [&g, &failed, &records, &note_mutex, &note, &fault_mutex, &fault_position, &faulted, &fault, &fault_code,
               &order, &state, shown_seed, blocks](std::atomic<std::uint64_t>* next) {
    const int slot_index = state.slots_taken.fetch_add(1);
    std::atomic<std::uint64_t>* slot = slot_index < state.slot_count ? &state.slots[slot_index] : nullptr;
    gridDim = g.grid;
    blockDim = g.block;
    for (Worker::Range& r : worker().alloc_cache) r = Worker::Range{};  // allocations may have changed
    worker().exit_note.set = false;
    for (std::uint64_t p; !failed.load(std::memory_order_relaxed) &&
                          (p = next->fetch_add(1, std::memory_order_relaxed)) < blocks;) {
      const std::uint64_t b = order(p);
      worker().block_position = p;
      worker().block_seed = shown_seed;
      if (slot) slot->store(b + 1);
      const bool ok = run_block(g, b);
      if (slot) slot->store(0);
      for (std::size_t used = worker().shared_declared, seen = last_static_shared.load();
           used > seen && !last_static_shared.compare_exchange_weak(seen, used);) {
      }
      if (ok) continue;
      // Stop taking blocks; blocks already taken run to their end. The first faulting block in start
      // order is reported, whichever worker got there first: every block before it in that order
      // was taken (and ran) before it, so for a given seed the report does not depend on how the
      // workers were scheduled.
      failed.store(true);
      Fault mine = fault_record(g, worker());
      std::lock_guard<std::mutex> lock(fault_mutex);
      if (!faulted || p < fault_position) {
        faulted = true;
        fault_position = p;
        fault = std::move(mine);
        fault_code = worker().fault_code;
        std::lock_guard<std::mutex> running(running_fault_mutex);
        running_faulted = true;
        running_fault = fault;
      }
      break;
    }
    Worker& w = worker();
    records.merge(w);
    if (w.exit_note.set) {
      std::lock_guard<std::mutex> lock(note_mutex);
      if (!note.set || w.exit_note.position < note.position) note = w.exit_note;
    }
    w.g = nullptr;
    w.current = -1;
  };
  guard_kernel_stacks(site);  // a kernel thread that overflows its stack explains itself
  std::atomic<std::uint64_t> next{0};
  state.next = &next;
  {
    std::lock_guard<std::mutex> lock(running_mutex);
    if (!running) running = &state;
  }
  if (blocks == 1 || worker_count() == 1) {
    work(&next);
  } else {
    static std::mutex launch_mutex;  // one grid at a time, as on a single stream
    std::lock_guard<std::mutex> lock(launch_mutex);
    run_on_all_workers([&] { work(&next); });
  }
  {
    std::lock_guard<std::mutex> lock(running_mutex);
    if (running == &state) running = nullptr;
  }
  // A write past an allocation's end that faulted nowhere: the rest of its page changed.
  if (Overrun o; !faulted && overrun_allocation(&o)) {
    faulted = true;
    fault = overrun_fault(g, o);
    fault_code = cudaErrorIllegalAddress;
  }
  if (faulted) {
    {
      std::lock_guard<std::mutex> running(running_fault_mutex);
      running_faulted = false;  // the launch ended: its fault is reported here, and is last_fault()
      running_fault = Fault{};
    }
    std::fprintf(stderr, "%s\n", describe(fault).c_str());
    // Which block faulted first depends on the start order: the first report of a process says how
    // to repeat it.
    static std::atomic<bool> order_told{false};
    if (order.scrambled() && fault.has_block && !order_told.exchange(true))
      std::fprintf(stderr, "  (The %s; the fault reported is the first in that order.)\n", block_order_note().c_str());
    std::fflush(stderr);
    set_fault(fault, fault_code);
    const std::string line = fault_json(fault);
    append_fault_line(line.data(), line.size());
  }
  records.publish(site.instrumented);
  if (log_index != ~std::size_t(0)) {  // what it did, for a grader that checks every launch of a call
    const MemoryStats stats = last_launch_memory_stats();
    std::lock_guard<std::mutex> lock(log_mutex);
    if (logging && log_index < logged.size()) {
      logged[log_index].shared_use = {last_static_shared.load(), last_dynamic_shared.load()};
      logged[log_index].memory = stats;
    }
  }
  if (site.instrumented) append_profile(site.kernel);
  if (note.set && !failed) warn_exit_before_barrier(g, note);
  backstop_end(backstop);
}

}  // namespace wb_emu
