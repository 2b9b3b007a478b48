// Unit tests of WB_CUDA_CHECK and wb::CudaError: what a learner reads when a CUDA call fails.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_exception.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <string>
#include <vector>

#include "wb/cuda_check.hpp"

using Catch::Matchers::ContainsSubstring;

namespace {

void nothing() {}

// The message of the wb::CudaError `f` throws ("" when it throws none).
template <class F>
std::string what_of(F&& f, cudaError_t* code = nullptr) {
  try {
    f();
  } catch (const wb::CudaError& e) {
    if (code) *code = e.code();
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("WB_CUDA_CHECK of a success throws nothing", "[cuda_check]") {
  CHECK_NOTHROW(WB_CUDA_CHECK(cudaSuccess));
  CHECK_NOTHROW(WB_CUDA_CHECK(cudaGetLastError()));
}

TEST_CASE("a launch with 0 blocks throws a CudaError naming the call, the place, the error and the hint",
          "[cuda_check]") {
  wb_emu::make_launch(nothing, "nothing", __FILE__, __LINE__, dim3(0), dim3(256))();
  cudaError_t code = cudaSuccess;
  const int line = __LINE__ + 1;
  const std::string what = what_of([] { WB_CUDA_CHECK(cudaGetLastError()); }, &code);
  CHECK(code == cudaErrorInvalidValue);  // what CUDA 13 answers to a grid of 0 blocks
  REQUIRE_THAT(what, ContainsSubstring(std::string(__FILE__) + ":" + std::to_string(line) +
                                       ": cudaGetLastError() failed: cudaErrorInvalidValue (invalid argument)"));
  CHECK_THAT(what, ContainsSubstring("is n = 0 handled before the launch?"));
}

TEST_CASE("a block of 1025 threads is explained as an invalid configuration", "[cuda_check]") {
  wb_emu::make_launch(nothing, "nothing", __FILE__, __LINE__, dim3(1), dim3(1025))();
  cudaError_t code = cudaSuccess;
  const std::string what = what_of([] { WB_CUDA_CHECK(cudaGetLastError()); }, &code);
  CHECK(code == cudaErrorInvalidConfiguration);
  CHECK_THAT(what, ContainsSubstring("(invalid configuration argument)"));
  CHECK_THAT(what, ContainsSubstring("more than 1024 threads per block"));
}

TEST_CASE("a host pointer given as the device side is explained, and the error is cleared", "[cuda_check]") {
  std::vector<float> a(31), b(31);
  cudaError_t code = cudaSuccess;
  const std::string what = what_of(
      [&] { WB_CUDA_CHECK(cudaMemcpy(b.data(), a.data(), 31 * sizeof(float), cudaMemcpyHostToDevice)); }, &code);
  CHECK(code == cudaErrorInvalidValue);
  CHECK_THAT(what, ContainsSubstring("cudaMemcpy(b.data(), a.data(), 31 * sizeof(float), cudaMemcpyHostToDevice) "
                                     "failed: cudaErrorInvalidValue (invalid argument)"));
  CHECK_THAT(what, ContainsSubstring("a null or host pointer where a device pointer belongs"));
  // The check cleared the error: the next check of the last error passes.
  CHECK(cudaGetLastError() == cudaSuccess);
}

TEST_CASE("CudaError is sticky only for errors that break the context", "[cuda_check]") {
  CHECK(wb::CudaError(cudaErrorIllegalAddress, "k", "f.cu", 1).sticky());
  CHECK(wb::CudaError(cudaErrorLaunchFailure, "k", "f.cu", 1).sticky());
  CHECK_FALSE(wb::CudaError(cudaErrorInvalidConfiguration, "k", "f.cu", 1).sticky());
  CHECK_FALSE(wb::CudaError(cudaErrorInvalidValue, "k", "f.cu", 1).sticky());
  CHECK_THAT(std::string(wb::CudaError(cudaErrorIllegalAddress, "launch", "f.cu", 12).what()),
             ContainsSubstring("f.cu:12: launch failed: cudaErrorIllegalAddress") &&
                 ContainsSubstring("The CUDA context is now unusable"));
}

TEST_CASE("an error without a hint gets no hint line", "[cuda_check]") {
  CHECK(wb::cuda_error_hint(cudaErrorNotReady).empty());
  const std::string what = wb::CudaError(cudaErrorNotReady, "cudaStreamQuery(s)", "g.cu", 7).what();
  CHECK(what == "g.cu:7: cudaStreamQuery(s) failed: cudaErrorNotReady (device not ready)");
}
