/// \file
/// \brief The grading flow every case shares: run the learner's launcher under the watchdog,
/// check the launch and wait for it, and turn a CUDA error or a kernel fault into one sentence
/// in the chapter's terms. A fault that leaves a GPU's context unusable ends the grading of
/// later cases, and says so; on the CPU backend the emulated device is reset instead, so the
/// later cases run clean.
///
/// A case in a chapter's grade.cpp reads:
/// \snippet chapters/01-naive-add/grade.cpp run case
#pragma once

#include <cuda_runtime.h>

#include <chrono>
#include <functional>
#include <string>

#ifdef WB_EMU
#include <wb_emu/fault.hpp>
#endif

namespace wb {

/// Runs `launch` (a call into the learner's code that launches kernels) and waits for it:
/// under a wb::Watchdog naming `what`, then cudaGetLastError() and cudaDeviceSynchronize().
/// On an error it records the verdict (wb::note_error) and fails the test case (Catch2's
/// FAIL), leading with the fault's own sentence; see fail_with_cuda_error(). An exception from
/// `launch` fails the case as "<what> threw: <message>".
/// \param what the call and its case, e.g. "naive_add (n = 1000)": named in every message
/// \param launch calls the learner's launcher with the case's buffers
void run_launch(const std::string& what, const std::function<void()>& launch);

/// As run_launch(what, launch), with the watchdog's limit set here (a case that needs longer
/// than Watchdog::default_seconds(), e.g. 2^31 elements); `WB_WATCHDOG_SECONDS` does not apply.
void run_launch(const std::string& what, const std::function<void()>& launch, std::chrono::seconds limit);

/// Explains `code`, returned by a launch or a call of `what`, records it and fails the test
/// case. The summary gets one short sentence: on the CPU backend the sentence of the kernel fault
/// ("kernel fault in K: shared-memory race on partial ..."), elsewhere the error's name and
/// the usual cause (wb::cuda_error_hint). A sticky error (CudaError::sticky) resets the CPU
/// backend's device, so later cases run clean; on a GPU it marks the context lost
/// (context_lost()), and every later case reports itself not run.
/// `headline`, when not empty, replaces the summary's sentence (a chapter's own explanation).
[[noreturn]] void fail_with_cuda_error(const std::string& what, cudaError_t code, const std::string& headline = "");

/// After `code` came back from a call of `what`: when it is sticky, resets the CPU backend's
/// device (later cases run clean) or, on a GPU, marks the context lost. Returns the sentence to
/// add to the failure ("the CUDA context is unusable after ..."), or "".
std::string recover_from(const std::string& what, cudaError_t code);

/// The one-sentence form of `code` for the summary (see fail_with_cuda_error()): the CPU
/// backend's fault sentence, or the error's name and its usual cause.
std::string cuda_error_headline(const std::string& what, cudaError_t code);

#ifdef WB_EMU
/// A CPU-backend fault (wb_emu::last_fault()) as the summary's one sentence: "kernel fault in K:
/// <sentence>", the sentence being the first line of the fault's explanation (its text, as
/// printed, is "...: error: kernel fault in K, launched here with ...; in block (...):\n
/// <sentence>\n  <detail>..."). Made from the record's fields: nothing parses the text.
std::string fault_headline(const wb_emu::Fault& fault);
#endif

}  // namespace wb
