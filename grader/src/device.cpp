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

}  // namespace wb
