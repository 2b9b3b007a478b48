// CPU backend: the error state CUDA keeps, shared by every file of the runtime. A bad argument or
// a refused launch is returned once (cudaGetLastError clears it); a kernel fault is sticky until
// cudaDeviceReset, as on a GPU.
#pragma once

#include <wb_emu/api.hpp>
#include <wb_emu/fault.hpp>

#include <string>

namespace wb_emu::internal {
/// Keeps `e` for cudaGetLastError (unless it is cudaSuccess) and returns it.
cudaError_t record(cudaError_t e);
/// The sticky error: cudaErrorLaunchFailure after a kernel fault, else cudaSuccess.
cudaError_t sticky();
/// A kernel fault: `code` (cudaErrorLaunchFailure, cudaErrorIllegalAddress) becomes sticky and
/// `fault` is last_fault(), its describe() last_fault_message().
void set_fault(const Fault& fault, cudaError_t code = cudaErrorLaunchFailure);
/// cudaDeviceReset: no error, sticky or not.
void reset_errors();
}  // namespace wb_emu::internal
