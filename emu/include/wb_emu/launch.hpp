/// \file
/// \brief The CPU backend's launch machinery: what the launch rewriter turns
/// `kernel<<<grid, block, shmem, stream>>>(args)` into (wb_emu::make_launch), the worker count,
/// and what the most recent launch left to read (its memory statistics in instrumented builds,
/// its fault's text and record, <wb_emu/fault.hpp>). Defined in emu/src/launch.cpp, emu/src/pool.cpp and emu/src/instrument.cpp.
#pragma once

#include <wb_emu/api.hpp>
#include <wb_emu/builtins.hpp>
#include <wb_emu/fault.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

// ---- launch machinery ----
namespace wb_emu {

/// Where a launch comes from, for messages.
struct LaunchSite {
  const char* kernel;          ///< the kernel's name as written at the launch
  const char* file;            ///< the source file of the launch (the learner's .cu file)
  int line;                    ///< the line of the launch
  bool instrumented = false;   ///< the kernel's file was built with WB_EMU_INSTRUMENT
};

/// Runs `body` once for every thread of the grid (blocks across worker threads), after
/// checking the configuration as CUDA does. Errors are recorded for cudaGetLastError and
/// cudaDeviceSynchronize; nothing is thrown.
void launch(dim3 grid, dim3 block, std::size_t shared_bytes, cudaStream_t stream, const LaunchSite& site,
            void (*body)(void*), void* ctx);

namespace detail {
/// True while `stream` is captured into a graph (cudaStreamBeginCapture, emu/src/graph.cpp).
bool capturing(cudaStream_t stream);
/// Records a launch on the capturing `stream` in its graph: `run(s)` launches it on stream `s`
/// when the graph is launched. The launch is logged (wb_emu::log_launches) as CUDA's runtime sees it.
void capture_launch(cudaStream_t stream, const LaunchSite& site, dim3 grid, dim3 block, std::size_t shared_bytes,
                    std::function<void(cudaStream_t)> run);
}  // namespace detail

/// Storage of the `extern __shared__` array of the running block (`shmem` bytes of the launch).
void* dynamic_shared_base();
/// The running block's `extern __shared__` array as T* (nullptr when the launch gave none).
template <class T>
T* dynamic_shared() {
  return static_cast<T*>(dynamic_shared_base());
}
namespace detail {
/// Names the running block's `extern __shared__` array `name` in messages and returns its start
/// (the end of the block's shared memory when the launch gave none, so that any access is past it).
void* name_dynamic_shared(const char* name);
}  // namespace detail
/// The running block's `extern __shared__` array, declared as `name`, as T* (what the rewriter
/// puts in place of `extern __shared__ T name[];`).
template <class T>
T* dynamic_shared_named(const char* name) {
  return static_cast<T*>(detail::name_dynamic_shared(name));
}

/// One rewritten launch, `kernel<<<grid, block, shmem, stream>>>`, waiting for its arguments:
/// calling it runs `call` for every thread of the grid (see launch()). `call` is the rewriter's
/// lambda that calls the kernel as written, or a pointer to a kernel (a test's direct launch).
template <class Call>
class Launch {
 public:
  /// Records what to call, where it is launched from and the launch configuration.
  Launch(Call call, LaunchSite site, dim3 grid, dim3 block, std::size_t shared_bytes, cudaStream_t stream)
      : call_(std::move(call)), site_(site), grid_(grid), block_(block), shared_(shared_bytes), stream_(stream) {}

  /// Arguments are copied once, as CUDA copies them into the kernel's parameter space, then
  /// converted to the kernel's parameter types at each call. On a stream that is being captured
  /// into a graph, the launch and its copied arguments are recorded instead, to run when the
  /// graph is launched.
  template <class... Args>
  void operator()(Args&&... args) const {
    using Params = std::tuple<std::decay_t<Args>...>;
    if (stream_ && detail::capturing(stream_)) {
      auto params = std::make_shared<Params>(std::forward<Args>(args)...);
      const Launch self = *this;
      detail::capture_launch(stream_, site_, grid_, block_, shared_,
                             [self, params](cudaStream_t s) { self.run_on(s, *params); });
      return;
    }
    Params params(std::forward<Args>(args)...);
    run_on(stream_, params);
  }

