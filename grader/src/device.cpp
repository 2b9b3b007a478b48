#include "wb/device.hpp"

#include <cuda_runtime.h>

namespace wb {
namespace {

struct Probe {
  bool available = false;
  std::string reason;
  cudaDeviceProp prop{};
};

const Probe& probe() {
  static const Probe p = [] {
    Probe r;
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
      (void)cudaGetLastError();
      r.reason = std::string("no CUDA device (") + (e != cudaSuccess ? cudaGetErrorString(e) : "none found") + ")";
      return r;
    }
    r.available = cudaGetDeviceProperties(&r.prop, 0) == cudaSuccess;
    if (!r.available) r.reason = "no CUDA device (its properties could not be read)";
    return r;
  }();
  return p;
}

int attribute(cudaDeviceAttr a) {
  int v = 0;
  if (!device_available() || cudaDeviceGetAttribute(&v, a, 0) != cudaSuccess) return 0;
  return v;
}

}  // namespace

bool device_available() { return probe().available; }
std::string no_device_reason() { return probe().reason; }
std::string device_name() { return device_available() ? probe().prop.name : "no device"; }
int multiprocessor_count() { return device_available() ? probe().prop.multiProcessorCount : 0; }

double peak_bandwidth_gbps() {
  const double clock_khz = attribute(cudaDevAttrMemoryClockRate);
  const double bus_bits = attribute(cudaDevAttrGlobalMemoryBusWidth);
  return 2.0 * clock_khz * 1e3 * (bus_bits / 8.0) / 1e9;
}

int fp32_lanes_per_sm(int major, int minor) {
  const int cc = 10 * major + minor;
  switch (cc) {
    case 60: case 70: case 72: case 75: case 80: return 64;
    case 50: case 52: case 53: case 61: case 62: case 86: case 87: case 89: case 90: return 128;
    default: return major >= 10 ? 128 : 0;  // Blackwell (sm_100, sm_103, sm_110, sm_120, sm_121)
  }
}

int tensor_flops_per_clock_per_sm(int major, int minor) {
  switch (10 * major + minor) {
    case 70: case 72: case 75: case 87: return 1024;
    case 80: return 2048;
    case 86: case 89: return 512;
    case 90: return 4096;
    case 100: case 103: return 8192;
    default: return 0;
  }
}

double peak_tflops(int multiprocessors, double clock_khz, double flops_per_clock_per_sm) {
  return double(multiprocessors) * clock_khz * 1e3 * flops_per_clock_per_sm / 1e12;
}

namespace {
double compute_peak(int (*per_sm)(int, int), double factor) {
  if (cpu_backend() || !device_available()) return 0;
  const int lanes = per_sm(attribute(cudaDevAttrComputeCapabilityMajor), attribute(cudaDevAttrComputeCapabilityMinor));
  return peak_tflops(attribute(cudaDevAttrMultiProcessorCount), attribute(cudaDevAttrClockRate), factor * lanes);
}
}  // namespace

double peak_fp32_tflops() { return compute_peak(fp32_lanes_per_sm, 2.0); }  // a multiply-add is 2 FLOPs
double peak_tensor_tflops() { return compute_peak(tensor_flops_per_clock_per_sm, 1.0); }

}  // namespace wb
