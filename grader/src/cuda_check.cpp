#include "wb/cuda_check.hpp"

#include <string>

namespace wb {
namespace {

std::string describe(cudaError_t code, const char* expr, const char* file, int line) {
  std::string s = std::string(file) + ":" + std::to_string(line) + ": " + expr + " failed: " +
                  cudaGetErrorName(code) + " (" + cudaGetErrorString(code) + ")";
  std::string hint = cuda_error_hint(code);
  if (!hint.empty()) s += "\n  " + hint;
#ifdef WB_EMU
  // The CPU backend knows what the kernel did wrong: the fault's diagnostic.
  if (code == cudaErrorLaunchFailure) {
    const std::string fault = wb_emu::last_fault_message();
    if (!fault.empty()) s += "\n  " + fault;
  }
#endif
  return s;
}

}  // namespace

CudaError::CudaError(cudaError_t code, const char* expr, const char* file, int line)
    : std::runtime_error(describe(code, expr, file, line)), code_(code) {}

bool CudaError::sticky() const { return is_sticky(code_); }

bool is_sticky(cudaError_t code) {
  switch (code) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorLaunchTimeout:
    case cudaErrorAssert:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorHardwareStackError:
      return true;
    default:
      return false;
  }
}

void cuda_check(cudaError_t code, const char* expr, const char* file, int line) {
  if (code == cudaSuccess) return;
  if (code != cudaErrorIllegalAddress) (void)cudaGetLastError();  // clear a non-sticky error for the next check
  throw CudaError(code, expr, file, line);
}

std::string cuda_error_hint(cudaError_t code) {
  switch (code) {
    case cudaErrorInvalidConfiguration:
      return "the launch configuration is invalid: more than 1024 threads per block, a block dimension of 0, "
             "or a grid dimension past its limit";
    case cudaErrorIllegalAddress:
      return "a kernel read or wrote memory outside every allocation: check the bounds test and the "
             "index arithmetic (an int index that overflowed?). The CUDA context is now unusable: "
             "later checks in this run fail too";
    case cudaErrorMisalignedAddress:
      return "a kernel accessed memory at an address not aligned to the access size (a float4 load from "
             "a pointer that is not 16-byte aligned?)";
    case cudaErrorInvalidValue:
      return "a CUDA call or launch got a bad argument: a launch with 0 blocks (is n = 0 handled before the "
             "launch? does the block count round down to 0 for a small n?), a null or host pointer where a "
             "device pointer belongs, or a size past the end of the allocation";
    case cudaErrorInvalidSymbol:
      return "the symbol is not a __constant__ or __device__ variable: pass the variable itself "
             "(cudaMemcpyToSymbol(weights, host, bytes)), not its address or a host variable";
    case cudaErrorMemoryAllocation:
      return "the device is out of memory";
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
      return "no usable CUDA device: grade on the CPU backend instead";
    case cudaErrorLaunchOutOfResources:
      return "the kernel needs more registers or shared memory per block than the device has: use fewer "
             "threads per block";
    case cudaErrorAssert:
      return "a device-side assert() failed: its message is printed above";
    default:
      return "";
  }
}

}  // namespace wb