 private:
  template <class Params>
  void run_on(cudaStream_t stream, Params& params) const {
    Ctx<Params> ctx{&call_, &params};
    launch(grid_, block_, shared_, stream, site_,
           &run_thread<Params, std::make_index_sequence<std::tuple_size<Params>::value>>, &ctx);
  }

  // What each CUDA thread runs: the call with the launch's arguments. Not the kernel's own accesses,
  // so not reported in an instrumented file (which is compiled at -O0: no std::apply in between).
  template <class Params, class Seq>
  struct Unpack;
  template <class Params, std::size_t... I>
  struct Unpack<Params, std::index_sequence<I...>> {
    WB_EMU_NOT_INSTRUMENTED static void call(const Call& c, Params& p) { c(std::get<I>(p)...); }
  };
  template <class Params>
  struct Ctx {
    const Call* call;
    Params* params;
  };
  template <class Params, class Seq>
  WB_EMU_NOT_INSTRUMENTED static void run_thread(void* p) {
    auto* c = static_cast<Ctx<Params>*>(p);
    Unpack<Params, Seq>::call(*c->call, *c->params);
  }

  Call call_;
  LaunchSite site_;
  dim3 grid_, block_;
  std::size_t shared_;
  cudaStream_t stream_;
};

/// What the launch rewriter turns `callee<<<grid, block, shmem, stream>>>(args)` into:
/// `make_launch([&](auto&... a) { callee(a...); }, "callee", __FILE__, __LINE__, grid, ...)(args)`.
/// The kernel is called as written, inside a generic lambda, so a kernel template's arguments are
/// deduced from the launch's as nvcc deduces them, and an overloaded or qualified name, an
/// explicit specialization, a pointer to a kernel or an element of a table of them all work; a
/// call that cannot be made is a compiler error at the launch's line. Host code that launches a
/// kernel itself (the unit tests) passes it by name: `call` is then a pointer to it.
template <class Call>
Launch<Call> make_launch(Call call, const char* name, const char* file, int line, dim3 grid, dim3 block,
                         std::size_t shared_bytes = 0, cudaStream_t stream = nullptr) {
  return Launch<Call>(std::move(call), LaunchSite{name, file, line}, grid, block, shared_bytes, stream);
}

/// As make_launch, for a file built instrumented (the rewriter's --instrument mode emits it).
template <class Call>
Launch<Call> make_instrumented_launch(Call call, const char* name, const char* file, int line, dim3 grid,
                                      dim3 block, std::size_t shared_bytes = 0, cudaStream_t stream = nullptr) {
  return Launch<Call>(std::move(call), LaunchSite{name, file, line, true}, grid, block, shared_bytes, stream);
}

/// Number of worker threads blocks are spread over (WB_EMU_THREADS, else the core count).
int worker_count();

// ---- what instrumented builds measure (see emu/include/wb_emu/instrument.hpp) ----

/// Global-memory traffic, counted as a GPU's load/store units count it: a request is one warp's
/// access at one instruction (the lanes that make their k-th access of that direction at that
/// source line), its sectors the distinct 32-byte segments those lanes touch, and its ideal the
/// fewest sectors their bytes could fill: ceil(lanes x bytes / 32). A broadcast (every lane at one
/// address) touches fewer sectors than its ideal, so sums of sectors and ideals can hide a request
/// that touched more: `excess_sectors` counts those, request by request.
struct AccessStats {
  std::uint64_t requests = 0;        ///< warp requests
  std::uint64_t sectors = 0;         ///< 32-byte sectors they touched
  std::uint64_t ideal_sectors = 0;   ///< the fewest sectors their bytes could have filled
  std::uint64_t excess_sectors = 0;  ///< sectors past each request's ideal, summed over the requests
  std::uint64_t bytes = 0;           ///< bytes the lanes accessed
  std::uintptr_t lowest = ~std::uintptr_t(0);  ///< the lowest address accessed (~0: none)
  std::uintptr_t highest = 0;                   ///< one past the highest byte accessed
};
/// One source line's loads or stores.
struct LineStats {
  std::string file;     ///< the kernel's source file
  int line = 0;         ///< its line; 0 for an access through `*p`, whose line is not known
  bool store = false;   ///< stores (true) or loads (false)
  int bytes = 0;        ///< bytes per lane of the line's first access
  AccessStats stats;    ///< the line's requests and sectors
};
/// What an instrumented launch did to global memory.
struct MemoryStats {
  bool instrumented = false;     ///< false when the kernel's file was not built instrumented
  AccessStats loads;             ///< global-memory loads, summed over the launch
  AccessStats stores;            ///< global-memory stores, summed over the launch
  std::vector<LineStats> lines;  ///< per source line and direction, most sectors first
  std::uint64_t global_atomics = 0;    ///< atomics on device memory (not shared), by every thread
  std::uintptr_t atomic_address = 0;   ///< the address of one of them (0: none)
  std::uint64_t shared_load_bytes = 0; ///< bytes loaded from shared memory (recorded loads, not atomics)
};
/// The memory statistics of the most recent launch (not instrumented: `instrumented` is false).
MemoryStats last_launch_memory_stats();
/// The shared memory a block of a launch had: what its `__shared__` declarations took (the most
/// any block of the launch took, alignment included) and the launch's dynamic bytes (its third
/// argument). A grader reads it to check a kernel that must do without shared memory.
struct SharedUse {
  std::size_t static_bytes = 0;   ///< bytes of `__shared__` storage one block declared (the largest)
  std::size_t dynamic_bytes = 0;  ///< the launch's dynamic shared memory, `kernel<<<grid, block, bytes>>>`
};
/// The shared memory of the most recent launch (all 0 before any launch or after a refused one);
/// kept in every build, instrumented or not.
SharedUse last_launch_shared_memory();

/// One launch as the program asked for it (a refused one too): for a grader that checks that a
/// launcher honours the configuration it is given (wb::LaunchLog).
struct LaunchConfig {
  dim3 grid;                 ///< blocks per dimension
  dim3 block;                ///< threads per block, per dimension
  std::size_t shared_bytes;  ///< the launch's third argument
  cudaStream_t stream;       ///< the launch's fourth argument
  /// Once the launch ended (while the log is kept): its last_launch_shared_memory(), for a grader
  /// that checks every launch of a call, not only the last.
  SharedUse shared_use;
  /// Once the launch ended: its last_launch_memory_stats() (instrumented builds).
  MemoryStats memory;
};
/// Starts (true: the log is cleared) or stops (false) keeping a log of every launch.
void log_launches(bool on);
/// The launches logged since log_launches(true), in order (a launch captured into a graph is
/// logged when it is captured, and not when the graph runs it, as CUDA's runtime sees them).
std::vector<LaunchConfig> launch_log();
/// The stream of each cudaGraphLaunch since log_launches(true), in order.
std::vector<cudaStream_t> graph_launch_log();

/// Says that only the `bytes` from `first` of the allocation holding `first` are the array kernels
/// may use (the rest is a grader's guard zones): in instrumented builds an access to the rest is a
/// kernel fault, "N bytes past the end of the n-element array allocated at file:line", with
/// elements of `element_bytes`. Forgotten when the allocation is freed; ignored when no
/// cudaMalloc or cudaMallocHost allocation holds the bytes.
void set_logical_extent(const void* first, std::size_t bytes, std::size_t element_bytes = 1,
                        const char* file = nullptr, int line = 0);
/// The text of the most recent kernel fault, as printed to stderr ("" if none): different
/// barriers, a bad warp-operation mask, a shared-memory race (instrumented builds)...; describe()
/// of last_fault()'s record (<wb_emu/fault.hpp>), which says the same in fields.
std::string last_fault_message();
/// After a kernel thread overflowed its stack, while the process dies of the signal: one line that
/// says which thread of which kernel, for a grader's verdict (a handler installed before the
/// backend's, such as Catch2's, runs after its message); nullptr before.
const char* stack_overflow_summary();

}  // namespace wb_emu
