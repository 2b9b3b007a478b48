/// \file
/// \brief Which backend runs the kernels, and what the device offers.
#pragma once

// The CUDA runtime's header, or under the CPU backend its stand-in, which defines WB_EMU: so that
// cpu_backend() is right in every file that includes this one, whatever it included before.
#include <cuda_runtime.h>

#include <string>

namespace wb {

void note_unchecked(const std::string& what);  // wb/report.hpp; for WB_CHECK_ON_GPU_ONLY

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

/// FP32 lanes per multiprocessor (each does one fused multiply-add, 2 FLOPs, per clock) for
/// compute capability major.minor, from NVIDIA's CUDA C++ Programming Guide ("Arithmetic
/// Instructions" throughput table: 32-bit floating-point add, multiply, multiply-add): 64 on
/// sm_60, sm_70, sm_75, sm_80; 128 on sm_50-53, sm_61-62, sm_86-89, sm_90 (H100/H200), sm_100 and
/// later. 0 for an architecture not in the table.
int fp32_lanes_per_sm(int major, int minor);

/// Dense tensor-core FLOPs per clock per multiprocessor for half-precision inputs accumulated in
/// float (what a WMMA/`mma` GEMM with fp16 in and fp32 out can reach), from NVIDIA's architecture
/// whitepapers: sm_70/72 1024 (V100: 125 TFLOP/s at 80 SMs, 1.53 GHz), sm_75 1024 (T4), sm_80
/// 2048 (A100: 312 TFLOP/s at 108 SMs, 1.41 GHz), sm_86/89 512 (GeForce parts, which run fp32
/// accumulation at half the fp16 rate), sm_87 1024 (Orin), sm_90 4096 (H100/H200 SXM: 989 TFLOP/s
/// at 132 SMs, 1.83 GHz), sm_100 8192 (B200). 0 for an architecture not in the table.
int tensor_flops_per_clock_per_sm(int major, int minor);

/// A peak in TFLOP/s: multiprocessors × clock × FLOPs per clock per multiprocessor.
double peak_tflops(int multiprocessors, double clock_khz, double flops_per_clock_per_sm);

/// Theoretical FP32 peak in TFLOP/s: multiprocessors × the maximum clock the device reports
/// (cudaDevAttrClockRate) × 2 × fp32_lanes_per_sm() (H200: 132 × 1.98 GHz × 256 = 66.9);
/// 0 when unknown (the CPU backend, an architecture not in the table).
double peak_fp32_tflops();

/// Theoretical dense tensor-core peak (fp16 in, fp32 accumulate) in TFLOP/s, the same way with
/// tensor_flops_per_clock_per_sm() (H200 at 1.98 GHz: 1070; NVIDIA quotes 989 at 1.83 GHz);
/// 0 when unknown.
double peak_tensor_tflops();

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

/// Ends the current test case as skipped on the CPU backend, for a correctness check that only a
/// GPU can run (2^31 elements, a second stream), and notes `what` as not checked
/// (wb::note_unchecked): the verdict says so under the kind, so a *correct* claims no more.
#define WB_CHECK_ON_GPU_ONLY(what, why)                                           \
  do {                                                                            \
    WB_REQUIRE_DEVICE();                                                          \
    if (::wb::cpu_backend()) {                                                    \
      ::wb::note_unchecked(what);                                                 \
      SKIP(std::string("not checked on the CPU backend: ") + (why));             \
    }                                                                             \
  } while (0)
