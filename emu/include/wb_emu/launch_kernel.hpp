/// \file
/// \brief The runtime's launch calls on the CPU backend: `cudaLaunchKernel` and
/// `cudaLaunchCooperativeKernel`, which take the kernel and an array of pointers to its arguments
/// (`void* args[] = {&in, &out, &n}`), and the per-thread hooks a cooperative launch needs for
/// `grid_group::sync()` (emu/src/cooperative.cpp).
#pragma once

#include <wb_emu/api.hpp>
#include <wb_emu/builtins.hpp>

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

namespace wb_emu {
namespace detail {
/// Runs `body` for every thread of the grid as a launch from file:line does (the kernel named
/// `name`); `cooperative`: as cudaLaunchCooperativeKernel, whose grid must fit at once.
cudaError_t launch_from_api(dim3 grid, dim3 block, std::size_t shared_bytes, cudaStream_t stream, bool cooperative,
                            const char* name, const char* file, int line, bool instrumented, void (*body)(void*),
                            void* ctx);
/// A cooperative launch's kernel thread starts and ends (for grid_group::sync()).
void cooperative_thread_begin();
void cooperative_thread_end();

template <class... P, std::size_t... I>
std::tuple<std::decay_t<P>...> args_from(void** args, std::index_sequence<I...>) {
  return std::tuple<std::decay_t<P>...>(*static_cast<std::decay_t<P>*>(args[I])...);
}

template <class... P>
cudaError_t launch_with_args(void (*func)(P...), dim3 grid, dim3 block, void** args, std::size_t shared_bytes,
                             cudaStream_t stream, bool cooperative, const char* name, const char* file, int line) {
  if (func == nullptr) return record_error(cudaErrorInvalidDeviceFunction);
  if (sizeof...(P) > 0 && args == nullptr) return record_error(cudaErrorInvalidValue);
  // The arguments are copied once, as CUDA copies them into the kernel's parameter space.
  using Params = std::tuple<std::decay_t<P>...>;
  Params params = args_from<P...>(args, std::index_sequence_for<P...>{});
  struct Ctx {
    void (*func)(P...);
    Params* params;
    bool cooperative;
  } ctx{func, &params, cooperative};
#ifdef WB_EMU_INSTRUMENT
  const bool instrumented = true;
#else
  const bool instrumented = false;
#endif
  return launch_from_api(grid, block, shared_bytes, stream, cooperative, name, file, line, instrumented,
                         [](void* p) {
                           auto* c = static_cast<Ctx*>(p);
                           if (c->cooperative) cooperative_thread_begin();
                           std::apply(c->func, *c->params);
                           if (c->cooperative) cooperative_thread_end();
                         },
                         &ctx);
}

/// The C API's form, `(void*)kernel`: the CPU backend needs the kernel's type to call it.
template <class T = void>
cudaError_t launch_with_args(const void*, dim3, dim3, void**, std::size_t, cudaStream_t, bool, const char*,
                             const char*, int) {
  static_assert(!std::is_same<T, T>::value,
                "the CPU backend calls the kernel itself and needs its type: pass the kernel, "
                "cudaLaunchKernel(kernel, grid, block, args), not (void*)kernel or a const void* to it");
  return cudaErrorInvalidDeviceFunction;
}
}  // namespace detail
}  // namespace wb_emu

/// \name Launches through the runtime API
/// As CUDA's: `args` points to one pointer per kernel parameter. cudaLaunchCooperativeKernel's grid
/// runs all at once (grid_group::sync() works), so it may have at most as many blocks as the backend
/// has workers, else cudaErrorCooperativeLaunchTooLarge. They are macros to name the kernel in the
/// backend's messages, as a `<<<...>>>` launch does.
///@{
#define cudaLaunchKernel(func, grid, block, ...) \
  ::wb_emu::detail::launch_api(false, #func, __FILE__, __LINE__, func, grid, block, __VA_ARGS__)
#define cudaLaunchCooperativeKernel(func, grid, block, ...) \
  ::wb_emu::detail::launch_api(true, #func, __FILE__, __LINE__, func, grid, block, __VA_ARGS__)
///@}
namespace wb_emu {
namespace detail {
template <class F>
cudaError_t launch_api(bool cooperative, const char* name, const char* file, int line, F func, dim3 grid, dim3 block,
                       void** args, std::size_t shared_bytes = 0, cudaStream_t stream = nullptr) {
  return launch_with_args(func, grid, block, args, shared_bytes, stream, cooperative, name, file, line);
}
}  // namespace detail
}  // namespace wb_emu
