#include "wb/flow.hpp"

#include <catch2/catch_test_macros.hpp>

#include <exception>
#include <stdexcept>
#include <mutex>
#include <string>

#include "report_internal.hpp"
#include "wb/cuda_check.hpp"
#include "wb/device.hpp"
#include "wb/report.hpp"
#include "wb/watchdog.hpp"

namespace wb {
#ifndef WB_EMU
namespace detail {
void dirty_shared_memory();  // hold.cu
}  // namespace detail
#endif

namespace {

struct Lost {
  std::mutex m;
  std::string fault;  // "" while the context is usable
};

Lost& lost() {
  static Lost l;
  return l;
}

std::string trim(std::string s) {
  const auto first = s.find_first_not_of(" \t\n");
  if (first == std::string::npos) return "";
  s = s.substr(first);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == ':')) s.pop_back();
  return s;
}

}  // namespace

bool context_lost() {
  std::lock_guard<std::mutex> lock(lost().m);
  return !lost().fault.empty();
}

std::string context_lost_reason() {
  std::lock_guard<std::mutex> lock(lost().m);
  return lost().fault.empty() ? "" : "the CUDA context is unusable after " + lost().fault + "; later cases not run";
}

#ifdef WB_EMU
std::string fault_headline(const wb_emu::Fault& fault) {
  const std::string& e = fault.explanation;
  const std::string sentence = trim(e.substr(0, e.find('\n')));
  return "kernel fault in " + (fault.kernel.empty() ? std::string("a kernel") : fault.kernel) + ": " + sentence;
}
#endif

std::string cuda_error_headline(const std::string& what, cudaError_t code) {
#ifdef WB_EMU
  if (code == cudaErrorLaunchFailure) {
    wb_emu::Fault fault;
    if (wb_emu::last_fault(&fault)) return fault_headline(fault);
  }
#endif
  std::string s = what + ": " + cudaGetErrorName(code) + " (" + cudaGetErrorString(code) + ")";
  const std::string hint = cuda_error_hint(code);
  if (!hint.empty()) s += ": " + hint.substr(0, hint.find(". "));  // the first sentence; the rest goes to the log
  return s;
}

std::string recover_from(const std::string& what, cudaError_t code) {
  if (!is_sticky(code)) return "";
  if (cpu_backend()) {
    // The emulated device keeps a fault sticky as a GPU does, until a reset: reset it, so that
    // the next case runs clean and is judged on its own.
    cudaDeviceReset();
    return "";
  }
  {
    std::lock_guard<std::mutex> lock(lost().m);
    if (lost().fault.empty()) lost().fault = what + "'s " + cudaGetErrorName(code);
  }
  return context_lost_reason();
}

void fail_with_cuda_error(const std::string& what, cudaError_t code, const std::string& headline_override) {
  const std::string headline = headline_override.empty() ? cuda_error_headline(what, code) : headline_override;
  std::string message = headline;
  if (cpu_backend() && code == cudaErrorLaunchFailure) {
    message = what + ": " + headline + " (the whole diagnostic is printed above)";
  } else {
    const std::string hint = cuda_error_hint(code);
    if (hint.find(". ") != std::string::npos || !headline_override.empty()) message += "\n  " + hint;
  }
  if (const std::string lost_note = recover_from(what, code); !lost_note.empty()) message += "\n  " + lost_note;
  std::string report;
#ifdef WB_EMU
  if (code == cudaErrorLaunchFailure && headline_override.empty()) report = wb_emu::last_fault_message();
#endif
  // A fault the CPU backend reports is what it saw happen: certain, not a guess from the values.
  note_error_with_report(headline, report, !report.empty());
  FAIL(message);
  throw std::logic_error("unreachable");  // FAIL throws; this keeps [[noreturn]] honest
}

void run_launch(const std::string& what, const std::function<void()>& launch, std::chrono::seconds limit) {
  cudaError_t code = cudaSuccess;
  std::string threw;
#ifndef WB_EMU
  // On a GPU, shared memory a kernel never writes holds what an earlier kernel left there, often
  // zeros in a fresh process: a missing clear would pass. Fill it first, as the CPU backend does.
  detail::dirty_shared_memory();
#endif
  {
    Watchdog dog(what, limit);
    try {
      launch();
      code = cudaGetLastError();
      if (code == cudaSuccess) code = cudaDeviceSynchronize();
    } catch (const CudaError& e) {  // a WB_CUDA_CHECK inside the learner's code
      code = e.code();
    } catch (const std::exception& e) {
      threw = e.what();
    }
  }
  if (!threw.empty()) {
    const std::string headline = what + " threw: " + threw.substr(0, threw.find('\n'));
    note_error(headline);
    FAIL(headline);
  }
  if (code != cudaSuccess) {
    (void)cudaGetLastError();  // a non-sticky error must not be blamed on the next call
    fail_with_cuda_error(what, code);
  }
}

void run_launch(const std::string& what, const std::function<void()>& launch) {
  run_launch(what, launch, Watchdog::default_seconds());
}

}  // namespace wb
