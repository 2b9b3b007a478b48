/// \file
/// \brief One error check for every CUDA call: it throws, so Catch2 reports the failure with
/// its cause and the other tests still run.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace wb {

/// A CUDA call that did not return cudaSuccess: the call, where it was made, the error, and a
/// hint in the workbook's terms.
class CudaError : public std::runtime_error {
 public:
  /// The message: `file:line: expr failed: <error name> (<error string>)`, then the hint.
  CudaError(cudaError_t code, const char* expr, const char* file, int line);
  /// The error code the call returned.
  cudaError_t code() const { return code_; }
  /// True for errors that leave the CUDA context unusable (illegal address, launch failure...).
  bool sticky() const;

 private:
  cudaError_t code_;
};

/// True for errors that leave a GPU's CUDA context unusable until the process ends (illegal
/// address, launch failure...): every later CUDA call returns them again.
bool is_sticky(cudaError_t code);

/// Throws wb::CudaError unless `code` is cudaSuccess.
void cuda_check(cudaError_t code, const char* expr, const char* file, int line);

/// Explains an error code to a learner: what usually causes it in a kernel exercise.
std::string cuda_error_hint(cudaError_t code);

}  // namespace wb

/// Checks a CUDA runtime call or `cudaGetLastError()` after a launch; throws wb::CudaError.
/// \snippet grader/src/timing.cpp check after launch
#define WB_CUDA_CHECK(expr) ::wb::cuda_check((expr), #expr, __FILE__, __LINE__)
