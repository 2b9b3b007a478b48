/// \file
/// \brief Which backend runs the kernels, and what the device offers.
#pragma once

// The CUDA runtime's header, or under the CPU backend its stand-in, which defines WB_EMU: so that
// cpu_backend() is right in every file that includes this one, whatever it included before.
#include <cuda_runtime.h>

#include <string>

namespace wb {

/// True when the kernels run on the CPU backend (emu/), false on a CUDA device.
constexpr bool cpu_backend() {
#ifdef WB_EMU
  return true;
#else
  return false;
#endif
}

/// True when kernels can run: always on the CPU backend, on CUDA when a device is present.
bool device_available();

/// Why no device is available ("" when one is).
std::string no_device_reason();

/// The device's name, e.g. "NVIDIA H200" or "CPU backend (2 worker threads)".
std::string device_name();

/// Number of multiprocessors (worker threads on the CPU backend).
int multiprocessor_count();

/// Theoretical peak memory bandwidth in GB/s: 2 × memory clock × bus width (double data
/// rate); 0 when the device does not report it (the CPU backend).
double peak_bandwidth_gbps();

/// True once a fault has left the GPU's CUDA context unusable (a sticky error, see
/// wb::fail_with_cuda_error): no later case can run in this process. Never on the CPU backend,
/// whose device is reset after a fault.
bool context_lost();

/// "the CUDA context is unusable after <fault>; later cases not run" ("" while it is usable).
std::string context_lost_reason();

}  // namespace wb

/// Ends the current test case as skipped (never passed) when no CUDA device can run kernels, or
/// when an earlier fault left the CUDA context unusable (the verdict names that fault).
#define WB_REQUIRE_DEVICE()                                                        \
  do {                                                                             \
    if (!::wb::device_available()) SKIP("skipped: " + ::wb::no_device_reason());   \
    if (::wb::context_lost()) SKIP("not run: " + ::wb::context_lost_reason());     \
  } while (0)

/// Ends the current test case as skipped on the CPU backend, whose timings mean nothing.
#define WB_REQUIRE_GPU(why)                                                                 \
  do {                                                                                      \
    WB_REQUIRE_DEVICE();                                                                    \
    if (::wb::cpu_backend()) SKIP(std::string("skipped on the CPU backend: ") + (why));      \
  } while (0)
