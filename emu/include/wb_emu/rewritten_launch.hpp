/// \file
/// \brief What the launch rewriter writes for `callee<<<grid, block, shmem, stream>>>(args)`:
/// `wb_emu::make_launch([&](auto&... a) { callee(a...); }, "callee", __FILE__, __LINE__, grid, ...)(args)`.
/// The kernel is called as written, inside a generic lambda, so a kernel template's arguments are
/// deduced from the launch's as nvcc deduces them, and an overloaded or qualified name, an
/// explicit specialization, a pointer to a kernel or an element of a table of them all work; a
/// call that cannot be made is a compiler error at the launch's line. Included by
/// wb_emu/kernel_prelude.hpp (every rewritten file), next to make_launch's form for a function
/// pointer in wb_emu/launch.hpp.
#pragma once

#include <wb_emu/launch.hpp>

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

namespace wb_emu {

/// One rewritten launch waiting for its arguments: calling it runs `call` for every thread of the
/// grid (see launch()) with a copy of them, made once, as CUDA copies them into the kernel's
/// parameter space.
template <class Call>
class CallLaunch {
 public:
  /// Records the call, where the launch is and its configuration.
  CallLaunch(Call call, LaunchSite site, dim3 grid, dim3 block, std::size_t shared_bytes, cudaStream_t stream)
      : call_(std::move(call)), site_(site), grid_(grid), block_(block), shared_(shared_bytes), stream_(stream) {}

  /// Runs the kernel over the whole grid with `args`.
  template <class... Args>
  void operator()(Args&&... args) const {
    using Params = std::tuple<std::decay_t<Args>...>;
    Params params(std::forward<Args>(args)...);
    struct Ctx {
      const Call* call;
      Params* params;
    } ctx{&call_, &params};
    launch(grid_, block_, shared_, stream_, site_,
           [](void* p) {
             auto* c = static_cast<Ctx*>(p);
             std::apply(*c->call, *c->params);
           },
           &ctx);
  }

 private:
  Call call_;
  LaunchSite site_;
  dim3 grid_, block_;
  std::size_t shared_;
  cudaStream_t stream_;
};

/// The rewriter's launch: `call` runs one thread of the kernel with the launch's arguments.
template <class Call, std::enable_if_t<std::is_class<Call>::value, int> = 0>
CallLaunch<Call> make_launch(Call call, const char* name, const char* file, int line, dim3 grid, dim3 block,
                             std::size_t shared_bytes = 0, cudaStream_t stream = nullptr) {
  return CallLaunch<Call>(std::move(call), LaunchSite{name, file, line}, grid, block, shared_bytes, stream);
}

/// As make_launch, for a file built instrumented (the rewriter's --instrument mode emits it).
template <class Call, std::enable_if_t<std::is_class<Call>::value, int> = 0>
CallLaunch<Call> make_instrumented_launch(Call call, const char* name, const char* file, int line, dim3 grid,
                                          dim3 block, std::size_t shared_bytes = 0, cudaStream_t stream = nullptr) {
  return CallLaunch<Call>(std::move(call), LaunchSite{name, file, line, true}, grid, block, shared_bytes, stream);
}

}  // namespace wb_emu
