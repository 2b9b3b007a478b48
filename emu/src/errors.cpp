// CPU backend: CUDA's error state and its calls (cudaGetLastError, cudaPeekAtLastError,
// cudaGetErrorName, cudaGetErrorString) and the record of the last kernel fault.
#include "errors.hpp"

#include "stack_guard.hpp"

#include <wb_emu/launch.hpp>

#include <mutex>

namespace wb_emu::internal {
namespace {
// Configuration errors are returned once, faults stay (as on a GPU).
std::mutex error_mutex;
cudaError_t last_error = cudaSuccess;
cudaError_t sticky_error = cudaSuccess;
bool have_fault = false;  // kept through cudaDeviceReset: the text of the fault that was reset
Fault last_fault_record;
}  // namespace

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

void set_fault(const Fault& fault, cudaError_t code) {
  std::lock_guard<std::mutex> lock(error_mutex);
  sticky_error = last_error = code;
  last_fault_record = fault;
  have_fault = true;
}

void reset_errors() {
  std::lock_guard<std::mutex> lock(error_mutex);
  last_error = sticky_error = cudaSuccess;
}
}  // namespace wb_emu::internal

bool wb_emu::last_fault(Fault* out) {
  if (internal::stack_overflow_fault(out)) return true;  // the process is dying of it
  std::lock_guard<std::mutex> lock(internal::error_mutex);
  if (!internal::have_fault) return false;
  if (out) *out = internal::last_fault_record;
  return true;
}

std::string wb_emu::last_fault_message() {
  Fault f;
  return last_fault(&f) ? describe(f) : std::string();
}

using namespace wb_emu::internal;

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
    WB_NAME(cudaErrorInitializationError) WB_NAME(cudaErrorInvalidConfiguration) WB_NAME(cudaErrorInvalidSymbol)
    WB_NAME(cudaErrorInvalidDevicePointer) WB_NAME(cudaErrorInvalidMemcpyDirection)
    WB_NAME(cudaErrorInsufficientDriver) WB_NAME(cudaErrorNoDevice) WB_NAME(cudaErrorInvalidDevice)
    WB_NAME(cudaErrorInvalidResourceHandle) WB_NAME(cudaErrorNotReady) WB_NAME(cudaErrorIllegalAddress)
    WB_NAME(cudaErrorLaunchOutOfResources) WB_NAME(cudaErrorLaunchTimeout) WB_NAME(cudaErrorAssert) WB_NAME(cudaErrorHardwareStackError) WB_NAME(cudaErrorIllegalInstruction) WB_NAME(cudaErrorMisalignedAddress)
    WB_NAME(cudaErrorLaunchFailure) WB_NAME(cudaErrorNotSupported) WB_NAME(cudaErrorUnknown)
    WB_NAME(cudaErrorInvalidPitchValue) WB_NAME(cudaErrorInvalidHostPointer) WB_NAME(cudaErrorInvalidDeviceFunction)
    WB_NAME(cudaErrorUnsupportedLimit) WB_NAME(cudaErrorPeerAccessUnsupported) WB_NAME(cudaErrorSetOnActiveProcess)
    WB_NAME(cudaErrorHostMemoryAlreadyRegistered) WB_NAME(cudaErrorHostMemoryNotRegistered)
    WB_NAME(cudaErrorCooperativeLaunchTooLarge) WB_NAME(cudaErrorNotPermitted) WB_NAME(cudaErrorIllegalState)
    WB_NAME(cudaErrorStreamCaptureUnsupported) WB_NAME(cudaErrorStreamCaptureInvalidated)
    WB_NAME(cudaErrorStreamCaptureUnmatched) WB_NAME(cudaErrorStreamCaptureImplicit)
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
    case cudaErrorInvalidSymbol: return "invalid device symbol";
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
    case cudaErrorInvalidPitchValue: return "invalid pitch argument";
    case cudaErrorInvalidHostPointer: return "invalid host pointer";
    case cudaErrorInvalidDeviceFunction: return "invalid device function";
    case cudaErrorUnsupportedLimit: return "limit is not supported on this architecture";
    case cudaErrorPeerAccessUnsupported: return "peer access is not supported between these two devices";
    case cudaErrorSetOnActiveProcess: return "cannot set while device is active in this process";
    case cudaErrorHostMemoryAlreadyRegistered: return "part or all of the requested memory range is already mapped";
    case cudaErrorHostMemoryNotRegistered: return "pointer does not correspond to a registered memory region";
    case cudaErrorCooperativeLaunchTooLarge: return "too many blocks in cooperative launch";
    case cudaErrorNotPermitted: return "operation not permitted";
    case cudaErrorIllegalState: return "the operation cannot be performed in the present state";
    case cudaErrorStreamCaptureUnsupported: return "operation not permitted when stream is capturing";
    case cudaErrorStreamCaptureInvalidated: return "operation failed due to a previous error during capture";
    case cudaErrorStreamCaptureUnmatched: return "capture was not initiated in this stream";
    case cudaErrorStreamCaptureImplicit:
      return "operation would make the legacy stream depend on a capturing blocking stream";
  }
  return "unknown error";
}
